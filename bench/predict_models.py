"""Which machine model predicts our loops best: llvm-mca 14, llvm-mca 16,
OSACA (when importable: `pip install --target DIR osaca`, then
OSACA_PATH=DIR) or the rough estimate (compiler/inspect/machine.py), against cycles per
main-loop iteration measured here (time x the calibrated core clock), at an
L1-resident size and a DRAM size. Prints a table and the mean absolute
percentage error (MAPE) per model.

    .venv/bin/python bench/predict_models.py [--quick]

Needs a calibration (`ea bench --calibrate`; run first if missing)."""
from __future__ import annotations

import os
import shutil
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ea_compiler.bench.calibrate import calibrate  # noqa: E402
from ea_compiler.bench.inputs import place  # noqa: E402
from ea_compiler.bench.timing import Budget, measure  # noqa: E402
from ea_compiler.build import compile_source  # noqa: E402
from ea_compiler.inspect import inspect_module  # noqa: E402
from ea_compiler.inspect.predict import load_calibration  # noqa: E402
from ea_compiler.loader import load  # noqa: E402
from ea_compiler.options import Options  # noqa: E402

MODELS = {name: name for name in ("llvm-mca-14", "llvm-mca-16") if shutil.which(name)} | {"rough": "none"}
OSACA_ARCH = {"znver3": "ZEN3", "znver4": "ZEN4", "znver2": "ZEN2", "skylake-avx512": "SKX", "icelake-server": "ICX",
              "haswell": "HSW", "sapphirerapids": "SPR"}
L1_WS, DRAM_WS = 16 << 10, 128 << 20
rng = np.random.default_rng(1)


def f32(n):
    return rng.random(n, dtype=np.float32)


# (file, function, bytes of working set per element, arguments for n elements)
KERNELS = [
    ("examples/dot.ea", "dot", 8, lambda n: (f32(n), f32(n))),
    ("examples/reductions.ea", "sum_f32", 4, lambda n: (f32(n),)),
    ("examples/reductions.ea", "max_f32", 4, lambda n: (f32(n),)),
    ("examples/saxpy.ea", "saxpy", 8, lambda n: (f32(n), f32(n), 2.0)),
    ("examples/fma.ea", "fma_kernel", 16, lambda n: (f32(n), f32(n), f32(n), np.zeros(n, np.float32))),
    ("examples/leaky_relu.ea", "leaky_relu", 8, lambda n: (f32(n) - 0.5, np.zeros(n, np.float32), 0.1)),
    ("examples/threshold_u8.ea", "threshold", 2,
     lambda n: (rng.integers(0, 255, n, dtype=np.uint8), np.zeros(n, np.uint8), 100)),
    ("examples/dot_i8.ea", "dot_u8i8", 2,
     lambda n: (rng.integers(0, 127, n, dtype=np.uint8), rng.integers(-128, 127, n, dtype=np.int8))),
    ("compiler/bench/calibrate.ea", "expmap", 8, lambda n: (f32(n), np.zeros(n, np.float32)), 8),  # scalar: 8 calls/iter
]


def osaca_cycles(body: list[str], cpu: str) -> float | None:
    """OSACA's max(throughput, loop-carried dependency) of a loop body, by its command line."""
    import re
    import subprocess
    if not os.environ.get("OSACA_PATH") or cpu not in OSACA_ARCH:
        return None
    text = "# OSACA-BEGIN\n.Lloop:\n" + "".join(f"{ins}\n" for ins in body) + "# OSACA-END\n"
    src = Path("/tmp/ea_osaca_body.s")
    src.write_text(text)
    env = {**os.environ, "PYTHONPATH": os.environ["OSACA_PATH"]}
    out = subprocess.run([sys.executable, "-m", "osaca", "--arch", OSACA_ARCH[cpu], "--ignore-unknown", str(src)], capture_output=True,
                         text=True, env=env).stdout
    lines = out.splitlines()
    k = next((i for i, ln in enumerate(lines) if ln.startswith("Combined Analysis Report")), None)
    if k is None:
        return None
    header = next(ln for ln in lines[k:] if "||" in ln and "CP" in ln)
    ports_end = header.index("||")
    totals = next((ln for ln in lines[k + 4:] if re.search(r"\d+\.\d+", ln) and not re.match(r"\s*\d+ \|", ln)),
                  None)
    if totals is None:
        return None
    throughput = max((float(x) for x in re.findall(r"\d+\.\d+", totals[:ports_end])), default=0.0)
    j = next((i for i, ln in enumerate(lines) if ln.startswith("Loop-Carried Dependencies")), None)
    lcd = max((float(m.group(1)) for ln in lines[j + 2:] if (m := re.match(r"\s*\d+ \|\s*(\d+\.\d+)", ln))),
              default=0.0) if j is not None else 0.0
    unknown = sum(1 for ln in lines[k:] if re.match(r"\s*\d+ \|.*\|\| .* X ", ln))
    if unknown:
        print(f"  (osaca has no data for {unknown} instruction(s) of this loop)")
    return max(throughput, lcd)


