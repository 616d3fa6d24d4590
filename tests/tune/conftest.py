"""A small kernel with a bench suite in a temporary folder: the tuner measures for real, so the
sizes are small and the measurements quick."""
from __future__ import annotations

from pathlib import Path

import pytest

from .tune_support import ONE_ACC, SUITE


@pytest.fixture
def project(tmp_path: Path):
    """(kernel path, suite path) of ONE_ACC."""
    kernel = tmp_path / "mx.ea"
    kernel.write_text(ONE_ACC)
    suite = tmp_path / "mx.bench.toml"
    suite.write_text(SUITE)
    return kernel, suite
