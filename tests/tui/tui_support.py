"""Helpers for the ea-tui Pilot tests."""
from __future__ import annotations

from pathlib import Path

from ea_compiler import Options
from ea_tui.app import EaApp
from ea_tui.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HASWELL = Options(target_cpu="haswell", stream_threshold=0)  # the code as written: no streaming copy of the main loop (codegen/ntauto.py)
SIZE = (120, 40)


def make_app(path: Path | str, options: Options = HASWELL, poll: float = 0.1) -> EaApp:
    return EaApp(Workspace.open(path), options, poll=poll)


async def compiled(pilot, timeout: float = 20.0) -> None:
    """Wait until the latest compile request has been applied."""
    app = pilot.app
    waited = 0.0
    while (app.compiling or (app.stages is None and app.problem is None)) and waited < timeout:
        await pilot.pause(0.05)
        waited += 0.05
    assert not app.compiling, "the compile worker did not finish"
    await pilot.pause()


async def until(pilot, condition, timeout: float = 10.0) -> None:
    waited = 0.0
    while not condition() and waited < timeout:
        await pilot.pause(0.05)
        waited += 0.05
    assert condition(), "condition not reached in time"


def screen_text(app) -> str:
    """The current screen as plain text, one line per terminal row."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for s in line).rstrip() for line in update.strips)


def row_texts(view) -> list[str]:
    return [r.text for r in view.rows]
