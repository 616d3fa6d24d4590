"""Predicted vs measured cycles per main-loop iteration over every example and
the kernels of bench/predict_kernels/ (streaming, reductions with 1-8
accumulators, u8/i16 pipelines, gathers, a stencil, exp loops, matmul
variants), each at an L1-resident size (the slope between two L1 sizes) and
a DRAM size (`ea bench --cycles`, compiler/bench/cycle_report.py), with the
arrays on a cache line (alignment 64) and 16 bytes past one (alignment 16,
where NumPy puts its large arrays): the prediction is asked at the same
alignment, so the two runs show whether it tracks the difference.

    .venv/bin/python bench/predict_bench.py [--only SUITE ...] [--alignment 64 16] [--quick] [--passes K]
                                            [--json PATH]

Prints one row per kernel, size class and alignment, the mean absolute
percentage error (MAPE) per size class and alignment against the goals
(L1 <= 15 %, DRAM <= 20 %), and the worst kernels. Nothing is written to the suites' history files.
Before and after each suite the cycles of an op-cache fetch are probed (as `ea bench --calibrate`
does, compiler/inspect/predict/frontend.py): on a shared machine the core's front end is at
times twice as slow (likely the core's other hardware thread busy), and loops bound by it then are
too; the MAPE is also given over the suites measured while the probe agreed with the model. Needs the
model's calibration for this CPU (`ea bench --calibrate`); without one the
prediction uses default bandwidths and says so. With `--passes K` every suite is measured K
times, pass after pass (minutes apart), and the MAPE is also given for each row's fastest and
median pass: the time other tenants of the machine take can only add to a measurement."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from ea_compiler.bench.core_state import STEADY  # a suite's probes this close to the calibration's: in its state

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "examples", ROOT / "bench" / "predict_kernels")
GOALS = {"L1": 15.0, "DRAM": 20.0}
os.environ.setdefault("OMP_NUM_THREADS", "1")


def suites(only: list[str]) -> list[Path]:
    found = [p for folder in SOURCES for p in sorted(folder.glob("*.bench.toml"))]
    return [p for p in found if not only or p.name.removesuffix(".bench.toml") in only]


def summary(rows: list[dict]) -> dict:
    """{"L1@64": {"mape", "kernels", "unmeasured"}, ...} per size class and alignment measured."""
    from ea_compiler.bench.cycles import mape
    out = {}
    for align in sorted({r["alignment"] for r in rows}, reverse=True):
        for cls in GOALS:
            pairs = [(r["predicted"], r["cycles_per_iter"]) for r in rows
                     if r["size_class"] == cls and r["alignment"] == align]
            scored = [p for p in pairs if p[0] is not None and p[1] is not None]
            out[f"{cls}@{align}"] = {"mape": mape(scored), "kernels": len(scored),
                                     "unmeasured": len(pairs) - len(scored)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=[], help="suite names (file stems)")
    ap.add_argument("--quick", action="store_true", help="short measurements (noisier)")
    ap.add_argument("--json", help="write rows and summary to this file")
    ap.add_argument("--alignment", type=int, nargs="+", default=[64, 16],
                    help="where the arrays start: 64 on a cache line, 16 bytes past one (NumPy)")
    ap.add_argument("--worst", type=int, default=8)
    ap.add_argument("--passes", type=int, default=1, help="measure every suite this many times, pass after pass")
    args = ap.parse_args()
    from ea_compiler.bench import BenchError, load_suite
    from ea_compiler.bench.cycle_report import run_cycles
    from ea_compiler.options import Options
    from ea_compiler.inspect.predict import memory_for
    memory = memory_for(Options())
    rows, problems, header = [], [], None
    for number, path in [(k, p) for k in range(args.passes) for p in suites(args.only)]:
        suite = load_suite(path)
        for align in args.alignment:
            try:
                report = run_cycles(suite, Options(), quick=args.quick, alignment=align)
            except BenchError as err:
                problems.append(f"{path.name}: {err}")
                break
            probe = tuple(report.fetch_probes)
            if None not in probe:
                print(f"{suite.name:<16} front end probe before/after: {probe[0]:.2f}/{probe[1]:.2f} cycles per "
                      f"op-cache fetch (model: {memory.fetch_cycles:g})")
            header = header or f"clock {report.ghz:.2f} GHz; {report.clock}"
            for r in report.rows:
                rows.append({"suite": suite.name, **r.to_json(), "fetch_probe": probe, "pass": number})
            problems += [f"{suite.name} (alignment {align}, pass {number + 1}): {p}" for p in report.problems]
            for r in report.rows:
                err = "-" if r.error is None else f"{r.error:+.0f}%"
                print(f"{suite.name:<16} {r.function:<16} {r.size_class:<5} @{align:<3} {r.n:>9} "
                      f"{_f(r.predicted):>9} {_f(r.cycles_per_iter):>9} {err:>7}  {r.limit or '-'}"
                      + (f"  ({r.note})" if r.note else ""), flush=True)
    result = summary(rows)
    steady = [r for r in rows if None not in r["fetch_probe"]
              and all(abs(p / memory.fetch_cycles - 1) <= STEADY for p in r["fetch_probe"])]
    print(f"\n{header}")
    for key, s in result.items():
        goal = GOALS[key.split("@")[0]]
        verdict = "-" if s["mape"] is None else ("meets" if s["mape"] <= goal else "misses")
        print(f"MAPE {key:<7}: {_f(s['mape'], 1)} % over {s['kernels']} kernels "
              f"({s['unmeasured']} unmeasured); goal <= {goal:.0f} %: {verdict}")
    if not steady:
        print(f"no suite was measured with the front end probes within {STEADY:.0%} of the model's "
              f"{memory.fetch_cycles:g} cycles per fetch")
    for key, s in summary(steady).items():
        print(f"MAPE {key:<7}: {_f(s['mape'], 1)} % over {s['kernels']} kernels whose suite's front end probes "
              f"were within {STEADY:.0%} of the model's {memory.fetch_cycles:g} cycles per fetch")
    passes = {}
    if args.passes > 1:
        for how, pick in (("fastest", min), ("median", statistics.median_low)):
            passes[how] = over_passes(rows, pick)
            for key, s in summary(passes[how]).items():
                print(f"MAPE {key:<7}: {_f(s['mape'], 1)} % over {s['kernels']} kernels, each row's {how} "
                      f"of {args.passes} passes")
    scored = [r for r in rows if r.get("error_pct") is not None]
    print("worst:")
    for r in sorted(scored, key=lambda r: -abs(r["error_pct"]))[:args.worst]:
        print(f"  {r['function']} {r['size_class']}@{r['alignment']}: predicted {_f(r['predicted'])}, measured "
              f"{_f(r['cycles_per_iter'])} ({r['error_pct']:+.0f}%), {r['limit']}")
    for p in problems:
        print(f"not measured: {p}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"summary": result, "rows": rows, "problems": problems,
                                               "clock": header, "passes": passes}, indent=1))
    return 0


def over_passes(rows: list[dict], pick) -> list[dict]:
    """One row per suite, function, size class and alignment: the pass whose measured cycles
    `pick` chooses (min: the fastest; statistics.median_low: the median), its error as measured."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r.get("cycles_per_iter") is not None:
            groups.setdefault((r["suite"], r["function"], r["size_class"], r["alignment"]), []).append(r)
    out = []
    for group in groups.values():
        chosen = pick([r["cycles_per_iter"] for r in group])
        out.append(next(r for r in group if r["cycles_per_iter"] == chosen))
    return out


def _f(x, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


if __name__ == "__main__":
    sys.exit(main())
