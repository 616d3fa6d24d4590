"""Our `ea` against the reference compiler (PyPI's `ea-compiler`), kernel by kernel.

    .venv/bin/python bench/reference_bench.py [--sizes 16K,16M] [--seconds S] [--line-offset 16|0]
                                              [--reference-dir DIR] [--no-fetch] [--json [PATH]]

Every examples/*.bench.toml suite and bench/tune_nest/*.bench.toml (plus
matmul_6x16.ea, run with matmul_naive's suite): the kernel is compiled by
both compilers (`--lib --opt-level=3`, native target), each export the suite
times is called on the suite's arguments through ctypes in both builds,
checked (against the suite's NumPy reference, and the two builds against
each other, with the suite's tolerances), then timed in alternating turns on
the same arrays: medians of the thread's CPU time, at least 15 batches each,
at the suite's sizes. Arrays start 16 bytes past a cache line, where NumPy
puts large arrays (`--line-offset 0`: on a line). Prints ours and the
reference's ms and ours/reference per kernel and size, their geomean, the
CPU and the load average before and after.

The reference compiler is fetched once into .cache/reference-ea/<version>/
(bench/refcompiler/fetch.py); without the network this says so and exits 0.
A kernel the reference cannot compile (syntax or intrinsics newer than its
version) is listed with its error line and skipped.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from ea_compiler.bench.envinfo import cpu_model, timestamp  # noqa: E402
from ea_compiler.bench.suite import BenchError, load_suite  # noqa: E402
from ea_compiler.bench.timing import Budget  # noqa: E402
from refcompiler.compare import KernelResult, compare_kernel  # noqa: E402
from refcompiler.fetch import VERSION, Reference, locate  # noqa: E402
from refcompiler.libs import our_command  # noqa: E402

BUILD = ROOT / ".cache" / "reference-bench"
MIN_BATCHES = 15


def targets() -> list[tuple[str, Path, Path]]:
    """(label, suite, kernel source) of every kernel compared."""
    out = []
    for path in sorted((ROOT / "examples").glob("*.bench.toml")) + sorted((ROOT / "bench" / "tune_nest").glob(
            "*.bench.toml")):
        out.append((path.name.removesuffix(".bench.toml"), path, None))
    six = ROOT / "bench" / "tune_nest" / "matmul_6x16.ea"
    if six.exists():  # no suite of its own: matmul_naive's has its signature
        out.append(("matmul_6x16", ROOT / "bench" / "tune_nest" / "matmul_naive.bench.toml", six))
    return out


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def table(results: list[KernelResult]) -> list[str]:
    lines = [f"{'kernel':<16} {'bench':<12} {'size':>6} {'ours ms':>10} {'ref ms':>10} {'ours/ref':>9}"]
    for res in results:
        for r in res.rows:
            if r.status == "ok":
                lines.append(f"{r.kernel:<16} {r.bench:<12} {r.size:>6} {r.ours_ns / 1e6:>10.4f} "
                             f"{r.ref_ns / 1e6:>10.4f} {r.ratio:>8.3f}x")
            else:
                lines.append(f"{r.kernel:<16} {r.bench:<12} {r.size:>6} {r.status}: {r.message}")
    return lines


def document(ref: Reference, results: list[KernelResult], load_before: str, load_after: str,
             line_offset: int) -> dict:
    ratios = [r.ratio for res in results for r in res.rows if r.ratio]
    from ea_compiler.codegen.target import host_cpu_name
    return {
        "name": "reference_bench", "timestamp": timestamp(), "reference_version": ref.version,
        "cpu": cpu_model(), "host_cpu": host_cpu_name(), "load_before": load_before, "load_after": load_after,
        "line_offset": line_offset, "clock": "thread CPU time", "geomean_ratio": geomean(ratios),
        "rows": [r.to_json() for res in results for r in res.rows],
        "skipped": {res.kernel: res.skipped for res in results if res.skipped},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", help="only these sizes of each suite, e.g. 16K,16M (labels as the suites write them)")
    ap.add_argument("--kernels", help="only these kernels (labels), comma-separated")
    ap.add_argument("--seconds", type=float, default=0.4, help="measuring time per build and size (default 0.4)")
    ap.add_argument("--line-offset", type=int, default=16, choices=(0, 16, 32, 48),
                    help="arrays start this many bytes past a cache line (16: NumPy's large arrays)")
    ap.add_argument("--reference-dir", help="a folder holding ea/bin/ea (and glibc/ if needed) to use as is")
    ap.add_argument("--no-fetch", action="store_true", help="do not download the reference compiler")
    ap.add_argument("--json", nargs="?", const="-", help="write the results as JSON (to PATH, or stdout)")
    args = ap.parse_args(argv)
    ref = locate(Path(args.reference_dir) if args.reference_dir else None, fetch=not args.no_fetch)
    if isinstance(ref, str):
        print(f"reference bench skipped: {ref}")
        return 0
    sizes = set(args.sizes.split(",")) if args.sizes else None
    kernels = set(args.kernels.split(",")) if args.kernels else None
    budget = Budget(seconds=args.seconds, min_samples=MIN_BATCHES, cpu_time=True)
    say = (lambda *_: None) if args.json == "-" else (lambda text: print(text, flush=True))
    load_before = load_average()
    say(f"reference {ref.version} ({ref.where}) against our ea; {cpu_model()}, load average {load_before}")
    results = []
    for label, suite_path, source in targets():
        if kernels is not None and label not in kernels:
            continue
        try:
            suite = load_suite(suite_path)
        except BenchError as err:
            results.append(KernelResult(label, suite_path, skipped=f"suite: {err}"))
            continue
        results.append(compare_kernel(label, suite, source or suite.kernel, ref.command, our_command(),
                                      BUILD / label, budget, sizes=sizes, line_offset=args.line_offset,
                                      progress=say))
    load_after = load_average()
    doc = document(ref, results, load_before, load_after, args.line_offset)
    if args.json:
        text = json.dumps(doc, indent=2) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(text, encoding="utf-8")
    if args.json != "-":
        print("\n".join(table(results)))
        for res in results:
            if res.skipped:
                print(f"skipped {res.kernel}: {res.skipped}")
        gm = doc["geomean_ratio"]
        print(f"geomean ours/reference {gm:.3f} over {sum(1 for r in doc['rows'] if r['ratio'])} kernel x size"
              if gm else "no kernel compared")
        print(f"CPU {doc['cpu']} ({doc['host_cpu']}); load average before {load_before}, after {load_after}; "
              f"arrays {args.line_offset} bytes past a cache line; reference {ref.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
