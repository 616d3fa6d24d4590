"""How literal-typed expressions materialise in context (LANGUAGE.md §5.5)."""
from __future__ import annotations

from ..typesys import model as T


def materialised(t: T.Type, want: T.Type | None) -> T.Type:
    """The concrete type an expression of checked type `t` takes where the
    context wants `want`: an unconstrained integer literal is i32, a float
    literal f64."""
    if t is T.INT_LIT:
        if isinstance(want, T.Scalar) and want.is_integer:
            return want
        if isinstance(want, T.Vector) and want.elem.is_integer:
            return want.elem
        return T.I32
    if t is T.FLOAT_LIT:
        if isinstance(want, T.Scalar) and want.is_float:
            return want
        if isinstance(want, T.Vector) and want.elem.is_float:
            return want.elem
        return T.F64
    return t
