"""Argument checks of the generated Python binding and of `ea_compiler.load()`
(both through the `impl` fixture): the exact error texts, and that a failed
check leaves every array untouched. Then the `_parallel` variants (§4.2)
against the sequential call."""
from __future__ import annotations

import numpy as np
import pytest

from . import test_python_binding as _base

impl = _base.impl  # the fixture: generated module or ea_compiler.load()

N = 10


def fresh():
    """x, y, out, px: distinct patterns, so an unwanted write shows."""
    return {"x": np.arange(N, dtype=np.float32), "y": np.full(N, 7.0, dtype=np.float32),
            "px": np.arange(N, dtype=np.uint8) * 20, "out": np.full(N, 9, dtype=np.uint8)}


def saxpy(m, b, **change):
    args = {"x": b["x"], "y": b["y"], "a": 2.0, **change}
    return m("saxpy").saxpy(args["x"], args["y"], args["a"])


def saxpy_par(m, b, **change):
    args = {"x": b["x"], "y": b["y"], "a": 2.0, **change}
    return m("saxpy").saxpy_parallel(args["x"], args["y"], args["a"], threads=2)


def threshold(m, b, **change):
    args = {"px": b["px"], "out": b["out"], "t": 100, **change}
    return m("threshold_u8").threshold(args["px"], args["out"], args["t"])


def read_only(a):
    a.flags.writeable = False
    return a


MISUSE = [
    ("not-an-array", saxpy, lambda b: {"x": b["x"].tolist()}, TypeError,
     "x: expected a numpy.ndarray, got list"),
    ("dtype", saxpy, lambda b: {"x": b["x"].astype(np.float64)}, TypeError,
     "x: expected float32, got float64"),
    ("dtype-of-written", saxpy, lambda b: {"y": b["y"].astype(np.int32)}, TypeError,
     "y: expected float32, got int32"),
    ("2-d", saxpy, lambda b: {"x": b["x"].reshape(2, 5)}, ValueError,
     "x: expected a 1-D array, got shape (2, 5)"),
    ("0-d", saxpy, lambda b: {"x": np.array(1.0, dtype=np.float32)}, ValueError,
     "x: expected a 1-D array, got shape ()"),
    ("strided", saxpy, lambda b: {"x": np.arange(2 * N, dtype=np.float32)[::2]}, ValueError,
     "x: expected a C-contiguous array; use numpy.ascontiguousarray(x)"),
    ("read-only-output", saxpy, lambda b: {"y": read_only(b["y"])}, ValueError,
     "y: the kernel writes this array but it is read-only"),
    ("short-input", saxpy, lambda b: {"x": b["x"][:N - 1]}, ValueError,
     "x: needs at least 10 elements (n), got 9"),
    ("u8-too-big", threshold, lambda b: {"t": 300}, ValueError, "t: 300 does not fit in [0, 255]"),
    ("u8-negative", threshold, lambda b: {"t": -1}, ValueError, "t: -1 does not fit in [0, 255]"),
    ("u8-float", threshold, lambda b: {"t": 2.5}, TypeError, "t: expected an int, got float"),
    ("u8-bool", threshold, lambda b: {"t": True}, TypeError, "t: expected an int, got bool"),
    ("u8-numpy-too-big", threshold, lambda b: {"t": np.int64(256)}, ValueError,
     "t: 256 does not fit in [0, 255]"),
    ("u8-out-dtype", threshold, lambda b: {"out": b["out"].astype(np.int8)}, TypeError,
     "out: expected uint8, got int8"),
    ("u8-length", threshold, lambda b: {"px": b["px"][:4]}, ValueError,
     "px: needs at least 10 elements (len), got 4"),
    ("float-none", saxpy, lambda b: {"a": None}, TypeError, "a: expected a float, got NoneType"),
    ("float-list", saxpy, lambda b: {"a": [2.0]}, TypeError, "a: expected a float, got list"),
    ("float-string", saxpy, lambda b: {"a": "2.0"}, TypeError, "a: expected a float, got str"),
    ("float-too-big", saxpy, lambda b: {"a": 10**400}, ValueError, f"a: {10**400} is too large for a float"),
    ("parallel-float", saxpy_par, lambda b: {"a": None}, TypeError, "a: expected a float, got NoneType"),
    ("parallel-length", saxpy_par, lambda b: {"x": b["x"][:N - 1]}, ValueError,
     "x: needs at least 10 elements (n), got 9"),
    ("parallel-read-only", saxpy_par, lambda b: {"y": read_only(b["y"])}, ValueError,
     "y: the kernel writes this array but it is read-only"),
]


