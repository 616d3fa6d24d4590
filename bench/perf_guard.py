"""The performance guard of the shipped kernels: every examples/*.bench.toml
suite, run as `ea bench` runs it, against the figures recorded for this CPU
in bench/baselines/<cpu>.json (compiler/bench/cpu_baseline.py).

    .venv/bin/python bench/perf_guard.py            # compare; exit 1 on a regression (make bench)
    .venv/bin/python bench/perf_guard.py --record   # record this CPU's baseline (commit the file)

On the CPU of a baseline a kernel regresses when its time (the 10th
percentile of its samples: the fast end, which repeats on a shared machine)
is more than 5 % above the recorded one and its speedup over NumPy (timed in turns
with it, in this run) more than 5 % below the recorded one: a slower
compiler slows the kernel, a busy machine slows NumPy too. On another CPU
only the speedup counts, against the one recorded on every CPU of the same
architecture. Times are the thread's CPU time (Budget.cpu_time):
the moments other processes have the core do not count. A kernel that
regresses is measured again (twice as long), up to three times, and fails
the guard only if it regresses every time (its best verdict counts): other
processes share the memory bus and the caches, and a slow spell is not a
regression. `--record` runs every suite twice and keeps each kernel's
slower pass.
Target: native, opt 3 (the baselines' build; others are refused).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.bench import BenchError, load_suite, run_suite  # noqa: E402
from ea_compiler.bench.cpu_baseline import (THRESHOLD, baseline_path, compare, cpu_identity,  # noqa: E402
                                            document, figures, read)
from ea_compiler.bench.envinfo import document_json, environment  # noqa: E402
from ea_compiler.bench.suite import parse_size  # noqa: E402
from ea_compiler.bench.timing import Budget  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

BASELINES = ROOT / "bench" / "baselines"
RETRIES = 3
RECORD_PASSES = 2


def run_all(suites, options: Options, only: dict[str, set[tuple[str, int]]] | None = None,
            seconds: float | None = None) -> list:
    """Each suite's report (`only`: per suite name, the (bench, size) pairs to run again)."""
    reports, bandwidth = [], None
    for suite in suites:
        chosen = None if only is None else only.get(suite.name)
        if only is not None and not chosen:
            continue
        benches = sorted({b for b, _ in chosen}) if chosen else None
        sizes = sorted({n for _, n in chosen}) if chosen else None
        budget = Budget(seconds=seconds or Budget.seconds, cpu_time=True)
        report = run_suite(suite, options, benches=benches, sizes=sizes, bandwidth_gbs=bandwidth,
                           bandwidth=only is None, budget=budget)
        if chosen:  # benches x sizes ran; keep the pairs asked for
            report.results = [r for r in report.results if (r.bench, r.size) in chosen]
        bandwidth = report.bandwidth_gbs or bandwidth
        for r in report.results:
            if r.status != "ok":
                raise SystemExit(f"{suite.name}: {r.key} {r.status}: {r.message}")
        reports.append(report)
    return reports


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write this CPU's baseline")
    ap.add_argument("--examples", default=str(ROOT / "examples"), help="folder of *.bench.toml suites")
    ap.add_argument("--baselines", default=str(BASELINES), help="folder of baseline files")
    args = ap.parse_args(argv)
    options = Options()
    identity = cpu_identity()
    try:
        suites = [load_suite(p) for p in sorted(Path(args.examples).glob("*.bench.toml"))]
    except BenchError as err:
        raise SystemExit(f"error: {err}") from None
    load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"perf guard: {len(suites)} suites on {identity['cpu']} ({identity['host_cpu']}), load average {load}")
    now = figures(run_all(suites, options))
    directory = Path(args.baselines)
    if args.record:
        for _ in range(RECORD_PASSES - 1):  # the slower pass per kernel: a baseline a quiet spell did not flatter
            again = figures(run_all(suites, options))
            now = {k: max(f, again.get(k, f), key=lambda x: x["time_ns"]) for k, f in now.items()}
        path = baseline_path(directory, identity)
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(document_json(document(identity, environment(options, False), now, load)), encoding="utf-8")
        print(f"recorded {len(now)} kernels in {path}")
        return 0
    baselines = [read(p) for p in sorted(directory.glob("*.json"))]
    same = any(b["slug"] == identity["slug"] for b in baselines)
    verdicts = compare(now, baselines, identity)
    if not verdicts:
        print(f"no baseline for {identity['arch']} in {directory}: record one with "
              "`.venv/bin/python bench/perf_guard.py --record`")
        return 0
    for attempt in range(RETRIES):  # measure suspects again, longer: a regression must persist
        suspects = [v for v in verdicts if v.regressed]
        if not suspects:
            break
        print(f"{len(suspects)} kernel(s) more than {THRESHOLD:.0%} off; measuring them again "
              f"({attempt + 1}/{RETRIES})")
        again: dict[str, set] = {}
        for v in suspects:
            suite, key = v.key.split(":", 1)
            bench, size = key[:-1].split("[")
            again.setdefault(suite, set()).add((bench, parse_size(size)))
        retried = {v.key: v for v in compare(figures(run_all(suites, options, again, seconds=0.8)), baselines,
                                             identity)}
        verdicts = [min(v, retried[v.key], key=lambda x: x.change) if v.key in retried else v for v in verdicts]
    kind = "time and speedup on this CPU" if same else "speedup over NumPy (no baseline for this CPU)"
    print(f"compared {len(verdicts)} kernels by {kind}; threshold {THRESHOLD:.0%}")
    for v in sorted(verdicts, key=lambda v: -v.change)[:5]:
        print(f"  {'REGRESSION ' if v.regressed else ''}{v.text()}")
    failed = [v for v in verdicts if v.regressed]
    if failed:
        print(f"FAIL: {len(failed)} kernel(s) regressed: {', '.join(v.key for v in failed)}")
        return 1
    print("no regression")
    return 0


if __name__ == "__main__":
    sys.exit(main())
