"""Keys 4 and 5 open the Bench and Tune panes whatever the file's diagnostics
(a warning, an error: with an error they open and say the file must compile
before a run); the bench progress bar keeps a gap before its text; the
attempts table cuts its last column instead of growing a scrollbar."""
from __future__ import annotations

import re
import shutil

from textual.widgets import DataTable, TabbedContent

from tui_support import EXAMPLES, SIZE, compiled, make_app, screen_text

from ea_compiler.tooling import Attempt
from ea_tui.tune_format import attempt_cells

WARNED = """\
export kernel vscale(data: *f32, out: *mut f32, factor: f32)
    over i in n step 8
    tail scalar { out[i] = data[i] * factor }
{
    store(out, i, load(data, i) .* splat(factor))
}
"""
BROKEN = "\nfunc broken() -> i32 {\n    return 1.5\n}\n"


async def _press(pilot, key: str) -> str:
    await pilot.press(key)
    await pilot.pause(0.2)
    return pilot.app.query_one("#panes", TabbedContent).active


async def test_keys_4_and_5_open_their_panes_when_the_file_has_a_warning(tmp_path):
    path = tmp_path / "vscale.ea"
    path.write_text(WARNED)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        assert [d.severity for d in app.stages.analysis.diagnostics] == ["warning"]
        assert await _press(pilot, "4") == "bench"
        assert "No benchmark suite for vscale.ea" in screen_text(app)
        assert await _press(pilot, "1") == "source"
        assert await _press(pilot, "5") == "tune"
        assert "Nothing to tune in vscale.ea" in screen_text(app)


async def test_with_an_error_the_panes_open_and_say_why_nothing_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # short paths on screen
    shutil.copy(EXAMPLES / "saxpy.bench.toml", tmp_path)
    (tmp_path / "saxpy.ea").write_text((EXAMPLES / "saxpy.ea").read_text() + BROKEN)
    app = make_app("saxpy.ea")
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        assert len(app.stages.analysis.errors) == 1
        assert await _press(pilot, "4") == "bench"
        assert "saxpy.ea has 1 error (Source pane, 1): it can be benchmarked once it compiles." in screen_text(app)
        assert await _press(pilot, "5") == "tune"
        assert "saxpy.ea has 1 error (Source pane, 1): it can be tuned once it compiles." in screen_text(app)


async def test_the_progress_bar_keeps_a_gap_before_its_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "saxpy.bench.toml", tmp_path)
    shutil.copy(EXAMPLES / "saxpy.ea", tmp_path)
    app = make_app("saxpy.ea")
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await _press(pilot, "4")
        row = next(line for line in screen_text(app).splitlines() if "press b to run" in line)
        assert re.search(r"━\s+\d+%\s+\S", row), row  # bar, percentage, then the text, apart
        assert not re.search(r"[━╸╺][^\s━╸╺]", row), row  # "━━━━done: 2 results" was the defect


async def test_the_attempts_table_has_no_scrollbar_stubs():
    app = make_app(EXAMPLES / "fma.ea")
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await _press(pilot, "5")
        table = app.query_one("#tune-pane").query_one(DataTable)
        long = "unroll(x4) + prefetch(distance=256) on the main loop " * 2
        for i in range(3):
            table.add_row(*attempt_cells(Attempt(i + 1, long, "slower", "slower than the best at every size " * 3,
                                                 score_us=12.5)))
        await pilot.pause(0.2)
        assert table.virtual_size.width > table.size.width  # the rows are wider than the table
        assert not table.show_horizontal_scrollbar  # its partial blocks were the stray ▍/▏
