"""Prefetch hints."""
from __future__ import annotations

from ..typesys import model as T
from .memory import check_index
from .table import Intrinsic

FAMILY = "prefetch"


def _prefetch(name: str):
    def rule(c) -> T.Type:
        if c.nargs != 2:
            c.args()
            return c.fail(f"{name} expects 2 arguments: (ptr, offset)", code="intrinsic-arity")
        p = c.arg(0)
        if p.is_error:
            return T.ERROR
        if not isinstance(p, T.Pointer):
            return c.fail(f"{name} expects a pointer, got {p}", c.arg_span(0))
        check_index(c, 1, name)
        return T.VOID
    return rule


INTRINSICS = [
    Intrinsic("prefetch", ("ptr", "offset"), ("(*T, int) -> void",),
              "Read hint for &ptr[offset], kept in all cache levels.", _prefetch("prefetch"), FAMILY,
              "CORE (v0.6)"),
]
