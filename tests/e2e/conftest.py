"""Fixtures shared by the end-to-end tests."""
from __future__ import annotations

import pytest

from .aarch64_harness import probe_features


@pytest.fixture(scope="module")
def qemu_features(tmp_path_factory) -> dict[str, bool]:
    """The AArch64 extensions qemu-aarch64 -cpu max emulates."""
    return probe_features(tmp_path_factory.mktemp("probe"))
