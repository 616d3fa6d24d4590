"""Call cost of a `load()` function against a NumPy ufunc call.

saxpy (examples/saxpy.ea, y = a*x + y) on 10, 1,000 and 100,000 float32
through `load()`'s fast entry point (compiler/loader_fast.py), through the
generated binding's ctypes path (the same function's `__self__.binding`:
what every call cost before the fast path), and NumPy's
`np.multiply(x, y, out=o)` on the same arrays. Rows take turns within
each repetition (interleaved, one process); medians of per-call times.
Target: at 1,000 elements the fast call costs no more than the ufunc call.
Then the ctypes path's steps timed alone: where its ~2 µs go.

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


def breakdown(saxpy, reps: int, calls: int = 20_000) -> dict[str, float]:
    """Where the ctypes path's time goes at 1,000 elements: its whole call and
    each step of it alone (the binding's own helpers, interleaved, medians)."""
    import ctypes as ct
    binding = saxpy.__self__.binding
    env = binding.__globals__
    check, ptr, raw = env["_array"], env["_ptr"], env["_lib"].saxpy
    x, y = np.ones(1000, np.float32), np.ones(1000, np.float32)
    px, py, a, n = ptr(x), ptr(y), ct.c_float(1e-9), ct.c_int32(1000)

    def lengths():
        m = None
        if m is None:
            m = y.size
        return x.size < m, y.size < m

    steps = {"whole ctypes-path call": lambda: binding(x, y, 1e-9),
             "2 array checks (_array)": lambda: (check(x, "x", np.float32, False), check(y, "y", np.float32, True)),
             "2 array addresses (_ptr)": lambda: (ptr(x), ptr(y)),
             "scalar conversions (c_float, c_int32)": lambda: (ct.c_float(float(1e-9)), ct.c_int32(int(1000))),
             "length binding and checks": lengths,
             "ctypes call, arguments prebuilt": lambda: raw(px, py, a, n),
             "an empty Python call (loop overhead)": lambda: None,
             "load() fast entry point": lambda: saxpy(x, y, 1e-9)}
    times: dict[str, list[float]] = {name: [] for name in steps}
    names = list(steps)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            fn = steps[name]
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - start) / calls * 1e6)
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
        parts = breakdown(saxpy, args.reps)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps({"median_us": {str(k): v for k, v in results.items()}, "ctypes_path_us": parts}, indent=2))
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
    print("\nwhere the ctypes path's time goes (1,000 elements; each step timed alone, "
          "lambda call included):")
    for name, us in parts.items():
        print(f"  {name:40s} {us:6.3f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
