"""`ea bind --python` end to end (TOOLCHAIN.md §4.1-4.2): examples and small
sources with output annotations are compiled with `--lib -o lib<stem>.so`,
bound, imported from the temporary folder and called on NumPy arrays; the
results are compared with NumPy. The same calls go through `ea_compiler.load()`,
which executes the same binding against the JIT (`impl` fixture). Misuse
errors and the `_parallel` variants are in test_python_binding_checks.py."""
from __future__ import annotations

import ctypes
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
PYTHON = ROOT / ".venv" / "bin" / "python"
EXAMPLES = ["saxpy", "dot", "reductions", "particles", "threshold_u8", "normalize_u8", "dot_i8"]

HIST = """\
export func hist(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {
    for b in 0..16 { bins[b] = 0 }
    for j in 0..len {
        let k: i32 = to_i32(px[j]) / 16
        bins[k] = bins[k] + 1
    }
}
"""

# cap from a collapsed length with a scalar return (discarded, §4.1), cap from a
# constant, two outputs with an integer division in the cap, an output before the
# length it fills (the length is the nearest preceding pointer's: the output's 16).
OUTS = """\
const K: i32 = 4

export func scale_sum(x: *f32, n: i32, g: f32, out y: *mut f32 [cap: n]) -> f32 {
    let mut s: f32 = 0.0
    for i in 0..n {
        y[i] = x[i] * g
        s = s + y[i]
    }
    return s
}

export func firstk(x: *i32, n: i32, out r: *mut i32 [cap: K * 2]) -> i32 {
    for i in 0..K * 2 { r[i] = x[i] + 1 }
    return n
}

export func split(x: *i16, len: i32, s: i16, out y: *mut i16 [cap: len / 2], out z: *mut i16 [cap: len / 2]) {
    for i in 0..len / 2 {
        y[i] = x[2 * i] + s
        z[i] = x[2 * i + 1] - s
    }
}

export func fill(x: *f32, out y: *mut f32 [cap: 16], n: i32) {
    for i in 0..n { y[i] = x[i] + to_f32(i) }
}
"""
SOURCES = {"hist": HIST, "outs": OUTS}
STEMS = EXAMPLES + list(SOURCES)
# `ea bind` names each array whose length it cannot prove (outputs/bounds): an index read from
# memory, a loop bound with a division
UNCHECKED = {
    "hist": ["bins of hist (hist.ea): length not checked (its index depends on data)"],
    "outs": [f"{p} of split (outs.ea): length not checked (its index has no bound in the parameters)"
             for p in ("x", "y", "z")],
}

_STATE: dict = {}
_PINNED: list = []  # loaded kernels are kept alive (see test_loader: freeing one frees the shared target machine)


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def write_sources(folder: Path) -> None:
    for stem in EXAMPLES:
        (folder / f"{stem}.ea").write_text((ROOT / "examples" / f"{stem}.ea").read_text())
    for stem, text in SOURCES.items():
        (folder / f"{stem}.ea").write_text(text)


