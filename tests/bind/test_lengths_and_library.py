"""Which lengths the Python bindings and `load()` check (the provable extents
of outputs/bounds; an array indexed by data is not checked), the
collapsed length given by keyword, 64-byte aligned outputs, and how a
generated module finds its library (the metadata's path, else `<stem>.so`
beside it, `EA_LIBRARY_<STEM>`, a clear OSError)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ea_compiler.loader import load

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
PYTHON = ROOT / ".venv" / "bin" / "python"

# The shape of a particle-life force step: six arrays of n elements, a k*k
# interaction matrix, n and k passed as scalars. n is collapsed from fy (the
# nearest pointer before it); the matrix has any length.
FORCES = """\
export func compute_forces(px: *f32, py: *f32, kinds: *i32, matrix: *f32, fx: *mut f32, fy: *mut f32,
                           n: i32, num_kinds: i32, r_max: f32) {
    let r2: f32 = r_max * r_max
    let mut i: i32 = 0
    while i < n {
        let mut ax: f32 = 0.0
        let mut ay: f32 = 0.0
        let mut j: i32 = 0
        while j < n {
            let dx: f32 = px[j] - px[i]
            let dy: f32 = py[j] - py[i]
            let d2: f32 = dx * dx + dy * dy
            if d2 > 0.0 && d2 < r2 {
                let g: f32 = matrix[kinds[i] * num_kinds + kinds[j]]
                ax = ax + g * dx
                ay = ay + g * dy
            }
            j = j + 1
        }
        fx[i] = ax
        fy[i] = ay
        i = i + 1
    }
}

export kernel shade(src: *f32, dst: *mut f32, lut: *f32, gain: f32)
    over i in n step 8
    tail scalar { dst[i] = src[i] * gain + lut[0] }
{
    store(dst, i, load_f32x8(src, i) .* splat(gain) .+ splat(lut[0]))
}

