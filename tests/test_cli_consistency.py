"""One command line (issue 11 §5): every subcommand answers -h/--help (usage on
stderr, exit 0) and is listed in `ea --help`; `--opt value` and `--opt=value`
mean the same everywhere; `check`, `bind` and `inspect` take several files and
directories; `ea-tui --version`; the assembly and IR name the source file."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from ea_compiler import __version__
from ea_compiler.bench.harness import _parse_args
from ea_compiler.cli.bench_cmd import _parse

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / ".venv" / "bin"
GOOD = (ROOT / "examples" / "saxpy.ea").read_text()
DOT = (ROOT / "examples" / "dot.ea").read_text()
BAD = "export func f(count: i32) -> i32 {\n    return cuont\n}\n"


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "ea"), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, EA_DEBUG="1"))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ---- --help ----------------------------------------------------------------------

@pytest.mark.parametrize("args, first", [
    (["--help"], "usage: ea <file.ea> [options]"),
    (["k.ea", "--help"], "usage: ea <file.ea> [options]"),
    (["k.ea", "--lib", "-h"], "usage: ea <file.ea> [options]"),
    (["check", "--help"], "usage: ea check <file.ea|dir>..."),
    (["check", "k.ea", "-h"], "usage: ea check <file.ea|dir>..."),
    (["bind", "--help"], "usage: ea bind <file.ea|dir>..."),
    (["bind", "k.ea", "--python", "-h"], "usage: ea bind <file.ea|dir>..."),
    (["inspect", "-h"], "usage: ea inspect <file.ea>"),
    (["inspect", "k.ea", "--json", "--help"], "usage: ea inspect <file.ea>"),
    (["bench", "--help"], "usage: ea bench <suite.bench.toml"),
    (["bench", "k.ea", "--quick", "-h"], "usage: ea bench <suite.bench.toml"),
])
def test_every_subcommand_answers_help(tmp_path, args, first):
    write(tmp_path, "k.ea", GOOD)
    r = ea(*args, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, ""), r.stderr
    assert r.stderr.splitlines()[0].startswith(first), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.ea"]  # help does nothing else


def test_top_level_help_lists_every_subcommand(tmp_path):
    usage = ea("--help", cwd=tmp_path).stderr
    for command in ("check", "bind", "inspect", "bench"):
        assert re.search(rf"^\s+ea {command} <", usage, re.M), command
    assert "ea <command> --help" in usage


def test_ea_tui_version(tmp_path):
    for flag in ("--version", "-V"):
        r = subprocess.run([str(BIN / "ea-tui"), flag], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert (r.returncode, r.stdout, r.stderr) == (0, f"ea-tui {__version__}\n", "")


# ---- --opt value and --opt=value ----------------------------------------------------

@pytest.mark.parametrize("spaced, joined", [
    (["--emit-llvm", "--opt-level", "0"], ["--emit-llvm", "--opt-level=0"]),
    (["--emit-asm", "--target", "znver4", "-o", "out.s"], ["--emit-asm", "--target=znver4", "-o", "out.s"]),
    (["--emit-asm", "--target-triple", "aarch64-unknown-linux-gnu", "--opt-level", "1", "-o", "out.s"],
     ["--emit-asm", "--target-triple=aarch64-unknown-linux-gnu", "--opt-level=1", "-o", "out.s"]),
])
def test_compile_options_in_both_spellings(tmp_path, spaced, joined):
    write(tmp_path, "k.ea", "export func f(x: f32) -> f32 { return x * 2.0 }\n")
    outputs = []
    for args in (spaced, joined):
        r = ea("k.ea", *args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        written = tmp_path / ("out.s" if "-o" in args else "k.ll")
        outputs.append((r.stdout, written.read_text()))
    assert outputs[0] == outputs[1]
    if "--target-triple" in spaced:  # the option took effect
        assert "%xmm" not in outputs[0][1] and "s0" in outputs[0][1]


@pytest.mark.parametrize("spaced, joined", [
    (["--format", "json"], ["--format=json"]),
    (["-f", "json", "--target-triple", "aarch64-unknown-linux-gnu"],
     ["-f=json", "--target-triple=aarch64-unknown-linux-gnu"]),
    (["--target", "haswell", "--opt-level", "2"], ["--target=haswell", "--opt-level=2"]),
])
def test_check_options_in_both_spellings(tmp_path, spaced, joined):
    write(tmp_path, "dot.ea", DOT)
    a, b = ea("check", "dot.ea", *spaced, cwd=tmp_path), ea("check", "dot.ea", *joined, cwd=tmp_path)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    if "aarch64-unknown-linux-gnu" in spaced:  # the option took effect: f32x8 is refused on ARM
        assert a.returncode == 1 and "f32x8 requires AVX2" in a.stdout


def test_inspect_options_in_both_spellings(tmp_path):
    write(tmp_path, "dot.ea", DOT)
    a = ea("inspect", "dot.ea", "--json", "--bandwidth", "20", "--target", "haswell", "--opt-level", "2", cwd=tmp_path)
    b = ea("inspect", "dot.ea", "--json", "--bandwidth=20", "--target=haswell", "--opt-level=2", cwd=tmp_path)
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout) == json.loads(b.stdout)
    assert "haswell" in json.loads(a.stdout)["target"]


def test_bench_options_in_both_spellings():
    spaced = _parse(["s.bench.toml", "--target", "haswell", "--opt-level", "2", "--reps", "3", "--sizes", "4K",
                     "--bench", "fma", "--out", "r.json", "--baseline", "b.json"])
    joined = _parse(["s.bench.toml", "--target=haswell", "--opt-level=2", "--reps=3", "--sizes=4K",
                     "--bench=fma", "--out=r.json", "--baseline=b.json"])
    assert spaced == joined
    assert (spaced.options.target_cpu, spaced.options.opt_level, spaced.reps, spaced.sizes) == ("haswell", 2, 3, [4096])
    harness_spaced = _parse_args(["--target", "haswell", "--opt-level", "1", "--out", "r.json"])
    harness_joined = _parse_args(["--target=haswell", "--opt-level=1", "--out=r.json"])
    assert harness_spaced == harness_joined
    assert harness_spaced.forwarded == ["--target=haswell", "--opt-level=1"] and harness_spaced.out == "r.json"


@pytest.mark.parametrize("args", [["k.ea", "--target"], ["check", "k.ea", "--opt-level"],
                                  ["inspect", "k.ea", "--bandwidth"], ["check", "k.ea", "--format"]])
def test_an_option_without_its_value_is_a_usage_error(tmp_path, args):
    write(tmp_path, "k.ea", GOOD)
    r = ea(*args, cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", f"error: {args[-1]} needs a value\n")


# ---- several files and directories --------------------------------------------------

def test_check_takes_directories(tmp_path):
    write(tmp_path, "src/b.ea", GOOD)
    write(tmp_path, "src/a.ea", DOT)
    write(tmp_path, "src/notes.txt", "not a source")
    write(tmp_path, "bad.ea", BAD)
    (tmp_path / "empty").mkdir()
    r = ea("check", "src", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "checked 2 files: 0 errors, 0 warnings\n")
    r = ea("check", "src", "bad.ea", "empty", "--format", "json", cwd=tmp_path)
    report = json.loads(r.stdout)
    assert r.returncode == 1 and report["errors"] == 2
    assert [f["path"] for f in report["files"]] == ["src/a.ea", "src/b.ea", "bad.ea", "empty"]
    assert report["files"][3]["diagnostics"][0]["message"] == "cannot read 'empty': no .ea files in this directory"
    r = ea("check", "empty", "src", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.splitlines() == ["error: cannot read 'empty': no .ea files in this directory",
                                     "checked 3 files: 1 error, 0 warnings"]


def test_inspect_takes_several_files_and_directories(tmp_path):
    write(tmp_path, "src/b.ea", GOOD)
    write(tmp_path, "src/a.ea", DOT)
    write(tmp_path, "bad.ea", BAD)
    r = ea("inspect", "src", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    headers = [line for line in r.stdout.splitlines() if line.startswith("==> ")]
    assert headers == ["==> src/a.ea <==", "==> src/b.ea <=="]
    assert r.stdout.index("=== dot (exported) ===") < r.stdout.index("==> src/b.ea <==") \
        < r.stdout.index("=== saxpy (exported) ===")
    single = ea("inspect", "src/a.ea", cwd=tmp_path).stdout
    assert single in r.stdout and not single.startswith("==>")  # one file: the spec's layout, unheaded
    r = ea("inspect", "bad.ea", "src/b.ea", cwd=tmp_path)
    assert r.returncode == 1  # the bad file fails, the good one is still reported
    assert "==> bad.ea <==" in r.stdout and "=== saxpy (exported) ===" in r.stdout
    assert "bad.ea:2:12  error[type]" in r.stderr
    r = ea("inspect", "src/b.ea", "bad.ea", "--json", cwd=tmp_path)
    files = json.loads(r.stdout)["files"]
    assert r.returncode == 1 and [f["path"] for f in files] == ["src/b.ea", "bad.ea"]
    assert files[0]["functions"][0]["name"] == "saxpy" and files[1]["diagnostics"][0]["kind"] == "type"


def test_bind_takes_several_files_and_directories(tmp_path):
    write(tmp_path, "src/b.ea", GOOD)
    write(tmp_path, "src/a.ea", DOT)
    write(tmp_path, "src/c.ea", "export func twice(x: i32) -> i32 { return x * 2 }\n")
    for name in ("a", "b"):
        assert ea(f"src/{name}.ea", "--lib", "-o", f"lib{name}.so", cwd=tmp_path).returncode == 0
    r = ea("bind", "src", "--python", cwd=tmp_path)
    assert r.returncode == 1  # c.ea was never compiled; a and b still get their bindings
    assert r.stderr.splitlines() == [
        "==> src/a.ea <==", "wrote a.py", "",
        "==> src/b.ea <==", "wrote b.py", "",
        "==> src/c.ea <==",
        "error: cannot read 'src/c.ea.json': No such file or directory",
        "hint: compile with --lib first to generate JSON metadata: ea src/c.ea --lib"]
    assert (tmp_path / "a.py").is_file() and (tmp_path / "b.py").is_file()
    r = ea("bind", "src/a.ea", "src/b.ea", "--rust", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "a.rs").is_file() and (tmp_path / "b.rs").is_file()
    r = ea("bind", "src/a.ea", "src/b.ea", "--cmake", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (1, "error: --cmake writes one CMakeLists.txt: give it one source file\n")
    r = ea("bind", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("usage: ea bind")


# ---- the source file's name in the outputs --------------------------------------------

def test_assembly_and_ir_name_the_source_file(tmp_path):
    write(tmp_path, "src/k.ea", GOOD)
    r = ea("src/k.ea", "--emit-asm", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    asm = (tmp_path / "k.s").read_text()
    # LLVM writes the file name without its directory, as C compilers do; debug info has both
    assert asm.startswith('\t.file\t"k.ea"\n') and "<string>" not in asm
    ir = ea("src/k.ea", "--emit-llvm", "--opt-level", "0", cwd=tmp_path).stdout
    assert ir.splitlines()[:2] == ["; ModuleID = 'ea_module'", 'source_filename = "src/k.ea"']
    odd = write(tmp_path, 'we"ird é.ea', GOOD)
    r = ea(odd.name, "--emit-asm", "-o", "odd.s", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert '.file\t"we\\"ird \\303\\251.ea"' in (tmp_path / "odd.s").read_text()