def bound_dir(tmp_path_factory) -> Path:
    """One folder with every stem compiled (`-o lib<stem>.so`: `import <stem>` then finds
    `<stem>.py`, the module under test, not the library) and bound (`<stem>.py`)."""
    if "dir" not in _STATE:
        folder = tmp_path_factory.mktemp("pybind")
        write_sources(folder)
        procs = [subprocess.Popen([str(EA), f"{s}.ea", "--lib", "-o", f"lib{s}.so"], cwd=folder,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in STEMS]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        procs = [subprocess.Popen([str(EA), "bind", f"{s}.ea", "--python"], cwd=folder,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in STEMS]
        for s, p in zip(STEMS, procs):
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0 and err == "".join(f"{line}\n" for line in [f"wrote {s}.py"] + [
                f"warning: {w}" for w in UNCHECKED.get(s, [])]), err
        _STATE["dir"] = folder
    return _STATE["dir"]


def generated(tmp_path_factory, stem: str):
    """The generated module, imported from the temporary folder."""
    key = ("mod", stem)
    if key not in _STATE:
        path = bound_dir(tmp_path_factory) / f"{stem}.py"
        spec = importlib.util.spec_from_file_location(f"_eabind_{stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _STATE[key] = module
    return _STATE[key]


def loaded(tmp_path_factory, stem: str):
    key = ("load", stem)
    if key not in _STATE:
        from ea_compiler import load
        if "loaddir" not in _STATE:
            _STATE["loaddir"] = tmp_path_factory.mktemp("pyload")
            write_sources(_STATE["loaddir"])
        _STATE[key] = load(_STATE["loaddir"] / f"{stem}.ea")
        _PINNED.append(_STATE[key])
    return _STATE[key]


@pytest.fixture(params=["bind", "load"])
def impl(request, tmp_path_factory):
    """stem -> module-like object: the generated module or ea_compiler.load()."""
    if request.param == "bind":
        return lambda stem: generated(tmp_path_factory, stem)
    return lambda stem: loaded(tmp_path_factory, stem)


RNG = np.random.default_rng(7)


# ---- results against NumPy -------------------------------------------------------

def test_saxpy(impl):
    x = RNG.standard_normal(1003).astype(np.float32)
    y = RNG.standard_normal(1003).astype(np.float32)
    want = np.float32(2.5) * x + y
    assert impl("saxpy").saxpy(x, y, 2.5) is None
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_dot(impl):
    a = RNG.standard_normal(1001).astype(np.float32)
    b = RNG.standard_normal(1001).astype(np.float32)
    got = impl("dot").dot(a, b)
    assert type(got) is float
    assert got == pytest.approx(float(np.dot(a.astype(np.float64), b)), rel=1e-4, abs=1e-3)


def test_reductions(impl):
    m = impl("reductions")
    x = RNG.uniform(-50, 50, 1037).astype(np.float32)
    assert m.sum_f32(x) == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-4, abs=1e-2)
    assert m.max_f32(x) == float(x.max())
    assert m.min_f32(x) == float(x.min())
    assert m.max_f32(x[:3].copy()) == float(x[:3].max())


PARTICLE = np.dtype([("x", "<f4"), ("y", "<f4"), ("vx", "<f4"), ("vy", "<f4")])


def test_struct_is_a_ctypes_structure_usable_as_dtype(impl):
    m = impl("particles")
    assert issubclass(m.Particle, ctypes.Structure)
    assert [f[0] for f in m.Particle._fields_] == ["x", "y", "vx", "vy"]
    assert np.dtype(m.Particle) == PARTICLE and np.dtype(m.Particle).itemsize == 16
    ps = np.zeros(2, dtype=np.dtype(m.Particle))
    ps["vy"] = [1, -1]
    m.step(ps, 3.0)
    assert ps["y"].tolist() == [3.0, -3.0]


def test_particles_array_of_structs(impl):
    m = impl("particles")
    ps = np.zeros(7, dtype=PARTICLE)
    for name in ("x", "y", "vx", "vy"):
        ps[name] = RNG.uniform(-10, 10, 7).astype(np.float32)
    before = ps.copy()
    m.step(ps, 0.5)
    np.testing.assert_allclose(ps["x"], before["x"] + before["vx"] * np.float32(0.5), rtol=1e-6)
    np.testing.assert_allclose(ps["y"], before["y"] + before["vy"] * np.float32(0.5), rtol=1e-6)
    assert (ps["vx"] == before["vx"]).all() and (ps["vy"] == before["vy"]).all()


def test_threshold_u8(impl):
    px = RNG.integers(0, 256, 1000, dtype=np.uint8)
    out = np.full(1000, 7, dtype=np.uint8)
    impl("threshold_u8").threshold(px, out, 100)
    assert (out == np.where(px > 100, 255, 0)).all()
    impl("threshold_u8").threshold(px, out, np.uint8(200))  # NumPy integers are ints too
    assert (out == np.where(px > 200, 255, 0)).all()


def test_normalize_u8(impl):
    px = RNG.integers(0, 256, 1001, dtype=np.uint8)
    out = np.zeros(1001, dtype=np.float32)
    impl("normalize_u8").normalize(px, out)
    np.testing.assert_allclose(out, px.astype(np.float32) / np.float32(255), rtol=1e-6)


def test_dot_i8(impl):
    a = RNG.integers(0, 128, 1000, dtype=np.uint8)
    w = RNG.integers(-128, 128, 1000, dtype=np.int8)
    got = impl("dot_i8").dot_u8i8(a, w)
    assert type(got) is int
    assert got == int(np.dot(a.astype(np.int64), w.astype(np.int64)))


def test_hist_allocates_and_returns_its_output(impl):
    px = RNG.integers(0, 256, 999, dtype=np.uint8)
    bins = impl("hist").hist(px)
    assert isinstance(bins, np.ndarray) and bins.dtype == np.int32 and bins.shape == (16,)
    assert bins.tolist() == np.bincount(px // 16, minlength=16).tolist()
    assert impl("hist").hist(px[:0].copy()).tolist() == [0] * 16


def test_cap_from_collapsed_length_discards_the_scalar_return(impl):
    x = np.arange(11, dtype=np.float32)
    y = impl("outs").scale_sum(x, 3.0)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32
    assert y.tolist() == (x * 3).tolist()


def test_cap_from_a_constant(impl):
    r = impl("outs").firstk(np.arange(100, 120, dtype=np.int32))
    assert r.dtype == np.int32 and r.tolist() == list(range(101, 109))


def test_two_outputs_with_integer_division_cap(impl):
    x = np.arange(11, dtype=np.int16)
    y, z = impl("outs").split(x, 100)
    assert y.dtype == z.dtype == np.int16
    assert y.tolist() == [100, 102, 104, 106, 108]
    assert z.tolist() == [-99, -97, -95, -93, -91]


def test_length_after_an_output_is_the_outputs_size(impl):
    """§4.1: `n` is filled from the nearest preceding pointer, here the
    16-element output `y` (§5: "including a just-allocated output"); the
    input the loop reads up to n must have at least as many elements."""
    y = impl("outs").fill(np.full(16, 5.0, dtype=np.float32))
    assert y.shape == (16,) and y.tolist() == [5.0 + i for i in range(16)]
    with pytest.raises(ValueError) as info:
        impl("outs").fill(np.ones(3, dtype=np.float32))
    assert str(info.value) == "x: needs at least 16 elements (n), got 3"


def test_signatures_hide_collapsed_lengths_and_outputs(impl):
    import inspect
    sig = lambda stem, f: list(inspect.signature(getattr(impl(stem), f)).parameters)  # noqa: E731
    assert sig("saxpy", "saxpy") == ["x", "y", "a", "n"]  # n: keyword-only, optional
    assert sig("saxpy", "saxpy_parallel") == ["x", "y", "a", "threads", "n"]
    assert sig("hist", "hist") == ["px", "len"]
    assert sig("outs", "split") == ["x", "s", "len"]
    assert not hasattr(impl("hist"), "hist_parallel")  # auto-outputs: no parallel variant
    assert not hasattr(impl("outs"), "split_parallel")


# ---- the generated file ------------------------------------------------------------

GOLDEN_HIST = '''\
"""hist \u2014 generated by ea bind"""
import ctypes as _ct
import numpy as _np
import operator as _op
import os as _os
from pathlib import Path as _Path

_byref, _from_buffer = _ct.byref, _ct.c_char.from_buffer

__all__ = ['hist']


def _array(a, name, dtype, writes):
    """The checks every array argument gets; errors name the parameter."""
    if not isinstance(a, _np.ndarray):
        raise TypeError(f"{name}: expected a numpy.ndarray, got {type(a).__name__}")
    if a.dtype != dtype:
        raise TypeError(f"{name}: expected {_np.dtype(dtype)}, got {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got shape {a.shape}")
    if not a.flags.c_contiguous:
        raise ValueError(f"{name}: expected a C-contiguous array; use numpy.ascontiguousarray({name})")
    if writes and not a.flags.writeable:
        raise ValueError(f"{name}: the kernel writes this array but it is read-only")


def _too_short(a, name, need, extent, cap=None):
    """The code may touch `need` elements of `a` (`extent`): shorter is out of bounds."""
    what = f"{need} element{'' if need == 1 else 's'}" + ("" if extent == str(need) else f" ({extent})")
    if cap is not None:
        raise ValueError(f"{name}: the kernel may write {what} but its cap ({cap}) allocates {a.size}")
    raise ValueError(f"{name}: needs at least {what}, got {a.size}")


_max = max  # for extents: a parameter may be called `max`


def _empty(count, dtype):
    """An uninitialised output array whose data is 64-byte aligned (a cache line;
    the widest vector), so aligned and non-temporal stores take their fast path."""
    dtype = _np.dtype(dtype)
    count = max(int(count), 0)
    raw = _np.empty(count * dtype.itemsize + 64, dtype=_np.uint8)
    start = -_ct.addressof(_from_buffer(raw)) % 64  # a fraction of raw.ctypes.data's cost
    return raw[start:start + count * dtype.itemsize].view(dtype)


def _ptr(a):
    """The array's address for a c_void_p argument: a buffer view costs a
    fraction of `a.ctypes.data_as(...)`; read-only arrays take the slow path."""
    try:
        return _byref(_from_buffer(a))
    except (TypeError, ValueError):  # read-only or empty
        return a.ctypes.data


def _int(v, name, lo, hi):
    if isinstance(v, bool):
        raise TypeError(f"{name}: expected an int, got bool")
    try:
        v = _op.index(v)
    except TypeError:
        raise TypeError(f"{name}: expected an int, got {type(v).__name__}") from None
    if not lo <= v <= hi:
        raise ValueError(f"{name}: {v} does not fit in [{lo}, {hi}]")
    return v


def _length(n, of, hi):
    if n > hi:
        raise ValueError(f"{of}: {n} elements do not fit the kernel's length argument (at most {hi})")
    return n


def _wraps(name, index, value, end, type):
    """An index of `name` is computed from `index`, which a call must keep in `type`: `value` is
    past `end`, the type's largest value, or below it, its smallest."""
    side = "below the smallest" if value < end else "past the largest"
    raise ValueError(f"{name}: {index} = {value} is {side} {type} ({end}): "
                     f"an index of {name} is computed from it and would wrap around")


def _float(v, name):
    if isinstance(v, (str, bytes)):
        raise TypeError(f"{name}: expected a float, got {type(v).__name__}")
    try:
        return float(v)
    except TypeError:
        raise TypeError(f"{name}: expected a float, got {type(v).__name__}") from None
    except OverflowError:
        raise ValueError(f"{name}: {v} is too large for a float") from None


def _struct(v, name, cls):
    if not isinstance(v, cls):
        raise TypeError(f"{name}: expected a {cls.__name__}, got {type(v).__name__}")
    return v



def _load_library(env, candidates, build):
    """The kernel library: $<env> when set, else the first candidate that exists."""
    if _os.environ.get(env):
        candidates = [_Path(_os.environ[env])]
    for path in candidates:
        if path.is_file():
            return _ct.CDLL(str(path.absolute()))  # dlopen searches the system for a bare name
    tried = ", ".join(str(p) for p in candidates)
    raise OSError(f"cannot find the Ea library of {__name__} (tried {tried}); build it with "
                  f"`{build}` or set {env} to its path")


def _require(lib, names, metadata, build):
    """Every function `metadata` lists is a symbol of `lib`."""
    for name in names:
        if not hasattr(lib, name):
            raise ImportError(f"{getattr(lib, '_name', 'the Ea library')} has no symbol {name!r} that "
                              f"{metadata} lists; recompile with: {build}")

_HERE = _Path(__file__).parent
_lib = _load_library(
    'EA_LIBRARY_HIST',
    [
        _HERE / 'libhist.so',
        _HERE / 'hist.so',
    ],
    'ea hist.ea --lib',
)
_require(_lib, ['hist'], 'hist.ea.json', 'ea hist.ea --lib')

_lib.hist.argtypes = [_ct.c_void_p, _ct.c_int32, _ct.c_void_p]
_lib.hist.restype = None


def hist(px: _np.ndarray, *, len: int | None = None) -> _np.ndarray:
    """hist(px: ndarray[uint8], len: int = px.size) -> ndarray[int32]

    C signature: hist(px: *u8, len: i32, bins: *mut i32) -> void
    Lengths checked before the call: px >= len
    Length not checked: bins (its index depends on data)
    """
    _array(px, 'px', _np.uint8, False)
    if len is None:
        len = _length(px.size, 'px', 2147483647)
    else:
        len = _int(len, 'len', -2147483648, 2147483647)
    bins = _empty(int(16), _np.int32)
    if px.size < len:
        _too_short(px, 'px', len, 'len')
    _lib.hist(_ptr(px), _ct.c_int32(int(len)), _ptr(bins))
    return bins
'''


def test_golden_module_text(tmp_path_factory):
    assert (bound_dir(tmp_path_factory) / "hist.py").read_text(encoding="utf-8") == GOLDEN_HIST


def test_generated_module_imports_by_name_without_this_project(tmp_path_factory):
    """`import saxpy` from the folder, with `ea_compiler` made unimportable."""
    folder = bound_dir(tmp_path_factory)
    code = ("import sys; sys.modules['ea_compiler'] = None; sys.path.insert(0, sys.argv[1])\n"
            "import numpy as np, saxpy\n"
            "x = np.ones(9, np.float32); y = np.full(9, 2, np.float32); saxpy.saxpy(x, y, 3.0)\n"
            "print(saxpy.__file__.endswith('saxpy.py'), y.tolist())")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(PYTHON), "-c", code, str(folder)], cwd="/", env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"True {[5.0] * 9}\n"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
