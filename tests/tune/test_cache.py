"""The per-project cache: a second identical run replays from it, corrupt entries are ignored and
rewritten, parallel runs do not corrupt it, and an interrupted run resumes where it stopped."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from ea_compiler.tune import TuneConfig, tune

PARAM_SUITE_TUNE = '[tune]\nparams = { LANES = [4, 8, 16] }\n\n'


def params_run(kernel: Path, **kw):
    return tune(TuneConfig(kernel=kernel, spaces=("params",), quick=True, **kw))


def with_params(project):
    kernel, suite = project
    suite.write_text(PARAM_SUITE_TUNE + suite.read_text())
    return kernel


def entries(kernel: Path) -> list[Path]:
    return sorted((kernel.parent / "__eatune__" / "entries").glob("*.json"))


def test_a_second_identical_run_comes_from_the_cache(project):
    kernel = with_params(project)
    t0 = time.monotonic()
    first = params_run(kernel)
    first_s = time.monotonic() - t0
    assert first.evaluated == 2 and first.cache_hits == 0
    t0 = time.monotonic()
    second = params_run(kernel)
    second_s = time.monotonic() - t0
    assert second.evaluated == 0 and second.cache_hits == 2
    assert [a.outcome for a in second.history] == [a.outcome for a in first.history]
    assert all(a.cached for a in second.history)
    assert second.baseline_us == first.baseline_us
    assert second_s < first_s / 2, (first_s, second_s)
    history = (kernel.parent / "__eatune__" / "mx.history.jsonl").read_text().splitlines()
    assert len(history) == 4 and {json.loads(h)["label"] for h in history} == {"LANES=4", "LANES=16"}


def test_corrupt_entries_are_ignored_and_rewritten(project):
    kernel = with_params(project)
    params_run(kernel)
    for path in entries(kernel):
        path.write_text("{ not json")
    again = params_run(kernel)
    assert again.cache_hits == 0 and again.evaluated == 2
    for path in entries(kernel):
        json.loads(path.read_text())


def test_parallel_runs_leave_a_readable_cache(project):
    kernel = with_params(project)
    code = ("import sys; from pathlib import Path; from ea_compiler.tune import TuneConfig, tune; "
            "r = tune(TuneConfig(kernel=Path(sys.argv[1]), spaces=('params',), quick=True)); "
            "print(r.evaluated + r.cache_hits)")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(kernel)], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=600)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs == ["2", "2"]
    assert not list((kernel.parent / "__eatune__").rglob(".tmp-*"))
    for path in entries(kernel):
        json.loads(path.read_text())
    assert params_run(kernel).evaluated == 0


def test_an_interrupted_run_resumes_from_the_cache(project):
    kernel = with_params(project)
    cancel = threading.Event()

    def stop_after_first(ev):
        if ev.kind == "attempt":
            cancel.set()
    partial = tune(TuneConfig(kernel=kernel, spaces=("params",), quick=True), progress=stop_after_first,
                   cancel=cancel)
    assert partial.interrupted and len(partial.history) == 1
    resumed = params_run(kernel)
    assert not resumed.interrupted
    assert resumed.cache_hits == 1 and resumed.evaluated == 1


def test_fresh_measures_again(project):
    kernel = with_params(project)
    params_run(kernel)
    assert params_run(kernel, fresh=True).evaluated == 2


def test_the_budget_is_shared_between_the_functions_the_suite_benches(project):
    kernel, suite = project
    two = kernel.read_text() + kernel.read_text().split("const LANES: i32 = 8\n")[1].replace("max_f32", "max2_f32")
    kernel.write_text(two)
    suite.write_text(PARAM_SUITE_TUNE + suite.read_text() + suite.read_text().replace("max_f32", "max2_f32"))
    result = tune(TuneConfig(kernel=kernel, spaces=("params",), quick=True, budget=2))
    assert [(a.function, a.label, a.outcome) for a in result.history] == [
        ("max_f32", "LANES=4", "wrong"),  # its f32x8 loads reach past the end of x: refused before the call
        ("max2_f32", "LANES=4", "duplicate"),  # the same program as tried for max_f32: not counted
        ("max2_f32", "LANES=16", "wrong")]
    assert "raised ValueError: x: needs at least" in result.history[0].reason
    assert result.evaluated == 2


def test_the_history_names_each_variant_source(project):
    kernel = with_params(project)
    result = params_run(kernel)
    for attempt in result.history:
        text = Path(attempt.variant).read_text()
        assert f"const LANES: i32 = {attempt.label.split('=')[1]}" in text
    records = [json.loads(line) for line in (kernel.parent / "__eatune__" / "mx.history.jsonl").read_text().splitlines()]
    assert [r["variant"] for r in records] == [a.variant for a in result.history]
