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
page) or any other exception is a failure of that function, except a signal in a
function whose binding names an array as unchecked (a data-dependent index, a
possibly negative one): that is an expected failure, with the reasons. The calls run
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
from ea_compiler.bind.python import not_callable, py
from ea_compiler.build import metadata

HERE = Path(__file__).resolve().parent
SEED = int(os.environ.get("EA_FUZZ_CALLS_SEED", "20250607"))
CALLS = int(os.environ.get("EA_FUZZ_CALLS", "3000"))
SAMPLE = None if os.environ.get("EA_FUZZ_CALLS_ALL") else 12  # embedded sources in a default run



def corpus():
    sources = collect()
    files = [s for s in sources if ":" not in s.key]
    embedded = [s for s in sources if ":" in s.key]
    if SAMPLE is not None and len(embedded) > SAMPLE:
        chosen = np.random.default_rng(SEED).choice(len(embedded), SAMPLE, replace=False)
        embedded = [embedded[k] for k in sorted(chosen)]
    return files + embedded


# function key -> {array: why its length is not checked}: the arrays the binding names as
# unchecked (its docstring, the Kernel's repr, `ea bind`'s warning); a call may fault on those.
UNCHECKED: dict[str, dict[str, str]] = {}


def functions(source) -> list[str]:
    """The names `ea.load` gives the source's functions: exports and the parallel variants."""
    a = analyze(source.text.encode(), f"{source.stem}.ea", Options(target_cpu="haswell"))
    api = parse_api(metadata(a, f"{source.stem}.so", live_exports(a)), source.stem)
    left_out = not_callable(api)  # what the binding itself leaves out, with its reason
    kept = [e for e in api.exports if f"{source.key}::{e.name}" not in EXCLUDED and e.name not in left_out]
    names = [(py(e.name), e) for e in kept] + [(f"{e.name}_parallel", e) for e in kept if e.parallel]
    for name, e in names:
        if e.unchecked:
            UNCHECKED[f"{source.key}::{name}"] = e.unchecked
    return [name for name, _ in names]


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


@pytest.mark.parametrize("key", KEYS)
def test_calls_return_or_name_the_argument(report, key):
    source = key.split("::")[0]
    if source in report["not_loaded"]:
        pytest.fail(f"{source} does not load: {report['not_loaded'][source]}")
    found = report["functions"].get(key)
    assert found is not None, f"{key} was not called (the loaded kernel has no such function)"
    faults = [f"{f.get('signal', 'hang')}: {f['call']}" for f in found["signals"] + found["hangs"]]
    unclear = [f"{u['error']}  <- {u['call']}" for u in found["unclear"] + found["differs"]]
    assert not unclear, "\n".join(unclear)
    if faults and key in UNCHECKED:
        pytest.xfail(f"faulted on arrays whose length the binding says it does not check: {UNCHECKED[key]}")
    assert not faults, "\n".join(faults)
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
