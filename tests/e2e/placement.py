"""Arrays at a chosen place in a cache line, as the streaming-store tests need them."""
from __future__ import annotations

import numpy as np


def view_at(buf: np.ndarray, offset: int, n: int) -> np.ndarray:
    """`n` elements of `buf` starting `offset` bytes past a 64-byte line (buf has 64 bytes to spare)."""
    start = (offset - buf.ctypes.data) % 64 // buf.itemsize
    return buf[start:start + n]
