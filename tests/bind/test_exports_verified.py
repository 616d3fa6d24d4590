"""What the tools say exists, exists: the `compiled ... (K exported: ...)`
line and the metadata list what the object or library defines (an export of
another architecture's `#[cfg]` is not in it), and the loader and the
generated Python and PyTorch modules refuse metadata listing a function the
library lacks, naming it, before returning any callable."""
from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

import pytest

from ea_compiler import loader

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
PYTHON = ROOT / ".venv" / "bin" / "python"

CFG = """#[cfg(aarch64)]
export func f(x: i32) -> i32 { return x + 1 }
#[cfg(x86_64)]
export func g(x: i32) -> i32 { return x + 2 }
export func h(x: i32) -> i32 { return x * 3 }
"""
HOST = "f" if platform.machine().lower().startswith(("aarch64", "arm")) else "g"
TRIPLES = {"f": "aarch64-unknown-linux-gnu", "g": "x86_64-unknown-linux-gnu"}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EA_LIBRARY_") and k != "PYTHONPATH"}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def ok(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = run(cmd, cwd)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout}\n{done.stderr}"
    return done


def defined_functions(path: Path) -> list[str]:
    """Global functions an ELF object or library defines (readelf reads every architecture)."""
    out = ok(["readelf", "-sW", "--dyn-syms" if path.suffix == ".so" else "--syms", str(path)], path.parent).stdout
    rows = [line.split() for line in out.splitlines()]
    return sorted({r[7] for r in rows if len(r) >= 8 and r[3] == "FUNC" and r[4] == "GLOBAL" and r[6] != "UND"})


@pytest.mark.parametrize("arch", sorted(TRIPLES))
def test_object_message_lists_what_the_object_defines(tmp_path, arch):
    (tmp_path / "k.ea").write_text(CFG)
    done = ok([str(EA), "k.ea", f"--target-triple={TRIPLES[arch]}"], tmp_path)
    assert done.stderr == f"compiled k.ea -> k.o (object, 2 exported: {arch}, h)\n"
    assert defined_functions(tmp_path / "k.o") == [arch, "h"]


def test_library_message_and_metadata_list_what_the_library_exports(tmp_path):
    (tmp_path / "k.ea").write_text(CFG)
    done = ok([str(EA), "k.ea", "--lib"], tmp_path)
    assert done.stderr == f"compiled k.ea -> k.so (shared library, 2 exported: {HOST}, h)\nwrote k.ea.json\n"
    assert defined_functions(tmp_path / "k.so") == ["PyInit_k", HOST, "h"]
    meta = json.loads((tmp_path / "k.ea.json").read_text())
    assert [e["name"] for e in meta["exports"]] == [HOST, "h"]
    code = "import k; print(k.__all__, k.h(2))"
    assert ok([str(PYTHON), "-c", code], tmp_path).stdout == f"['{HOST}', 'h'] 6\n"
    kernel = loader.load(tmp_path / "k.ea")
    assert dir(kernel) == [HOST, "h"] and kernel.h(3) == 9
    other = "g" if HOST == "f" else "f"
    with pytest.raises(AttributeError) as err:
        getattr(kernel, other)
    arch = "x86_64" if other == "g" else "aarch64"
    assert str(err.value) == (f"'k.ea' has no exported function '{other}': '{other}' is compiled only for {arch} "
                              f"(`#[cfg({arch})]`), and this target is {'aarch64' if other == 'g' else 'x86_64'}")


def stale_bindings(tmp_path: Path, flag: str) -> Path:
    """A library in build/, and bindings from metadata that also lists `gone`."""
    (tmp_path / "k.ea").write_text(CFG)
    (tmp_path / "build").mkdir()
    ok([str(EA), "k.ea", "--lib", "-o", "build/k.so"], tmp_path)
    meta = json.loads((tmp_path / "k.ea.json").read_text())
    meta["exports"].append(dict(meta["exports"][-1], name="gone"))
    (tmp_path / "k.ea.json").write_text(json.dumps(meta))
    ok([str(EA), "bind", "k.ea", flag], tmp_path)
    return tmp_path / "build" / "k.so"


def test_generated_module_refuses_a_library_without_a_listed_function(tmp_path):
    library = stale_bindings(tmp_path, "--python")
    done = run([str(PYTHON), "-c", "import k"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"ImportError: {library} has no symbol 'gone' that k.ea.json lists; recompile with: ea k.ea --lib")


def test_generated_torch_module_refuses_it_too(tmp_path):
    """Checked before anything uses torch: a stand-in `torch` module suffices."""
    library = stale_bindings(tmp_path, "--pytorch")
    (tmp_path / "torch.py").write_text("")
    done = run([str(PYTHON), "-c", "import k_torch"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"ImportError: {library} has no symbol 'gone' that k.ea.json lists; recompile with: ea k.ea --lib")


def test_loader_refuses_a_cache_entry_whose_metadata_lists_more(tmp_path):
    source = tmp_path / "k.ea"
    source.write_text(CFG)
    loader.load(source)
    (meta,) = (tmp_path / loader.CACHE_DIR).glob("*/k-*/k.ea.json")
    data = json.loads(meta.read_text())
    data["exports"].append(dict(data["exports"][-1], name="gone"))
    meta.write_text(json.dumps(data))
    loader._LOADED.clear()
    with pytest.raises(ImportError) as err:
        loader.load(source)
    assert str(err.value) == (f"{meta.parent / 'k.o'} has no symbol 'gone' that k.ea.json beside it lists; "
                              f"clear the cache and load again: ea.clear_cache({str(source)!r})")
    loader.clear_cache(source)
    assert loader.load(source).h(1) == 3
