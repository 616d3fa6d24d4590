"""bench/predict_bench.py --passes: each row's fastest and median pass, per suite, function,
size class and alignment (the time other tenants take only adds to a measurement)."""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from predict_bench import over_passes, summary  # noqa: E402


def row(function, cls, align, measured, number, predicted=2.0):
    return {"suite": "s", "function": function, "size_class": cls, "alignment": align, "pass": number,
            "cycles_per_iter": measured, "predicted": predicted,
            "error_pct": None if measured is None else (predicted - measured) / measured * 100}


def test_each_row_keeps_its_fastest_or_median_pass():
    rows = [row("f", "L1", 64, m, k) for k, m in enumerate([4.0, 2.0, 2.2])]
    rows += [row("f", "L1", 16, m, k) for k, m in enumerate([3.0, 3.3, 9.0])]
    rows += [row("g", "DRAM", 64, None, 0)]  # not measured: left out
    fastest = over_passes(rows, min)
    assert sorted((r["alignment"], r["pass"], r["cycles_per_iter"]) for r in fastest) == [(16, 0, 3.0), (64, 1, 2.0)]
    median = over_passes(rows, statistics.median_low)
    assert sorted((r["alignment"], r["cycles_per_iter"]) for r in median) == [(16, 3.3), (64, 2.2)]
    assert summary(fastest)["L1@64"]["mape"] == 0.0
