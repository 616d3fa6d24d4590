"""Arrays that end at an inaccessible page: a variant that reads or writes
past the end of one faults at once, instead of reading whatever lies there
and passing verification by luck (or corrupting memory unseen). Used for the
edge lengths, whose arrays are small."""
from __future__ import annotations

import ctypes
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
_PROT_NONE = 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


class _Guarded:
    """A mapping whose last page is inaccessible (the array viewing it keeps it alive)."""

    def __init__(self, nbytes: int):
        pages = -(-nbytes // PAGE) + 1
        self.map = mmap.mmap(-1, pages * PAGE)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        if _libc.mprotect(self.base + (pages - 1) * PAGE, PAGE, _PROT_NONE) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed")
        self.end = (pages - 1) * PAGE


def guarded(a: np.ndarray) -> np.ndarray:
    """A copy of `a` whose last byte is the last accessible byte of its page."""
    if not isinstance(a, np.ndarray) or a.dtype.hasobject:
        return a
    g = _Guarded(a.nbytes)
    view = np.frombuffer(g.map, np.uint8, a.nbytes, g.end - a.nbytes).view(a.dtype).reshape(a.shape)
    view[...] = a
    return view



def guarded_at(nbytes: int, offset: int, align: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """`nbytes` bytes starting `offset` bytes past an `align`-byte boundary and
    ending less than `align` bytes before an inaccessible page, and the whole
    accessible mapping (both uint8): a write past the end faults, or lands in
    the few bytes before the guard, which the caller can check with the rest."""
    g = _Guarded(nbytes + 2 * align)
    start = g.end - nbytes
    start -= (start - offset) % align
    whole = np.frombuffer(g.map, np.uint8, g.end)
    return whole[start:start + nbytes], whole
