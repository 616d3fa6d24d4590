"""A seeded call fuzzer: every function of every example, of every `.ea` file
under tests/ (tests/fuzz_kernels/ is its own corpus: while, for, foreach and
kernel loops, offsets, strides, nested loops, tables, two lengths, outputs,
structs) and of the sources embedded in test modules (a seeded sample; all
with EA_FUZZ_CALLS_ALL=1) is called through `ea.load` with arrays of independent
random lengths ending at a guard page, explicit lengths too large for them,
wrong dtypes, non-contiguous and read-only arrays, lists, 2-D arrays, bad
scalars and bad `threads` (tests/fuzz_support/calls.py).

Every call must return, or raise a TypeError or ValueError naming a
parameter, and a parallel variant's call that returns must give what the
export gives on copies of the same arguments; a signal (an access past an array's end faults on its guard
page) or any other exception is a failure of that function. The calls run
in a worker process that forks a child per function (tests/fuzz_support/
worker.py), so a crash is counted, not fatal. Kernels load for this CPU
(target "native", never `avx512`).

EA_FUZZ_CALLS=20000 makes a longer run (default 3000 calls in all),
EA_FUZZ_CALLS_ALL=1 calls every embedded source, EA_FUZZ_CALLS_SEED=n
changes the seed (and the sample). The counts are printed at the end."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fuzz_support.corpus import EXCLUDED, collect, live_exports

from ea_compiler import Options, analyze
from ea_compiler.bind.meta import parse_api
from ea_compiler.bind.python import py
from ea_compiler.build import metadata

HERE = Path(__file__).resolve().parent
SEED = int(os.environ.get("EA_FUZZ_CALLS_SEED", "20250607"))
CALLS = int(os.environ.get("EA_FUZZ_CALLS", "3000"))
SAMPLE = None if os.environ.get("EA_FUZZ_CALLS_ALL") else 12  # embedded sources in a default run

BOUNDS = "awaiting bounds analysis: an array the call may read or write past its end is not checked"
DATA = "an index read from the data (bins[px[i] / 16]): no binding can check it"
# Functions the fuzzer crashes today, and why: a length the call does not check (an array
# read or written past its end), or an index read from the data. A function fixed here
# fails (a strict xfail): take it off the list.
KNOWN: dict[str, str] = dict.fromkeys([
    "examples/dot.ea::dot",
    "examples/dot.ea::dot_parallel",
    "examples/dot_i8.ea::dot_u8i8",
    "examples/dot_i8.ea::dot_u8i8_parallel",
    "examples/frame_rms.ea::frame_rms",
    "examples/reductions.ea::sum_f32",
    "examples/reductions.ea::max_f32",
    "examples/reductions.ea::min_f32",
    "examples/reductions.ea::sum_f32_parallel",
    "examples/reductions.ea::max_f32_parallel",
    "examples/reductions.ea::min_f32_parallel",
    "examples/sobel.ea::sobel",
    "tests/fuzz_kernels/loops.ea::add_while",
    "tests/fuzz_kernels/loops.ea::diff2",
    "tests/fuzz_kernels/loops.ea::backward_diff",
    "tests/fuzz_kernels/loops.ea::copy_from",
    "tests/fuzz_kernels/loops.ea::reverse",
    "tests/fuzz_kernels/loops.ea::pairs_sum",
    "tests/fuzz_kernels/loops.ea::add_while_parallel",
    "tests/fuzz_kernels/loops.ea::diff2_parallel",
    "tests/fuzz_kernels/loops.ea::square_parallel",
    "tests/fuzz_kernels/loops.ea::add_k64_parallel",
    "tests/fuzz_kernels/shapes.ea::matvec",
    "tests/fuzz_kernels/shapes.ea::poly2",
    "tests/parallel/refused.ea::shift_left",
    "tests/parallel/refused.ea::evens",
    "tests/parallel/refused.ea::find",
    "tests/parallel/refused.ea::shorter",
    "tests/parallel/refused.ea::scan",
    "tests/parallel/refused.ea::reverse",
    "tests/parallel/refused.ea::max_from_second",
    "tests/parallel/refused.ea::overlapping_stores",
    "tests/parallel/split.ea::maxval",
    "tests/parallel/split.ea::minval",
    "tests/parallel/split.ea::blend",
    "tests/parallel/split.ea::maxval_parallel",
    "tests/parallel/split.ea::minval_parallel",
    "tests/parallel/split.ea::max_from_parallel",
    "tests/parallel/split.ea::blend_parallel",
    "tests/parallel/split.ea::swap_ab_parallel",
    "tests/e2e/test_aarch64_lanes.py:WIDEN_EA::widen_both",
    "tests/e2e/test_aarch64_scalar.py:SCALAR_EA::int_ops",
    "tests/e2e/test_aarch64_scalar.py:SCALAR_EA::uint_ops",
    "tests/e2e/test_aarch64_scalar.py:SCALAR_EA::conv",
    "tests/e2e/test_aarch64_scalar.py:PRINTLN_EA::show",
    "tests/tune/test_fma.py:DOT::dot",
    "tests/tune/test_fma.py:DOT::dot_parallel",
], BOUNDS) | dict.fromkeys([
    "tests/parallel/refused.ea::hist",
], DATA)


def corpus():
    sources = collect()
    files = [s for s in sources if ":" not in s.key]
    embedded = [s for s in sources if ":" in s.key]
    if SAMPLE is not None and len(embedded) > SAMPLE:
        chosen = np.random.default_rng(SEED).choice(len(embedded), SAMPLE, replace=False)
        embedded = [embedded[k] for k in sorted(chosen)]
    return files + embedded


def functions(source) -> list[str]:
    """The names `ea.load` gives the source's functions: exports and the parallel variants."""
    a = analyze(source.text.encode(), f"{source.stem}.ea", Options(target_cpu="haswell"))
    api = parse_api(metadata(a, f"{source.stem}.so", live_exports(a)), source.stem)
    kept = [e for e in api.exports if f"{source.key}::{e.name}" not in EXCLUDED]
    return [py(e.name) for e in kept] + [f"{e.name}_parallel" for e in kept if e.parallel]


