"""The core's state around a calibration or a cycle measurement
(compiler/bench/core_state.py): exact notes and decisions from given probe
figures, so nothing here depends on the host's state."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from ea_compiler.bench.core_state import (STEADY, calibration_verdict, drift_note, is_shared,
                                          wait_until_alone)
from ea_compiler.bench.cycle_report import CycleReport, table_lines
from ea_compiler.inspect.predict.memory import DEFAULT


class Probes:
    """A probe that returns the given figures in turn."""

    def __init__(self, figures):
        self.figures = list(figures)
        self.calls = 0

    def cycles(self, seconds=0.3, cancel=None):
        self.calls += 1
        return self.figures.pop(0)


def test_shared_is_above_one_and_a_half_cycles_per_fetch():
    assert not is_shared(None) and not is_shared(1.07) and not is_shared(1.5)
    assert is_shared(1.52) and is_shared(2.09)


def test_drift_note_agreeing_probes_or_none_give_no_note():
    assert drift_note([1.07, 1.12], 1.07) is None
    assert drift_note([None, None], 1.07) is None
    assert drift_note([1.0 * (1 + STEADY)], 1.0) is None
    assert drift_note([2.0], None) is None


def test_drift_note_slower_than_the_calibration():
    assert drift_note([1.07, 2.09], 1.07) == (
        "op-cache fetch 1.07/2.09 cycles during the measurement, 1.07 in the calibration: the core was "
        "likely shared with a busy hardware thread, so the measured cycles can be up to twice the quiet machine's")


def test_drift_note_faster_than_the_calibration():
    assert drift_note([1.05, None], 1.93) == (
        "op-cache fetch 1.05 cycles during the measurement, 1.93 in the calibration: the calibration was "
        "likely taken while the core was shared: run `ea bench --calibrate` again")


def test_wait_until_alone_probes_until_the_core_is_alone():
    told, slept = [], []
    probe = Probes([2.1, 2.0, 1.05, 9.9])
    assert wait_until_alone(probe, told.append, seconds=60, sleep=slept.append) == 1.05
    assert probe.calls == 3 and slept == [1.0, 1.0]
    assert told == ["the core is shared with a busy hardware thread (op-cache fetch 2.10 cycles; about 1.0 "
                    "when the core is not shared): waiting up to 60 s for it to clear"]


def test_wait_until_alone_gives_up_after_its_time():
    told = []
    probe = Probes([2.1, 2.2])
    assert wait_until_alone(probe, told.append, seconds=0, sleep=lambda s: None) == 2.1
    assert probe.calls == 1 and len(told) == 1


def test_wait_until_alone_says_nothing_on_a_quiet_core_or_without_a_rule():
    told = []
    assert wait_until_alone(Probes([1.07]), told.append) == 1.07
    assert wait_until_alone(Probes([None]), told.append) is None
    assert told == []


def test_a_shared_calibration_keeps_a_quiet_one():
    quiet = dataclasses.replace(DEFAULT, fetch_cycles=1.07, source="calibrated on AMD EPYC 2026-11-27")
    save, text = calibration_verdict([1.08, 1.93], quiet, Path("/c/calibration.json"))
    assert not save
    assert text == ("not saved: the core was shared with a busy hardware thread (op-cache fetch 1.93 cycles; "
                    "about 1.0 when the core is not shared), so these figures are not the machine's own; kept "
                    "/c/calibration.json (calibrated on AMD EPYC 2026-11-27). Run again when the machine is idle, "
                    "or delete that file to keep a calibration taken in this state.")


def test_a_shared_calibration_without_a_quiet_one_is_saved_with_a_warning():
    shared = dataclasses.replace(DEFAULT, fetch_cycles=2.2)
    for previous in (None, shared):
        save, text = calibration_verdict([2.05, None], previous, Path("/c/calibration.json"))
        assert save and text.startswith("warning: the core was shared with a busy hardware thread "
                                        "(op-cache fetch 2.05 cycles;")


def test_a_quiet_calibration_is_saved_silently():
    assert calibration_verdict([1.07, 1.1], None, Path("/c")) == (True, None)
    assert calibration_verdict([None, None], None, Path("/c")) == (True, None)


def test_the_table_and_the_document_carry_the_note():
    from ea_compiler.bench import load_suite
    from ea_compiler.options import Options
    suite = load_suite(Path(__file__).resolve().parents[2] / "examples" / "fma.bench.toml")
    report = CycleReport(suite, Options(), 3.0, "test", "0",
                         notes=["op-cache fetch 2.09 cycles during the measurement"], fetch_probes=[1.07, 2.09])
    assert table_lines(report)[-1] == "note: op-cache fetch 2.09 cycles during the measurement"
    doc = report.document()
    assert doc["notes"] == ["op-cache fetch 2.09 cycles during the measurement"]
    assert doc["fetch_probes"] == [1.07, 2.09]
