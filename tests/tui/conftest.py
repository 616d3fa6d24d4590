"""Shared set-up of the ea-tui tests: a fixed CPU (haswell) so assembly does
not depend on the host, EA_DEBUG so internal errors surface, and helpers to
start the app and wait for its compile worker."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_support import EXAMPLES  # noqa: E402


@pytest.fixture(autouse=True)
def ea_debug(monkeypatch):
    """Internal compiler errors raise instead of becoming diagnostics."""
    monkeypatch.setenv("EA_DEBUG", "1")


@pytest.fixture
def fma_copy(tmp_path: Path) -> Path:
    """examples/fma.ea copied to a temporary folder (tests may rewrite it)."""
    path = tmp_path / "fma.ea"
    path.write_bytes((EXAMPLES / "fma.ea").read_bytes())
    return path
