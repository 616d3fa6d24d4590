"""Horizontal reductions."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic

FAMILY = "reduction"


def _reduce(name: str, float_only: bool = False):
    def rule(c) -> T.Type:
        t = c.only_arg()
        if t.is_error:
            return T.ERROR
        if not isinstance(t, T.Vector):
            return c.fail(f"{name} expects vector argument, got {t}", c.arg_span(0))
        if float_only and not t.elem.is_float:
            return c.fail(f"{name} expects a float vector, got {t}. "
                          "Integer reduce_add is already unordered \u2014 use reduce_add instead",
                          c.arg_span(0))
        return t.elem
    return rule


INTRINSICS = [
    Intrinsic("reduce_add", ("v",), ("(TxN) -> T",),
              "Sum of the lanes (floats: strictly ordered ((0 + v0) + v1) + ...).",
              _reduce("reduce_add"), FAMILY, "CORE (v0.1)", aka=("reduce_sum", "hsum", "horizontal_add")),
    Intrinsic("reduce_max", ("v",), ("(TxN) -> T",), "Largest lane (unsigned lanes compare unsigned).",
              _reduce("reduce_max"), FAMILY, "CORE (v0.1)", aka=("hmax", "horizontal_max")),
    Intrinsic("reduce_min", ("v",), ("(TxN) -> T",), "Smallest lane (unsigned lanes compare unsigned).",
              _reduce("reduce_min"), FAMILY, "CORE (v0.1)", aka=("hmin", "horizontal_min")),
    Intrinsic("reduce_add_fast", ("v",), ("(FV) -> elem",), "Float sum of the lanes in unspecified (tree) order.",
              _reduce("reduce_add_fast", float_only=True), FAMILY, "v1.8"),
]
