"""Tune pane: a quick tune of the example's max_f32 fills the attempts table,
the chart and the diff; a kernel with a known faster const value is tuned,
written beside itself and applied in place with a backup; the agent space
runs the proposer command; cancel stops a run while the UI keeps answering;
files without a suite, cross targets and choices that make no run are
refused with a message."""
from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Checkbox, DataTable, Input, Select

from tui_support import EXAMPLES, SIZE, compiled, make_app, screen_text, until

from ea_compiler import Options
from ea_tui.tune_format import attempt_cells

TUNE_TIMEOUT = 300.0  # a tune run measures for real, even a quick one
# max_f32 of examples/reductions.ea made to sweep its input PASSES times, with the const in
# the suite's [tune.params]: PASSES=1 is faster by far, so the tuner accepts it whatever
# transformations exist and however noisy the machine.
SLOW_LOOP = ("    while i + LANES <= n {\n        best = max(best, load_f32x8(x, i))\n        i = i + LANES\n    }\n",
             "    for pass in 0..PASSES {\n        i = 0\n        while i + LANES <= n {\n"
             "            best = max(best, load_f32x8(x, i))\n            i = i + LANES\n        }\n    }\n")


def suite_copy(tmp_path: Path, passes: list[int] | None = None) -> Path:
    """examples/reductions.ea and its suite in tmp_path; with `passes`, max_f32 sweeps PASSES times."""
    kernel, suite = tmp_path / "reductions.ea", tmp_path / "reductions.bench.toml"
    source, table = (EXAMPLES / kernel.name).read_text(), (EXAMPLES / suite.name).read_text()
    if passes:
        assert source.count(SLOW_LOOP[0]) == 1  # max_f32's loop (min_f32's calls min)
        source = source.replace(SLOW_LOOP[0], SLOW_LOOP[1]).replace(
            "const LANES: i32 = 8\n", f"const LANES: i32 = 8\nconst PASSES: i32 = {max(passes)}\n")
        table += f"\n[tune.params]\nPASSES = {passes}\n"
    kernel.write_text(source)
    suite.write_text(table)
    return kernel


def note(pane) -> str:
    return str(pane.query_one("#tune-note").render())


async def open_tune(pilot, function: str = "max_f32", budget: str = "2"):
    """Switch to the Tune pane and pick the function and the budget."""
    await compiled(pilot)
    await pilot.press("5")
    pane = pilot.app.query_one("#tune-pane")
    assert pane.functions == ("sum_f32", "max_f32", "min_f32")
    pane.query_one("#tune-function", Select).value = function
    pane.query_one("#tune-budget", Input).value = budget
    pane.focus_first()
    await pilot.pause()
    return pane


async def test_quick_tune_shows_attempts_chart_diff_and_writes(tmp_path):
    kernel = suite_copy(tmp_path, passes=[1, 2, 3])
    original = kernel.read_text()
    app = make_app(kernel, Options())  # variants run natively
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot)
        pane.query_one("#tune-space-transforms", Checkbox).value = False  # only PASSES: a known search
        await pilot.press("x")
        assert pane.running
        await until(pilot, lambda: not pane.running, timeout=TUNE_TIMEOUT)
        result = pane.result
        assert result is not None and result.evaluated <= 2 and not result.interrupted
        table = pane.query_one("#tune-attempts", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[:3] for r in rows] == [["1", "PASSES=1", "accepted"], ["2", "PASSES=2", "slower"]]
        assert [a.label for a in result.history] == ["PASSES=1", "PASSES=2"]
        assert result.best_label == "PASSES=1" and result.speedup > 1.5
        chart = pane.query_one("#tune-chart")
        log = pane.tune_log  # the search's own measurements (the result's are measured again at the end)
        assert chart.baseline == log.baseline_us and chart.best[0] == (0, log.baseline_us)
        assert chart.best[1:] == [(1, log.best_us), (2, log.best_us)] and log.best_us < log.baseline_us
        assert [i for i, _ in chart.scores] == [1, 2]
        assert "━ best" in str(chart.render())
        diff_text = str(pane.query_one("#tune-diff").render())
        assert diff_text == result.diff().rstrip("\n")
        assert "-const PASSES: i32 = 3" in diff_text and "+const PASSES: i32 = 1" in diff_text
        assert f"{result.speedup:.2f}× faster" in screen_text(app)

        await pilot.press("w")
        tuned = tmp_path / "reductions.tuned.ea"
        assert tuned.read_text() == result.best_source and kernel.read_text() == original
        assert note(pane) == "Wrote reductions.tuned.ea beside reductions.ea."
        await pilot.pause()
        assert tuned in app.workspace.files  # listed in the file list now

        await pilot.press("A")
        backup = tmp_path / "reductions.ea.orig"
        assert kernel.read_text() == result.best_source and backup.read_text() == original
        assert "the original is kept as" in screen_text(app) and "reductions.ea.orig" in screen_text(app)
        await compiled(pilot)  # the app recompiles the applied file; the result stays
        assert pane.result is result
        await pilot.press("A")  # the file is not the tuned source any more: refused, backup untouched
        assert backup.read_text() == original
        assert "reductions.ea is not the source that was tuned" in note(pane)


