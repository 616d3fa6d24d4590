"""Masked memory: load_masked, store_masked."""
from __future__ import annotations

from ..typesys import model as T
from .memory import check_index, check_writable, pointee_scalar
from .table import Intrinsic, Memory, check_arity

FAMILY = "masked memory"


def _load_masked(c) -> T.Type:
    if not check_arity(c, "load_masked", 3, " (ptr, index, count)"):
        return T.ERROR
    elem = pointee_scalar(c, 0, "load_masked")
    ok = check_index(c, 1, "load_masked")
    count = c.arg(2)
    if not (count.is_error or T.is_int(count)):
        return c.fail(f"load_masked count must be integer, got {count}", c.arg_span(2))
    if elem.is_error or not ok:
        return T.ERROR
    return T.vector(elem, c.context_lanes())


def _store_masked(c) -> T.Type:
    if not check_arity(c, "store_masked", 4, " (ptr, index, vector, count)"):
        return T.ERROR
    p, _, v, count = c.args()
    if p.is_error or v.is_error or count.is_error or not check_index(c, 1, "store_masked"):
        return T.ERROR
    if not isinstance(p, T.Pointer) or not isinstance(v, T.Vector):
        return c.fail(f"store_masked expects (mut ptr, index, vector, count), got ({p}, {c.arg(1)}, {v}, {count})")
    if not check_writable(c, p, v.elem):
        return T.ERROR
    if not T.is_int(count):
        return c.fail(f"store_masked count must be integer, got {count}", c.arg_span(3))
    return T.VOID


INTRINSICS = [
    Intrinsic("load_masked", ("ptr", "index", "count"), ("(*T, int, int) -> TxN",),
              "Load lanes k < count from ptr[index+k]; other lanes are 0 and never touch memory.",
              _load_masked, FAMILY, "CORE (v1.0)", memory=Memory("touch", index=1, count=2)),
    Intrinsic("store_masked", ("ptr", "index", "vector", "count"), ("(*mut T, int, TxN, int) -> void",),
              "Store only lanes k < count to ptr[index+k].", _store_masked, FAMILY, "CORE (v1.0)",
              memory=Memory("touch", index=1, lanes=2, count=3)),
]
