"""The TUI's bench history headlines: newest first, one per bench, quick runs marked."""
from __future__ import annotations

from ea_tui.bench_format import history_lines


def test_history_marks_quick_runs():
    full = {"timestamp": "2026-11-24T10:00:00", "env": {"quick": False},
            "measurements": [{"kernel": "fma[16K]", "gbps": 5.0}, {"kernel": "fma[16M]", "gbps": 20.5}]}
    quick = {"timestamp": "2026-11-24T11:00:00", "env": {"quick": True},
             "measurements": [{"kernel": "fma[16M]", "gbps": 12.0}]}
    old = {"timestamp": "2026-11-23T09:00:00", "measurements": [{"kernel": "fma[16M]", "status": "wrong"}]}
    assert history_lines([old, full, quick]) == [
        "2026-11-24 11:00 (quick)  fma[16M] 12.0 GB/s",
        "2026-11-24 10:00  fma[16M] 20.5 GB/s",
        "2026-11-23 09:00  fma[16M] wrong",
    ]
