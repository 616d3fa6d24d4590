"""The model's predictions against measurements already taken: the rows of a
`bench/predict_bench.py --json` file re-predicted with the current model and
calibration (nothing is timed), with the MAPE per size class. For working on
the model (compiler/inspect/predict/) without re-measuring on a busy machine.

    .venv/bin/python bench/predict_replay.py build/bench/predict_bench.json [--worst 8] [--no-front-end]

`--no-front-end` gives the model without the front end's share (predict/frontend.py), `--no-pipes`
without the correction of llvm-mca's shared pipes (predict/pipes.py), against the same
measurements and calibration: the "before" of each."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))
from predict_bench import GOALS, SOURCES, STEADY, _f, summary  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="a predict_bench.py --json file")
    ap.add_argument("--worst", type=int, default=8)
    ap.add_argument("--no-front-end", action="store_true",
                    help="leave the front end's share out (cycles per op-cache fetch 0): the model before it")
    ap.add_argument("--no-pipes", action="store_true",
                    help="leave predict/pipes.py's correction of llvm-mca's shared pipes out: with --no-front-end, "
                         "the model before both")
    args = ap.parse_args()
    if args.no_pipes:
        from ea_compiler.inspect.predict import loop
        loop.corrected_ports = lambda timing, moves: timing.rthroughput
    from ea_compiler.bench import load_suite
    from ea_compiler.bench.cycle_report import hot_loop
    from ea_compiler.bench.predicted_side import running_loop
    from ea_compiler.build import compile_source
    from ea_compiler.inspect import inspect, predict_function
    from ea_compiler.inspect.predict import memory_for
    from ea_compiler.options import Options
    options = Options()
    memory = None
    if args.no_front_end:
        import dataclasses
        memory = dataclasses.replace(memory_for(options), fetch_cycles=0.0)
    compiled: dict[tuple[str, str], tuple] = {}  # (suite name, function) -> compiled kernel, its functions
    for path in (p for folder in SOURCES for p in sorted(folder.glob("*.bench.toml"))):
        suite = load_suite(path)
        data = suite.kernel.read_bytes()
        functions = {fn.name: fn for fn in inspect(data, str(suite.kernel), options).functions}
        built = compile_source(data, str(suite.kernel), options)
        for name in functions:
            compiled.setdefault((suite.name, name), (built, functions))
    rows = json.loads(Path(args.json).read_text())["rows"]
    for r in rows:
        r.setdefault("alignment", 64)  # files from before the alignment was recorded: arrays on a line
        (analysis, module), functions = compiled[(r["suite"], r["function"])]
        fn = functions[r["function"]]
        index = hot_loop(fn)  # then the loop the call ran: the streaming copy on big calls, as measured
        index = running_loop(fn, index, SimpleNamespace(n=r["n"], alignment=r["alignment"]))
        lp = predict_function(analysis, module, r["function"], working_set_bytes=r["working_set"],
                              alignment=r["alignment"], memory=memory).loops[index]
        r["predicted_before"], r["predicted"], r["limit"] = r["predicted"], lp.cycles_per_iter, lp.limit.value
        measured = r["cycles_per_iter"]
        r["error_pct"] = None if not measured else round(100 * (lp.cycles_per_iter - measured) / measured, 1)
        err = "-" if r["error_pct"] is None else f"{r['error_pct']:+.0f}%"
        print(f"{r['suite']:<16} {r['function']:<16} {r['size_class']:<5} @{r['alignment']:<3} "
              f"{_f(r['predicted_before']):>9} "
              f"{_f(lp.cycles_per_iter):>9} {_f(measured):>9} {err:>7}  {lp.limit.value}")
    for cls, s in summary(rows).items():
        goal = GOALS[cls.split("@")[0]]
        print(f"MAPE {cls:<7}: {_f(s['mape'], 1)} % over {s['kernels']} kernels; goal <= {goal:.0f} %")
    model_fetch = memory_for(options).fetch_cycles
    steady = [r for r in rows if None not in r.get("fetch_probe", [None])
              and all(abs(p / model_fetch - 1) <= STEADY for p in r["fetch_probe"])]
    for cls, s in summary(steady).items():
        print(f"MAPE {cls:<7}: {_f(s['mape'], 1)} % over {s['kernels']} kernels whose suite's front end probes "
              f"were within {STEADY:.0%} of the calibration's {model_fetch:g} cycles per fetch")
    print("worst:")
    for r in sorted((r for r in rows if r["error_pct"] is not None), key=lambda r: -abs(r["error_pct"]))[:args.worst]:
        print(f"  {r['function']} {r['size_class']}@{r['alignment']}: predicted {_f(r['predicted'])}, measured "
              f"{_f(r['cycles_per_iter'])} ({r['error_pct']:+.0f}%), {r['limit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
