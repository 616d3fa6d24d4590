"""Arithmetic and math: splat, fma, sqrt, rsqrt, exp, abs, min, max."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic, peer_operands

FAMILY = "arithmetic"


def _splat(c) -> T.Type:
    t = c.only_arg()
    if t.is_error:
        return T.ERROR
    if not T.is_numeric(t):
        return c.fail(f"splat expects numeric argument, got {t}", c.arg_span(0))
    exp = c.expected if isinstance(c.expected, T.Vector) else None
    lanes = c.context_lanes()
    if t is T.FLOAT_LIT:
        elem = exp.elem if exp is not None and exp.elem.is_float else T.F32
    elif t is T.INT_LIT:
        elem = exp.elem if exp is not None and exp.elem.is_integer else T.I32
    else:
        elem = t
    return T.vector(elem, lanes)


def _fma(c) -> T.Type:
    ts = peer_operands(c, "fma", 3)
    if ts is None:
        return T.ERROR
    vectors = [t for t in ts if isinstance(t, T.Vector)]
    if vectors:
        if any(not t.elem.is_float for t in vectors):
            return c.fail("fma requires float vector arguments. fma only works on f32 or f64 vectors")
        if len(vectors) != 3 or any(t is not vectors[0] for t in vectors):
            notes, fixes = c.blame_peers([0, 1, 2])
            return c.fail("fma arguments must all have the same vector type, got "
                          + ", ".join(str(t) for t in ts), code="intrinsic-args", notes=notes, suggestions=fixes)
        return vectors[0]
    if all(T.is_float(t) for t in ts):
        concrete = {t for t in ts if t is not T.FLOAT_LIT}
        if not concrete:
            return T.F32
        if len(concrete) == 1 and next(iter(concrete)) in (T.F32, T.F64):
            return next(iter(concrete))
    return c.fail("fma expects float or float vector arguments, got " + ", ".join(str(t) for t in ts),
                  code="intrinsic-args")


def _floating(t: T.Type) -> bool:
    return t is T.FLOAT_LIT or t in (T.F32, T.F64) or T.is_float_vector(t)


def _unary(name: str, accepts, wanted: str):
    """One argument of a type `accepts`, which is also the result type."""
    def rule(c) -> T.Type:
        t = c.only_arg()
        if t.is_error:
            return T.ERROR
        if accepts(t):
            return t
        return c.fail(f"{name} expects {wanted}, got {t}", c.arg_span(0))
    return rule


def _float_unary(name: str):
    return _unary(name, _floating, "float or float vector argument")


_abs = _unary("abs", lambda t: _floating(t) or (isinstance(t, T.Vector) and t.elem in (T.I8, T.I16, T.I32)),
              "a float scalar, a float vector or an i8/i16/i32 vector")


def _minmax(name: str):
    def rule(c) -> T.Type:
        ts = peer_operands(c, name, 2)
        if ts is None:
            return T.ERROR
        a, b = ts
        if isinstance(a, T.Vector) or isinstance(b, T.Vector):
            if a is b and a.elem.is_float:
                return a
        else:
            for concrete, lit in ((a, b), (b, a)):
                if concrete in (T.I32, T.F32, T.F64) and (lit is concrete or T.compatible(lit, concrete)):
                    return concrete
            if a is T.INT_LIT and b is T.INT_LIT:
                return T.I32
            if a is T.FLOAT_LIT and b is T.FLOAT_LIT:
                return T.F64
        notes, fixes = c.blame_peers([0, 1])
        return c.fail(f"{name} expects matching numeric types, got ({a}, {b})", code="intrinsic-args",
                      notes=notes + [f"{name} accepts (i32, i32), (f32, f32), (f64, f64) or two identical "
                                     "float vectors"], suggestions=fixes)
    return rule


INTRINSICS = [
    Intrinsic("splat", ("value",), ("(T) -> TxN",),
              "Broadcast a scalar to every lane; N comes from the expected type (default 4).",
              _splat, FAMILY, "CORE (v0.1)"),
    Intrinsic("fma", ("a", "b", "c"), ("(FV, FV, FV) -> FV", "(f32, f32, f32) -> f32", "(f64, f64, f64) -> f64"),
              "a * b + c with a single rounding (fused multiply-add).", _fma, FAMILY, "CORE (v0.1)"),
    Intrinsic("sqrt", ("x",), ("(f32) -> f32", "(f64) -> f64", "(FV) -> FV"),
              "Square root.", _float_unary("sqrt"), FAMILY, "CORE (v0.6)"),
    Intrinsic("rsqrt", ("x",), ("(f32) -> f32", "(f64) -> f64", "(FV) -> FV"),
              "Exact 1.0 / sqrt(x) (a division, not an estimate).", _float_unary("rsqrt"), FAMILY,
              "CORE (v0.6)"),
    Intrinsic("exp", ("x",), ("(f32) -> f32", "(f64) -> f64", "(FV) -> FV"),
              "e^x at libm precision.", _float_unary("exp"), FAMILY, "v1.7"),
    Intrinsic("abs", ("x",), ("(f32) -> f32", "(f64) -> f64", "(FV) -> FV", "(i8xN|i16xN|i32xN) -> same"),
              "Absolute value (a user-defined abs shadows this intrinsic).", _abs, FAMILY, "v1.11"),
    Intrinsic("min", ("a", "b"), ("(i32, i32) -> i32", "(f32, f32) -> f32", "(f64, f64) -> f64", "(FV, FV) -> FV"),
              "Minimum; float versions return the non-NaN operand.", _minmax("min"), FAMILY, "v1.6"),
    Intrinsic("max", ("a", "b"), ("(i32, i32) -> i32", "(f32, f32) -> f32", "(f64, f64) -> f64", "(FV, FV) -> FV"),
              "Maximum; float versions return the non-NaN operand.", _minmax("max"), FAMILY, "v1.6"),
]
