"""Judgements that agree with themselves (issue 22 §3), from synthetic timings: the ratio
beside an interval is inside it and no bound is negative; equal steps cannot drift below
the original; the final verdict never keeps a best that lost side by side; "tried" adds
up; a best that wins only at the largest size says so; the machine's load and noise."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.bench.sizes import Size
from ea_compiler.cli.tune_view import summary
from ea_compiler.tune import Attempt, SizeRow, TuneResult, tally
from ea_compiler.tune.gate import Evaluation, decide
from ea_compiler.tune.judgement import Load, final_verdict, machine_load
from ea_compiler.tune.ratio import combined, ratio_interval, spread


def test_the_ratio_is_the_ratio_of_medians_inside_its_interval():
    rng = np.random.default_rng(3)
    variant = list(10.0 + rng.normal(0, 0.3, 40))
    incumbent = list(12.0 + rng.normal(0, 0.3, 40))
    mid, lo, hi = ratio_interval(variant, incumbent)
    assert mid == pytest.approx(np.median(incumbent) / np.median(variant))
    assert 1.15 < lo <= mid <= hi < 1.25
    assert ratio_interval(variant, incumbent) == (mid, lo, hi)  # seeded: the same samples, the same interval


@pytest.mark.parametrize("seed", range(30))
def test_no_interval_excludes_its_ratio_or_goes_negative(seed):
    # Issue 22: "1.383× (95 % interval 0.979–1.272)" and "0.468× (interval -0.215–1.143)" under load:
    # heavy-tailed samples, a few huge outliers, few rounds.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    variant = list(rng.lognormal(0, 0.8, n) * (1 + 20 * (rng.random(n) < 0.1)))
    incumbent = list(rng.lognormal(0.2, 0.8, n) * (1 + 20 * (rng.random(n) < 0.1)))
    mid, lo, hi = ratio_interval(variant, incumbent)
    assert 0 < lo <= mid <= hi


def test_spread_and_combined():
    assert spread([100.0] * 9) == 0.0
    assert spread(list(np.linspace(90, 110, 101))) == pytest.approx(0.08)
    rows = [{"us": 10.0, "incumbent_us": 20.0}, {"us": 30.0, "incumbent_us": 30.0}]
    assert combined(rows) == 50 / 40


def row(ratio, lo, hi, us=10.0):
    return {"us": us, "incumbent_us": us * ratio, "ratio": ratio, "ratio_lo": lo, "ratio_hi": hi}


def test_equal_with_fewer_lines_cannot_drift_below_the_original():
    # Issue 22: saxpy accepted a 0.921× step (interval 0.81–1.07) as "equal speed with fewer lines".
    ev = Evaluation("ok", benches={"b": {"100": row(0.97, 0.93, 1.02)}})
    sizes = {"b": Size.of(100)}
    d = decide(ev, ["b"], sizes, 10, 9)
    assert d.outcome == "noise"
    assert d.reason == ("no gain of 0.5% beyond the noise: 0.970× the current best (95 % interval 0.930–1.020); "
                        "equal, but it would leave the result at 0.970× the original")
    # A step within half a percent in the median: kept after a real gain, not before.
    close = Evaluation("ok", benches={"b": {"100": row(0.997, 0.95, 1.04)}})
    assert decide(close, ["b"], sizes, 10, 9, best_vs_original=1.2).outcome == "accepted"
    # A chain of equal steps: each one is judged against the original through the chain.
    chain = 1.0
    for _ in range(5):
        if decide(close, ["b"], sizes, 10, 9, chain).outcome == "accepted":
            chain *= 0.997
    assert chain == 1.0


def test_equal_means_within_half_a_percent_in_the_median():
    # dot_f32 at 4M: 0.976× and 0.960× steps were taken as equal (fewer lines; faster at smaller
    # sizes), undoing an unrolling that a later "faster" step took back, round after round.
    sizes = {"b": Size.of(1000)}
    fewer = Evaluation("ok", benches={"b": {"1000": row(0.976, 0.954, 1.047)}})
    d = decide(fewer, ["b"], sizes, 10, 6, best_vs_original=1.2)
    assert d.outcome == "noise"
    assert d.reason == ("no gain of 0.5% beyond the noise: 0.976× the current best (95 % interval 0.954–1.047); "
                        "2.4% slower in the median, and equal means within 0.5%")
    smaller = Evaluation("ok", benches={"b": {"1000": row(0.960, 0.932, 1.016), "100": row(1.04, 1.01, 1.06)}})
    assert decide(smaller, ["b"], sizes, 10, 10, best_vs_original=1.2).outcome == "noise"


def test_fewer_lines_never_costs_a_smaller_size():
    # dot_f32: "fma, unroll ×2" replaced "fma, unroll ×8" as equal at 4M with 12 fewer lines,
    # though the same run had measured them at 38.5 and 30.5 µs at 256K.
    sizes = {"b": Size.of(4096)}
    ev = Evaluation("ok", benches={"b": {"4096": row(1.0, 0.98, 1.07), "16": row(0.57, 0.55, 0.60),
                                         "256": row(1.0, 0.97, 1.03)}})
    d = decide(ev, ["b"], sizes, 20, 8, best_vs_original=1.2)
    assert d.outcome == "noise"
    assert d.reason.endswith("; fewer lines, but slower at smaller sizes: 16 0.57×")
    even = Evaluation("ok", benches={"b": {"4096": row(1.0, 0.98, 1.07), "16": row(1.0, 0.97, 1.03)}})
    assert decide(even, ["b"], sizes, 20, 8).outcome == "accepted"


def test_equal_at_the_largest_size_cannot_drift_either():
    ev = Evaluation("ok", benches={"b": {"1000": row(0.997, 0.96, 1.03), "100": row(1.5, 1.4, 1.6)}})
    sizes = {"b": Size.of(1000)}
    assert decide(ev, ["b"], sizes, 10, 10).outcome == "noise"
    assert decide(ev, ["b"], sizes, 10, 10, best_vs_original=1.1).outcome == "accepted"


@pytest.mark.parametrize("largest", [row(0.456, 0.389, 1.468), row(0.921, 0.81, 1.07), row(0.94, 0.92, 1.01)])
def test_too_noisy_to_call_equal(largest):
    # Under load (load average 3-4) a prefetch step measured 0.456× at the largest size
    # (interval 0.389–1.468) was accepted as "equal there, faster at smaller sizes".
    ev = Evaluation("ok", benches={"b": {"1000": largest, "100": row(3.29, 2.0, 4.0)}})
    assert decide(ev, ["b"], {"b": Size.of(1000)}, 10, 9).outcome == "noise"  # and would drift
    d = decide(ev, ["b"], {"b": Size.of(1000)}, 10, 9, best_vs_original=3.0)  # would not drift
    assert d.outcome == "noise"
    assert d.reason.endswith("; too noisy to call equal (interval wider than 10% or median below)")


def test_decisions_on_named_sizes():
    big, small = Size((("m", 64), ("k", 64))), Size((("m", 8), ("k", 8)))
    ev = Evaluation("ok", benches={"b": {big.key: row(1.0, 0.99, 1.01), small.key: row(1.5, 1.4, 1.6)}})
    d = decide(ev, ["b"], {"b": big}, 10, 10)
    assert d.outcome == "accepted" and d.reason.endswith("faster at smaller sizes: m=8,k=8 1.50×")


@pytest.mark.parametrize("ratio, lo, hi, slower, noisy", [
    (0.988, 0.95, 1.03, True, False),  # dot in issue 22: written with exit 0, now refused
    (0.978, 0.93, 1.01, True, False),  # matmul
    (1.02, 0.97, 1.06, False, True),  # faster in the median, but within the noise: written, marked
    (1.30, 1.20, 1.40, False, False),
])
def test_the_final_verdict(ratio, lo, hi, slower, noisy):
    v = final_verdict([row(ratio, lo, hi)])
    assert (v.ratio, v.slower, v.within_noise) == (pytest.approx(ratio), slower, noisy)


def attempt(i, outcome, cached=False, variant="v"):
    return Attempt(i, f"p{i}", outcome, cached=cached, variant=variant)


def test_tried_adds_up_and_not_applicable_is_apart():
    history = [attempt(1, "accepted"), attempt(2, "slower", cached=True), attempt(3, "not-applicable", variant=""),
               attempt(4, "compile-error", variant=""), attempt(5, "duplicate", variant=""),
               attempt(6, "wrong"), attempt(7, "not-applicable", variant="")]
    t = tally(history)
    assert (t.tried, t.evaluated, t.cached, t.unmeasured, t.not_applicable) == (5, 2, 1, 2, 2)
    assert t.text() == "5 tried (2 evaluated, 1 from the cache, 2 rejected unmeasured); 2 not applicable"


def result(ratios, **kw) -> TuneResult:
    """A finished run whose final table has the original at 10 µs and these speedups, the last size deciding."""
    rows = [SizeRow("clamp", "clamp", Size.of(1000 * 10 ** i), 10.0, 10.0 / r, None, r * 0.98, r * 1.02,
                    i == len(ratios) - 1) for i, r in enumerate(ratios)]
    base = dict(kernel=Path("clamp.ea"), original_source="a", best_source="b", baseline_us=10.0,
                best_us=10.0 / ratios[-1], accepted=1, history=[attempt(1, "accepted")], rows=rows,
                search_speedup=1.79, noise=0.02, load_before=Load(1.5, 2), load_after=Load(2.0, 2), cpu=1)
    base.update(kw)
    return TuneResult(**base)


def test_a_best_that_wins_only_at_the_largest_size_says_so():
    # Issue 22: the tuned clamp was 0.67–0.89× at the smaller sizes.
    text = summary(result([0.67, 0.89, 1.37]), show_diff=False)
    lines = text.splitlines()
    assert lines[0] == ("ea tune clamp.ea: 1.37× at the largest size (95 % interval 1.34–1.40) (10.0 µs -> 7.3 µs); "
                        "1 tried (1 evaluated, 0 from the cache), 1 accepted, 0 s")
    assert lines[1] == "the search's steps multiplied to 1.79×; 1.37× measured side by side"
    assert lines[2] == ("machine: load 1.50 -> 2.00 on 2 CPUs, timing noise ±2.0% (the original at the largest "
                        "size), workers pinned to CPU 1")
    # Per size: the ratio, its interval, exact sizes; the deciding size marked.
    assert lines[3:8] == [
        "function      size  original µs  tuned µs  speedup  95 % interval  NumPy µs  tuned vs NumPy",
        "clamp         1000        10.00     14.93    0.67×      0.66–0.68         -               -",
        "clamp        10000        10.00     11.24    0.89×      0.87–0.91         -               -",
        "clamp     100000 *        10.00      7.30    1.37×      1.34–1.40         -               -",
        "(* the size that decides)"]
    assert "faster at the largest size only: slower at 1000 (0.67×), 10000 (0.89×)" in lines
    assert not any(line.startswith("within the noise") for line in lines)


def test_a_gain_within_the_noise_is_marked():
    lines = summary(result([1.02]), show_diff=False).splitlines()  # interval 1.02 × (0.98–1.02): reaches below 1
    assert "within the noise: the interval reaches 1.00×; measure again on a quiet machine before relying on " \
           "this gain" in lines
    noisy = result([1.05], noise=0.08)
    assert "within the noise: the gain (5.0%) is smaller than the machine's timing noise (±8.0%); measure again " \
           "on a quiet machine" in summary(noisy, show_diff=False).splitlines()


def test_a_best_slower_at_the_end_is_reported_as_not_written():
    r = result([0.9, 0.978], best_source="a", slower_at_end=True, rejected_label="unroll ×4", best_us=10.0)
    lines = summary(r, show_diff=False).splitlines()
    assert lines[0].startswith("ea tune clamp.ea: the original is kept: the best found was slower side by side at "
                               "the largest size; 1 tried")
    assert lines[1] == "the search's steps multiplied to 1.79×; 0.98× measured side by side"
    assert lines[3].startswith("function     size  original µs  rejected variant µs  speedup")
    assert lines[-1] == "not written: unroll ×4"
    assert not any("faster at the largest size only" in line for line in lines)


def test_machine_load():
    load = machine_load()
    assert load.cpus >= 1 and (load.average is None or load.average >= 0)
    assert Load(3.0, 2).busy and not Load(1.0, 2).busy
    assert Load(1.234, 2).text() == "load 1.23 on 2 CPUs" and Load(None, 1).text() == "1 CPU, load unknown"


def test_the_worker_pins_itself_to_one_core():
    import os
    import subprocess
    import sys
    from ea_compiler.tune.worker import pin_cpu
    cpu = pin_cpu()
    if cpu is None:
        pytest.skip("the OS does not let a process choose its cores")
    assert cpu == max(os.sched_getaffinity(0))
    code = ("import os; from ea_compiler.tune.worker import pin; "
            f"print(pin({cpu}), sorted(os.sched_getaffinity(0)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(cpu), f"[{cpu}]"]


def test_gflops_and_the_peak_beside_the_times():
    r = result([2.0])
    r.rows[0].flops = 2 * 64 ** 3  # 524288 flops in 5 µs: 104.9 GFLOP/s
    lines = summary(r, show_diff=False, peak=200.0).splitlines()
    assert lines[2].endswith("workers pinned to CPU 1, FMA peak 200.0 GFLOP/s")
    assert lines[3].split() == ["function", "size", "original", "µs", "tuned", "µs", "speedup", "95", "%", "interval",
                                "tuned", "GFLOP/s", "%", "of", "peak", "NumPy", "µs", "tuned", "vs", "NumPy"]
    assert lines[4].split()[6:8] == ["104.9", "52%"]
    assert r.to_json()["sizes"][0]["gflops"] == pytest.approx(104.8576)


def test_the_chain_to_the_original_weights_benches_by_their_time():
    # Two functions each made 2× faster make the suite 2× faster, not 4×.
    from ea_compiler.tune.engine import _Run
    run = _Run.__new__(_Run)
    run.benches, run.sizes = ["a", "b"], {"a": Size.of(10), "b": Size.of(10)}
    run.baseline_eval = Evaluation("ok", benches={"a": {"10": {"us": 10.0}}, "b": {"10": {"us": 30.0}}})
    run.chain = {"a": 2.0, "b": 2.0}
    assert run.vs_original == 2.0
    run.chain = {"a": 2.0, "b": 1.0}
    assert run.vs_original == pytest.approx(40 / 35) and run.ratio_to_original(["a"]) == 2.0