@pytest.mark.parametrize("call, change, exc, message", [m[1:] for m in MISUSE], ids=[m[0] for m in MISUSE])
def test_misuse_error_text_and_nothing_written(impl, call, change, exc, message):
    b = fresh()
    before = {k: v.copy() for k, v in b.items()}
    kwargs = change(b)
    replaced = {k: v.copy() for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    with pytest.raises(exc) as info:
        call(impl, b, **kwargs)
    assert str(info.value) == message
    assert type(info.value) is exc
    for name, value in b.items():
        assert np.array_equal(value, before[name]), f"{name} was written"
    for name, value in replaced.items():  # the replacement arrays too
        assert np.array_equal(kwargs[name], value), f"{name} (replaced) was written"


def test_misuse_checks_pass_for_good_calls(impl):
    """The same calls without the change work (the cases above fail for their reason)."""
    b = fresh()
    saxpy(impl, b)
    assert b["y"].tolist() == (2.0 * np.arange(N) + 7).tolist()
    threshold(impl, b, t=np.uint8(100))
    assert b["out"].tolist() == [0] * 6 + [255] * 4


def test_integer_range_bounds_are_inclusive(impl):
    b = fresh()
    threshold(impl, b, t=255)
    assert b["out"].tolist() == [0] * N
    threshold(impl, b, t=0)
    assert b["out"].tolist() == [0] + [255] * (N - 1)


def test_struct_array_dtype_checked(impl):
    m = impl("particles")
    with pytest.raises(TypeError) as info:
        m.step(np.zeros(8, dtype=np.float32), 1.0)
    assert str(info.value).startswith("ps: expected ") and str(info.value).endswith(", got float32")
    wrong = np.zeros(2, dtype=[("x", "<f8"), ("y", "<f8")])
    with pytest.raises(TypeError):
        m.step(wrong, 1.0)
    assert (wrong["x"] == 0).all()


def test_auto_output_input_checked(impl):
    with pytest.raises(TypeError) as info:
        impl("hist").hist(np.zeros(4, dtype=np.int8))
    assert str(info.value) == "px: expected uint8, got int8"
    with pytest.raises(TypeError) as info:
        impl("hist").hist([1, 2])
    assert str(info.value) == "px: expected a numpy.ndarray, got list"


# ---- parallel variants ---------------------------------------------------------------

THREADS = [None, 1, 2, 3, 7]
RNG = np.random.default_rng(11)


@pytest.mark.parametrize("threads", THREADS)
def test_saxpy_parallel(impl, threads):
    x = RNG.standard_normal(1003).astype(np.float32)
    y = RNG.standard_normal(1003).astype(np.float32)
    seq, par = y.copy(), y.copy()
    impl("saxpy").saxpy(x, seq, 1.5)
    assert impl("saxpy").saxpy_parallel(x, par, 1.5, threads=threads) is None
    assert np.array_equal(seq, par)


@pytest.mark.parametrize("threads", THREADS)
def test_additive_reductions_parallel(impl, threads):
    a = RNG.standard_normal(4099).astype(np.float32)
    b = RNG.standard_normal(4099).astype(np.float32)
    dot = impl("dot").dot(a, b)
    got = impl("dot").dot_parallel(a, b, threads=threads)
    assert type(got) is float and got == pytest.approx(dot, rel=1e-4, abs=1e-3)
    total = impl("reductions").sum_f32_parallel(a, threads=threads)
    assert total == pytest.approx(impl("reductions").sum_f32(a), rel=1e-4, abs=1e-3)
    q = RNG.integers(0, 128, 4099, dtype=np.uint8)
    w = RNG.integers(-128, 128, 4099, dtype=np.int8)
    got = impl("dot_i8").dot_u8i8_parallel(q, w, threads=threads)
    assert type(got) is int and got == impl("dot_i8").dot_u8i8(q, w)


@pytest.mark.parametrize("threads", THREADS)
def test_elementwise_parallel(impl, threads):
    px = RNG.integers(0, 256, 1001, dtype=np.uint8)
    seq, par = np.zeros(1001, np.uint8), np.zeros(1001, np.uint8)
    impl("threshold_u8").threshold(px, seq, 77)
    impl("threshold_u8").threshold_parallel(px, par, 77, threads=threads)
    assert np.array_equal(seq, par)
    ps = np.zeros(1001, dtype=[("x", "<f4"), ("y", "<f4"), ("vx", "<f4"), ("vy", "<f4")])
    for name in ("x", "y", "vx", "vy"):
        ps[name] = RNG.standard_normal(1001)
    seq_ps, par_ps = ps.copy(), ps.copy()
    impl("particles").step(seq_ps, 0.25)
    impl("particles").step_parallel(par_ps, 0.25, threads=threads)
    assert np.array_equal(seq_ps, par_ps)


@pytest.mark.parametrize("threads", [2, 3])
def test_parallel_with_mixed_element_sizes(impl, threads):
    """normalize reads u8 and writes f32: each chunk's `out` starts `start`
    floats in, not `start` bytes (§4.2 offsets every pointer by the first
    pointer's element size)."""
    px = RNG.integers(0, 256, 1000, dtype=np.uint8)
    seq, par = np.zeros(1000, np.float32), np.zeros(1000, np.float32)
    impl("normalize_u8").normalize(px, seq)
    impl("normalize_u8").normalize_parallel(px, par, threads=threads)
    assert np.array_equal(seq, par)


def test_parallel_more_threads_than_elements(impl):
    x = np.arange(3, dtype=np.float32)
    y = np.ones(3, dtype=np.float32)
    impl("saxpy").saxpy_parallel(x, y, 2.0, threads=8)
    assert y.tolist() == [1.0, 3.0, 5.0]
    assert impl("dot").dot_parallel(x, x, threads=8) == 5.0
