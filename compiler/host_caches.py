"""The host's data-cache capacities, read from sysfs (Linux): one reader for
the prediction's memory model (compiler/inspect/predict/memory.py) and for
the size from which a kernel's stores stream past the cache
(compiler/codegen/ntauto.py)."""
from __future__ import annotations

import functools
import re
from pathlib import Path

_UNITS = {"": 0, "K": 10, "M": 20, "G": 30}


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
        m = re.fullmatch(r"(\d+)([KMG]?)", text)
        if m:
            sizes[f"L{level}"] = int(m.group(1)) << _UNITS[m.group(2)]
    return sizes
