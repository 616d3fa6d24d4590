"""`ea tune` over the examples and the tuner's own test kernels: what it finds, how long it takes.

    .venv/bin/python bench/tune_bench.py [--only NAME ...] [--budget N] [--time S] [--json PATH]

Every kernel with a suite in examples/ and bench/tune_kernels/ (elementwise, reduction,
stencil, int8 dot, a naive ijk matmul) is copied with its suite into build/bench/tune/<name>/
and tuned there from scratch (`ea tune --json --fresh`, the default space: params and
transformations): the repository's files are never changed. Reported per kernel: the
original's and the best variant's median at the suite's largest size (measured together
at the end of the run), the speedup, NumPy at that size (measured in the same run, with its
BLAS on one thread like the kernels), the
attempts, the wall time, and inspect's bottleneck class of each tuned function's main loop
before and after. For reductions.ea the per-size table shows max_f32 and min_f32 against
NumPy at every suite size. Then the cache: the same run again, which should replay
from `__eatune__/` in a small fraction of the time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ea_compiler.bench.sizes import count_label  # noqa: E402
EA = ROOT / ".venv" / "bin" / "ea"
OUT = ROOT / "build" / "bench" / "tune"
SOURCES = (ROOT / "examples", ROOT / "bench" / "tune_kernels")
# The kernels run on one thread: so does NumPy's BLAS here (its threads also made the
# matmul reference's times jump by 100x on this shared machine).
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")


def kernels(only: list[str]) -> list[tuple[Path, Path]]:
    out = []
    for folder in SOURCES:
        for suite in sorted(folder.glob("*.bench.toml")):
            kernel = suite.with_name(suite.name.removesuffix(".bench.toml") + ".ea")
            if kernel.exists() and (not only or kernel.stem in only):
                out.append((kernel, suite))
    return out


def run(kernel: Path, suite: Path, args) -> tuple[dict | None, float, str]:
    work = OUT / kernel.stem
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    shutil.copy(kernel, work / kernel.name)
    text = suite.read_text().replace('baseline = "', '# baseline = "')  # no baseline files in the copy
    (work / suite.name).write_text(text)
    cmd = [str(EA), "tune", str(work / kernel.name), "--json", "--fresh", "--budget", str(args.budget),
           "--time", str(args.time)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    elapsed = time.monotonic() - t0
    if proc.returncode not in (0, 3):  # 3: the best lost side by side at the end, nothing written
        return None, elapsed, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
    return json.loads(proc.stdout), elapsed, ""


def again(kernel: Path, args) -> float:
    """The identical run once more (without --fresh): the cache's replay time."""
    cmd = [str(EA), "tune", str(OUT / kernel.stem / kernel.name), "--json", "--budget", str(args.budget),
           "--time", str(args.time)]
    t0 = time.monotonic()
    subprocess.run(cmd, capture_output=True, text=True, check=True, env=ENV)
    return time.monotonic() - t0


def row(name: str, doc: dict, elapsed: float) -> str:
    largest = {r["function"]: r for r in doc["sizes"] if r["largest"]}
    numpy = sum(r["numpy_us"] or 0 for r in largest.values())
    vs = f"{numpy / doc['best_us']:.2f}×" if numpy else "-"
    changes = "; ".join(f"{fn}: {doc['bottleneck_before'].get(fn, '?')} → {doc['bottleneck_after'].get(fn, '?')}"
                        for fn in largest)
    t = doc["tally"]
    tried = f"{t['evaluated'] + t['cached'] + t['unmeasured']} ({t['evaluated']} timed)"
    interval = doc["speedup_interval"]
    speedup = f"{doc['speedup']:.2f}×" + (f" ({interval[0]:.2f}–{interval[1]:.2f})" if interval else "")
    if doc["slower_at_end"]:
        speedup += ", slower side by side: not written"
    return (f"| {name} | {', '.join(largest)} | {doc['baseline_us']:.1f} | {doc['best_us']:.1f} | "
            f"{speedup} | {vs} | {tried} | {elapsed:.0f} s | {changes} | "
            f"{doc['best_label'] or '(original kept)'} |")


def per_size(doc: dict) -> list[str]:
    lines = ["| function | size | original µs | tuned µs | NumPy µs | tuned vs NumPy |", "|---|---|---|---|---|---|"]
    for r in doc["sizes"]:
        numpy = r["numpy_us"]
        lines.append(f"| {r['function']} | {_label(r['size'])} | {r['baseline_us']:.2f} | {r['best_us']:.2f} | "
                     f"{numpy:.2f} | {numpy / r['best_us']:.2f}× |" if numpy else "")
    return lines


def _label(size) -> str:
    """Exact, as `ea tune` prints sizes: `64K`, `250000`, `m=256,n=256,k=256`."""
    if isinstance(size, dict):
        return ",".join(f"{k}={count_label(v)}" for k, v in size.items())
    return count_label(size)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="kernel stem (repeatable)")
    parser.add_argument("--budget", type=int, default=16, help="variants per kernel (default 16)")
    parser.add_argument("--time", type=float, default=240, help="seconds per kernel (default 240)")
    parser.add_argument("--json", help="write every run's result document to this file")
    args = parser.parse_args()
    header = ("| kernel | tuned | original µs | tuned µs | speedup | tuned vs NumPy | attempts | time | "
              "bottleneck before → after | best variant |")
    print(header)
    print("|" + "---|" * header.count(" | ") + "---|")
    docs = {}
    for kernel, suite in kernels(args.only):
        doc, elapsed, problem = run(kernel, suite, args)
        if doc is None:
            print(f"| {kernel.stem} | - | - | - | - | - | - | {elapsed:.0f} s | {problem} | - |", flush=True)
            continue
        docs[kernel.stem] = dict(doc, wall_s=elapsed)
        print(row(kernel.stem, doc, elapsed), flush=True)
    if "reductions" in docs:
        print("\nreductions.ea per size:\n")
        print("\n".join(line for line in per_size(docs["reductions"]) if line))
        replay = again(ROOT / "examples" / "reductions.ea", args)
        first = docs["reductions"]["wall_s"]
        print(f"\ncache: the same reductions run again took {replay:.1f} s ({replay / first:.1%} of {first:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(docs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
