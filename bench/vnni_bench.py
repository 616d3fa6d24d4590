"""int8 dot products with VNNI (`dpbusd`) against `maddubs_i16` + `madd_i16` and NumPy.

    .venv/bin/python bench/vnni_bench.py [--reps N] [--quick] [--json]

The two examples, examples/vnni/int8_dot.ea (a dot product of n u8 x i8) and
examples/vnni/int8_gemm.ea (c = a (m x 1024, u8) times bt (256 x 1024, i8) transposed),
each export a VNNI version and a maddubs version of the same loop. Both are built
with `ea --lib` for the host and called through ctypes on the same arrays, and NumPy
computes the same result (`np.dot` / `@` on int32 copies made before timing: NumPy
has no int8 dot product). Activations are 7-bit (0..127), so the maddubs version is
exact too, and every result is checked against NumPy before timing.

Timing: the three take turns within every repetition (rotating order), each sample a
batch of calls lasting about 1 ms, timed with the thread's CPU time
(time.thread_time_ns: moments when another process has the core do not count);
medians per call, and the ratios maddubs/VNNI and NumPy/VNNI from the same run.
Needs a CPU with VNNI (AVX512-VNNI or AVX-VNNI).
"""
from __future__ import annotations

import argparse
import ctypes as ct
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ea_compiler.bench.inputs import place  # noqa: E402 - arrays at fixed 4 KiB offsets, as `ea bench` does

EA = ROOT / ".venv" / "bin" / "ea"
OUT = ROOT / "build" / "bench" / "vnni"
P, I = ct.c_void_p, ct.c_int32
DOT_SIZES = (16 << 10, 1 << 20, 16 << 20)  # u8 elements: L1/L2, L2/L3, DRAM
GEMM_ROWS = (16, 64, 256)                  # m; n = 256, k = 1024
GEMM_N, GEMM_K = 256, 1024


def host_has_vnni() -> bool:
    try:
        flags = next(ln for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("flags"))
    except (OSError, StopIteration):
        return False
    return bool({"avx512_vnni", "avx_vnni"} & set(flags.split()))


def build() -> tuple[ct.CDLL, ct.CDLL]:
    OUT.mkdir(parents=True, exist_ok=True)
    libs = []
    for stem in ("int8_dot", "int8_gemm"):
        shutil.copy(ROOT / "examples" / "vnni" / f"{stem}.ea", OUT)
        done = subprocess.run([str(EA), f"{stem}.ea", "--lib"], cwd=OUT, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"ea {stem}.ea --lib failed:\n{done.stderr}")
        libs.append(ct.CDLL(str(OUT / f"{stem}.so")))
    dot, gemm = libs
    for f in (dot.dot_vnni, dot.dot_maddubs):
        f.argtypes, f.restype = [P, P, I], I
    for f in (gemm.gemm_vnni, gemm.gemm_maddubs):
        f.argtypes, f.restype = [P, P, P, I, I, I], None
    return dot, gemm


def dot_case(lib, n: int, rng):
    a, w = place([rng.integers(0, 128, n, dtype=np.uint8), rng.integers(-128, 128, n, dtype=np.int8)])
    a32, w32 = a.astype(np.int32), w.astype(np.int32)
    want = int(np.dot(a32, w32))
    pa, pw = a.ctypes.data, w.ctypes.data
    calls = {"vnni": lambda: lib.dot_vnni(pa, pw, n), "maddubs": lambda: lib.dot_maddubs(pa, pw, n),
             "numpy": lambda: np.dot(a32, w32), "_keep": (a, w)}  # the arrays outlive the calls
    for name, f in calls.items():
        if name == "_keep":
            continue
        if int(f()) != want:
            raise SystemExit(f"dot {name} n={n}: {int(f())} != {want}")
    return calls


