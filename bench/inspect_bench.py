"""`inspect()` benchmark: for every examples/*.ea, the median time of a cold
call (the cache cleared first, so analysis, LLVM codegen to assembly and the
machine-code analysis all run) and of a cached call (same text and options).

    .venv/bin/python bench/inspect_bench.py [--reps N] [--cached-reps N] [--target=CPU] [--json]

Targets: cold median <= 300 ms, cached median <= 5 ms.
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.inspect import clear_report_cache, inspect  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

COLD_TARGET_MS = 300.0
CACHED_TARGET_MS = 5.0


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000.0


def bench_file(path: Path, options: Options, reps: int, cached_reps: int) -> dict:
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT))
    report = inspect(text, name, options)  # warm-up: imports, target machine, LLVM initialisation
    cold = []
    for _ in range(reps):
        clear_report_cache()
        gc.collect()
        cold.append(timed(lambda: inspect(text, name, options)))
    inspect(text, name, options)
    cached = [timed(lambda: inspect(text, name, options)) for _ in range(cached_reps)]
    return {"file": name, "lines": text.count("\n"), "functions": len(report.functions),
            "loops": sum(len(f.loops) for f in report.functions),
            "cold_ms": cold, "cached_ms": cached,
            "cold_median_ms": statistics.median(cold), "cached_median_ms": statistics.median(cached)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15, help="cold calls per file (default 15)")
    ap.add_argument("--cached-reps", type=int, default=200, help="cached calls per file (default 200)")
    ap.add_argument("--target", default="native", help="LLVM CPU name (default native)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)

    options = Options(target_cpu=args.target)
    files = sorted((ROOT / "examples").glob("*.ea"))
    if not files:
        print("error: no examples/*.ea", file=sys.stderr)
        return 1
    rows = [bench_file(f, options, max(args.reps, 1), max(args.cached_reps, 1)) for f in files]
    cold_all = [t for r in rows for t in r["cold_ms"]]
    cached_all = [t for r in rows for t in r["cached_ms"]]
    overall = {"cold_median_ms": statistics.median(cold_all), "cached_median_ms": statistics.median(cached_all),
               "cold_max_file_median_ms": max(r["cold_median_ms"] for r in rows),
               "cached_max_file_median_ms": max(r["cached_median_ms"] for r in rows)}
    overall["meets_targets"] = (overall["cold_median_ms"] <= COLD_TARGET_MS
                                and overall["cached_median_ms"] <= CACHED_TARGET_MS)
    result = {"target_cpu": args.target, "reps": args.reps, "cached_reps": args.cached_reps,
              "cold_target_ms": COLD_TARGET_MS, "cached_target_ms": CACHED_TARGET_MS,
              "files": [{k: v for k, v in r.items() if k not in ("cold_ms", "cached_ms")} for r in rows],
              "overall": overall, "python": sys.version.split()[0]}

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"inspect() on {len(rows)} examples, target {args.target}: {args.reps} cold calls "
          f"(cache cleared, codegen included) and {args.cached_reps} cached calls per file")
    print(f"{'file':32} {'lines':>5} {'funcs':>5} {'loops':>5} {'cold ms':>9} {'cached ms':>10}")
    for r in rows:
        print(f"{r['file']:32} {r['lines']:>5} {r['functions']:>5} {r['loops']:>5} "
              f"{r['cold_median_ms']:>9.1f} {r['cached_median_ms']:>10.4f}")
    print(f"{'overall median (all calls)':32} {'':>5} {'':>5} {'':>5} "
          f"{overall['cold_median_ms']:>9.1f} {overall['cached_median_ms']:>10.4f}")
    cold_ok = "meets" if overall["cold_median_ms"] <= COLD_TARGET_MS else "MISSES"
    cached_ok = "meets" if overall["cached_median_ms"] <= CACHED_TARGET_MS else "MISSES"
    print(f"cold median {cold_ok} the {COLD_TARGET_MS:.0f} ms target (slowest file "
          f"{overall['cold_max_file_median_ms']:.1f} ms); cached median {cached_ok} the "
          f"{CACHED_TARGET_MS:.0f} ms target (slowest file {overall['cached_max_file_median_ms']:.4f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