export func ramp(x: *f32, n: i32, out y: *mut f32 [cap: n]) {
    for i in 0..n { y[i] = x[i] * 2.0 }
}
"""


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def import_file(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("lengths")
    (tmp / "forces.ea").write_text(FORCES)
    ea("forces.ea", "--lib", cwd=tmp)
    ea("bind", "forces.ea", "--python", cwd=tmp)
    return tmp


@pytest.fixture(params=["bind", "load"])
def forces(request, folder):
    if request.param == "bind":
        return import_file(folder / "forces.py", "_ea_test_forces")
    return load(folder / "forces.ea")


def reference_forces(px, py, kinds, matrix, k, r_max):
    dx = px[None, :] - px[:, None]
    dy = py[None, :] - py[:, None]
    d2 = dx * dx + dy * dy
    near = (d2 > 0) & (d2 < r_max * r_max)
    g = matrix[kinds[:, None] * k + kinds[None, :]] * near
    return (g * dx).sum(axis=1), (g * dy).sum(axis=1)


def test_particle_life_shape_is_accepted(forces):
    """matrix has k*k = 16 elements beside arrays of 64: not a length error."""
    n, k = 64, 4
    rng = np.random.default_rng(7)
    px, py = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    kinds = rng.integers(0, k, n).astype(np.int32)
    matrix = rng.uniform(-1, 1, k * k).astype(np.float32)
    fx, fy = np.zeros(n, np.float32), np.zeros(n, np.float32)
    forces.compute_forces(px, py, kinds, matrix, fx, fy, k, 0.3)
    want_x, want_y = reference_forces(px, py, kinds, matrix, k, 0.3)
    np.testing.assert_allclose(fx, want_x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fy, want_y, rtol=1e-4, atol=1e-5)


def test_metadata_records_only_the_provable_lengths(folder):
    exports = {e["name"]: e for e in json.loads((folder / "forces.ea.json").read_text())["exports"]}
    forces = exports["compute_forces"]  # nested while loops: every array indexed by i or j has n elements
    assert forces["extents"] == {"px": "n", "py": "n", "kinds": "n", "fx": "n", "fy": "n"}
    assert forces["unchecked"] == {"matrix": "its index depends on data"}
    assert forces["min_lengths"] == forces["extents"]  # the older field: the extents that are one parameter
    assert exports["shade"]["extents"] == {"src": "n", "dst": "n", "lut": "1"}  # lut[0] only
    assert exports["shade"]["min_lengths"] == {"src": "n", "dst": "n"}
    assert exports["ramp"]["min_lengths"] == exports["ramp"]["extents"] == {"x": "n", "y": "n"}


def test_provable_length_error_is_still_caught(forces):
    src, dst, lut = np.arange(100, dtype=np.float32), np.zeros(100, np.float32), np.ones(1, np.float32)
    with pytest.raises(ValueError) as info:
        forces.shade(src[:50], dst, lut, 2.0)
    assert str(info.value) == "src: needs at least 100 elements (n), got 50"
    assert (dst == 0).all()  # refused before the call
    with pytest.raises(ValueError) as info:
        forces.shade(src, dst, lut, 2.0, n=101)
    assert str(info.value) == "src: needs at least 101 elements (n), got 100"


def test_n_comes_from_the_indexed_array_not_the_table(forces):
    src, dst, lut = np.arange(100, dtype=np.float32), np.zeros(100, np.float32), np.ones(1, np.float32)
    forces.shade(src, dst, lut, 2.0)  # n = dst.size (100), not lut.size (1)
    np.testing.assert_array_equal(dst[:96], src[:96] * 2 + 1)
    np.testing.assert_array_equal(dst[96:], src[96:] * 2 + 1)
    split = np.zeros(100, np.float32)
    forces.shade_parallel(src, split, lut, 2.0, threads=3)  # lut is a table: every chunk reads lut[0]
    np.testing.assert_array_equal(split, dst)
    assert not hasattr(forces, "compute_forces_parallel")  # each i reads px[j] for every j < n


def test_collapsed_length_by_keyword(forces):
    src, dst, lut = np.arange(100, dtype=np.float32), np.zeros(100, np.float32), np.ones(1, np.float32)
    forces.shade(src, dst, lut, 3.0, n=10)
    np.testing.assert_array_equal(dst[:10], src[:10] * 3 + 1)
    assert (dst[10:] == 0).all()
    with pytest.raises(TypeError, match=r"^n: expected an int, got float$"):
        forces.shade(src, dst, lut, 3.0, n=2.5)


def test_outputs_are_64_byte_aligned(forces):
    for size in (1, 5, 33, 1000):
        y = forces.ramp(np.ones(size, np.float32))
        assert y.ctypes.data % 64 == 0 and y.shape == (size,) and (y == 2.0).all()


# ---- finding the library -------------------------------------------------------------

SAXPY = (ROOT / "examples" / "saxpy.ea").read_text()
USE = ("import numpy as np, k\nx = np.arange(20, dtype=np.float32); y = np.ones(20, np.float32)\n"
       "k.saxpy(x, y, 2.0); print(y[:4].tolist())")


def python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("EA_LIBRARY_")}
    return subprocess.run([str(PYTHON), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env=dict(environ, **env))


def test_lib_then_bind_then_import_in_the_same_folder(tmp_path):
    (tmp_path / "k.ea").write_text(SAXPY)
    assert ea("k.ea", "--lib", cwd=tmp_path).stderr.startswith("compiled k.ea -> k.so (shared library")
    assert ea("bind", "k.ea", "--python", cwd=tmp_path).stderr == "wrote k.py\n"
    done = python(USE, tmp_path)
    assert (done.returncode, done.stdout) == (0, "[1.0, 3.0, 5.0, 7.0]\n"), done.stderr


def test_module_finds_a_library_rebuilt_under_another_name(tmp_path):
    """Bound against `-o build/k.so`, the module tries that path first, then
    <stem>.so beside itself."""
    (tmp_path / "k.ea").write_text(SAXPY)
    (tmp_path / "build").mkdir()
    ea("k.ea", "--lib", "-o", "build/k.so", cwd=tmp_path)
    ea("bind", "k.ea", "--python", cwd=tmp_path)
    code = "import k; print(k._lib._name)"
    done = python(code, tmp_path)
    assert (done.returncode, done.stdout) == (0, f"{tmp_path / 'build' / 'k.so'}\n"), done.stderr
    (tmp_path / "build" / "k.so").unlink()
    ea("k.ea", "--lib", cwd=tmp_path)  # rebuilt under the default name
    # (`import k` would now load k.so itself, an extension module: run k.py by path)
    code = ("import importlib.util as u; s = u.spec_from_file_location('k', 'k.py'); k = u.module_from_spec(s); "
            "s.loader.exec_module(k); print(k._lib._name)")
    done = python(code, tmp_path)
    assert (done.returncode, done.stdout) == (0, f"{tmp_path / 'k.so'}\n"), done.stderr


def test_environment_override_and_a_clear_error(tmp_path):
    (tmp_path / "k.ea").write_text(SAXPY)
    ea("k.ea", "--lib", cwd=tmp_path)
    ea("bind", "k.ea", "--python", cwd=tmp_path)
    (tmp_path / "k.so").rename(tmp_path / "elsewhere.so")
    for path in (str(tmp_path / "elsewhere.so"), "elsewhere.so", "./elsewhere.so"):  # relative: to the folder
        done = python(USE, tmp_path, EA_LIBRARY_K=path)
        assert (done.returncode, done.stdout) == (0, "[1.0, 3.0, 5.0, 7.0]\n"), (path, done.stderr)
    done = python("import k", tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"OSError: cannot find the Ea library of k (tried {tmp_path / 'k.so'}); "
        "build it with `ea k.ea --lib` or set EA_LIBRARY_K to its path")
    done = python("import k", tmp_path, EA_LIBRARY_K=str(tmp_path / "missing.so"))
    assert done.stderr.splitlines()[-1] == (
        f"OSError: cannot find the Ea library of k (tried {tmp_path / 'missing.so'}); "
        "build it with `ea k.ea --lib` or set EA_LIBRARY_K to its path")
