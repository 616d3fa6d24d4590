"""`load()`'s fast calls (compiler/loader_fast.py): entry points LLVM emits as
CPython functions. The fast path is taken for plain kernels, every check
raises what the generated binding's function (the ctypes path) raises,
results are equal, nothing leaks, threads may call at once, and the
exports it cannot serve keep the ctypes path."""
from __future__ import annotations

import gc
import inspect
import sys
import threading
import tracemalloc
import types
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import clear_cache, load
from ea_compiler.loader_fast import RELEASE_GIL_AT

ROOT = Path(__file__).resolve().parents[1]
MIXED = """\
export func count_above(x: *f64, n: i32, t: f64) -> i32 {
    let mut c: i32 = 0
    for i in 0..n {
        if x[i] > t { c = c + 1 }
    }
    return c
}

export func add_k(x: *mut i64, k: i64, n: i64) {
    let mut i: i64 = 0
    while i < n {
        x[i] = x[i] + k
        i = i + 1
    }
}

export func sum_u32(x: *u32, n: u32) -> u64 {
    let mut s: u64 = 0
    let mut i: u32 = 0
    while i < n {
        s = s + to_u64(x[i])
        i = i + 1
    }
    return s
}

export func scale_by(x: *mut f32, k: i32, n: i32) {
    for i in 0..n { x[i] = x[i] * to_f32(k) }
}

export func answer() -> i32 {
    return 42
}

export func small(a: i8, b: u16) -> i16 {
    return to_i16(a) - to_i16(b)
}

export func first(x: *f32, n: i32, out y: *mut f32 [cap: n]) {
    for i in 0..n { y[i] = x[i] }
}
"""


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fastcall")
    for stem in ("saxpy", "dot", "threshold_u8", "particles"):
        (folder / f"{stem}.ea").write_text((ROOT / "examples" / f"{stem}.ea").read_text())
    (folder / "mixed.ea").write_text(MIXED)
    loaded = {stem: load(folder / f"{stem}.ea") for stem in ("saxpy", "dot", "threshold_u8", "particles", "mixed")}
    yield loaded
    clear_cache(folder)


def slow(fast):
    """The generated binding's function behind a fast one (the ctypes path)."""
    return fast.__self__.binding


def f32(n, start=0.0):
    return np.arange(start, start + n, dtype=np.float32)


def outcome(fn, args, kwargs):
    """(result, arrays after) or (exception type, message), on copies of the arrays."""
    copies = [a.copy() if isinstance(a, np.ndarray) and a.flags.writeable else a for a in args]
    try:
        result = fn(*copies, **kwargs)
    except Exception as err:  # noqa: BLE001 - compared by type and message
        return type(err), str(err)
    return result, [a.tolist() for a in copies if isinstance(a, np.ndarray)]


def test_the_fast_path_is_taken_for_plain_kernels(kernels, monkeypatch):
    k = kernels["saxpy"]
    assert isinstance(k.saxpy, types.BuiltinFunctionType)
    assert repr(k.saxpy) == "<built-in function saxpy>"
    # the binding's function calls the kernel through `_lib`: break it, the fast path does not use it
    monkeypatch.setitem(slow(k.saxpy).__globals__, "_lib", None)
    x, y = f32(100), np.ones(100, np.float32)
    assert k.saxpy(x, y, 2.0) is None
    assert y.tolist() == (2 * f32(100) + 1).tolist()
    assert kernels["dot"].dot(x, x) == pytest.approx(float(np.dot(x.astype(np.float64), x)))
    k.saxpy(x, a=1.0, y=y)  # named arguments too
    k.saxpy(**{"y": y, "x": x, "a": 1.0})
    assert y.tolist() == (4 * f32(100) + 1).tolist()
    with pytest.raises(AttributeError):  # a length given by keyword takes the binding's path
        k.saxpy(x, y, 2.0, n=3)


