"""The light paths of `ea` stay light: every process pays for what it imports
(a build script runs `ea` once per file), so each command imports only what
it needs. Each case runs in a fresh interpreter and lists the modules it
loaded; the timings are bench/compile_bench.py's."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
SAXPY = ROOT / "examples" / "saxpy.ea"

# Run `code` (which may set `code_`), then print the loaded module names on the last line.
PROBE = """
import sys
{code}
print(repr(sorted(sys.modules)))
"""

HEAVY = ("llvmlite", "numpy", "textual", "rich", "pygls")


def loaded(code: str, cwd: Path) -> set[str]:
    proc = subprocess.run([str(PYTHON), "-c", PROBE.format(code=code)], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(ast.literal_eval(proc.stdout.splitlines()[-1]))


def cli(*args: str) -> str:
    return f"from ea_compiler.cli.main import main\ncode_ = main({list(args)!r})\nassert code_ == 0, code_"


def tops(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    shutil.copy(SAXPY, tmp_path / "k.ea")
    return tmp_path


@pytest.mark.parametrize("args", [("--version",), ("-V",), ("--help",)])
def test_version_and_help_import_no_compiler(work, args):
    mods = loaded(cli(*args), work)
    ours = {m for m in mods if m.startswith("ea_compiler")}
    assert ours == {"ea_compiler", "ea_compiler.cli", "ea_compiler.cli.main", "ea_compiler.version"}
    assert not tops(mods) & set(HEAVY)
    assert "dataclasses" not in mods


def test_check_loads_no_llvm(work):
    mods = loaded(cli("check", "k.ea"), work)
    assert "ea_compiler.analysis" in mods  # the probe did check
    assert not tops(mods) & set(HEAVY)
    assert not {"ea_compiler.codegen", "ea_compiler.build", "subprocess", "json"} & mods


@pytest.mark.parametrize("flag", ["--emit-tokens", "--emit-ast"])
def test_front_end_dumps_load_no_llvm(work, flag):
    mods = loaded(cli("k.ea", flag), work)
    assert "ea_compiler.syntax.lexer" in mods
    assert not tops(mods) & set(HEAVY)


def test_object_build_loads_llvm_only(work):
    mods = loaded(cli("k.ea"), work)
    assert (work / "k.o").is_file()
    assert "llvmlite" in tops(mods)
    assert not tops(mods) & {"numpy", "textual", "rich", "pygls"}
    # nothing is linked (llvmlite itself imports tempfile), no metadata, header or report written
    assert not {"subprocess", "json", "ea_compiler.outputs.metadata", "ea_compiler.outputs.header",
                "ea_compiler.inspect", "ea_compiler.loader"} & mods


def test_library_build_loads_no_numpy(work):
    mods = loaded(cli("k.ea", "--lib"), work)
    assert (work / "k.so").is_file()
    assert not tops(mods) & {"numpy", "textual", "rich", "pygls"}


def test_import_ea_loads_no_llvm_or_numpy(work):
    # ea/__init__.py promises it: llvmlite and NumPy come with the first load()
    mods = loaded("import ea", work)
    assert not tops(mods) & set(HEAVY)


def test_import_ea_compiler_loads_only_the_package(work):
    mods = loaded("import ea_compiler", work)
    assert {m for m in mods if m.startswith("ea_compiler")} == {"ea_compiler", "ea_compiler.version"}


def test_lazy_package_names_resolve(work):
    # each public name of the package still imports, and `render` is the function, as before
    code = ("import ea_compiler, ea_compiler.render\n"
            "from ea_compiler import (Analysis, Diagnostic, Label, Options, SourceFile, Span, Suggestion,\n"
            "    analyze, render, render_all)\n"
            "assert callable(render) and render.__name__ == 'render', render\n"
            "assert analyze(b'func f() {}', 'k.ea', Options()).errors == []\n"
            "assert set(ea_compiler.__all__) <= set(dir(ea_compiler))\n"
            "try:\n    ea_compiler.nonexistent\nexcept AttributeError:\n    pass\n"
            "else:\n    raise SystemExit('no AttributeError')")
    mods = loaded(code, work)
    assert "llvmlite" not in tops(mods)


def test_probe_can_fail(work):
    # the probe sees what a command imports: --print-target needs LLVM
    mods = loaded(cli("--print-target"), work)
    assert "llvmlite" in tops(mods)
    assert sys.executable  # the probe ran in its own interpreter, not this one
