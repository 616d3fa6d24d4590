"""Sizes written with binary units (`16M`, `512K`, `4096`): one reader for the
command line (`--stream-threshold`), bench suites (`sizes = ["64K"]`) and sysfs
(`/sys/.../cache/index*/size`)."""
from __future__ import annotations

import re

_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)\s*$", re.IGNORECASE)
_SHIFT = {"": 0, "K": 10, "M": 20, "G": 30}


def parse_bytes(text: str) -> int | None:
    """`16M` -> 16777216, `512k`, `4096`, `0`; None when `text` is not such a size."""
    m = _SIZE.match(text)
    return int(m.group(1)) << _SHIFT[m.group(2).upper()] if m else None
