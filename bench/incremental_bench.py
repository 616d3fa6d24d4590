"""Incremental analysis in-process: how long `AnalysisSession.update` takes
for an edit inside the first kernel's body (the short path: that body
re-checked), on files of 8-line kernels of two sizes, without the language
server around it. The two sizes show whether the short path grows with the
file (issue 21 §3: the larger file within 1.5x of the smaller).

    .venv/bin/python bench/incremental_bench.py [--edits N] [--lines N,M] [--json]

Each size: one full analysis, then --edits edits alternating the first
kernel's `.*` with `*` (a type error and its fix: the line count stays), every
one checked to have taken the short path. Reports p50/p95 per size and the
ratio of the larger size's p95 to the smaller's, next to `analyze()` of the
same file (the full analysis the session avoids), measured in the same run.
The update gives the diagnostics; the first read of any other field after it
(here `tokens`) settles the moved spans and joins the lists (ARCHITECTURE.md
"The incremental model"): "first read" is its p50, linear in the file.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ea_compiler import Options, analyze  # noqa: E402
from ea_compiler.incremental import AnalysisSession  # noqa: E402
from lsp_bench import KERNEL_BAD, KERNEL_GOOD, generate_kernels, pct  # noqa: E402

RATIO_TARGET = 1.5


def measure(lines: int, edits: int) -> dict:
    good = generate_kernels(lines)
    bad = list(good)
    bad[good.index(KERNEL_GOOD)] = KERNEL_BAD
    texts = ["\n".join(bad) + "\n", "\n".join(good) + "\n"]
    session = AnalysisSession("bench.ea", Options())
    session.update(texts[1])
    times, reads = [], []
    for n in range(edits):
        start = time.perf_counter()
        analysis = session.update(texts[n % 2])
        times.append((time.perf_counter() - start) * 1000)
        if n >= 2:  # read after each edit but the first two (the previous read settled the shifts)
            start = time.perf_counter()
            analysis.tokens
            reads.append((time.perf_counter() - start) * 1000)
    if session.incremental_updates != edits:
        raise SystemExit(f"{lines} lines: {edits - session.incremental_updates} edits took the full path")
    full = []
    for _ in range(3):
        start = time.perf_counter()
        analyze(texts[1], "bench.ea", Options())
        full.append((time.perf_counter() - start) * 1000)
    return {"lines": lines, "update_p50_ms": statistics.median(times), "update_p95_ms": pct(times, 0.95),
            "first_read_p50_ms": statistics.median(reads), "analyze_ms": statistics.median(full)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=40, help="edits per size (default 40)")
    ap.add_argument("--lines", default="1000,10000", help="two file sizes in lines (default 1000,10000)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    small, large = (int(x) for x in args.lines.split(","))
    rows = [measure(small, args.edits), measure(large, args.edits)]
    ratio = rows[1]["update_p95_ms"] / rows[0]["update_p95_ms"]
    if args.json:
        print(json.dumps({"sizes": rows, "p95_ratio": ratio}, indent=2))
        return 0
    print("AnalysisSession.update, an edit inside the first kernel's body")
    print(f"  {'lines':>8} {'p50 ms':>9} {'p95 ms':>9} {'first read ms':>14} {'analyze() ms':>13}")
    for r in rows:
        print(f"  {r['lines']:>8} {r['update_p50_ms']:>9.2f} {r['update_p95_ms']:>9.2f} "
              f"{r['first_read_p50_ms']:>14.2f} {r['analyze_ms']:>13.1f}")
    verdict = "ok" if ratio <= RATIO_TARGET else "over: the short path grows with the file"
    print(f"  p95 {large:,} / {small:,} lines: {ratio:.1f}x (target <= {RATIO_TARGET}x): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
