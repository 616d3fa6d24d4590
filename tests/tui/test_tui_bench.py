"""Bench pane: a quick run of a tiny suite, a wrong kernel, no suite, cross target."""
from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from tui_support import EXAMPLES, SIZE, compiled, make_app, screen_text, until

from ea_compiler import Options

FMA = (EXAMPLES / "fma.ea").read_text()
WRONG = FMA.replace("fma(a[i], b[i], c[i])", "a[i] * b[i] - c[i]").replace("fma(va, vb, vc)", "va .* vb .- vc")
# The shipped suite, at sizes that keep a quick run short.
SUITE = (EXAMPLES / "fma.bench.toml").read_text().replace('sizes = ["16K", "256K", "4M", "16M"]',
                                                         'sizes = ["4K", "64K"]')


def suite_dir(tmp_path: Path, kernel: str) -> Path:
    (tmp_path / "k.ea").write_text(kernel)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    return tmp_path / "k.ea"


def table_rows(app) -> list[list[str]]:
    table = app.query_one("#bench-results", DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def run_quick(pilot) -> None:
    """Press x in the Bench pane and wait for the run's report."""
    pane = pilot.app.query_one("#bench-pane")
    before = pane.report
    await pilot.press("4", "x")
    await until(pilot, lambda: not pane.running and pane.report is not before, timeout=60)


async def test_quick_run_fills_table_chart_and_history(tmp_path):
    app = make_app(suite_dir(tmp_path, FMA), Options())  # benchmarks run natively
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await run_quick(pilot)
        rows = table_rows(app)
        assert [r[:2] for r in rows] == [["fma", "4K"], ["fma", "64K"]]
        # GFLOP/s and % of the FMA peak beside GB/s: "-" for a suite that does not count flops.
        assert all(r[2] != "-" and r[4] != "-" and r[6] == r[7] == "-" and r[8].endswith("×") for r in rows)
        assert rows[0][9] == "memory-bound"
        chart = app.query_one("#bench-chart")
        assert set(chart.series) == {"fma"} and chart.bandwidth
        assert "memory bandwidth" in screen_text(app) and "16K" not in chart.series
        assert "fma[64K]" in screen_text(app)  # the run is in the history now
        # a second run shows the change against the first
        await run_quick(pilot)
        assert all(r[10].endswith("%") for r in table_rows(app))


async def test_wrong_kernel_is_shown_wrong_not_timed(tmp_path):
    app = make_app(suite_dir(tmp_path, WRONG), Options())
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        app.query_one("#bench-bandwidth").value = False
        await run_quick(pilot)
        rows = table_rows(app)
        assert rows and all(r[2] == "wrong" and r[3] == "-" and r[11] for r in rows)


async def test_cancel_stops_the_run(tmp_path):
    app = make_app(suite_dir(tmp_path, FMA), Options())
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        pane = app.query_one("#bench-pane")
        await pilot.press("4", "b", "c")
        await until(pilot, lambda: not pane.running, timeout=60)
        assert "cancelled" in screen_text(app)


async def test_no_suite_says_how_to_make_one(fma_copy):
    app = make_app(fma_copy)
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("4")
        text = screen_text(app)
        assert "No benchmark suite for fma.ea" in text and "fma.bench.toml" in text
        assert 'function = "fma_kernel"' in text


async def test_cross_target_cannot_run(tmp_path):
    app = make_app(suite_dir(tmp_path, FMA), Options(target_triple="aarch64-unknown-linux-gnu"))
    async with app.run_test(size=SIZE) as pilot:
        await compiled(pilot)
        await pilot.press("4", "b")
        assert not app.query_one("#bench-pane").running
        assert "cross-compiled" in screen_text(app)
