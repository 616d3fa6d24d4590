"""The Tune pane's pure logic: the run's log from engine events, table cells,
the progress line, the diff colouring, the choices -> TuneConfig, and the
best-time chart."""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler import Options
from ea_compiler.tooling import Attempt, SizeRow, TuneError, TuneEvent, TuneResult
from ea_tui.tune_format import (EVERY_FUNCTION, ChoiceError, TuneLog, attempt_cells, backup_path, diff_content,
                                fmt_us, make_config, progress_line, summary_content)
from ea_tui.widgets.tune_chart import render_tune_chart

KERNEL = Path("k/reductions.ea")


def attempt(index, outcome, score, label="unroll max_f32#0 x4", reason="", cached=False):
    return Attempt(index=index, label=label, outcome=outcome, reason=reason, times_us={}, score_us=score,
                   cached=cached)


def event(kind, a=None, best=None, baseline=None, evaluated=0, accepted=0, rejected=0, cache_hits=0, message=""):
    return TuneEvent(kind=kind, message=message, attempt=a, best_us=best, baseline_us=baseline, evaluated=evaluated,
                     accepted=accepted, rejected=rejected, cache_hits=cache_hits)


def run_log() -> TuneLog:
    log = TuneLog()
    log.add(event("message", message="measuring the baseline"))
    log.add(event("baseline", best=40.0, baseline=40.0))
    log.add(event("attempt", attempt(1, "wrong", None, reason="index 17 differs"), 40.0, 40.0, 1, 0, 1))
    log.add(event("attempt", attempt(2, "accepted", 21.0), 21.0, 40.0, 2, 1, 1))
    log.add(event("attempt", attempt(3, "slower", 25.0, cached=True), 21.0, 40.0, 3, 1, 2, cache_hits=1))
    return log


def test_log_follows_the_events():
    log = run_log()
    assert [a.index for a in log.attempts] == [1, 2, 3]
    assert (log.baseline_us, log.best_us, log.evaluated, log.accepted, log.rejected, log.cache_hits) == \
        (40.0, 21.0, 3, 1, 2, 1)
    assert log.best_points == [(0, 40.0), (1, 40.0), (2, 21.0), (3, 21.0)]
    assert log.scores == [(2, 21.0), (3, 25.0)]  # the wrong variant was never timed
    assert log.best_label == "unroll max_f32#0 x4" and log.message == "measuring the baseline"


def test_attempt_cells():
    cells = attempt_cells(attempt(3, "slower", 25.0, cached=True, reason="3.1% slower\nat 16M"))
    assert [str(c) for c in cells] == ["3", "unroll max_f32#0 x4", "slower", "25 µs (cached)", "3.1% slower at 16M"]
    assert cells[2].style == "yellow"
    long = attempt_cells(attempt(1, "wrong", None, label="x" * 60, reason=""))
    assert len(long[1]) == 44 and long[1].endswith("…") and long[3] == "-" and long[4] == "-"
    assert attempt_cells(attempt(2, "noise", 20.0, reason="r" * 80))[4] == "r" * 63 + "…"


def test_progress_line():
    text = progress_line(run_log()).plain
    assert text == "tried 3  accepted 1  rejected 2  cache hits 1  best 21 µs  baseline 40 µs  1.90×"
    assert progress_line(TuneLog()).plain == "tried 0  accepted 0  rejected 0"
    final = TuneResult(kernel=KERNEL, original_source="a", best_source="b", baseline_us=38.0, best_us=19.0)
    assert progress_line(run_log(), final=final).plain == \
        "tried 3  accepted 1  rejected 2  cache hits 1  best 19 µs  baseline 38 µs  2.00×"


def test_not_applicable_points_are_not_tried():
    log = run_log()
    log.add(event("attempt", attempt(4, "not-applicable", None), 21.0, 40.0, 3, 1, 2, cache_hits=1))
    assert progress_line(log).plain == ("tried 3  accepted 1  rejected 2  cache hits 1  not applicable 1  "
                                        "best 21 µs  baseline 40 µs  1.90×")


def rows(*ratios):
    """SizeRows with the original at 10 µs and the given speedups, the last size deciding."""
    out = []
    for i, r in enumerate(ratios):
        out.append(SizeRow("f", "f", 1000 * 10 ** i, 10.0, 10.0 / r, None, r * 0.97, r * 1.03, i == len(ratios) - 1))
    return out


def test_the_summary_says_faster_only_for_a_faster_best():
    # Issue 22: the quick tune ended "1 accepted, 0.34× faster" (best 4.46 ms vs 1.51 ms).
    slower = TuneResult(kernel=KERNEL, original_source="a", best_source="a", baseline_us=1510.0, best_us=1510.0,
                        accepted=1, slower_at_end=True, rows=rows(1.0, 0.34))
    text = summary_content(slower).plain
    assert "faster" not in text
    assert text.endswith("1 accepted, the best found was slower than the original side by side: nothing to write")
    faster = TuneResult(kernel=KERNEL, original_source="a", best_source="b", baseline_us=20.0, best_us=10.0,
                        accepted=1, rows=rows(0.8, 2.0))
    text = summary_content(faster).plain
    assert "1 accepted, 2.00× faster · slower at 1000 (0.80×)  ·  A: apply" in text
    none = TuneResult(kernel=KERNEL, original_source="a", best_source="a", baseline_us=20.0, best_us=20.0)
    assert summary_content(none).plain == "done: 0 tried (0 evaluated), 0 accepted, no faster variant"