def test_exports_it_cannot_serve_keep_the_ctypes_path(kernels):
    k = kernels["mixed"]
    assert isinstance(k.first, types.FunctionType)  # an allocated output
    assert isinstance(kernels["particles"].step, types.FunctionType)  # a struct
    assert isinstance(k.count_above_parallel, types.FunctionType)
    assert k.first(f32(4)).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_signature_and_doc_are_the_bindings(kernels):
    for k in kernels.values():
        for name in k._names:
            fast = getattr(k, name)
            if isinstance(fast, types.BuiltinFunctionType):
                params = [(p.name, p.kind, p.default) for p in inspect.signature(fast).parameters.values()]
                assert params == [(p.name, p.kind, p.default)
                                  for p in inspect.signature(slow(fast)).parameters.values()]
                assert fast.__doc__ == slow(fast).__doc__ and fast.__name__ == name


BIG = np.ones(10, np.float32).astype(">f4")
UNALIGNED = np.frombuffer(bytearray(44), dtype=np.uint8)[1:41].view(np.float32)


class Sub(np.ndarray):
    pass


READ_ONLY = np.ones(10, np.float32)
READ_ONLY.flags.writeable = False
CASES = [  # (kernel, function, args, kwargs): each compared with the binding's function
    ("saxpy", "saxpy", (f32(10), f32(10, 5), 2.0), {}),
    ("saxpy", "saxpy", (f32(10), f32(10, 5), 2.0), {"n": 4}),
    ("saxpy", "saxpy", (f32(10), f32(10, 5)), {"a": 2.0}),
    ("saxpy", "saxpy", (), {"a": 2.0, "y": f32(10, 5), "x": f32(10)}),
    ("saxpy", "saxpy", (f32(10),), {"a": 2.0, "x": f32(10)}),  # x twice
    ("saxpy", "saxpy", (f32(10), f32(10)), {"b": 2.0}),  # a keyword naming no parameter
    ("saxpy", "saxpy", (f32(10),), {"y": f32(10), "n": 3}),  # a missing
    ("saxpy", "saxpy", (), {"x": f32(10), "y": f32(10), "a": 1.0, "n": 3}),
    ("saxpy", "saxpy", (), {"x": f32(10).astype(np.float64), "y": f32(10), "a": 1.0}),
    ("saxpy", "saxpy", (f32(10), f32(10, 5), np.float32(2.0)), {}),  # a NumPy scalar
    ("saxpy", "saxpy", (f32(10), f32(10, 5), 2), {}),  # an int for a float
    ("saxpy", "saxpy", (f32(10).astype(np.float64), f32(10), 2.0), {}),  # wrong dtype
    ("saxpy", "saxpy", (f32(10).astype(np.int32), f32(10), 2.0), {}),
    ("saxpy", "saxpy", (BIG, f32(10), 2.0), {}),  # equal values, other byte order
    ("saxpy", "saxpy", (f32(5), f32(10), 2.0), {}),  # too short
    ("saxpy", "saxpy", (f32(20)[::2], f32(10), 2.0), {}),  # non-contiguous
    ("saxpy", "saxpy", (f32(10), READ_ONLY, 2.0), {}),  # read-only output
    ("saxpy", "saxpy", (READ_ONLY, f32(10), 2.0), {}),  # read-only input is fine
    ("saxpy", "saxpy", (UNALIGNED, f32(10), 2.0), {}),  # unaligned: the binding's path
    ("saxpy", "saxpy", (f32(10).reshape(2, 5), f32(10), 2.0), {}),  # 2-D
    ("saxpy", "saxpy", ([1.0] * 10, f32(10), 2.0), {}),  # not an array
    ("saxpy", "saxpy", (f32(10).view(Sub), f32(10), 2.0), {}),  # a subclass
    ("saxpy", "saxpy", (f32(10), f32(10), "two"), {}),
    ("saxpy", "saxpy", (f32(10), f32(10)), {}),  # wrong argument counts
    ("saxpy", "saxpy", (f32(10), f32(10), 2.0, 3.0), {}),
    ("saxpy", "saxpy", (f32(10), f32(10), 2.0), {"m": 3}),  # unknown keyword
    ("saxpy", "saxpy", (f32(0), f32(0), 2.0), {}),  # empty
    ("dot", "dot", (f32(100), f32(100, 3)), {}),
    ("dot", "dot", (f32(100), f32(99)), {}),
    ("mixed", "count_above", (np.linspace(0, 1, 101), 0.5), {}),
    ("mixed", "count_above", (np.linspace(0, 1, 101), True), {}),
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), -7), {}),
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), 2**63), {}),  # out of range
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), -2**63), {}),
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), True), {}),  # bool
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), np.int64(3)), {}),
    ("mixed", "add_k", (np.arange(5, dtype=np.int64), 3.0), {}),
    ("mixed", "sum_u32", (np.full(3, 2**32 - 1, np.uint32),), {}),
    ("mixed", "sum_u32", (np.full(3, 2**32 - 1, np.uint32),), {"n": -1}),
    ("mixed", "scale_by", (f32(6), -3), {}),
    ("mixed", "scale_by", (f32(6), 2**31), {}),
    ("mixed", "scale_by", (f32(6), -2**31 - 1), {}),
    ("mixed", "scale_by", (f32(6), -2**31), {}),
    ("mixed", "answer", (), {}),
    ("mixed", "small", (-128, 200), {}),
    ("mixed", "small", (127, 0), {}),
    ("mixed", "small", (128, 0), {}),
    ("mixed", "small", (0, 65536), {}),
    ("mixed", "small", (0, -1), {}),
    ("threshold_u8", "threshold", (np.arange(256, dtype=np.uint8), np.zeros(256, np.uint8), 100), {}),
    ("threshold_u8", "threshold", (np.arange(256, dtype=np.uint8), np.zeros(256, np.uint8), 255), {}),
    ("threshold_u8", "threshold", (np.arange(256, dtype=np.uint8), np.zeros(256, np.uint8), 256), {}),
    ("threshold_u8", "threshold", (np.arange(256, dtype=np.uint8), np.zeros(256, np.uint8), -1), {}),
    ("threshold_u8", "threshold", (np.arange(256, dtype=np.uint8), np.zeros(256, np.int8), 7), {}),
    ("mixed", "answer", (1,), {}),
    ("mixed", "answer", (), {"x": 1}),
    ("mixed", "scale_by", (f32(6),), {"k": 2**31}),
    ("mixed", "scale_by", (), {"k": 3, "x": f32(6)}),
    ("mixed", "count_above", (), {"t": 0.25, "x": np.linspace(0, 1, 101)}),
]


