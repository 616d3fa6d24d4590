"""`<name>_parallel` end to end: every export the compiler proves splittable
(tests/parallel/split.ea and the examples) is loaded with `ea.load` and its
parallel variant called at sizes 1, 7, 100003 with 1, 2, 3 and 8 threads: it
returns what the export returns, exactly for integers, maxima, minima and
element-wise kernels, to a tolerance for float sums. The refused exports
(tests/parallel/refused.ea) have no parallel variant at all."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import load

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIZES = [1, 7, 100003]
THREADS = [1, 2, 3, 8]
PARTICLE = np.dtype([("x", "<f4"), ("y", "<f4"), ("vx", "<f4"), ("vy", "<f4")])
P4 = np.dtype([("a", "<f4"), ("b", "<f4"), ("c", "<f4"), ("d", "<f4")])


def f32(rng, n):
    return rng.standard_normal(n).astype(np.float32)


def ints(rng, n, dtype, lo, hi):
    return rng.integers(lo, hi, n, dtype=dtype)


def records(rng, n, dtype):
    a = np.zeros(n, dtype)
    for name in dtype.names:
        a[name] = rng.standard_normal(n)
    return a


# (file, export, arguments for n elements, "exact" or "sum" (a float sum: reassociated))
CASES = [
    ("split", "sum_i32", lambda r, n: (ints(r, n, np.int32, -2**31, 2**31 - 1),), "exact"),  # wraps
    ("split", "sum_u32", lambda r, n: (ints(r, n, np.uint32, 0, 2**32 - 1),), "exact"),
    ("split", "maxval", lambda r, n: (ints(r, n, np.int32, -10**6, 10**5),), "exact"),
    ("split", "minval", lambda r, n: (f32(r, n),), "exact"),
    ("split", "max_from", lambda r, n: (f32(r, n), np.array([0.5], np.float32)), "exact"),
    ("split", "dot_f64", lambda r, n: (r.standard_normal(n), r.standard_normal(n)), "sum"),
    ("split", "count_above", lambda r, n: (f32(r, n), 0.25), "exact"),
    ("split", "blend", lambda r, n: (f32(r, n + 1), f32(r, 2), np.zeros(n, np.float32)), "exact"),
    ("split", "widen", lambda r, n: (ints(r, n, np.uint8, 0, 256), ints(r, n, np.int16, -2**15, 2**15 - 1),
                                     np.zeros(n, np.float64)), "exact"),
    ("split", "scale_inplace", lambda r, n: (f32(r, n), 1.5), "exact"),
    ("split", "swap_ab", lambda r, n: (records(r, n, P4),), "exact"),
    ("split", "scaled_sum", lambda r, n: (f32(r, n), 0.5), "exact"),  # returns its output y
    ("saxpy", "saxpy", lambda r, n: (f32(r, n), f32(r, n), 0.75), "exact"),
    ("fma", "fma_kernel", lambda r, n: (f32(r, n), f32(r, n), f32(r, n), np.zeros(n, np.float32)), "exact"),
    ("clip_mask", "clip", lambda r, n: (f32(r, n), np.zeros(n, np.float32), 0.3), "exact"),
    ("leaky_relu", "leaky_relu", lambda r, n: (f32(r, n), np.zeros(n, np.float32), 0.1), "exact"),
    ("normalize_u8", "normalize", lambda r, n: (ints(r, n, np.uint8, 0, 256), np.zeros(n, np.float32)), "exact"),
    ("preprocess", "preprocess", lambda r, n: (ints(r, n, np.uint8, 0, 256), np.zeros(n, np.float32),
                                               0.4, 4.0, -1.0, 1.0), "exact"),
    ("threshold_u8", "threshold", lambda r, n: (ints(r, n, np.uint8, 0, 256), np.zeros(n, np.uint8), 77), "exact"),
    ("particles", "step", lambda r, n: (records(r, n, PARTICLE), 0.25), "exact"),
    ("reductions", "sum_f32", lambda r, n: (f32(r, n),), "sum"),
    ("reductions", "max_f32", lambda r, n: (f32(r, n),), "exact"),
    ("reductions", "min_f32", lambda r, n: (f32(r, n),), "exact"),
    ("dot", "dot", lambda r, n: (f32(r, n), f32(r, n)), "sum"),
    ("dot_i8", "dot_u8i8", lambda r, n: (ints(r, n, np.uint8, 0, 128), ints(r, n, np.int8, -128, 128)), "exact"),
]
REFUSED = ["l2norm", "mean", "running", "shift_left", "hist", "minus_first", "iota", "evens", "sum_from_one",
           "argmax", "find", "sum_plus_max", "shorter", "scan", "times_n", "reverse", "max_sq",
           "max_from_second", "overlapping_stores"]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parallel")
    sources = {p.stem: p for p in [HERE / "split.ea", HERE / "refused.ea", *(ROOT / "examples").glob("*.ea")]}
    loaded = {}
    for stem in {c[0] for c in CASES} | {"refused"}:
        shutil.copy(sources[stem], folder / f"{stem}.ea")
        loaded[stem] = load(folder / f"{stem}.ea")  # default target: this CPU (never AVX-512 here)
    return loaded


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("stem, name, make, kind", CASES, ids=[c[1] for c in CASES])
def test_parallel_equals_the_export(kernels, stem, name, make, kind, n):
    k = kernels[stem]
    args = make(np.random.default_rng(n), n)
    whole = copies(args)
    want = getattr(k, name)(*whole)
    for threads in THREADS:
        split = copies(args)
        got = getattr(k, f"{name}_parallel")(*split, threads=threads)
        assert type(got) is type(want), (threads, got, want)
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), threads
        elif kind == "sum":
            scale = float(np.abs(args[0].astype(np.float64)).sum()) + 1.0
            assert abs(got - want) <= 1e-5 * scale, (threads, got, want)
        else:
            assert got == want or (got != got and want != want), (threads, got, want)
        for a, b in zip(whole, split):  # every array the kernel writes, element for element
            if isinstance(a, np.ndarray):
                assert a.tobytes() == b.tobytes(), threads


def test_maxval_is_the_maximum_not_a_sum(kernels):
    """The §4.2 variant added the chunks' maxima: 150000 for a maximum of 100000."""
    x = np.full(100003, 50000, np.int32)
    x[77777] = 100000
    assert kernels["split"].maxval_parallel(x, threads=3) == 100000


