"""Calls through `ea.load` (the fast entry points and the binding behind them)
never touch memory outside their arrays: an array shorter than its extent
(outputs/bounds) is a ValueError naming it and the length it needs, an
array of exactly that length runs — every array here ends at an
inaccessible page (compiler/tune/guard.py), so a read one element too far
would kill the process. An array whose length is not provable is named in
the function's docstring, the kernel's repr and by `ea bind`."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ea_compiler import load
from ea_compiler.tune.guard import guarded

ROOT = Path(__file__).resolve().parents[1]
EA = ROOT / ".venv" / "bin" / "ea"
_PINNED: list = []  # loaded kernels stay alive (see tests/test_loader.py)

KERNELS = """\
export func blur3(src: *f32, dst: *mut f32, n: i32) {
    for i in 0..n { dst[i] = src[i] + src[i + 1] + src[i + 2] }
}

export func grid(c: *mut f32, rows: i32, cols: i32) {
    for i in 0..rows {
        for j in 0..cols { c[i * cols + j] = to_f32(i * cols + j) }
    }
}

export func cube(x: *mut f32, k: i32) {
    for i in 0..k { for j in 0..k { for l in 0..k { x[(i * k + j) * k + l] = 1.0 } } }
}

export func total(x: *f64, count: u64) -> f64 {
    let mut i: u64 = 0
    let mut t: f64 = 0.0
    while i < count {
        t = t + x[i]
        i = i + 1
    }
    return t
}

export func shade(src: *f32, dst: *mut f32, lut: *f32, n: i32) {
    for i in 0..n { dst[i] = lut[to_i32(src[i])] }
}

