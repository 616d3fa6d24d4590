"""Call cost of a `load()` function against a NumPy ufunc call.

saxpy (examples/saxpy.ea, y = a*x + y) on 10, 1,000 and 100,000 float32
through `load()`'s fast entry point (compiler/loader_fast.py), through the
generated binding's ctypes path (the same function's `__self__.binding`:
what every call cost before the fast path), and NumPy's
`np.multiply(x, y, out=o)` on the same arrays. Rows take turns within
each repetition (interleaved, one process); medians of per-call times.
Target: at 1,000 elements the fast call costs no more than the ufunc call.

    .venv/bin/python bench/call_bench.py [--reps N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler import load  # noqa: E402

SIZES = (10, 1_000, 100_000)
CALLS = {10: 20_000, 1_000: 20_000, 100_000: 400}


def ufunc_loop(x, y, o, calls: int) -> float:
    multiply = np.multiply
    start = time.perf_counter()
    for _ in range(calls):
        multiply(x, y, out=o)
    return time.perf_counter() - start


def saxpy_loop(saxpy, x, y, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        saxpy(x, y, 1e-9)
    return time.perf_counter() - start


def measure(saxpy, size: int, reps: int) -> dict[str, float]:
    """Median µs per call of each row; rows written as a user calls them."""
    x = np.arange(size, dtype=np.float32) / size
    y, o = np.zeros(size, np.float32), np.empty(size, np.float32)
    calls = CALLS[size]
    rows = {"numpy ufunc": lambda: ufunc_loop(x, y, o, calls),
            "load() fast": lambda: saxpy_loop(saxpy, x, y, calls),
            "load() ctypes path": lambda: saxpy_loop(saxpy.__self__.binding, x, y, calls)}
    times: dict[str, list[float]] = {name: [] for name in rows}
    names = list(rows)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            times[name].append(rows[name]() / calls * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="ea-call-bench-"))
    try:
        shutil.copy(ROOT / "examples" / "saxpy.ea", folder / "saxpy.ea")
        saxpy = load(folder / "saxpy.ea").saxpy
        results = {size: measure(saxpy, size, args.reps) for size in SIZES}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps({str(k): v for k, v in results.items()}, indent=2))
        return 0
    print(f"saxpy call cost vs np.multiply(x, y, out=o): medians of {args.reps} interleaved reps "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"{'elements':>9}  {'numpy ufunc':>12}  {'load() fast':>18}  {'load() ctypes path':>19}")
    for size, r in results.items():
        base = r["numpy ufunc"]
        fast, slow = r["load() fast"], r["load() ctypes path"]
        print(f"{size:>9,}  {base:>9.3f} µs  {fast:>8.3f} µs ({fast / base:4.2f}×)  "
              f"{slow:>8.3f} µs ({slow / base:4.2f}×)")
    r = results[1_000]
    met = r["load() fast"] <= r["numpy ufunc"]
    print(f"target (1,000 elements: load() <= the ufunc call): {'met' if met else 'NOT met'} "
          f"({r['load() fast']:.3f} vs {r['numpy ufunc']:.3f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
