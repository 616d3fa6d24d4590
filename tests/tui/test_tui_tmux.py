"""A real-terminal smoke test: the installed ea-tui command in tmux at
120x40, switched to the Assembly pane, quit with q, exit status 0 and no
traceback on the terminal afterwards."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tui_support import ROOT

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def ea_tui_command() -> list[str]:
    script = Path(sys.executable).with_name("ea-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ea_tui"]


class Tmux:
    def __init__(self) -> None:
        self.socket = f"ea-tui-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True,
                              timeout=20).stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "ea")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")


def test_ea_tui_in_a_real_terminal():
    tmux = Tmux()
    app = shlex.join([*ea_tui_command(), "examples/fma.ea", "--target", "haswell"])
    # COLUMNS and LINES (set by some test runners) would override the terminal size tmux gives.
    shell = f"cd {shlex.quote(str(ROOT))} && unset COLUMNS LINES && EA_DEBUG=1 {app}; echo EA_TUI_EXIT=$?; sleep 60"
    try:
        tmux("-f", os.devnull, "new-session", "-d", "-s", "ea", "-x", "120", "-y", "40", shell)
        screen = tmux.wait_for("export kernel fma_kernel")
        assert "haswell" in screen and "1 Source" in screen
        tmux("send-keys", "-t", "ea", "2")
        screen = tmux.wait_for("vfmadd213ps")  # the pane opens at the main loop
        assert "bottleneck" in screen
        tmux("send-keys", "-t", "ea", "3")
        tmux.wait_for("Desugared AST")
        tmux("send-keys", "-t", "ea", "q")
        screen = tmux.wait_for("EA_TUI_EXIT=")
        assert "EA_TUI_EXIT=0" in screen, screen
        assert "Traceback" not in screen and "Error" not in screen, screen
    finally:
        tmux("kill-server")