def test_fmt_us():
    assert (fmt_us(None), fmt_us(0.25), fmt_us(21.0), fmt_us(1530.0)) == ("-", "250 ns", "21 µs", "1.53 ms")


def test_diff_lines_are_coloured():
    diff = "--- a.ea\n+++ a.ea (tuned)\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    content = diff_content(diff)
    assert content.plain == diff.rstrip("\n")
    styles = {content.plain[s.start:s.end]: str(s.style) for s in content.spans}
    assert styles["-old"] == "$text-error" and styles["+new"] == "$text-success"
    assert styles["@@ -1,2 +1,2 @@"] == "$text-accent" and styles["+++ a.ea (tuned)"] == "bold"
    assert " keep" not in styles


def test_backup_path():
    assert backup_path(KERNEL) == Path("k/reductions.ea.orig")


def test_make_config():
    cfg = make_config(KERNEL, "max_f32", ["transforms", "params"], "local", " 8 ", "", "", True, Options())
    assert (cfg.functions, cfg.spaces, cfg.strategy, cfg.budget, cfg.time_s, cfg.quick, cfg.propose_cmd) == \
        (["max_f32"], ("params", "transforms"), "local", 8, None, True, None)
    every = make_config(KERNEL, EVERY_FUNCTION, ["agent"], "auto", "", "2.5", " ./propose.sh ", False, Options())
    assert every.functions is None and every.time_s == 2.5 and every.propose_cmd == "./propose.sh"


@pytest.mark.parametrize("spaces, budget, time_s, command, error, message", [
    ([], "", "", "", ChoiceError, "Check at least one space to search: params, transforms or agent."),
    (["params"], "four", "", "", ChoiceError, "The budget must be a whole number, not 'four'."),
    (["params"], "", "1m", "", ChoiceError, "The time bound must be a number, not '1m'."),
    (["params"], "0", "", "", TuneError, None),
    (["agent"], "", "", "  ", TuneError, None),
])
def test_make_config_refuses(spaces, budget, time_s, command, error, message):
    with pytest.raises(error) as err:
        make_config(KERNEL, "max_f32", spaces, "auto", budget, time_s, command, False, Options())
    if message is not None:
        assert str(err.value) == message


def test_chart_steps_down_where_a_variant_was_accepted():
    log = run_log()
    text = render_tune_chart(log.best_points, log.scores, log.baseline_us, width=40, height=12).plain
    lines = text.splitlines()
    assert len(lines) == 12
    plot = [line.split("┤" if "┤" in line else "│", 1)[1] for line in lines[:9]]
    best_rows = [r for r, line in enumerate(plot) if "━" in line]
    assert len(best_rows) == 2 and best_rows[0] < best_rows[1]  # the line drops once
    assert "●" in plot[best_rows[1]] and "·" in "".join(plot)  # the accepted point; the slower score
    assert "┄" in plot[best_rows[0]]  # the baseline is the line's starting level
    assert lines[-2].split() == ["0", "attempt", "3"]
    assert lines[-1] == "━ best  · score  ┄ baseline 40 µs"


def test_chart_pins_far_outliers_and_waits_for_a_baseline():
    text = render_tune_chart([(0, 40.0), (1, 40.0)], [(1, 400.0)], 40.0, width=40, height=10).plain
    assert "↑" in text.splitlines()[0]
    assert render_tune_chart([], [], None, 40, 10).plain.startswith("The best time by attempt shows here")


def test_the_live_diff_reads_like_the_final_one(tmp_path):
    from pathlib import Path

    from ea_compiler.tooling import TuneResult
    from ea_tui.tune_format import unified_diff
    original, best = "a\nb\nc\n", "a\nB\nc\n"
    final = TuneResult(Path("k.ea"), original, best, 2.0, 1.0).diff()
    assert unified_diff("k.ea", original, best) == final
    assert final.startswith("--- k.ea (original)\n+++ k.ea (tuned)\n") and "-b\n+B\n" in final


def test_the_nest_line_says_what_applies_and_what_only_aliasing_keeps_out():
    from pathlib import Path

    from ea_compiler.tooling import analyze, explain_transforms
    from ea_tui.tune_format import NEST, nest_line
    text = (Path(__file__).resolve().parents[2] / "bench" / "tune_nest" / "matmul_naive.ea").read_text()
    assert nest_line(explain_transforms(analyze(text, "mm.ea"), only=NEST)) == (
        "Loop nests: matmul: tile, vectorise, interchange would apply but `c` may alias `a`, `b` (not restrict): "
        "use --assume-noalias (Eä has no pointer comparison, so no runtime overlap check can be written)")
    restricted = text.replace("a: *f32, b: *f32, c: *mut f32", "a: *restrict f32, b: *restrict f32, c: *restrict mut f32")
    assert nest_line(explain_transforms(analyze(restricted, "mm.ea"), only=NEST)) == (
        "Loop nests: matmul: tile (line 5), vectorise (line 5), interchange (line 7) apply")
    fma = (Path(__file__).resolve().parents[2] / "examples" / "fma.ea").read_text()
    assert nest_line(explain_transforms(analyze(fma, "fma.ea"), only=NEST)) is None