def gemm_case(lib, m: int, rng):
    n, k = GEMM_N, GEMM_K
    a, bt, c = place([rng.integers(0, 128, m * k, dtype=np.uint8),
                      rng.integers(-128, 128, n * k, dtype=np.int8), np.zeros(m * n, np.int32)])
    a32, b32 = a.reshape(m, k).astype(np.int32), bt.reshape(n, k).astype(np.int32).T.copy()
    want = a32 @ b32
    pa, pb, pc = a.ctypes.data, bt.ctypes.data, c.ctypes.data
    calls = {"vnni": lambda: lib.gemm_vnni(pa, pb, pc, m, n, k),
             "maddubs": lambda: lib.gemm_maddubs(pa, pb, pc, m, n, k), "numpy": lambda: a32 @ b32,
             "_keep": (a, bt, c)}  # the arrays outlive the calls
    for name in ("vnni", "maddubs"):
        c[...] = -1
        calls[name]()
        if not np.array_equal(c.reshape(m, n), want):
            raise SystemExit(f"gemm {name} m={m}: wrong result")
    return calls


def batch_size(f, target_ns: int = 1_000_000) -> int:
    f()
    start = time.thread_time_ns()
    f()
    one = max(time.thread_time_ns() - start, 1)
    return max(1, min(100_000, target_ns // one))


def measure(case: dict, reps: int) -> dict[str, float]:
    """Median ns per call of each, taking turns in rotating order (`case` keeps the arrays alive)."""
    calls = {name: f for name, f in case.items() if name != "_keep"}
    sizes = {name: batch_size(f) for name, f in calls.items()}
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            f, count = calls[name], sizes[name]
            start = time.thread_time_ns()
            for _ in range(count):
                f()
            samples[name].append((time.thread_time_ns() - start) / count)
    return {name: statistics.median(s) for name, s in samples.items()}


def run(reps: int, quick: bool) -> dict:
    dot, gemm = build()
    rng = np.random.default_rng(1)
    rows = []
    for n in DOT_SIZES[:2] if quick else DOT_SIZES:
        med = measure(dot_case(dot, n, rng), reps)
        rows.append({"kernel": "dot", "size": f"n={n}", "macs": n, "median_ns": med})
    for m in GEMM_ROWS[:2] if quick else GEMM_ROWS:
        med = measure(gemm_case(gemm, m, rng), reps)
        rows.append({"kernel": "gemm", "size": f"{m}x{GEMM_N}x{GEMM_K}", "macs": m * GEMM_N * GEMM_K,
                     "median_ns": med})
    for r in rows:
        med = r["median_ns"]
        r["maddubs_over_vnni"] = med["maddubs"] / med["vnni"]
        r["numpy_over_vnni"] = med["numpy"] / med["vnni"]
        r["vnni_gmacs"] = r["macs"] / med["vnni"]
    return {"reps": reps, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=21, help="samples per implementation (default 21)")
    ap.add_argument("--quick", action="store_true", help="the two smaller sizes of each kernel only")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    if not host_has_vnni():
        print("skipped: this CPU has no VNNI (AVX512-VNNI or AVX-VNNI)")
        return 0
    result = run(max(args.reps, 1), args.quick)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"int8 dot products, medians of {result['reps']} samples (thread CPU time), 7-bit u8 x i8")
    print(f"  {'kernel':<6} {'size':<16} {'VNNI':>10} {'maddubs':>10} {'NumPy':>10}  "
          f"{'maddubs/VNNI':>12} {'NumPy/VNNI':>10} {'VNNI GMAC/s':>11}")
    for r in result["rows"]:
        med = r["median_ns"]
        print(f"  {r['kernel']:<6} {r['size']:<16} {fmt(med['vnni']):>10} {fmt(med['maddubs']):>10} "
              f"{fmt(med['numpy']):>10}  {r['maddubs_over_vnni']:>11.2f}x {r['numpy_over_vnni']:>9.1f}x "
              f"{r['vnni_gmacs']:>11.1f}")
    return 0


def fmt(ns: float) -> str:
    return f"{ns / 1e3:.2f} us" if ns < 1e6 else f"{ns / 1e6:.2f} ms"


if __name__ == "__main__":
    sys.exit(main())
