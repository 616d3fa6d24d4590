"""How literal-typed expressions materialise in context (LANGUAGE.md §5.5)."""
from __future__ import annotations

import math
import struct

from llvmlite import ir

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


def float_constant(ty: ir.Type, value: float) -> ir.Constant:
    """A float constant of `ty`. A value beyond an f16's range becomes infinity, as one beyond an
    f32's does (LLVM rounds the double so); llvmlite refuses to pack such a half."""
    if isinstance(ty, ir.HalfType):
        try:
            struct.pack("e", value)
        except OverflowError:
            value = math.copysign(math.inf, value)
    return ir.Constant(ty, value)
