"""Gather and scatter."""
from __future__ import annotations

from ..typesys import model as T
from .memory import check_writable, pointee_scalar
from .table import Intrinsic, Memory, check_arity

FAMILY = "gather/scatter"


def _indices(c, i: int, name: str) -> T.Type:
    t = c.arg(i)
    if t.is_error:
        return T.ERROR
    if not (isinstance(t, T.Vector) and t.elem is T.I32):
        return c.fail(f"{name} indices must be i32 vector, got {t}", c.arg_span(i))
    return t


def _gather(c) -> T.Type:
    if not check_arity(c, "gather", 2, " (ptr, indices)"):
        return T.ERROR
    elem = pointee_scalar(c, 0, "gather")
    idx = _indices(c, 1, "gather")
    if elem.is_error or idx.is_error:
        return T.ERROR
    return T.vector(elem, idx.lanes)


def _scatter(c) -> T.Type:
    if not check_arity(c, "scatter", 3, " (ptr, indices, vector)"):
        return T.ERROR
    p = c.arg(0)
    elem = pointee_scalar(c, 0, "scatter")
    idx = _indices(c, 1, "scatter")
    v = c.arg(2)
    if elem.is_error or idx.is_error or v.is_error:
        return T.ERROR
    if not p.mutable:
        check_writable(c, p, elem)
        return T.ERROR
    if not isinstance(v, T.Vector) or v.lanes != idx.lanes:
        return c.fail(f"scatter expects a vector of {idx.lanes} lanes to match the indices, got {v}",
                      c.arg_span(2))
    return T.VOID if check_writable(c, p, v.elem) else T.ERROR


def _gather_target(c, result):
    if c.options.is_arm:
        return ("gather has no NEON equivalent on ARM. Use scalar load + f32x4_from_scalars "
                "(or f32x8_from_scalars) to compose the result explicitly.")
    return None


def _scatter_target(c, result):
    if c.options.is_arm:
        return "scatter has no NEON equivalent; use a scalar loop on ARM"
    if not c.options.avx512:
        return ("scatter requires AVX-512 for hardware support; compile with --avx512 "
                "or write a scalar loop explicitly")
    return None


INTRINSICS = [
    Intrinsic("gather", ("ptr", "indices"), ("(*T, i32xN) -> TxN",),
              "r[k] = ptr[indices[k]] (x86 vgather).", _gather, FAMILY, "CORE (v1.0)", _gather_target,
              memory=Memory("indices", index=1)),
    Intrinsic("scatter", ("ptr", "indices", "vector"), ("(*mut T, i32xN, TxN) -> void",),
              "ptr[indices[k]] = vector[k] (x86 with --avx512).", _scatter, FAMILY, "CORE (v1.0)",
              _scatter_target, memory=Memory("indices", index=1)),
]
