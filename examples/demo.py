"""`make demo`: build every example as a shared library with `ea --lib` (what a
build script does), then call three of them from Python the founding article's
way — `import ea; k = ea.load("fma.ea")`, no ctypes, headers or build system —
and check the results against NumPy."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import ea

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
EA = ROOT / ".venv" / "bin" / "ea"
BUILD = ROOT / "build" / "examples"


def main() -> int:
    BUILD.mkdir(parents=True, exist_ok=True)
    for src in sorted(EXAMPLES.glob("*.ea")):
        done = subprocess.run([str(EA), str(src), "--lib", "-o", str(BUILD / f"lib{src.stem}.so")], cwd=BUILD)
        if done.returncode != 0:
            return done.returncode

    n = 1_000_003
    rng = np.random.default_rng(1)
    a, b, c = (rng.random(n, dtype=np.float32) for _ in range(3))

    k = ea.load(EXAMPLES / "fma.ea")  # compiled once, cached in examples/__eacache__/
    print(k)
    out = np.empty(n, dtype=np.float32)
    k.fma_kernel(a, b, c, out)
    fma_err = float(np.max(np.abs(out - (a * b + c))))
    print(f"fma_kernel on {n} floats: max |error| vs NumPy = {fma_err:.2e}")

    y = b.copy()
    ea.load(EXAMPLES / "saxpy.ea").saxpy(a, y, 2.5)
    saxpy_err = float(np.max(np.abs(y - (np.float32(2.5) * a + b))))
    print(f"saxpy on {n} floats: max |error| vs NumPy = {saxpy_err:.2e}")

    got = ea.load(EXAMPLES / "dot.ea").dot(a, a)
    ref = float(np.dot(a.astype(np.float64), a.astype(np.float64)))
    rel = abs(got - ref) / ref
    print(f"dot on {n} floats: {got:.6g} (float64 reference {ref:.6g}, rel. error {rel:.1e})")
    return 0 if max(fma_err, saxpy_err) <= 1e-6 and rel < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
