"""Generated-code benchmark: every example kernel built with `ea --lib` against the natural
scalar C loop (bench/c/<name>.c, `gcc -O3 -march=native`), both called through ctypes on
the same NumPy inputs, at a cache-resident size (16 KiB of main input: 4K f32), an
L2-sized one (1 MiB: 256K f32) and a DRAM-sized one (64 MiB: 16M f32); plus memory
bandwidth (STREAM-like triad written in Eä, compiler/bench/triad.ea), the FMA kernel as a share of
it, NumPy `a * b + c`, and the in-process compile time of every example.

    .venv/bin/python bench/kernels.py [--reps N] [--quick] [--json] [--sizes small,medium,large]
                                      [--only KERNEL,...] [--kernels-only]

`--sizes` and `--only` limit the run while iterating on one kernel; `--kernels-only` skips
the bandwidth and compile-time parts.

Timing: the implementations take turns within every repetition (rotating order) and the
median is reported. Times are the thread's CPU time (time.thread_time_ns), so moments when
another process on this shared machine has the core do not count. At the small size a
sample is a batch of calls lasting ~1 ms, and the cost of a ctypes call with the same
argument list (an empty C function, measured in the same rotation) is subtracted.
Targets: geomean(ours/C) <= 1.00, no kernel > 1.10, FMA >= 90 % of triad bandwidth,
compile <= 250 ms per example.
"""
from __future__ import annotations

import argparse
import ctypes as ct
import datetime
import json
import math
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
OUT = ROOT / "build" / "bench"
SMALL, MEDIUM, LARGE = 16 << 10, 1 << 20, 64 << 20  # bytes of a kernel's main input array
SIZES = ("small", "medium", "large")
TARGETS = {"geomean": 1.00, "worst": 1.10, "fma_of_triad": 90.0, "compile_ms": 250.0}
P, F, I, B = ct.c_void_p, ct.c_float, ct.c_int32, ct.c_uint8
f32, u8, i8 = np.float32, np.uint8, np.int8


def ptr(a: np.ndarray) -> P:
    return P(a.ctypes.data)


def rand(rng, n, dtype, lo=-1.0, hi=1.0):
    if dtype == f32:
        return rng.uniform(lo, hi, n).astype(f32)
    return rng.integers(lo, hi, n, dtype=dtype)


# Each spec: example file, function, argtypes, restype, and a builder taking (n, rng) that
# returns (arguments, arrays to keep alive). n = elements of the main input array, sized
# in bytes: 16 KiB (4K f32 / 16K u8: cache-resident) and 64 MiB (16M f32 / 64M u8: well
# beyond the 32 MB L3). Particles use n/4 particles of 4 floats, frame_rms n/8 frames,
# sobel a square image of n pixels.


def _args(*items):
    placed = iter(place([x for x in items if isinstance(x, np.ndarray)]))
    items = [next(placed) if isinstance(x, np.ndarray) else x for x in items]
    return [ptr(x) if isinstance(x, np.ndarray) else x for x in items], items


def _square(size):
    side = int(math.isqrt(size))
    return side, side