async def test_quick_tune_of_the_example_max_f32(tmp_path):
    """The shipped one-accumulator max_f32: the search's first two variants, live."""
    app = make_app(suite_copy(tmp_path), Options())
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot)
        await pilot.press("x")
        await until(pilot, lambda: not pane.running, timeout=TUNE_TIMEOUT)
        result, log = pane.result, pane.tune_log
        assert result is not None and result.evaluated + result.cache_hits == 2
        table = pane.query_one("#tune-attempts", DataTable)
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows == [[str(c) for c in attempt_cells(a)] for a in result.history]
        assert len(rows) == 2 and all("max_f32#" in r[1] for r in rows)  # e.g. "unroll max_f32#0 ×2"
        chart = pane.query_one("#tune-chart")
        assert chart.best == log.best_points and len(chart.best) == 3
        assert chart.scores == [(a.index, a.score_us) for a in result.history if a.score_us is not None]
        shown = str(pane.query_one("#tune-diff").render())
        assert shown == (result.diff().rstrip("\n") or "No variant beat the original; nothing to write.")


async def test_agent_space_asks_the_proposer_command(tmp_path):
    app = make_app(suite_copy(tmp_path), Options())
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot, budget="1")
        for space, on in (("params", False), ("transforms", False), ("agent", True)):
            pane.query_one(f"#tune-space-{space}", Checkbox).value = on
        await pilot.press("x")
        assert not pane.running and "proposer command" in note(pane)  # agent without a command: refused
        pane.query_one("#tune-propose", Input).value = "cat reductions.ea"  # proposes the original back
        pane.focus_first()
        await pilot.press("x")
        await until(pilot, lambda: not pane.running, timeout=TUNE_TIMEOUT)
        table = pane.query_one("#tune-attempts", DataTable)
        assert [str(c) for c in table.get_row_at(0)][1:3] == ["agent proposal 1", "duplicate"]
        assert table.row_count == 1 and not pane.result.improved()


async def test_cancel_stops_the_run_and_the_ui_answers(tmp_path):
    app = make_app(suite_copy(tmp_path, passes=list(range(1, 9))), Options())
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot, budget="")
        await pilot.press("x")  # eight variants or more: long unless cancelled
        await until(pilot, lambda: pane.tune_log.baseline_us is not None, timeout=TUNE_TIMEOUT)
        # while the worker measures, the UI switches panes and back
        await pilot.press("1")
        assert app.query_one("#panes").active == "source" and pane.running
        await pilot.press("5")
        assert app.query_one("#panes").active == "tune"
        await pilot.press("c")
        await until(pilot, lambda: not pane.running, timeout=TUNE_TIMEOUT)
        assert pane.result is not None and pane.result.interrupted
        assert "cancelled" in screen_text(app)
        assert pane.query_one("#tune-run").disabled is False


async def test_a_file_opened_during_a_run_is_the_next_one_tuned(tmp_path):
    other = tmp_path / "fma.ea"  # no suite beside it
    other.write_bytes((EXAMPLES / "fma.ea").read_bytes())
    app = make_app(suite_copy(tmp_path, passes=list(range(1, 9))), Options())
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot, budget="")
        await pilot.press("x")
        app.open_path(other)
        await compiled(pilot)
        assert pane.running and pane.functions  # the run goes on with reductions.ea
        pane.cancel()
        await until(pilot, lambda: not pane.running, timeout=TUNE_TIMEOUT)
        assert pane.result.kernel.name == "reductions.ea"
        await pilot.press("s")
        assert not pane.running and pane.functions == () and pane.result is None
        assert "Nothing to tune in fma.ea" in screen_text(app)


async def test_no_suite_says_what_is_needed(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("5", "s")
        pane = app.query_one("#tune-pane")
        assert pane.functions == () and not pane.running
        text = screen_text(app)
        assert "Nothing to tune in fma.ea" in text and "fma.bench.toml" in text


async def test_cross_target_and_empty_choices_are_refused(tmp_path):
    app = make_app(suite_copy(tmp_path), Options(target_triple="aarch64-unknown-linux-gnu"))
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_tune(pilot)
        await pilot.press("1", "ctrl+p", *"tune (quick)")  # the palette's command switches to the pane
        await until(pilot, lambda: "Tune (quick)" in screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette))
        assert app.query_one("#panes").active == "tune"
        assert not pane.running and "the target is cross-compiled" in note(pane)
        app.action_set_triple("")
        await compiled(pilot)
        for space in ("params", "transforms"):
            pane.query_one(f"#tune-space-{space}", Checkbox).value = False
        await pilot.press("s")
        assert not pane.running and note(pane) == "Check at least one space to search: params, transforms or agent."
        pane.query_one("#tune-space-params", Checkbox).value = True
        pane.query_one("#tune-budget", Input).value = "lots"
        await pilot.press("s")
        assert not pane.running and note(pane) == "The budget must be a whole number, not 'lots'."
