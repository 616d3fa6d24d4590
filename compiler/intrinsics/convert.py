"""Conversions, widening and narrowing."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic, declare_fixed

FAMILY = "conversion"


def _to(name: str, target: T.Scalar, vector_from_i32: bool = False):
    def rule(c) -> T.Type:
        if c.nargs != 1:
            c.args()
            return c.fail(f"{name} expects 1 argument", code="intrinsic-arity")
        t = c.arg(0)
        if t.is_error:
            return T.ERROR
        if T.is_numeric(t):
            return target
        if vector_from_i32 and isinstance(t, T.Vector) and t.elem is T.I32:
            return T.vector(T.F32, t.lanes)
        what = "a numeric scalar or an i32 vector" if vector_from_i32 else "a numeric scalar"
        return c.fail(f"{name} expects {what}, got {t}", c.arg_span(0))
    return rule


def _conv(name: str, target: T.Scalar, since: str, vector: bool = False) -> Intrinsic:
    sigs = ("(numeric scalar) -> " + target.name,) + (("(i32xN) -> f32xN",) if vector else ())
    return Intrinsic(name, ("x",), sigs, f"Convert to {target.name} (float to int truncates toward zero).",
                     _to(name, target, vector), FAMILY, since)


INTRINSICS = [
    _conv("to_f32", T.F32, "CORE (v0.6)", vector=True),
    _conv("to_f64", T.F64, "CORE (v0.6)"),
    _conv("to_i32", T.I32, "CORE (v0.6)"),
    _conv("to_i64", T.I64, "CORE (v0.6)"),
    _conv("to_i16", T.I16, "v1.11"),
    _conv("to_f16", T.F16, "v1.11"),
    declare_fixed("widen_i8_f32x4", ("v",), [(("i8x16",), "f32x4"), (("u8x16",), "f32x4")],
                  "Bytes 0-3, sign-extended, to f32x4.", FAMILY, "CORE (v0.5)"),
    declare_fixed("widen_u8_f32x4", ("v",), [(("u8x16",), "f32x4"), (("i8x16",), "f32x4")],
                  "Bytes 0-3, zero-extended, to f32x4.", FAMILY, "CORE (v0.5)"),
    declare_fixed("narrow_f32x4_i8", ("v",), [(("f32x4",), "i8x4")],
                  "Truncate each lane to an integer and keep its low 8 bits (no saturation).",
                  FAMILY, "CORE (v0.5)"),
]