SOURCES = corpus()
KEYS = [f"{s.key}::{fn}" for s in SOURCES for fn in functions(s)]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("call_fuzz")
    for s in SOURCES:
        (folder / f"{s.stem}.ea").write_text(s.text)
    per_function = max(4, CALLS // max(len(KEYS), 1))
    config = {"folder": str(folder), "seed": SEED, "calls": per_function, "report": str(folder / "report.json"),
              "sources": [{"key": s.key, "stem": s.stem, "skip": [k.split("::")[1] for k in EXCLUDED
                                                                  if k.startswith(f"{s.key}::")]}
                          for s in SOURCES]}
    (folder / "config.json").write_text(json.dumps(config))
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=str(HERE))
    done = subprocess.run([sys.executable, "-m", "fuzz_support.worker", str(folder / "config.json")], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((folder / "report.json").read_text())
    result["per_function"] = per_function
    return result


def _param(key: str):
    if key in KNOWN:
        return pytest.param(key, marks=pytest.mark.xfail(strict=True, reason=KNOWN[key]))
    return key


@pytest.mark.parametrize("key", [_param(k) for k in KEYS])
def test_calls_return_or_name_the_argument(report, key):
    source = key.split("::")[0]
    if source in report["not_loaded"]:
        pytest.fail(f"{source} does not load: {report['not_loaded'][source]}")
    found = report["functions"].get(key)
    assert found is not None, f"{key} was not called (the loaded kernel has no such function)"
    faults = [f"{f.get('signal', 'hang')}: {f['call']}" for f in found["signals"] + found["hangs"]]
    unclear = [f"{u['error']}  <- {u['call']}" for u in found["unclear"] + found["differs"]]
    assert not faults and not unclear, "\n".join(faults + unclear)
    assert found["calls"] == report["per_function"]


def test_counts(report, capsys):
    rows = report["functions"].values()
    total = {k: sum(r[k] if isinstance(r[k], int) else len(r[k]) for r in rows)
             for k in ("calls", "returned", "clean", "unclear", "differs", "signals", "hangs")}
    with capsys.disabled():
        print(f"\ncall fuzzer (seed {SEED}): {len(report['functions'])} functions, {total['calls']} calls: "
              f"{total['returned']} returned, {total['clean']} clean errors, {total['unclear']} unclear errors, "
              f"{total['differs']} parallel calls unlike the export, "
              f"{total['signals']} signals, {total['hangs']} hangs")
    assert total["calls"] > 0 and total["returned"] > 0 and total["clean"] > 0