def main_loop_body(path: str, name: str, opts: Options, module):
    """(the function's parsed assembly, its loops in inspect's order)."""
    from ea_compiler.inspect.asm import parse
    from ea_compiler.inspect.cfg import natural_loops
    from ea_compiler.inspect.classify import classifier
    fn = next(f for f in parse(module.asm(), opts.is_arm) if f.name == name)
    infos = [classifier(opts.is_arm)(i) for i in fn.instrs]
    return fn, infos, natural_loops(fn, infos, opts.is_arm)


def predictions(path: str, name: str, opts: Options, ws: int, memory):
    """model -> (main loop's cycles/iter at ws, elements/iter, limit)."""
    analysis, module = compile_source((ROOT / path).read_bytes(), path, opts)
    out = {}
    for model, binary in MODELS.items():
        os.environ["EA_LLVM_MCA"] = binary
        fr = next(f for f in inspect_module(analysis, module, predict=True, working_set_bytes=ws,  # place(): on a line
                                             memory=memory, alignment=64).functions if f.name == name)
        lp = fr.prediction.loops[fr.loops.index(fr.main_loop)]
        out[model] = (lp.cycles_per_iter, lp.elements_per_iter, lp.limit.value)
        if model == next(iter(MODELS)) and os.environ.get("OSACA_PATH"):
            from ea_compiler.codegen.target import cpu_and_features
            from ea_compiler.inspect.predict.loop import body_for_model
            fn, infos, loops = main_loop_body(path, name, opts, module)
            core = osaca_cycles(body_for_model(fn, infos, loops[lp.index - 1]), cpu_and_features(opts)[0])
            if core is not None:  # the same memory and call terms as the others, OSACA's core figure
                memory_bound = lp.limit.value in ("L1", "L2", "L3", "DRAM")
                mem = lp.by_level[lp.level.value] - lp.call_cycles if memory_bound else \
                    lp.bytes_per_iter / memory.bytes_per_cycle[lp.level.value]
                cyc = round(max(core, mem) + lp.call_cycles, 2)
                out["osaca"] = (cyc, lp.elements_per_iter, "osaca")
    os.environ.pop("EA_LLVM_MCA", None)
    return out


def main() -> int:
    quick = "--quick" in sys.argv
    opts = Options()  # the host: measured and predicted for the same CPU
    memory = load_calibration() or calibrate(opts, tell=print)
    print(f"core clock {memory.ghz:.2f} GHz; {memory.source}")
    models = list(MODELS) + (["osaca"] if os.environ.get("OSACA_PATH") else [])
    errors = {(m, s): [] for m in models for s in ("L1", "DRAM")}
    print(f"{'kernel':<12} {'size':<5} {'measured':>9}  " + "  ".join(f"{m:>20}" for m in models))
    for path, name, per_elem, args, *given in KERNELS:
        fn = getattr(load(ROOT / path, target=opts.target_cpu), name)
        for size, ws in (("L1", L1_WS), ("DRAM", DRAM_WS)):
            if quick and size == "DRAM":
                continue
            n = ws // per_elem // 256 * 256
            pred = predictions(path, name, opts, ws, memory)
            elems = given[0] if given else next((e for _, e, _ in pred.values() if e), None)
            if not elems:
                print(f"{name:<12} {size:<5} (no elements per iteration)")
                continue
            # The difference of n and n/2 elements: the fixed cost of a call from Python drops out.
            a, h = (tuple(place([x])[0] if isinstance(x, np.ndarray) else x for x in args(m)) for m in (n, n // 2))
            budget = Budget(seconds=0.1 if quick else 0.4, min_samples=9, max_samples=400, sample_ns=5e5)
            stats = measure({"n": lambda: fn(*a), "half": lambda: fn(*h)}, budget)
            # Samples alternate n and n/2: the median of each round's difference follows the load of the moment.
            ns = statistics.median(a - b for a, b in zip(stats["n"].samples, stats["half"].samples))
            measured = ns * memory.ghz / (n / 2 / elems)
            cells = []
            for model in models:
                if model not in pred:
                    cells.append("n/a")
                    continue
                cyc, _, limit = pred[model]
                err = (cyc - measured) / measured
                errors[(model, size)].append(abs(err))
                cells.append(f"{cyc:7.2f} {err:+5.0%} {limit:<6}")
            print(f"{name:<12} {size:<5} {measured:9.2f}  " + "  ".join(f"{c:>20}" for c in cells))
    for size in ("L1", "DRAM"):
        row = [f"{m} {statistics.mean(errors[(m, size)]):.0%}" for m in models if errors[(m, size)]]
        if row:
            print(f"MAPE {size}: " + ", ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
