"""`ea bench --cycles` and `ea inspect --measure`: cycles per main-loop
iteration, predicted vs measured, printed as a table (or JSON) and kept in
each suite's history file."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..bench import BenchError, Suite, append_history
from ..bench.cycle_report import run_cycles, table_lines
from ..options import Options


def measure_suites(suites: list[Suite], options: Options, benches: list[str] | None = None,
                   quick: bool = False, history: bool = True, out=sys.stdout) -> tuple[int, list[dict]]:
    """Run, print the tables on `out` (None: print nothing), record; (exit code, documents)."""
    code, docs = 0, []
    for suite in suites:
        try:
            report = run_cycles(suite, options, benches, quick)
        except BenchError as err:
            print(f"error: {err}", file=sys.stderr)
            code = 1
            continue
        doc = report.document()
        docs.append(doc)
        if out is not None:
            out.write("\n".join(table_lines(report)) + "\n")
        if report.problems or not report.rows:
            code = 1
        if history:
            append_history(suite, doc)
    return code, docs


def dump_json(docs: list[dict]) -> str:
    return json.dumps(docs[0] if len(docs) == 1 else docs, indent=2) + "\n"


def run_cycle_suites(args, suites: list[Suite]) -> int:
    code, docs = measure_suites(suites, args.options, args.benches or None, args.quick, args.history,
                                None if args.json else sys.stdout)
    if args.json and docs:
        sys.stdout.write(dump_json(docs))
    if args.out and docs:
        Path(args.out).write_text(dump_json(docs), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return code
