"""Cycles per main-loop iteration: the arithmetic from time (pure), the
sizes chosen by working set, and the latest measurement read back for the
editor (compiler/inspect/measured.py), from a history written the way a
cycle run writes it."""
from __future__ import annotations

import pytest

from ea_compiler.bench import append_history, load_suite
from ea_compiler.bench.cycle_report import CycleReport, source_hash
from ea_compiler.bench.cycle_sizes import choose, working_set
from ea_compiler.bench.cycles import CycleMeasurement, error_pct, mape, per_call, slope
from ea_compiler.inspect.measured import latest_measured, pair_label, pair_markdown
from ea_compiler.options import Options
from measured_support import DOT, SUITE

def test_per_call_is_time_times_clock_over_iterations():
    # 1 ms at 3 GHz = 3e6 cycles over 1M elements / 8 per iteration = 125000 iterations: 24 c/iter
    assert per_call(1e6, 3.0, 1 << 20, 8) == pytest.approx(3e6 / 131072)
    assert per_call(800.0, 2.5, 800, 8) == pytest.approx(20.0)


def test_slope_cancels_the_fixed_cost_of_a_call():
    fixed, cpi, ghz, epi = 250.0, 2.0, 4.0, 32  # ns of call overhead, cycles per iteration
    def t(elements):
        return fixed + elements / epi * cpi / ghz
    assert slope((512, t(512)), (3072, t(3072)), ghz, epi) == pytest.approx(cpi)
    with pytest.raises(ValueError):
        slope((512, 1.0), (512, 2.0), ghz, epi)
    with pytest.raises(ValueError):
        per_call(1.0, 1.0, 100, 0)


def test_error_and_mape():
    assert error_pct(2.2, 2.0) == pytest.approx(10.0)
    assert error_pct(1.8, 2.0) == pytest.approx(-10.0)
    assert error_pct(None, 2.0) is None and error_pct(1.0, 0.0) is None
    assert mape([(2.2, 2.0), (1.5, 2.0), (None, 3.0)]) == pytest.approx(17.5)
    assert mape([]) is None


def _suite(tmp_path):
    (tmp_path / "k.ea").write_text(DOT)
    (tmp_path / "k.bench.toml").write_text(SUITE)
    return load_suite(tmp_path / "k.bench.toml")


def test_sizes_follow_the_working_set(tmp_path):
    spec = _suite(tmp_path).benches[0]
    assert working_set(spec, 1024) == 8 * 1024
    sizes = choose(spec, 8)
    small, large = sizes["L1"]
    assert small < large and small % 8 == 0 and large % 8 == 0
    assert working_set(spec, large) <= 32 << 20 and working_set(spec, sizes["DRAM"][0]) >= 4 * working_set(spec, large)


def _row(size_class, n, predicted, measured, limit):
    return CycleMeasurement("dot", size_class, n, 8 * n, 8, measured, 3.0, "slope", predicted, limit, "model")


def test_the_latest_run_is_read_back_and_marked_stale_after_an_edit(tmp_path):
    suite = _suite(tmp_path)
    assert latest_measured(tmp_path / "k.ea", "dot") == []
    old = CycleReport(suite, Options(), 3.0, "test", source_hash(DOT.encode()),
                      [_row("L1", 3072, 9.0, 9.0, "latency")])
    append_history(suite, old.document())
    new = CycleReport(suite, Options(), 3.0, "test", source_hash(DOT.encode()),
                      [_row("L1", 3072, 2.1, 2.3, "load ports"), _row("DRAM", 1 << 24, 40.0, 44.0, "DRAM bandwidth")])
    append_history(suite, new.document())
    with open(suite.history, "a") as fh:
        fh.write("not json\n")
    pairs = latest_measured(tmp_path / "k.ea", "dot", DOT)
    assert [(p.size_class, p.predicted, p.measured, p.stale) for p in pairs] == [
        ("L1", 2.1, 2.3, False), ("DRAM", 40.0, 44.0, False)]
    assert pair_label(pairs) == ("L1 ≈2.1 c/iter predicted · 2.3 measured · load ports | "
                                 "DRAM ≈40.0 c/iter predicted · 44.0 measured · DRAM bandwidth")
    text = pair_markdown(pairs)
    assert "- L1 (n=3072): ≈2.1 c/iter predicted · 2.3 measured · load ports (-9%)" in text
    edited = latest_measured(tmp_path / "k.ea", "dot", DOT + "\n")
    assert all(p.stale for p in edited) and pair_label(edited).endswith("(older code)")
    assert latest_measured(tmp_path / "k.ea", "other", DOT) == []


def test_a_run_note_reaches_the_hover(tmp_path):
    suite = _suite(tmp_path)
    note = "op-cache fetch 1.07/2.09 cycles during the measurement, 1.07 in the calibration: ..."
    run = CycleReport(suite, Options(), 3.0, "test", source_hash(DOT.encode()),
                      [_row("L1", 3072, 2.1, 2.3, "load ports")], notes=[note])
    append_history(suite, run.document())
    pairs = latest_measured(tmp_path / "k.ea", "dot", DOT)
    assert pairs[0].run_notes == (note,)
    assert pair_markdown(pairs).endswith("(-9%)\n\nNote: " + note)
