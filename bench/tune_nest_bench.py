"""Issue 22's goal: `ea tune` from naive kernels alone (bench/tune_nest/*_naive.ea), then the
original, the tuned kernel, a hand-written best (*_blocked.ea / *_best.ea) and NumPy measured
side by side in this process (median of repeats, NumPy with one BLAS thread).

    .venv/bin/python bench/tune_nest_bench.py                     # tune (matmul 600 s, others 180 s) + measure
    .venv/bin/python bench/tune_nest_bench.py --kernels matmul --matmul-time 600
    .venv/bin/python bench/tune_nest_bench.py --no-tune --work DIR  # measure what an earlier run left in DIR

Per kernel it prints GFLOP/s (GB/s for the sum), the ratios to the original, to the hand-written
kernel and to NumPy, the sequence of transformations accepted, the variants evaluated and the
tuning's wall time. The tuning runs in a copy (DIR, default a fresh temporary folder), so
bench/ is never written. Goal (matmul, n = 256): tuned >= hand-written and >= 80 % of NumPy.
For the matmul it also times the kernels with B at each 16-byte offset in a cache line (where
NumPy's arrays start varies from call to call), as % of NumPy on the same arrays."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported: single-thread BLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import ea  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KERNELS_DIR = ROOT / "bench" / "tune_nest"
EA = [sys.executable, "-m", "ea_compiler"] if not (ROOT / ".venv" / "bin" / "ea").exists() \
    else [str(ROOT / ".venv" / "bin" / "ea")]


@dataclass
class Case:
    name: str  # the naive kernel's stem without _naive
    best: str  # the hand-written kernel's file name
    function: str
    sizes: tuple
    unit: str  # "GFLOP/s" or "GB/s"
    also: tuple = ()  # (label, file name) of further hand-written kernels measured beside it

    def work(self, n: int) -> float:
        """Floating-point operations (or bytes, for GB/s) of one call at size n."""
        return {"matmul": 2.0 * n ** 3, "conv3": 18.0 * max(n - 2, 0) ** 2,
                "dot_batch": 2.0 * n * 64, "sum": 4.0 * n}[self.name]

    def inputs(self, n: int, rng):
        f = lambda m: rng.random(m, dtype=np.float32)  # noqa: E731
        if self.name == "matmul":
            a, b = f(n * n), f(n * n)
            return (a, b, np.zeros(n * n, np.float32)), {"n": n}, lambda: a.reshape(n, n) @ b.reshape(n, n)
        if self.name == "conv3":
            img, kern = f(n * n), f(9)
            im, k = img.reshape(n, n), kern.reshape(3, 3)
            ref = lambda: sum(k[a, b] * im[a:n - 2 + a, b:n - 2 + b] for a in range(3) for b in range(3))  # noqa: E731
            return (img, kern, np.zeros(n * n, np.float32)), {"h": n, "w": n}, ref
        if self.name == "dot_batch":
            x, y = f(n * 64), f(n * 64)
            return (x, y, np.zeros(n, np.float32)), {"batch": n, "d": 64}, \
                lambda: np.einsum("ij,ij->i", x.reshape(n, 64), y.reshape(n, 64))
        x = f(n)
        return (x,), {}, lambda: np.sum(x)


CASES = [Case("matmul", "matmul_blocked.ea", "matmul", (256, 512), "GFLOP/s",
              also=(("hand-6x16", "matmul_6x16.ea"),)),
         Case("conv3", "conv3_best.ea", "conv3", (256, 1024), "GFLOP/s"),
         Case("dot_batch", "dot_batch_best.ea", "dot_batch", (4096, 65536), "GFLOP/s"),
         Case("sum", "sum_best.ea", "sum_f32", (1 << 16, 1 << 22), "GB/s")]


def tune(case: Case, work: Path, seconds: float, extra: list[str]) -> dict:
    for suffix in (".ea", ".bench.toml"):
        shutil.copyfile(KERNELS_DIR / f"{case.name}_naive{suffix}", work / f"{case.name}_naive{suffix}")
    kernel = work / f"{case.name}_naive.ea"
    t0 = time.monotonic()
    out = subprocess.run([*EA, "tune", str(kernel), "--assume-noalias", "--time", str(seconds), "--json", "--no-diff",
                          *extra], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if out.returncode != 0:
        raise SystemExit(f"ea tune {kernel} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    doc = json.loads(out.stdout)
    doc["wall_s"] = wall
    (work / f"{case.name}.tune.json").write_text(json.dumps(doc, indent=1))
    return doc


def timed(fn, repeats: int, budget_s: float) -> float:
    """The median seconds of one call (at least `repeats` calls, more while under budget)."""
    fn()
    times = []
    t_end = time.perf_counter() + budget_s
    while len(times) < repeats or (time.perf_counter() < t_end and len(times) < 200):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def load(path: Path):
    return ea.load(str(path))


def measure(case: Case, work: Path, doc: dict | None, repeats: int) -> None:
    naive = work / f"{case.name}_naive.ea"
    if not naive.exists():
        shutil.copyfile(KERNELS_DIR / naive.name, naive)
    tuned_path = Path(doc["best_file"]) if doc and doc.get("best_file") else naive
    versions = {"original": naive, "tuned": tuned_path, "hand-written": KERNELS_DIR / case.best}
    versions.update((label, KERNELS_DIR / name) for label, name in case.also)
    mods = {name: getattr(load(path), case.function) for name, path in versions.items()}
    print(f"\n== {case.name}: {case.unit} (median of >= {repeats} calls; NumPy single-thread)")
    if doc:
        seq = [h["label"] for h in doc["history"] if h["outcome"] == "accepted"]
        print(f"   tuned: {doc['speedup']:.2f}x by its own final measurement; evaluated {doc['evaluated']}, "
              f"cached {doc['cache_hits']}, tuning wall time {doc['wall_s']:.0f} s")
        print("   accepted, in order: " + (" -> ".join(seq) if seq else "(nothing)"))
        if doc.get("note"):
            print(f"   note: {doc['note']}")
    rng = np.random.default_rng(0)
    for n in case.sizes:
        args, kw, ref = case.inputs(n, rng)
        rate = {}
        for name, fn in mods.items():
            s = timed(lambda: fn(*args, **kw), repeats, 2.0)
            rate[name] = case.work(n) / s / 1e9
        rate["numpy"] = case.work(n) / timed(ref, repeats, 2.0) / 1e9
        row = "  ".join(f"{name} {value:7.1f}" for name, value in rate.items())
        print(f"   n={n:<8} {row}")
        print(f"   {'':10} tuned/original {rate['tuned'] / rate['original']:6.2f}x   "
              f"tuned/hand-written {rate['tuned'] / rate['hand-written']:5.2f}x   "
              f"tuned/numpy {100 * rate['tuned'] / rate['numpy']:5.1f} %"
              + "".join(f"   {label}/numpy {100 * rate[label] / rate['numpy']:5.1f} %" for label, _ in case.also))
        if case.name == "matmul":
            placements(mods, args, kw, n, repeats)


def placed(values: np.ndarray, offset: int) -> np.ndarray:
    """A copy of `values` starting `offset` bytes past a 64-byte line."""
    raw = np.zeros(values.size + 128 // values.itemsize, values.dtype)
    start = ((-raw.ctypes.data % 64) + offset) // values.itemsize
    out = raw[start:start + values.size]
    out[:] = values
    return out


def placements(mods: dict, args: tuple, kw: dict, n: int, repeats: int) -> None:
    """The matmul with B at each 16-byte offset NumPy gives large arrays (it changes from call to
    call), tuned and hand-written kernels against NumPy on the same arrays: % of NumPy."""
    a, b, c = args
    for offset in (0, 16, 32, 48):
        bb = placed(b, offset)
        numpy = timed(lambda: a.reshape(n, n) @ bb.reshape(n, n), repeats, 1.0)
        shown = {name: numpy / timed(lambda: fn(a, bb, c, **kw), repeats, 1.0)
                 for name, fn in mods.items() if name != "original"}
        print(f"   {'':10} B {offset:2} bytes past a line: " +
              "  ".join(f"{name} {100 * r:5.1f} %" for name, r in shown.items()) + " of NumPy")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default=",".join(c.name for c in CASES))
    p.add_argument("--matmul-time", type=float, default=600.0, help="seconds of tuning for matmul (goal: <= 600)")
    p.add_argument("--time", type=float, default=180.0, help="seconds of tuning for each other kernel")
    p.add_argument("--work", type=Path, help="folder for the tuning runs (kept; default a temporary one)")
    p.add_argument("--no-tune", action="store_true", help="measure the tuned files an earlier run left in --work")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--tune-args", default="", help="extra `ea tune` options, e.g. '--quick' or '--seed 1'")
    a = p.parse_args(argv)
    wanted = a.kernels.split(",")
    work = a.work or Path(tempfile.mkdtemp(prefix="tune_nest_"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder: {work}; load: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cpus")
    for case in CASES:
        if case.name not in wanted:
            continue
        doc = None
        saved = work / f"{case.name}.tune.json"
        if a.no_tune:
            doc = json.loads(saved.read_text()) if saved.exists() else None
        else:
            seconds = a.matmul_time if case.name == "matmul" else a.time
            doc = tune(case, work, seconds, a.tune_args.split())
        measure(case, work, doc, a.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
