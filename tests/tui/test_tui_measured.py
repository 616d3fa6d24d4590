"""The TUI shows the main loop's predicted vs measured cycles per iteration
from the last recorded cycle run: in the Assembly pane's summary and in the
Bench pane's side panel (it reads the suite's history; nothing is run)."""
from __future__ import annotations

from tui_support import SIZE, compiled, make_app, screen_text

from measured_support import DOT as SRC
from measured_support import PAIR, benched


async def test_assembly_and_bench_panes_show_the_pair(tmp_path):
    app = make_app(benched(tmp_path))
    async with app.run_test(size=(200, 50)) as pilot:
        await compiled(pilot)
        await pilot.press("2")
        assert f"main loop {PAIR}" in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        panel = str(app.query_one("#bench-history").render())  # its lines wrap on the screen
        assert panel.splitlines()[0] == f"dot main loop: {PAIR}"
        assert panel.splitlines()[1].endswith("  dot L1 2.3 c/iter")  # the run in the list of earlier runs


async def test_no_pair_before_a_run(tmp_path):
    (tmp_path / "k.ea").write_text(SRC)
    app = make_app(tmp_path / "k.ea")
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("2")
        assert "c/iter" not in screen_text(app)
