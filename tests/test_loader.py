"""`ea_compiler.load()` / `compile()` / `clear_cache()` (TOOLCHAIN.md §5 as
adapted here: the cache entry is `__eacache__/<cpu>-<version>/<stem>-<hash>/`,
code runs through LLVM's MCJIT). Results against the module `ea bind
--python` generates, the cache (hits across processes, misses on source and
option changes, concurrent builds), errors, and running with no C compiler.
Sources are copied to tmp_path so no cache lands in the repository."""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import inspect
import json
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import clear_cache, compile, load
from ea_compiler.codegen.target import host_cpu_name
from ea_compiler.loader import CompileError

ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"
PYTHON = ROOT / ".venv" / "bin" / "python"
VERSION = __import__("ea_compiler").__version__
_PINNED: list = []  # every loaded kernel stays alive: see test_dropping_a_kernel_keeps_the_loader_working

SCALE = "export func scale(x: *mut f32, n: i32) {{\n    for i in 0..n {{ x[i] = x[i] * {k} }}\n}}\n"
OUTS = """\
const K: i32 = 3
export func head(x: *f32, n: i32, g: f32, out y: *mut f32 [cap: K + n]) -> f32 {
    for i in 0..K + n { y[i] = g }
    for i in 0..n { y[i] = x[i] * g }
    return g
}
"""
BAD = "export func bad(x: *f32, n: i32) -> f32 {\n    return n\n}\n"


def pload(*args, **kwargs):
    kernel = load(*args, **kwargs)
    _PINNED.append(kernel)
    return kernel


def example(folder: Path, stem: str) -> Path:
    path = folder / f"{stem}.ea"
    path.write_text((ROOT / "examples" / f"{stem}.ea").read_text())
    return path


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("__eacache__/*/*") if not p.name.startswith("."))


def leftovers(folder: Path) -> list[Path]:
    return sorted(folder.glob("__eacache__/*/.building-*"))


