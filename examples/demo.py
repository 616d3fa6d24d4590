"""`make demo`: build every example as a shared library with `ea --lib`,
then call two of them from Python through ctypes and check the results."""
from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EA = ROOT / ".venv" / "bin" / "ea"
BUILD = ROOT / "build" / "examples"


def main() -> int:
    BUILD.mkdir(parents=True, exist_ok=True)
    for src in sorted((ROOT / "examples").glob("*.ea")):
        lib = BUILD / f"{src.stem}.so"
        done = subprocess.run([str(EA), str(src), "--lib", "-o", str(lib)], cwd=BUILD)
        if done.returncode != 0:
            return done.returncode
    f32p = ctypes.POINTER(ctypes.c_float)
    n = 1_000_003
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    y = np.random.default_rng(2).random(n, dtype=np.float32)
    expect = np.float32(2.5) * x + y
    saxpy = ctypes.CDLL(str(BUILD / "saxpy.so")).saxpy
    saxpy(x.ctypes.data_as(f32p), y.ctypes.data_as(f32p), ctypes.c_float(2.5), ctypes.c_int32(n))
    err = float(np.max(np.abs(y - expect)))
    print(f"saxpy on {n} floats: max |error| vs NumPy = {err:.2e}")
    dot = ctypes.CDLL(str(BUILD / "dot.so")).dot
    dot.restype = ctypes.c_float
    got = dot(x.ctypes.data_as(f32p), x.ctypes.data_as(f32p), ctypes.c_int32(n))
    ref = float(np.dot(x.astype(np.float64), x.astype(np.float64)))
    print(f"dot on {n} floats: {got:.6g} (float64 reference {ref:.6g}, rel. error {abs(got - ref) / ref:.1e})")
    return 0 if err <= 1e-6 and abs(got - ref) / ref < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