@pytest.mark.parametrize("stem, name, args, kwargs", CASES, ids=[f"{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_same_results_and_errors_as_the_ctypes_path(kernels, stem, name, args, kwargs):
    fast = getattr(kernels[stem], name)
    assert isinstance(fast, types.BuiltinFunctionType)
    want, got = outcome(slow(fast), args, kwargs), outcome(fast, args, kwargs)
    assert got == want
    assert type(got[0]) is type(want[0])  # noqa: E721 - an int stays an int, a float a float


def test_errors_name_the_parameter(kernels):
    saxpy = kernels["saxpy"].saxpy
    with pytest.raises(TypeError, match=r"^x: expected float32, got float64$"):
        saxpy(np.ones(4), f32(4), 1.0)
    with pytest.raises(ValueError, match=r"^y: the kernel writes this array but it is read-only$"):
        saxpy(f32(10), READ_ONLY, 1.0)
    with pytest.raises(ValueError, match=r"^x: needs at least 10 elements \(n\), got 5$"):
        saxpy(f32(5), f32(10), 1.0)
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'a'"):
        saxpy(f32(5), f32(5))


def test_no_reference_leak(kernels):
    saxpy, dot = kernels["saxpy"].saxpy, kernels["dot"].dot
    x, y, a = f32(64), f32(64), 1.5
    bad = f32(8)  # too short: every call raises through the binding's path
    before = [sys.getrefcount(o) for o in (x, y, a, bad, None)]
    for _ in range(1000):
        saxpy(x, y, a)
        saxpy(x, a=a, y=y)
        dot(x, y)
        try:
            saxpy(bad, y, a)
        except ValueError:
            pass
    after = [sys.getrefcount(o) for o in (x, y, a, bad, None)]
    assert after[:4] == before[:4]
    assert abs(after[4] - before[4]) < 50  # a missing Py_None reference would be -1000


def test_memory_is_flat_over_many_calls(kernels):
    saxpy, dot = kernels["saxpy"].saxpy, kernels["dot"].dot
    x, y = f32(16), f32(16)
    for _ in range(1000):
        dot(x, y)
    gc.collect()
    tracemalloc.start()
    try:
        start, _ = tracemalloc.get_traced_memory()
        for _ in range(100_000):
            dot(x, y)
            saxpy(x, y, 0.0)
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert end - start < 64 * 1024  # a leaked float per call would be 2.4 MB


@pytest.mark.parametrize("size", [1000, RELEASE_GIL_AT + 3], ids=["gil-held", "gil-released"])
def test_calls_from_several_threads(kernels, size):
    saxpy, dot = kernels["saxpy"].saxpy, kernels["dot"].dot
    shared = f32(size) / size
    want = float(np.dot(shared.astype(np.float64), shared))
    failures = []

    def work(k):
        y = np.full(size, float(k), np.float32)
        for _ in range(200):
            saxpy(shared, y, 1.0)
            if dot(shared, shared) != pytest.approx(want, rel=1e-4):
                failures.append("dot")
        if not np.allclose(y, k + 200 * shared, rtol=1e-4):
            failures.append(f"saxpy {k}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_the_function_keeps_its_code_alive(tmp_path):
    """A fast function outlives its Kernel and the loader's cache."""
    (tmp_path / "saxpy.ea").write_text((ROOT / "examples" / "saxpy.ea").read_text())
    saxpy = load(tmp_path / "saxpy.ea").saxpy
    clear_cache(tmp_path)
    gc.collect()
    y = np.zeros(9, np.float32)
    saxpy(f32(9), y, 2.0)
    assert y.tolist() == (2 * f32(9)).tolist()


def test_entry_points_are_cached_beside_the_kernel(tmp_path):
    """Compiled once into the cache entry; a later load (here: the in-process
    table cleared) reuses the object file, whose addresses it fills in."""
    from ea_compiler import loader
    (tmp_path / "saxpy.ea").write_text((ROOT / "examples" / "saxpy.ea").read_text())
    first = load(tmp_path / "saxpy.ea")
    [cached] = tmp_path.glob("__eacache__/*/saxpy-*/fastcall-*.o")
    stamp = cached.stat().st_mtime_ns
    loader._LOADED.clear()
    second = load(tmp_path / "saxpy.ea")
    assert second is not first and cached.stat().st_mtime_ns == stamp
    assert list(tmp_path.glob("__eacache__/*/saxpy-*/*fastcall*")) == [cached]
    for k in (first, second):
        y = np.ones(5, np.float32)
        k.saxpy(f32(5), y, 3.0)
        assert y.tolist() == (3 * f32(5) + 1).tolist()
    clear_cache(tmp_path)


def test_a_read_only_cache_entry_still_loads(tmp_path, monkeypatch):
    """The entry points are compiled in memory when the cache folder cannot
    take them (a write that fails as in a read-only folder; root ignores modes)."""
    import os

    from ea_compiler import loader, loader_fast
    (tmp_path / "saxpy.ea").write_text((ROOT / "examples" / "saxpy.ea").read_text())
    load(tmp_path / "saxpy.ea")
    [entry] = tmp_path.glob("__eacache__/*/saxpy-*")
    for old in entry.glob("fastcall-*.o"):
        old.unlink()

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", str(dst))

    monkeypatch.setattr(loader_fast, "os", types.SimpleNamespace(getpid=os.getpid, replace=refuse))
    loader._LOADED.clear()
    k = load(tmp_path / "saxpy.ea")
    assert isinstance(k.saxpy, types.BuiltinFunctionType) and not list(entry.glob("*fastcall*"))
    y = np.ones(3, np.float32)
    k.saxpy(f32(3), y, 2.0)
    assert y.tolist() == [1.0, 3.0, 5.0]
    clear_cache(tmp_path)
