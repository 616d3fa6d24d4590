"""The host's data-cache capacities, read from sysfs (Linux): one reader for
the prediction's memory model (compiler/inspect/predict/memory.py), the sizes
a cycles measurement runs at (compiler/bench/cycle_sizes.py) and the size
from which a kernel's stores stream past the cache (compiler/codegen/ntauto.py)."""
from __future__ import annotations

import functools
from pathlib import Path

from .units import parse_bytes


@functools.cache
def host_cache_sizes() -> dict[str, int]:
    """{"L1": bytes, "L2": ..., "L3": ...} for the levels sysfs lists (data or unified caches)."""
    sizes: dict[str, int] = {}
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in sorted(base.glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == "Instruction" or level not in (1, 2, 3):
            continue
        size = parse_bytes(text)
        if size:
            sizes[f"L{level}"] = size
    return sizes
