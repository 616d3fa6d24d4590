"""Why a pointer is unchecked (the text bindings show after "length not
checked"), and element sizes for `ptr_as_*` views."""
from __future__ import annotations

from ...typesys import model as T

DATA = "its index depends on data"
SHAPE = "its index is not a polynomial in the parameters and loop counters"
NEGATIVE = "its index may be negative"
UNBOUNDED = "its index has no bound in the parameters"
VECTOR = "it is indexed by a vector of indices"
ESCAPE = "it is used other than by indexing it or passing it to a function"
REBOUND = "a pointer variable holding it changes"
UNITS = "it is reinterpreted in units that do not divide its elements"
RECURSION = "it is passed to a recursive call"
BUDGET = "the function is too large to analyse"
WRAPS = "its index is computed from a value that may wrap around its integer type"


def size_of(t) -> int | None:
    """Bytes of one element of type `t` (C layout), None when not known here."""
    found = _layout(t)
    return found[0] if found else None


def _layout(t) -> tuple[int, int] | None:
    """(size, alignment)."""
    if isinstance(t, T.Scalar):
        size = max(t.bits // 8, 1)
        return size, size
    if isinstance(t, T.Pointer):
        return 8, 8
    if isinstance(t, T.Struct) and t.fields:
        offset, align = 0, 1
        for field in t.fields.values():
            inner = _layout(field)
            if inner is None:
                return None
            size, a = inner
            offset = -(-offset // a) * a + size
            align = max(align, a)
        return -(-offset // align) * align, align
    return None
