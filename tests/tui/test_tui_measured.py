"""The TUI shows the main loop's predicted vs measured cycles per iteration
from the last recorded cycle run: in the Assembly pane's summary and in the
Bench pane's side panel (it reads the suite's history; nothing is run)."""
from __future__ import annotations

from tui_support import SIZE, compiled, make_app, screen_text

from ea_compiler.bench import append_history, load_suite
from ea_compiler.bench.cycle_report import CycleReport, source_hash
from ea_compiler.bench.cycles import CycleMeasurement
from ea_compiler.options import Options

SRC = """export func dot(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        acc = fma(load_f32x8(a, i), load_f32x8(b, i), acc)
        i = i + 8
    }
    return reduce_add(acc)
}
"""
SUITE = """[[bench]]
function = "dot"
sizes = ["4K"]
bytes_per_element = 8
reference = "np.dot(a, b)"
[bench.args]
a = { dtype = "float32" }
b = { dtype = "float32" }
"""
PAIR = "L1 ≈2.1 c/iter predicted · 2.3 measured · load ports"


def benched(tmp_path):
    (tmp_path / "k.ea").write_text(SRC)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    suite = load_suite(tmp_path / "k.bench.toml")
    row = CycleMeasurement("dot", "L1", 3072, 24576, 8, 2.3, 3.0, "slope", 2.1, "load ports", "model")
    append_history(suite, CycleReport(suite, Options(), 3.0, "test", source_hash(SRC.encode()), [row]).document())
    return tmp_path / "k.ea"


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