@pytest.mark.parametrize("name", REFUSED)
def test_refused_exports_have_no_parallel_variant(kernels, name):
    assert hasattr(kernels["refused"], name)
    assert not hasattr(kernels["refused"], f"{name}_parallel")


def test_examples_without_a_parallel_variant(kernels, tmp_path):
    shutil.copy(ROOT / "examples" / "frame_rms.ea", tmp_path)
    shutil.copy(ROOT / "examples" / "sobel.ea", tmp_path)
    assert not hasattr(load(tmp_path / "frame_rms.ea"), "frame_rms_parallel")  # x is read at 8 * f
    assert not hasattr(load(tmp_path / "sobel.ea"), "sobel_parallel")  # rows from 1 to h - 1


def test_arrays_sharing_memory_run_as_one_chunk(kernels):
    """saxpy(x, y) with y a view of x shifted by one element: each element of y
    depends on the one before it; one thread gives the export's result."""
    base = np.random.default_rng(5).standard_normal(100001).astype(np.float32)
    whole, split = base.copy(), base.copy()
    kernels["saxpy"].saxpy(whole[:-1], whole[1:], 0.5)
    kernels["saxpy"].saxpy_parallel(split[:-1], split[1:], 0.5, threads=4)
    assert whole.tobytes() == split.tobytes()


def test_thread_count_is_checked(kernels):
    x = np.ones(16, np.float32)
    with pytest.raises(ValueError, match=r"^threads: 0 does not fit in \[1, 65536\]$"):
        kernels["reductions"].sum_f32_parallel(x, threads=0)
    with pytest.raises(TypeError, match=r"^threads: expected an int, got float$"):
        kernels["reductions"].sum_f32_parallel(x, threads=2.0)
    assert kernels["reductions"].sum_f32_parallel(x, threads=None) == 16.0


def test_explicit_length_is_split(kernels):
    """n given by keyword: only [0, n) is split, the rest untouched."""
    x, y = np.ones(100003, np.float32), np.zeros(100003, np.float32)
    kernels["saxpy"].saxpy_parallel(x, y, 2.0, threads=3, n=50001)
    assert (y[:50001] == 2.0).all() and (y[50001:] == 0.0).all()


def test_float_maximum_and_minimum_skip_nan_chunks(kernels):
    """Eä's max/min return the non-NaN operand: a chunk of NaNs contributes nothing."""
    x = np.random.default_rng(9).standard_normal(100003).astype(np.float32)
    x[:40000] = np.nan
    x[60000:60100] = np.nan
    r, s = kernels["reductions"], kernels["split"]
    for threads in THREADS:
        assert r.max_f32_parallel(x, threads=threads) == r.max_f32(x) == np.nanmax(x)
        assert s.minval_parallel(x, threads=threads) == s.minval(x) == np.nanmin(x)
