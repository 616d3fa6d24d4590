"""Predicted vs measured cycles per iteration of read-only kernels near the L3's size, where
a shared L3 keeps only part of a working set (MemoryModel.last_level_share): each kernel's
main loop at working sets of 1/4 to 4 times the L3, measured as `ea bench --cycles` measures
its DRAM size (from native code, the arrays 16 bytes past a line, as NumPy places them),
predicted with the share and without it (all from the level that holds the working set).

    .venv/bin/python bench/l3_edge_bench.py [--quick] [--json PATH]

Prints one row per kernel and size, and the MAPE of both predictions per size."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# suite -> benches (None: all): loops that only read, so no non-temporal stores start with the size
KERNELS = {"examples/dot.bench.toml": None, "examples/reductions.bench.toml": None,
           "bench/predict_kernels/reductions.bench.toml": None,
           "bench/predict_kernels/intpipe.bench.toml": ["dot_i16", "dot_u8i8_2"]}
RATIOS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)
os.environ.setdefault("OMP_NUM_THREADS", "1")


def level_only(memory):
    """`memory` as the model was before the share: the L3 serves every working set it holds."""
    from ea_compiler.inspect.predict.memory import MemoryModel

    class LevelOnly(MemoryModel):
        def last_level_share(self, working_set_bytes):
            return 1.0 if not working_set_bytes or working_set_bytes <= self.cache_bytes["L3"] else 0.0

    return LevelOnly(**{f.name: getattr(memory, f.name) for f in dataclasses.fields(memory)})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter measurements")
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    from ea_compiler.bench import load_suite
    from ea_compiler.bench.cycle_report import hot_loop, run_cycles
    from ea_compiler.bench.cycle_sizes import smallest_beyond
    from ea_compiler.build import compile_source
    from ea_compiler.inspect import inspect, predict_function
    from ea_compiler.inspect.predict import memory_for
    from ea_compiler.options import Options
    memory = memory_for(Options())
    before = level_only(memory)
    l3 = memory.cache_bytes["L3"]
    print(f"L3 {l3 >> 20} MiB; memory: {memory.source}")
    rows = []
    for path, names in KERNELS.items():
        suite = load_suite(ROOT / path)
        data = suite.kernel.read_bytes()
        analysis, module = compile_source(data, str(suite.kernel), Options())
        functions = {f.name: f for f in inspect(data, str(suite.kernel), Options()).functions}
        for spec in suite.benches:
            if names and spec.name not in names:
                continue
            index = hot_loop(functions[spec.function])
            for ratio in RATIOS:
                n = smallest_beyond(spec, int(l3 * ratio), 64)
                sized = dataclasses.replace(suite, benches=[dataclasses.replace(spec, cycle_sizes={"DRAM": [n]})])
                for r in run_cycles(sized, Options(), quick=args.quick, alignment=16).rows:
                    old = predict_function(analysis, module, spec.function, working_set_bytes=r.working_set,
                                           alignment=16, memory=before).loops[index].cycles_per_iter
                    rows.append({"function": r.function, "ratio": ratio, "working_set": r.working_set,
                                 "measured": r.cycles_per_iter, "predicted": r.predicted, "level_only": old})
                    print(f"{r.function:<14} {ratio:>4} x L3 {r.working_set / (1 << 20):>6.1f} MiB  measured "
                          f"{_f(r.cycles_per_iter)}  predicted {_f(r.predicted)}  level only {_f(old)}", flush=True)
    print()
    for ratio in RATIOS:
        at = [r for r in rows if r["ratio"] == ratio and r["measured"] and r["predicted"]]
        print(f"{ratio:>4} x L3: MAPE {_mape(at, 'predicted'):5.1f} % with the share, "
              f"{_mape(at, 'level_only'):5.1f} % level only ({len(at)} loops)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def _mape(rows: list[dict], key: str) -> float:
    errors = [abs(r[key] - r["measured"]) / r["measured"] * 100 for r in rows]
    return statistics.mean(errors) if errors else float("nan")


def _f(x) -> str:
    return "-" if x is None else f"{x:.2f}"


if __name__ == "__main__":
    sys.exit(main())
