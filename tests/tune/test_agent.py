"""The agent interface: whatever the proposer command returns goes through the gate; a wrong
kernel is rejected with the first mismatching index and never timed, text that does not compile
and garbage are compile errors, a hang is a timeout, a good kernel is accepted."""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler.tune import TuneConfig, TuneError, tune

from .tune_support import FOUR_ACC, ONE_ACC, proposer


def run_agent(kernel: Path, command: str, **kw):
    cfg = TuneConfig(kernel=kernel, spaces=("agent",), propose_cmd=command, budget=1, quick=True, **kw)
    return tune(cfg)


def test_a_good_kernel_is_accepted_and_the_prompt_has_what_the_agent_needs(project, tmp_path):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, f"Here you go:\n```ea\n{FOUR_ACC}```\nEnjoy.\n"))
    [attempt] = result.history
    assert attempt.outcome == "accepted", attempt.reason
    assert attempt.reason.startswith("faster: ")
    assert result.best_source == FOUR_ACC and result.speedup > 1.1
    prompt = (tmp_path / "prompt.txt").read_text()
    assert ONE_ACC.strip() in prompt  # the current best kernel
    assert "latency-bound" in prompt  # inspect's class of its loop
    assert "max_f32 at n=256K:" in prompt  # the benchmark per size
    assert "## Last attempts and their outcome\n(none yet)" in prompt


def test_a_wrong_kernel_is_rejected_with_the_first_mismatching_index_and_not_timed(project, tmp_path):
    kernel, _ = project
    wrong = ONE_ACC.replace("m = max(m, x[j])", "m = max(m, x[j] + 10.0)")  # wrong whenever the tail runs
    result = run_agent(kernel, proposer(tmp_path, wrong))
    [attempt] = result.history
    assert attempt.outcome == "wrong"
    assert "first mismatch at index 0" in attempt.reason and "max_f32 at n=" in attempt.reason
    assert attempt.times_us == {} and attempt.score_us is None
    assert not result.improved()


@pytest.mark.parametrize("reply, expected", [
    ("export func max_f32(x: *restrict f32, n: i32) -> f32 {\n    return x[0] +\n}\n", "compile-error"),
    ("I am sorry, I cannot help with that.\n", "compile-error"),
])
def test_text_that_does_not_compile_is_rejected_before_the_worker(project, tmp_path, reply, expected):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, reply))
    [attempt] = result.history
    assert attempt.outcome == expected
    assert attempt.reason.startswith("line ")
    assert result.evaluated == 0


@pytest.mark.parametrize("reply, reason", [
    ("", "the proposer printed nothing"),
    ("// nothing here\n", "the variant has no exported max_f32"),
])
def test_an_answer_without_the_kernel_is_rejected(project, tmp_path, reply, reason):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, reply))
    [attempt] = result.history
    assert attempt.reason == reason
    assert result.evaluated == 0


def test_a_hanging_proposer_times_out(project, tmp_path):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, FOUR_ACC, sleep=60), propose_timeout_s=1)
    [attempt] = result.history
    assert attempt.outcome == "timeout"
    assert attempt.reason == "the proposer gave no answer within 1 s"


def test_a_failing_proposer_is_an_attempt_with_its_message(project, tmp_path):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, FOUR_ACC, status=3))
    [attempt] = result.history
    assert attempt.outcome == "error"
    assert attempt.reason.startswith("the proposer exited with status 3")


def test_a_kernel_that_crashes_costs_one_evaluation(project, tmp_path):
    kernel, _ = project
    crash = ONE_ACC.replace("let mut best: f32x8 = splat(x[0])",
                            "let mut best: f32x8 = splat(x[0])\n    let p: *f32 = x\n"
                            "    let q: f32 = x[2000000000]\n    best = max(best, splat(q))")
    result = run_agent(kernel, proposer(tmp_path, crash))
    [attempt] = result.history
    assert attempt.outcome in ("crashed", "wrong"), attempt.reason


def test_the_agent_space_needs_a_command(project):
    kernel, _ = project
    with pytest.raises(TuneError, match="needs a proposer command"):
        TuneConfig(kernel=kernel, spaces=("agent",))


HANG = """export func max_f32(x: *restrict f32, n: i32) -> f32 {
    let mut i: i32 = 0
    while i < n {
        i = i * 1
    }
    return x[0]
}
"""


def test_a_variant_that_hangs_is_a_timeout(project, tmp_path):
    kernel, _ = project
    result = run_agent(kernel, proposer(tmp_path, HANG), eval_timeout_s=5)
    [attempt] = result.history
    assert attempt.outcome == "timeout"
    assert attempt.reason == "no result within 5 s (a hang or an endless loop?)"


def test_cancel_stops_a_variant_in_the_middle_of_its_evaluation(project, tmp_path):
    import threading
    import time
    kernel, _ = project
    cancel = threading.Event()
    started = []

    def on_event(ev):
        if ev.kind == "message" and ev.message.startswith("asking the proposer"):
            started.append(time.monotonic())
            threading.Timer(2.0, cancel.set).start()
    cfg = TuneConfig(kernel=kernel, spaces=("agent",), propose_cmd=proposer(tmp_path, HANG), budget=1, quick=True)
    result = tune(cfg, progress=on_event, cancel=cancel)
    assert result.interrupted and result.history == []
    assert time.monotonic() - started[0] < 30  # not the 300 s evaluation limit
