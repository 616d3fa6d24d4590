"""`import ea` (TOOLCHAIN.md §5): the founding article's example verbatim in a
fresh process, the API surface, lazy imports, CompileError text, compiler
warnings through Python's `warnings`, and files without `export`."""
from __future__ import annotations

import json
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import ea

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"

FMA = """\
// out = a * b + c, eight lanes per step
export kernel fma_f32x8(a: *f32, b: *f32, c: *f32, out: *mut f32)
    over i in n step 8
    tail scalar { out[i] = a[i] * b[i] + c[i] }
{
    store(out, i, fma(load_f32x8(a, i), load_f32x8(b, i), load_f32x8(c, i)))
}
"""

ARTICLE = """\
import numpy as np
import ea
k = ea.load("fma.ea")
a = np.arange(1000, dtype=np.float32)
b = np.full(1000, 2.0, dtype=np.float32)
c = np.ones(1000, dtype=np.float32)
out = np.empty(1000, dtype=np.float32)
k.fma_f32x8(a, b, c, out)
print(repr(k), bool(np.array_equal(out, a * b + c)))
"""


def run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(PYTHON), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_articles_example_verbatim(tmp_path):
    (tmp_path / "fma.ea").write_text(FMA)
    for _ in range(2):  # compiled, then from the cache
        done = run(ARTICLE, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "<ea.Kernel 'fma' funcs=['fma_f32x8', 'fma_f32x8_parallel']> True\n"
    assert list(tmp_path.glob("__eacache__/*/fma-*/fma.o"))


def test_import_ea_loads_no_heavy_module(tmp_path):
    done = run("import sys, ea\nprint(sorted(m for m in ('llvmlite', 'numpy', 'textual', 'torch') "
               "if m in sys.modules))", tmp_path)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


def test_api_surface():
    assert ea.__version__ == ea.compiler_version() == "0.1.0"
    assert issubclass(ea.CompileError, RuntimeError) and issubclass(ea.CompileWarning, UserWarning)
    for name in ("load", "compile", "clear_cache", "compiler_version"):
        assert callable(getattr(ea, name)), name
    import ea_compiler.loader
    assert ea.load is ea_compiler.loader.load and ea.CompileError is ea_compiler.loader.CompileError


def test_compile_error_text_holds_the_diagnostics(tmp_path):
    path = tmp_path / "bad.ea"
    path.write_text("export func f(x: i32) -> i32 {\n    return y\n}\n")
    with pytest.raises(ea.CompileError) as info:
        ea.load(path)
    err = info.value
    assert err.exit_code == 1 and "error[type]: undefined variable 'y'" in err.stderr
    assert str(err) == f"Compilation failed: bad.ea\n{err.stderr.rstrip()}"
    assert f"{path}:2:12" in str(err)


WARNS = """\
export func f(a: *u8, b: *u8, out: *mut u8) {
    store(out, 0, sat_add(load_u8x16(a, 0), load_u8x16(b, 0)))
}
"""


def test_compiler_warnings_reach_python_warnings(tmp_path):
    """Also when the build comes from the cache (a second process)."""
    (tmp_path / "w.ea").write_text(WARNS)
    code = ("import warnings, json, ea\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as got:\n    k = ea.load('w.ea')\n"
            "print(json.dumps([[w.category.__name__, str(w.message), w.filename] for w in got]))")
    for _ in range(2):
        done = run(code, tmp_path)
        assert done.returncode == 0, done.stderr
        [[category, message, filename]] = json.loads(done.stdout)
        assert category == "CompileWarning" and filename == "<string>"  # points at the caller
        assert message.startswith(f"{tmp_path / 'w.ea'}:2:19  warning[type]: intrinsic 'sat_add' is deprecated")
        assert "sat_add(load_u8x16(a, 0)" in message  # the rendered source line
    done = run("import warnings, ea\nwarnings.simplefilter('error')\nea.compile('w.ea', lib=False)", tmp_path)
    assert done.returncode == 1  # ea.compile() warns too: an error under `simplefilter('error')`
    assert "CompileWarning: " in done.stderr and "'sat_add' is deprecated" in done.stderr


def test_a_file_without_export(tmp_path):
    path = tmp_path / "k.ea"
    path.write_text("func scale(x: f32) -> f32 {\n    return x * 2.0\n}\n")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        k = ea.load(path)
    assert [(w.category, str(w.message)) for w in got] == [
        (ea.CompileWarning, "'k.ea' exports no function: nothing can be called from Python; "
                            "add `export` before the functions to call")]
    assert repr(k) == "<ea.Kernel 'k' funcs=[]>"
    with pytest.raises(AttributeError) as info:
        k.scale
    assert str(info.value) == ("'k.ea' has no exported function 'scale': 'scale' is defined but not exported; "
                               "add `export` before its `func`/`kernel`")
    with pytest.raises(AttributeError) as info:
        k.other
    assert str(info.value) == "'k.ea' has no exported function 'other': the file exports nothing"


def test_missing_function_lists_the_exports(tmp_path):
    (tmp_path / "fma.ea").write_text(FMA)
    k = ea.load(tmp_path / "fma.ea")
    with pytest.raises(AttributeError) as info:
        k.fma
    assert str(info.value) == "'fma.ea' has no exported function 'fma': exported: fma_f32x8, fma_f32x8_parallel"
    assert not hasattr(k, "__wrapped__")  # dunder probes stay plain AttributeErrors


def test_outputs_are_64_byte_aligned(tmp_path):
    (tmp_path / "o.ea").write_text("export func ramp(x: *f32, n: i32, out y: *mut f32 [cap: n]) {\n"
                                   "    for i in 0..n { y[i] = x[i] + 1.0 }\n}\n")
    k = ea.load(tmp_path / "o.ea")
    for size in (1, 3, 17, 1000):
        y = k.ramp(np.zeros(size, np.float32))
        assert y.ctypes.data % 64 == 0 and y.shape == (size,) and (y == 1.0).all()
