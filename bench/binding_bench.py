"""Python binding benchmark.

1. Per-call overhead of saxpy (examples/saxpy.ea) on 1,000 float32: the raw
   ctypes function (argtypes set, pointers prepared once), the module `ea bind
   --python` generates, the function `load()` returns, and a NumPy ufunc call
   `np.multiply(a, b, out=c)` on the same size; rows take turns, medians of
   per-call times. Target: wrapper and load() within 3 µs of raw ctypes.
2. `load()` of saxpy: cold (cache cleared: compile + JIT), warm with the disk
   cache present (in-process table cleared; and in a new process). Target:
   warm <= 20 ms.
3. Headline: examples/fma.ea through `load()` on 16M float32 against NumPy
   `a * b + c`.

    .venv/bin/python bench/binding_bench.py [--reps N] [--calls N] [--json]
"""
from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler import clear_cache, load, loader  # noqa: E402

EA = ROOT / ".venv" / "bin" / "ea"
OVERHEAD_TARGET_US = 3.0
WARM_TARGET_MS = 20.0
# Kernels are kept alive: a freed kernel's JIT engine frees the target machine it shares with later builds.
_KEEP: list = []


def per_call_us(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def call_overhead(folder: Path, reps: int, calls: int) -> dict:
    for args in (["saxpy.ea", "--lib", "-o", "libsaxpy.so"], ["bind", "saxpy.ea", "--python"]):
        subprocess.run([str(EA), *args], cwd=folder, check=True, capture_output=True)
    spec = importlib.util.spec_from_file_location("saxpy_generated", folder / "saxpy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw = ctypes.CDLL(str(folder / "libsaxpy.so")).saxpy
    fptr = ctypes.POINTER(ctypes.c_float)
    raw.argtypes, raw.restype = [fptr, fptr, ctypes.c_float, ctypes.c_int32], None
    kernel = load(folder / "saxpy.ea")
    _KEEP.append(kernel)
    x = np.random.default_rng(0).random(1000, dtype=np.float32)
    y = np.zeros(1000, dtype=np.float32)
    xp, yp = x.ctypes.data_as(fptr), y.ctypes.data_as(fptr)
    a, b, c = x.copy(), x.copy(), np.empty_like(x)
    rows = {"raw ctypes": lambda: raw(xp, yp, 1e-3, 1000),
            "generated wrapper": lambda: module.saxpy(x, y, 1e-3),
            "load() function": lambda: kernel.saxpy(x, y, 1e-3),
            "numpy np.multiply(out=)": lambda: np.multiply(a, b, out=c)}
    samples: dict[str, list[float]] = {name: [] for name in rows}
    names = list(rows)
    for fn in rows.values():
        per_call_us(fn, calls)  # warm-up
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:  # rotate the order
            samples[name].append(per_call_us(rows[name], calls))
    med = {name: statistics.median(v) for name, v in samples.items()}
    return {"median_us": med,
            "wrapper_over_raw_us": med["generated wrapper"] - med["raw ctypes"],
            "load_over_raw_us": med["load() function"] - med["raw ctypes"]}


# The first load() of a process, numpy already imported (the caller works on arrays).
WARM_PROCESS = ("import sys, time\nimport numpy\nfrom ea_compiler import load\nt = time.perf_counter()\n"
                "load(sys.argv[1])\nprint((time.perf_counter() - t) * 1000)")


def load_times(folder: Path, runs: int) -> dict:
    path = folder / "saxpy.ea"
    cold, warm, fresh = [], [], []
    for _ in range(runs):
        clear_cache(path)
        start = time.perf_counter()
        _KEEP.append(load(path))
        cold.append((time.perf_counter() - start) * 1000)
        for _ in range(3):
            loader._LOADED.clear()
            start = time.perf_counter()
            _KEEP.append(load(path))
            warm.append((time.perf_counter() - start) * 1000)
    python = ROOT / ".venv" / "bin" / "python"
    for _ in range(max(3, runs // 2)):
        out = subprocess.run([str(python), "-c", WARM_PROCESS, str(path)], check=True,
                             capture_output=True, text=True).stdout
        fresh.append(float(out))
    return {"cold_ms": statistics.median(cold), "warm_ms": statistics.median(warm),
            "warm_new_process_ms": statistics.median(fresh)}


def fma_headline(folder: Path, reps: int, size: int) -> dict:
    shutil.copy(ROOT / "examples" / "fma.ea", folder / "fma.ea")
    kernel = load(folder / "fma.ea")
    _KEEP.append(kernel)
    rng = np.random.default_rng(1)
    a, b, c = (rng.random(size, dtype=np.float32) for _ in range(3))
    out = np.empty_like(a)
    rows = {"ea load()": lambda: kernel.fma_kernel(a, b, c, out),
            "ea load() _parallel": lambda: kernel.fma_kernel_parallel(a, b, c, out),
            "numpy a * b + c": lambda: a * b + c}
    times: dict[str, list[float]] = {name: [] for name in rows}
    for fn in rows.values():
        fn()
    for _ in range(reps):
        for name, fn in rows.items():
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1000)
    assert np.allclose(out, a * b + c, rtol=1e-6)
    med = {name: statistics.median(v) for name, v in times.items()}
    return {"elements": size, "median_ms": med, "threads": os.cpu_count(),
            "numpy_over_ea": med["numpy a * b + c"] / med["ea load()"],
            "numpy_over_ea_parallel": med["numpy a * b + c"] / med["ea load() _parallel"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=41, help="overhead repetitions (default 41)")
    ap.add_argument("--calls", type=int, default=2000, help="calls per overhead repetition (default 2000)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ea-binding-bench-") as tmp:
        folder = Path(tmp)
        shutil.copy(ROOT / "examples" / "saxpy.ea", folder / "saxpy.ea")
        result = {"call_overhead": call_overhead(folder, args.reps, args.calls),
                  "load": load_times(folder, 7),
                  "fma": fma_headline(folder, 15, 16 * 1024 * 1024)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    ov, ld, fma = result["call_overhead"], result["load"], result["fma"]
    print(f"Per-call time, saxpy on 1,000 float32 (median of {args.reps} x {args.calls} calls):")
    for name, us in ov["median_us"].items():
        print(f"  {name:<26} {us:7.2f} us")
    for label, key in (("generated wrapper", "wrapper_over_raw_us"), ("load() function", "load_over_raw_us")):
        verdict = "ok" if ov[key] <= OVERHEAD_TARGET_US else "over target"
        print(f"  {label} overhead over raw ctypes: {ov[key]:.2f} us (target <= {OVERHEAD_TARGET_US}: {verdict})")
    verdict = "ok" if ld["warm_ms"] <= WARM_TARGET_MS else "over target"
    print(f"load(): cold {ld['cold_ms']:.1f} ms, warm {ld['warm_ms']:.2f} ms (target <= {WARM_TARGET_MS}: "
          f"{verdict}), warm in a new process {ld['warm_new_process_ms']:.1f} ms")
    m = fma["median_ms"]
    print(f"fma on {fma['elements']:,} float32: load() {m['ea load()']:.1f} ms, "
          f"_parallel ({fma['threads']} threads) {m['ea load() _parallel']:.1f} ms, "
          f"NumPy a * b + c {m['numpy a * b + c']:.1f} ms -> {fma['numpy_over_ea']:.2f}x "
          f"({fma['numpy_over_ea_parallel']:.2f}x parallel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