export func head(x: *f32, n: i32, out y: *mut f32 [cap: 4]) {
    for i in 0..n { y[i] = x[i] }
}
"""


def f32(n: int, start: float = 0.0) -> np.ndarray:
    return guarded(np.arange(start, start + n, dtype=np.float32))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("bounds")
    (tmp / "k.ea").write_text(KERNELS)
    for stem in ("dot", "reductions", "sobel"):
        (tmp / f"{stem}.ea").write_text((ROOT / "examples" / f"{stem}.ea").read_text())
    return tmp


def kernel(folder: Path, stem: str):
    k = load(folder / f"{stem}.ea")
    _PINNED.append(k)
    return k


def raises(fn, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_dot_with_a_short_first_array(folder):
    """n comes from b; a is read up to n as well (the reported crash)."""
    k = kernel(folder, "dot")
    assert raises(k.dot, f32(3), f32(1_000_000)) == "a: needs at least 1000000 elements (n), got 3"
    assert raises(k.dot, f32(99), f32(100)) == "a: needs at least 100 elements (n), got 99"
    a, b = f32(100), f32(100, 1.0)
    assert k.dot(a, b) == pytest.approx(float(np.dot(a.astype(np.float64), b)))  # exactly long enough


def test_an_explicit_length_is_checked_like_a_filled_in_one(folder):
    k = kernel(folder, "dot")
    assert raises(k.dot, f32(100), f32(16), n=1000) == "a: needs at least 1000 elements (n), got 100"
    assert raises(k.dot, f32(1000), f32(16), n=1000) == "b: needs at least 1000 elements (n), got 16"
    assert k.dot(f32(100), f32(100), n=40) == pytest.approx(float(np.arange(40.0) @ np.arange(40.0)))
    assert k.dot(f32(0), f32(0), n=-5) == 0.0  # nothing is read


def test_max_reads_one_element_even_when_n_is_zero(folder):
    k = kernel(folder, "reductions")
    assert raises(k.max_f32, f32(0)) == "x: needs at least 1 element (max(n, 1)), got 0"
    assert k.max_f32(f32(1, 5.0)) == 5.0
    assert k.sum_f32(f32(0)) == 0.0  # sum reads nothing then


def test_a_three_tap_blur_reads_two_past_n(folder):
    k = kernel(folder, "k")
    dst = guarded(np.zeros(100, np.float32))
    assert raises(k.blur3, f32(101), dst) == "src: needs at least 102 elements (n + 2), got 101"
    assert (dst == 0).all()  # refused before the call
    src = f32(102)
    k.blur3(src, dst)
    np.testing.assert_array_equal(dst, src[:-2] + src[1:-1] + src[2:])


def test_nested_loops_need_rows_times_cols(folder):
    k = kernel(folder, "k")
    assert raises(k.grid, guarded(np.zeros(11, np.float32)), 3, 4) == \
        "c: needs at least 12 elements (cols * rows), got 11"
    c = guarded(np.zeros(12, np.float32))
    k.grid(c, 3, 4)
    np.testing.assert_array_equal(c, np.arange(12, dtype=np.float32))
    k.grid(c, -3, 4)  # no row: nothing is written, whatever the product says
    img = guarded(np.zeros(30, np.float32))
    sobel = kernel(folder, "sobel")
    assert raises(sobel.sobel, img, guarded(np.zeros(30, np.float32)), 6, 6) == \
        "img: needs at least 36 elements (h * w), got 30"
    sobel.sobel(guarded(np.zeros(36, np.float32)), guarded(np.zeros(29, np.float32)), 6, 6)


def test_extents_too_large_for_64_bits_are_exact(folder):
    """k³ overflows i64 for the largest i32 k: the fast path gives way to Python's integers (the
    i32 index the kernel computes k³ - 1 in would wrap first: that is the error)."""
    k = kernel(folder, "k")
    big = 2**31 - 1
    assert raises(k.cube, guarded(np.zeros(8, np.float32)), big) == (
        f"x: k * k * k - 1 = {big ** 3 - 1} is past the largest i32 (2147483647): "
        "an index of x is computed from it and would wrap around")
    assert raises(k.total, guarded(np.zeros(3)), count=2**64 - 1) == \
        f"x: needs at least {2**64 - 1} elements (count), got 3"
    x = guarded(np.zeros(8, np.float32))
    k.cube(x, 2)
    assert (x == 1).all()


def test_valid_calls_take_the_fast_path(folder, monkeypatch):
    """The extent checks are in the entry points: a call that passes them never reaches the binding."""
    k = kernel(folder, "k")
    binding = k.blur3.__self__.binding
    monkeypatch.setitem(binding.__globals__, "_lib", None)  # the binding's path would fail
    dst = guarded(np.zeros(10, np.float32))
    k.blur3(f32(12), dst)
    k.grid(guarded(np.zeros(6, np.float32)), 2, 3)
    with pytest.raises(AttributeError):  # a length given by keyword takes the binding's path
        k.blur3(f32(12), dst, n=10)


def test_an_allocated_output_smaller_than_its_extent(folder):
    k = kernel(folder, "k")
    assert raises(k.head, f32(10)) == "y: the kernel may write 10 elements (n) but its cap (4) allocates 4"
    y = k.head(f32(3))
    assert y.size == 4 and list(y[:3]) == [0, 1, 2]


def test_an_unchecked_table_is_named(folder):
    k = kernel(folder, "k")
    assert repr(k).endswith("unchecked={'shade': ['lut']}>")
    assert "Length not checked: lut (its index depends on data)" in k.shade.__doc__
    assert "Lengths checked before the call: src >= n, dst >= n" in k.shade.__doc__
    lut = guarded(np.arange(4, dtype=np.float32) * 10)
    dst = guarded(np.zeros(3, np.float32))
    k.shade(guarded(np.array([3, 0, 2], np.float32)), dst, lut)  # the call still works
    np.testing.assert_array_equal(dst, [30, 0, 20])
    assert "unchecked" not in repr(kernel(folder, "dot"))


def test_ea_bind_warns_once_per_unchecked_argument(folder):
    subprocess.run([str(EA), "k.ea", "--lib"], cwd=folder, check=True, capture_output=True)
    done = subprocess.run([str(EA), "bind", "k.ea", "--python", "--rust"], cwd=folder, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("wrote k.py\nwrote k.rs\n"
                           "warning: lut of shade (k.ea): length not checked (its index depends on data)\n")
    assert "Length not checked: lut (its index depends on data)" in (folder / "k.py").read_text()
    assert "/// Length not checked: lut (its index depends on data)" in (folder / "k.rs").read_text()


SWEEP = r'''
import random, sys
from pathlib import Path
import numpy as np
from ea_compiler import analyze, load
from ea_compiler.bind.meta import NUMPY_DTYPES, parse_api
from ea_compiler.outputs.metadata import metadata_text
from ea_compiler.tune.guard import guarded

rng = random.Random(7)
for path in map(Path, sys.argv[1:]):
    k = load(path)
    a = analyze(path.read_bytes(), str(path))
    api = parse_api(metadata_text("lib.so", a.desugared, a.decisions), path.stem)
    for _ in range(60):
        e = rng.choice(api.exports)
        args, kwargs = [], {}
        for arg in e.args:
            if arg.is_pointer and arg.visible:
                dtype = np.dtype(NUMPY_DTYPES[arg.pointee]) if arg.pointee in NUMPY_DTYPES else \
                    np.dtype(getattr(k, arg.pointee))
                args.append(guarded(np.zeros(rng.choice([0, 1, 7, 8, 9, 33, rng.randrange(200)]), dtype)))
            elif arg.visible:
                args.append(0.5 if arg.type[0] == "f" else rng.choice([0, 1, 3, 8, 17, rng.randrange(200)]))
            elif arg.collapsed_from is not None and rng.random() < 0.4:
                kwargs[arg.name] = rng.choice([0, 5, 100, 1000])
        try:
            getattr(k, e.name)(*args, **kwargs)
        except ValueError as err:
            assert "needs at least" in str(err), err
print("swept")
'''


def test_random_lengths_over_the_examples_never_fault(tmp_path):
    """Each pointer of a random length ending at an inaccessible page, explicit lengths
    now and then: every call runs or raises; none faults (run apart: a fault would kill pytest)."""
    sources = []
    for path in sorted((ROOT / "examples").glob("*.ea")):
        (tmp_path / path.name).write_text(path.read_text())
        sources.append(str(tmp_path / path.name))
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", SWEEP, *sources], capture_output=True,
                          text=True, timeout=600)
    assert (done.returncode, done.stdout) == (0, "swept\n"), done.stderr[-3000:]