def python(code: str, *args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(PYTHON), "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd="/")


# ---- the same results as the generated module -------------------------------------

RNG = np.random.default_rng(3)
F = lambda n: RNG.standard_normal(n).astype(np.float32)  # noqa: E731
U8 = lambda n, hi=256: RNG.integers(0, hi, n, dtype=np.uint8)  # noqa: E731
PARTICLES = np.dtype([("x", "<f4"), ("y", "<f4"), ("vx", "<f4"), ("vy", "<f4")])

CALLS = [
    ("saxpy", "saxpy", lambda: (F(1001), F(1001), 0.75)),
    ("saxpy", "saxpy_parallel", lambda: (F(1001), F(1001), 0.75, 2)),
    ("dot", "dot", lambda: (F(999), F(999))),
    ("reductions", "sum_f32", lambda: (F(1037),)),
    ("reductions", "max_f32", lambda: (F(1037),)),
    ("reductions", "min_f32", lambda: (F(5),)),
    ("particles", "step", lambda: (np.frombuffer(F(4 * 9).tobytes(), dtype=PARTICLES).copy(), 0.5)),
    ("threshold_u8", "threshold", lambda: (U8(777), U8(777), 128)),
    ("normalize_u8", "normalize", lambda: (U8(515), F(515))),
    ("dot_i8", "dot_u8i8", lambda: (U8(1000, 128), U8(1000).view(np.int8))),
    ("fma", "fma_kernel", lambda: (F(333), F(333), F(333), F(333))),
    ("outs", "head", lambda: (F(6), 2.0)),
]


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """stem -> (generated module, loaded kernel)."""
    folder = tmp_path_factory.mktemp("loader_vs_bind")
    stems = sorted({c[0] for c in CALLS})
    for stem in stems:
        if stem == "outs":
            (folder / "outs.ea").write_text(OUTS)
        else:
            example(folder, stem)
    pairs = {}
    for stem in stems:
        for args in ([f"{stem}.ea", "--lib", "-o", f"lib{stem}.so"], ["bind", f"{stem}.ea", "--python"]):
            proc = subprocess.run([str(EA), *args], cwd=folder, capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0, proc.stderr
        spec = importlib.util.spec_from_file_location(f"_ealoadcmp_{stem}", folder / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        pairs[stem] = (module, pload(folder / f"{stem}.ea"))
    return pairs


@pytest.mark.parametrize("stem, func, make", CALLS, ids=[f"{c[0]}.{c[1]}" for c in CALLS])
def test_load_matches_generated_module(both, stem, func, make):
    module, kernel = both[stem]
    args = make()
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = getattr(module, func)(*args)
    got = getattr(kernel, func)(*copies)
    assert same(want, got), (want, got)
    for a, b in zip(args, copies):
        assert same(a, b)


def test_same_names_and_signatures(both):
    for stem, (module, kernel) in both.items():
        assert dir(kernel) == sorted(module.__all__)
        for name in module.__all__:  # (annotations are strings in the loader's functions)
            params = lambda f: [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]  # noqa: E731
            assert params(getattr(kernel, name)) == params(getattr(module, name))
            assert getattr(kernel, name).__doc__ == getattr(module, name).__doc__


def test_repr_and_in_process_reuse(tmp_path):
    path = example(tmp_path, "saxpy")
    k = pload(path)
    assert repr(k) == "<ea.Kernel 'saxpy' funcs=['saxpy', 'saxpy_parallel']>"
    assert pload(str(path)) is k
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, np.float32)
    k.saxpy(a=0.5, y=y, x=x)  # keywords, any order
    assert y.tolist() == [1.0, 1.5, 2.0, 2.5]
    with pytest.raises(TypeError):
        k.saxpy(x, y)  # `a` missing


# ---- the cache ----------------------------------------------------------------------

def stamps(entry: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in [entry, *entry.iterdir()]}


TIMED_LOAD = """\
import sys, time
import numpy as np
if sys.argv[2] == "warm":
    import ea_compiler.build
    def refuse(*a, **k):
        raise AssertionError("recompiled on a cache hit")
    ea_compiler.build.compile_source = refuse
from ea_compiler import load
t = time.perf_counter()
k = load(sys.argv[1])
dt = time.perf_counter() - t
x = np.arange(10, dtype=np.float32); y = np.ones(10, np.float32)
k.saxpy(x, y, 2.0)
print(dt, y.tolist() == [1.0 + 2 * i for i in range(10)])
"""


def test_cache_hit_in_a_fresh_process(tmp_path):
    path = example(tmp_path, "saxpy")
    cold = python(TIMED_LOAD, str(path), "cold")
    assert cold.returncode == 0, cold.stderr
    [entry] = entries(tmp_path)
    assert entry.parent.name == f"{host_cpu_name()}-{VERSION}"  # the CPU `native` stands for
    assert entry.name.startswith("saxpy-") and {"saxpy.o", "saxpy.ea.json"} <= {p.name for p in entry.iterdir()}
    before = stamps(entry)
    time.sleep(0.05)
    warm = python(TIMED_LOAD, str(path), "warm")
    assert warm.returncode == 0, warm.stderr
    _, cold_ok = cold.stdout.split()
    _, warm_ok = warm.stdout.split()
    assert cold_ok == warm_ok == "True"  # and the warm load compiled nothing (it would have raised)
    assert stamps(entry) == before and entries(tmp_path) == [entry]


def test_cache_miss_on_source_change(tmp_path):
    path = tmp_path / "scale.ea"
    path.write_text(SCALE.format(k="2.0"))
    x = np.ones(5, np.float32)
    pload(path).scale(x)
    assert x.tolist() == [2.0] * 5 and len(entries(tmp_path)) == 1
    path.write_text(SCALE.format(k="3.0"))
    pload(path).scale(x)
    assert x.tolist() == [6.0] * 5 and len(entries(tmp_path)) == 2
    path.write_text(SCALE.format(k="2.0"))  # back: the first entry is reused
    first = entries(tmp_path)
    pload(path).scale(x)
    assert x.tolist() == [12.0] * 5 and entries(tmp_path) == first


def test_cache_miss_on_option_change(tmp_path):
    path = tmp_path / "scale.ea"
    path.write_text(SCALE.format(k="2.0"))
    seen = []
    for options in ({}, {"opt_level": 1}, {"avx512": True}, {"target": "x86-64"}):
        if options.get("avx512"):  # compiled, not run: this CPU may lack AVX-512
            compile(path, lib=False, **options)
        else:
            x = np.arange(20, dtype=np.float32)
            pload(path, **options).scale(x)
            assert x.tolist() == [2.0 * i for i in range(20)]
        new = [e for e in entries(tmp_path) if e not in seen]
        assert len(new) == 1, options
        seen += new
    assert len({e.parent for e in seen}) == 2 and seen[-1].parent.name == f"x86-64-{VERSION}"
    pload(path, opt_level=1)
    assert entries(tmp_path) == sorted(seen)


def test_clear_cache_file_folder_and_cwd(tmp_path, monkeypatch):
    folders = [tmp_path / name for name in ("a", "b", "c")]
    for folder in folders:
        folder.mkdir()
        pload(example(folder, "saxpy"))
        assert entries(folder)
    clear_cache(folders[0] / "saxpy.ea")
    assert not (folders[0] / "__eacache__").exists() and entries(folders[1]) and entries(folders[2])
    clear_cache(folders[1])
    assert not (folders[1] / "__eacache__").exists() and entries(folders[2])
    monkeypatch.chdir(folders[2])
    clear_cache()
    assert not (folders[2] / "__eacache__").exists()
    clear_cache()  # nothing to delete
    k = pload(folders[0] / "saxpy.ea")  # rebuilt after clearing
    assert len(entries(folders[0])) == 1 and k.saxpy is not None


def test_dropping_a_kernel_keeps_the_loader_working(tmp_path):
    """A kernel the program no longer holds is freed after clear_cache(); the
    next load must still work (MCJIT takes ownership of the target machine
    it is given, so that machine must not be one shared with later builds)."""
    example(tmp_path, "saxpy")
    (tmp_path / "scale.ea").write_text(SCALE.format(k="2.0"))
    code = ("import gc, sys, numpy as np\nfrom ea_compiler import load, clear_cache\n"
            "load(sys.argv[1] + '/saxpy.ea')\nclear_cache(sys.argv[1])\ngc.collect()\n"
            "k = load(sys.argv[1] + '/scale.ea')\nx = np.ones(4, np.float32)\nk.scale(x)\nprint(x.tolist())")
    proc = python(code, str(tmp_path))
    assert (proc.returncode, proc.stdout) == (0, "[2.0, 2.0, 2.0, 2.0]\n"), proc.stderr[-500:]


CONCURRENT = """\
import hashlib, sys, time
from pathlib import Path
import numpy as np
from ea_compiler import load
Path(sys.argv[3]).touch()
while not Path(sys.argv[2]).exists():
    time.sleep(0.001)
k = load(sys.argv[1])
x = np.arange(4096, dtype=np.float32); y = np.full(4096, 0.5, np.float32)
k.saxpy(x, y, 0.25)
print(hashlib.sha256(y.tobytes()).hexdigest())
"""


def test_concurrent_loads_of_a_fresh_kernel(tmp_path):
    path = example(tmp_path, "saxpy")
    go = tmp_path / "go"
    procs = [subprocess.Popen([str(PYTHON), "-c", CONCURRENT, str(path), str(go), str(tmp_path / f"ready{i}")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd="/")
             for i in range(4)]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready{i}").exists() for i in range(4)) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    results = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [r[1][-500:] for r in results]
    y = np.float32(0.25) * np.arange(4096, dtype=np.float32) + np.float32(0.5)
    assert {r[0] for r in results} == {hashlib.sha256(y.tobytes()).hexdigest() + "\n"}
    assert len(entries(tmp_path)) == 1 and leftovers(tmp_path) == []


# ---- errors ---------------------------------------------------------------------------

def test_compile_error_carries_the_diagnostic(tmp_path):
    path = tmp_path / "bad.ea"
    path.write_text(BAD)
    for call in (load, compile):
        with pytest.raises(CompileError) as info:
            call(path)
        assert isinstance(info.value, RuntimeError)
        assert str(info.value) == f"Compilation failed: bad.ea\n{info.value.stderr.rstrip()}"  # the diagnostics too
        assert "error[type]: function 'bad' returns i32 but expected f32" in info.value.stderr
        assert "bad.ea:2:12" in info.value.stderr and info.value.exit_code != 0
    assert entries(tmp_path) == [] and leftovers(tmp_path) == []
    path.write_text(BAD.replace("return n", "return to_f32(n)"))  # fixed: loads
    assert pload(path).bad(np.zeros(6, np.float32)) == 6.0


def test_missing_source(tmp_path):
    for call in (load, compile):
        with pytest.raises(FileNotFoundError):
            call(tmp_path / "nope.ea")
    assert not (tmp_path / "__eacache__").exists()


# ---- compile() and running without a C compiler -------------------------------------------

def test_compile_artefacts(tmp_path):
    path = example(tmp_path, "saxpy")
    lib = compile(path)
    assert lib.name == "saxpy.so" and lib.parent in entries(tmp_path)
    stamp = lib.stat().st_mtime_ns
    assert compile(path) == lib and lib.stat().st_mtime_ns == stamp  # cached, not relinked
    so = ctypes.CDLL(str(lib))
    so.saxpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float, ctypes.c_int32]
    x = np.arange(9, dtype=np.float32)
    y = np.ones(9, np.float32)
    so.saxpy(x.ctypes.data, y.ctypes.data, 2.0, 9)
    assert y.tolist() == [1.0 + 2 * i for i in range(9)]
    obj = compile(path, lib=False)
    assert obj.suffix == ".o" and obj.read_bytes()[:4] == b"\x7fELF"
    assert "saxpy" in compile(path, emit_asm=True).read_text()
    assert "define" in compile(path, emit_llvm=True).read_text()


NO_CC = """\
import json, shutil, sys
import numpy as np
from ea_compiler import load, compile
from ea_compiler.codegen.target import host_cpu_name
from ea_compiler.loader import CompileError
out = {"which": [shutil.which(c) for c in ("cc", "gcc", "clang")]}
k = load(sys.argv[1])
x = np.arange(16, dtype=np.float32); y = np.ones(16, np.float32)
k.saxpy(x, y, 3.0)
out["y"] = y.tolist()
obj = compile(sys.argv[1], lib=False)
out["obj"] = [obj.suffix, obj.exists()]
try:
    compile(sys.argv[1])
    out["lib"] = "no error"
except CompileError as err:
    out["lib"] = [str(err), err.stderr]
print(json.dumps(out))
"""


def test_load_needs_no_c_compiler(tmp_path):
    path = example(tmp_path, "saxpy")
    env = {"PATH": "/nonexistent", "CC": "/nonexistent/cc", "HOME": str(tmp_path)}
    proc = python(NO_CC, str(path), env=env)
    assert proc.returncode == 0, proc.stderr[-800:]
    out = json.loads(proc.stdout)
    assert out["which"] == [None, None, None]
    assert out["y"] == [1.0 + 3 * i for i in range(16)]
    assert out["obj"] == [".o", True]
    message, stderr = out["lib"]
    assert message.startswith("Compilation failed: saxpy.ea\nerror[codegen]: linking the shared library failed")
    assert "/nonexistent/cc" in stderr and stderr in message
    assert not list(tmp_path.glob("__eacache__/*/*/*.so"))


def test_an_export_passing_a_vector_by_value_is_named_not_a_load_failure(tmp_path):
    path = tmp_path / "vec.ea"
    path.write_text("export func addv(a: f32x4, b: f32x4) -> f32x4 {\n    return a .+ b\n}\n"
                    "export func twice(x: *mut f32, n: i32) {\n    for i in 0..n { x[i] = x[i] * 2.0 }\n}\n")
    k = pload(path)
    x = np.ones(3, np.float32)
    k.twice(x)
    assert x.tolist() == [2.0] * 3
    with pytest.raises(AttributeError) as err:
        k.addv
    assert str(err.value) == ("'vec.ea' exports 'addv', but it takes or returns f32x4 by value, which Python "
                              "cannot pass; call it from Eä or C")
