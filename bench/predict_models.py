"""Which machine model predicts our loops best: llvm-mca 14, llvm-mca 16 or
the rough estimate (compiler/inspect/machine.py), against cycles per
main-loop iteration measured here (time x the calibrated core clock), at an
L1-resident size and a DRAM size. Prints a table and the mean absolute
percentage error (MAPE) per model.

    .venv/bin/python bench/predict_models.py [--quick]

Needs a calibration (`ea bench --calibrate`; run first if missing)."""
from __future__ import annotations

import os
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

MODELS = {"llvm-mca-14": "llvm-mca-14", "llvm-mca-16": "llvm-mca-16", "rough": "none"}
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
    ("compiler/bench/calibrate.ea", "expsum", 4, lambda n: (f32(n),), 8),  # scalar: 8 calls per iteration
]


def predictions(path: str, name: str, opts: Options, ws: int, memory):
    """model -> (main loop's cycles/iter at ws, elements/iter, limit)."""
    analysis, module = compile_source((ROOT / path).read_bytes(), path, opts)
    out = {}
    for model, binary in MODELS.items():
        os.environ["EA_LLVM_MCA"] = binary
        fr = next(f for f in inspect_module(analysis, module, predict=True, working_set_bytes=ws,
                                             memory=memory).functions if f.name == name)
        lp = fr.prediction.loops[fr.loops.index(fr.main_loop)]
        out[model] = (lp.cycles_per_iter, lp.elements_per_iter, lp.limit.value)
    os.environ.pop("EA_LLVM_MCA", None)
    return out


def main() -> int:
    quick = "--quick" in sys.argv
    opts = Options()  # the host: measured and predicted for the same CPU
    memory = load_calibration() or calibrate(opts, tell=print)
    print(f"core clock {memory.ghz:.2f} GHz; {memory.source}")
    errors = {(m, s): [] for m in MODELS for s in ("L1", "DRAM")}
    print(f"{'kernel':<12} {'size':<5} {'measured':>9}  " + "  ".join(f"{m:>20}" for m in MODELS))
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
            budget = Budget(seconds=0.1 if quick else 0.4, min_samples=5, max_samples=100)
            stats = measure({"n": lambda: fn(*a), "half": lambda: fn(*h)}, budget)
            ns = stats["n"].p10_ns - stats["half"].p10_ns
            measured = ns * memory.ghz / (n / 2 / elems)
            cells = []
            for model, (cyc, _, limit) in pred.items():
                err = (cyc - measured) / measured
                errors[(model, size)].append(abs(err))
                cells.append(f"{cyc:7.2f} {err:+5.0%} {limit:<6}")
            print(f"{name:<12} {size:<5} {measured:9.2f}  " + "  ".join(f"{c:>20}" for c in cells))
    for size in ("L1", "DRAM"):
        row = [f"{m} {statistics.mean(errors[(m, size)]):.0%}" for m in MODELS if errors[(m, size)]]
        if row:
            print(f"MAPE {size}: " + ", ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
