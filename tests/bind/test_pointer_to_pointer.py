"""`**T` parameters (LANGUAGE.md §5.2) from Python and PyTorch: an array of
addresses, uintp in NumPy and int64 in torch. The NumPy binding generated
`_np.dtype(*f32)`, so such a function failed on every call with
`NameError: name 'f32' is not defined`; the PyTorch one checked no dtype."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ea

try:
    import torch
except ImportError:  # `make` installs torch==2.13.0 when the wheel is available
    torch = None

EA = Path(sys.executable).parent / "ea"
ROWS = """\
export func row_sums(rows: **f32, out: *mut f32, n: i32, width: i32) {
    for r in 0..n {
        let row: *f32 = rows[r]
        let mut s: f32 = 0.0
        for j in 0..width { s = s + row[j] }
        out[r] = s
    }
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("pp")
    (tmp / "rows.ea").write_text(ROWS)
    for args in (["rows.ea", "--lib"], ["bind", "rows.ea", "--pytorch"]):
        done = subprocess.run([str(EA), *args], cwd=tmp, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    return tmp


def test_numpy_takes_an_array_of_addresses(built):
    k = ea.load(built / "rows.ea")
    data = [np.arange(4, dtype=np.float32) + 10 * r for r in range(3)]
    out = np.zeros(3, np.float32)
    k.row_sums(np.array([a.ctypes.data for a in data], dtype=np.uintp), out, width=4)
    assert out.tolist() == [6.0, 46.0, 86.0]
    assert k.row_sums.__doc__.splitlines()[0] == (
        "row_sums(rows: ndarray[uintp: addresses of *f32], out: ndarray[float32], width: int, "
        "n: int = out.size) -> None")
    with pytest.raises(TypeError, match="rows: expected uint64, got float32"):
        k.row_sums(np.zeros(3, np.float32), out, width=4)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed; its binding is not tested")
def test_torch_takes_a_tensor_of_addresses(built):
    sys.path.insert(0, str(built))
    try:
        import rows_torch
    finally:
        sys.path.remove(str(built))
    data = [torch.arange(4, dtype=torch.float32) + 10 * r for r in range(3)]
    out = torch.zeros(3)
    rows_torch.row_sums(torch.tensor([t.data_ptr() for t in data], dtype=torch.int64), out, width=4)
    assert out.tolist() == [6.0, 46.0, 86.0]
    assert "rows: Tensor[int64: addresses of *f32]" in rows_torch.row_sums.__doc__
    with pytest.raises(TypeError, match="rows: expected torch.int64, got torch.float32"):
        rows_torch.row_sums(torch.zeros(3), out, width=4)
