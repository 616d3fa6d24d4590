"""Snapshots of the main screens (pytest-textual-snapshot), at 120x40 with
the CPU fixed to haswell and paths relative to the working directory, so
they do not depend on the host or the checkout's location.
Regenerate with `pytest tests/tui/test_tui_snapshots.py --snapshot-update`."""
from __future__ import annotations

import shutil

import pytest

from tui_support import EXAMPLES, SIZE, compiled, make_app

BAD = "// a type error\nexport func f(a: f32) -> i32 {\n    return a\n}\n"


@pytest.fixture
def in_examples(monkeypatch, tmp_path):
    """A copy of examples/ without what runs leave there (the bench history the Tune and Bench
    panes show, compiled files), so a checkout where `ea bench` has run renders the same."""
    shutil.copytree(EXAMPLES, tmp_path / "examples",
                    ignore=shutil.ignore_patterns(".ea-bench", "__eacache__", "*.so", "*.o", "*.ea.json", "baselines"))
    monkeypatch.chdir(tmp_path)
    return "examples/fma.ea"


def run_before(*keys):
    async def before(pilot):
        await compiled(pilot)
        if keys:
            await pilot.press(*keys)
        await pilot.pause()
    return before


def test_source_screen(snap_compare, in_examples):
    assert snap_compare(make_app(in_examples), terminal_size=SIZE, run_before=run_before("down", "down"))


def test_source_with_diagnostics(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.ea").write_text(BAD)
    assert snap_compare(make_app("bad.ea"), terminal_size=SIZE, run_before=run_before())


def test_assembly_screen(snap_compare, in_examples):
    keys = ("down",) * 8 + ("2",)  # source line 9, the fma
    assert snap_compare(make_app(in_examples), terminal_size=SIZE, run_before=run_before(*keys))


def test_stages_screen(snap_compare, in_examples):
    assert snap_compare(make_app(in_examples), terminal_size=SIZE, run_before=run_before("3", "]", "]"))


def test_help_screen(snap_compare, in_examples):
    assert snap_compare(make_app(in_examples), terminal_size=SIZE, run_before=run_before("question_mark"))


def test_tune_screen(snap_compare, in_examples):
    assert snap_compare(make_app(in_examples), terminal_size=SIZE, run_before=run_before("5"))