SPECS = [
    ("saxpy", "saxpy", [P, P, F, I], None, lambda n, r: _args(rand(r, n, f32), rand(r, n, f32), F(0.5), I(n))),
    ("fma", "fma_kernel", [P, P, P, P, I], None,
     lambda n, r: _args(rand(r, n, f32), rand(r, n, f32), rand(r, n, f32), np.zeros(n, f32), I(n))),
    ("dot", "dot", [P, P, I], F, lambda n, r: _args(rand(r, n, f32), rand(r, n, f32), I(n))),
    ("reductions", "sum_f32", [P, I], F, lambda n, r: _args(rand(r, n, f32), I(n))),
    ("reductions", "max_f32", [P, I], F, lambda n, r: _args(rand(r, n, f32), I(n))),
    ("reductions", "min_f32", [P, I], F, lambda n, r: _args(rand(r, n, f32), I(n))),
    ("clip_mask", "clip", [P, P, F, I], None, lambda n, r: _args(rand(r, n, f32), np.zeros(n, f32), F(0.5), I(n))),
    ("threshold_u8", "threshold", [P, P, B, I], None,
     lambda n, r: _args(rand(r, n, u8, 0, 256), np.zeros(n, u8), B(128), I(n))),
    ("normalize_u8", "normalize", [P, P, I], None, lambda n, r: _args(rand(r, n, u8, 0, 256), np.zeros(n, f32), I(n))),
    ("preprocess", "preprocess", [P, P, F, F, F, F, I], None,
     lambda n, r: _args(rand(r, n, u8, 0, 256), np.zeros(n, f32), F(0.45), F(4.4), F(-1.5), F(2.0), I(n))),
    ("particles", "step", [P, I, F], None, lambda n, r: _args(rand(r, n, f32, -10, 10), I(n // 4), F(0.01))),
    ("leaky_relu", "leaky_relu", [P, P, F, I], None, lambda n, r: _args(rand(r, n, f32), np.zeros(n, f32), F(0.1), I(n))),
    ("frame_rms", "frame_rms", [P, P, I], None, lambda n, r: _args(rand(r, n, f32), np.zeros(n // 8, f32), I(n // 8))),
    ("dot_i8", "dot_u8i8", [P, P, I], I, lambda n, r: _args(rand(r, n, u8, 0, 128), rand(r, n, i8, -128, 128), I(n))),
    ("sobel", "sobel", [P, P, I, I], None,
     lambda n, r: _args(rand(r, n, f32, 0, 1), np.zeros(n, f32), I(_square(n)[0]), I(_square(n)[1]))),
]
U8_INPUT = {"threshold", "normalize", "preprocess", "dot_u8i8"}
# Kernels whose C loop gcc vectorises with the same arithmetic as ours. The others stay
# (partly) scalar in C: float sums keep C's strict left-to-right order (dot, sum_f32),
# max/min reductions and loops calling sqrtf (errno) are not vectorised.
LIKE_FOR_LIKE = {"saxpy", "fma_kernel", "clip", "threshold", "normalize", "preprocess", "step",
                 "leaky_relu", "dot_u8i8"}


def run(*cmd, cwd=None) -> None:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{proc.stderr}")


def build() -> dict[str, ct.CDLL]:
    """ea_<stem>.so, c_<stem>.so, triad.so, noop.so in build/bench/."""
    OUT.mkdir(parents=True, exist_ok=True)
    libs = {}
    sources = sorted((ROOT / "examples").glob("*.ea")) + [ROOT / "compiler" / "bench" / "triad.ea"]
    for src in sources:
        shutil.copy(src, OUT / src.name)  # --lib writes FILE.ea.json next to the source
        run(EA, src.name, "--lib", "-o", f"ea_{src.stem}.so", cwd=OUT)
        libs[f"ea_{src.stem}"] = ct.CDLL(str(OUT / f"ea_{src.stem}.so"))
    for c in sorted((ROOT / "bench" / "c").glob("*.c")):
        run("gcc", "-O3", "-march=native", "-shared", "-fPIC", c, "-o", OUT / f"c_{c.stem}.so", "-lm")
        libs[f"c_{c.stem}"] = ct.CDLL(str(OUT / f"c_{c.stem}.so"))
    return libs


def typed(lib: ct.CDLL, name: str, argtypes, restype):
    f = lib[name]  # a fresh function object: argtypes are per object
    f.argtypes, f.restype = argtypes, restype
    return f


clock = time.thread_time_ns


def batch_time(f, args, k: int) -> float:
    t0 = clock()
    for _ in range(k):
        f(*args)
    return (clock() - t0) / k


def bench_size(libs, size: int, reps: int, target_ns: float) -> dict[str, dict]:
    """Every kernel at one size. Each round times every kernel once per implementation
    (ours, C, the empty call; rotating order), so that a busy spell on the shared machine
    lands on all of them rather than on whichever kernel was running."""
    jobs = []
    for stem, name, argtypes, restype, make in SPECS:
        n = size if name in U8_INPUT else size // 4
        args, keep = make(n, np.random.default_rng(1))
        fns = {"ours": typed(libs[f"ea_{stem}"], name, argtypes, restype),
               "c": typed(libs[f"c_{stem}"], name, argtypes, restype),
               "call": typed(libs["c_noop"], "noop", argtypes, restype)}
        for f in fns.values():  # warm up: page faults, caches, branch predictors
            f(*args)
        k = max(1, int(target_ns / max(1.0, min(batch_time(f, args, 1) for f in fns.values()))))
        jobs.append((name, n, fns, args, keep, k, {impl: [] for impl in fns}))
    for rep in range(reps):
        for name, n, fns, args, keep, k, samples in jobs:
            order = list(fns)[rep % 3:] + list(fns)[:rep % 3]
            for impl in order:
                samples[impl].append(batch_time(fns[impl], args, k))
    out = {}
    for name, n, fns, args, keep, k, samples in jobs:
        t = {impl: statistics.median(v) for impl, v in samples.items()}
        ours, c = t["ours"] - t["call"], t["c"] - t["call"]
        out[name] = {"n": n, "ours_us": ours / 1e3, "c_us": c / 1e3, "call_us": t["call"] / 1e3, "ratio": ours / c}
    return out


def bench_kernels(libs, reps: int, sizes: dict[str, int]) -> list[dict]:
    """Small and medium sizes time ~1 ms batches of calls, the large size single calls."""
    res = {label: bench_size(libs, size, reps if label != "large" else max(5, reps // 4),
                             0 if label == "large" else 1e6)
           for label, size in sizes.items()}
    return [{"kernel": name, "example": f"{stem}.ea", **{label: res[label][name] for label in sizes}}
            for stem, name, *_ in SPECS]


def bench_bandwidth(libs, reps: int, n: int) -> dict:
    rng = np.random.default_rng(2)
    a, b, c, out = place([rand(rng, n, f32) for _ in range(4)])
    triad = typed(libs["ea_triad"], "triad", [P, P, P, F, I], None)
    fma = typed(libs["ea_fma"], "fma_kernel", [P, P, P, P, I], None)
    fma_c = typed(libs["c_fma"], "fma_kernel", [P, P, P, P, I], None)
    numpy_fma = (lambda: a * b + c)
    fns = {"triad": triad, "fma": fma, "fma_c": fma_c}
    args = {"triad": (ptr(out), ptr(b), ptr(c), F(3.0), I(n)), "fma": (ptr(a), ptr(b), ptr(c), ptr(out), I(n)),
            "fma_c": (ptr(a), ptr(b), ptr(c), ptr(out), I(n))}
    for name, f in fns.items():
        f(*args[name])
    numpy_fma()
    samples = {name: [] for name in [*fns, "numpy"]}
    for rep in range(reps):
        for name in samples:
            t0 = clock()
            fns[name](*args[name]) if name != "numpy" else numpy_fma()
            samples[name].append(clock() - t0)
    t = {name: statistics.median(s) for name, s in samples.items()}
    gbs = {name: (12 if name == "triad" else 16) * n / t[name] for name in t}  # bytes / ns = GB/s
    return {"n": n, "triad_GBps": gbs["triad"], "fma_GBps": gbs["fma"], "fma_c_GBps": gbs["fma_c"],
            "numpy_GBps": gbs["numpy"], "numpy_ms": t["numpy"] / 1e6, "fma_ms": t["fma"] / 1e6,
            "fma_pct_of_triad": 100 * gbs["fma"] / gbs["triad"]}


def bench_compile(reps: int) -> dict[str, float]:
    from ea_compiler.build import compile_source
    from ea_compiler.options import Options
    files = sorted((ROOT / "examples").glob("*.ea"))
    compile_source(files[0].read_text(), str(files[0]), Options())[1].object()  # LLVM start-up
    times = {f.name: [] for f in files}
    for _ in range(reps):
        for f in files:
            text = f.read_text()
            t0 = clock()
            analysis, module = compile_source(text, str(f), Options())
            module.object()
            times[f.name].append((clock() - t0) / 1e6)
    return {name: statistics.median(s) for name, s in times.items()}


def geomean(xs) -> float:
    xs = list(xs)
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _size_text(nbytes: int) -> str:
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"


def report(res: dict) -> str:
    sizes = list(res["bytes"])
    first = sizes[0]
    call = statistics.median(r[first]["call_us"] for r in res["kernels"])
    lines = [f"{res['date']}, target `{res['target']}`, {res['cc']}; main input " +
             ", ".join(f"{_size_text(res['bytes'][k])} ({k})" for k in sizes) +
             f"; ctypes call cost subtracted (median {call * 1e3:.0f} ns)", "",
             "| kernel | example | " + " | ".join(f"{k} n | ours µs | C µs | ours/C" for k in sizes) + " |",
             "|---|---|" + "---|---|---|---|" * len(sizes)]
    for r in res["kernels"]:
        cells = [f"{r[k]['n']:,} | {r[k]['ours_us']:.2f} | {r[k]['c_us']:.2f} | {r[k]['ratio']:.2f}" for k in sizes]
        lines.append(f"| `{r['kernel']}` | {r['example']} | " + " | ".join(cells) + " |")
    s = res["summary"]
    lines += ["", "geomean ours/C: " + ", ".join(f"{k} {s['geomean_' + k]:.2f}" for k in sizes) +
              f", all {s['geomean']:.2f} (target <= {TARGETS['geomean']:.2f}); worst {s['worst']:.2f} "
              f"`{s['worst_kernel']}` (target <= {TARGETS['worst']:.2f}); like-for-like kernels "
              f"(C vectorised too, same arithmetic) {s['geomean_like_for_like']:.2f} (" +
              ", ".join(f"{k} {s['like_for_like_' + k]:.2f}" for k in sizes) + ")"]
    if "bandwidth" not in res:
        return "\n".join(lines)
    bw = res["bandwidth"]
    lines += [f"triad (Eä) at {bw['n']:,} f32: {bw['triad_GBps']:.1f} GB/s (3 arrays x 4 B per element)",
              f"FMA kernel at {bw['n']:,} f32: {bw['fma_GBps']:.1f} GB/s (4 arrays x 4 B per element) = "
              f"{bw['fma_pct_of_triad']:.0f}% of triad (target >= {TARGETS['fma_of_triad']:.0f}%); "
              f"C {bw['fma_c_GBps']:.1f} GB/s; NumPy a * b + c {bw['numpy_ms']:.1f} ms = {bw['numpy_GBps']:.1f} GB/s",
              "", "compile_source() + object(), median ms: " +
              ", ".join(f"{k} {v:.0f}" for k, v in res["compile_ms"].items()) +
              f" (max {max(res['compile_ms'].values()):.0f}, target <= {TARGETS['compile_ms']:.0f})"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=61, help="timed repetitions at the small size (default 61)")
    ap.add_argument("--quick", action="store_true", help="few repetitions, 4 MiB instead of 64 MiB inputs")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated subset of small,medium,large")
    ap.add_argument("--only", default="", help="comma-separated kernel names (default: all)")
    ap.add_argument("--kernels-only", action="store_true", help="skip the bandwidth and compile-time parts")
    opts = ap.parse_args(argv)
    reps, large = (7, 4 << 20) if opts.quick else (opts.reps, LARGE)
    labels = [x for x in opts.sizes.split(",") if x]
    if not labels or any(x not in SIZES for x in labels):
        ap.error(f"--sizes takes a comma-separated subset of {','.join(SIZES)}")
    sizes = {k: v for k, v in zip(SIZES, (SMALL, MEDIUM, large)) if k in labels}
    if opts.only:
        only = set(opts.only.split(","))
        unknown = only - {spec[1] for spec in SPECS}
        if unknown:
            ap.error(f"unknown kernel(s): {', '.join(sorted(unknown))}")
        SPECS[:] = [spec for spec in SPECS if spec[1] in only]
    libs = build()
    target = subprocess.run([str(EA), "--print-target"], capture_output=True, text=True).stdout.strip()
    cc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    kernels = bench_kernels(libs, reps, sizes)
    ratios = [(r[k]["ratio"], r["kernel"], k) for r in kernels for k in sizes]
    worst = max(ratios)
    like = [x for x, name, _ in ratios if name in LIKE_FOR_LIKE] or [math.nan]
    summary = {"geomean": geomean(x for x, *_ in ratios), "worst": worst[0], "worst_kernel": f"{worst[1]} {worst[2]}",
               "geomean_like_for_like": geomean(like)}
    for k in sizes:
        summary[f"geomean_{k}"] = geomean(r[k]["ratio"] for r in kernels)
        summary[f"like_for_like_{k}"] = geomean([x for x, name, s in ratios if name in LIKE_FOR_LIKE and s == k]
                                                or [math.nan])
    res = {"date": datetime.date.today().isoformat(), "target": target, "cc": cc,
           "bytes": sizes, "kernels": kernels, "summary": summary, "targets": TARGETS}
    if not opts.kernels_only:
        res["bandwidth"] = bench_bandwidth(libs, max(7, reps // 2), large // 4)
        res["compile_ms"] = bench_compile(5 if opts.quick else 11)
    print(json.dumps(res, indent=2) if opts.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
