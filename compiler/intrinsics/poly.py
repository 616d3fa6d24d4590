"""Polynomial approximations on f32 vectors (INTRINSICS.md §9). They never
call libm; scalar code is pointed at the libm-precision spelling instead."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic

FAMILY = "polynomial approximation"


def _poly(name: str, scalar: str, doc: str, since: str) -> Intrinsic:
    def rule(c) -> T.Type:
        t = c.only_arg()
        if t.is_error:
            return T.ERROR
        if isinstance(t, T.Vector):
            if t.elem is T.F32:
                return t
            return c.fail(f"{name} expects f32 element type, got {t.elem}", c.arg_span(0))
        if isinstance(t, T.Scalar) or T.is_literal(t):
            return c.fail(f"{name} expects f32 vector, got scalar; use {scalar}() for scalar "
                          "libm-precision", c.arg_span(0))
        return c.fail(f"{name} expects f32 vector, got {t}", c.arg_span(0))

    return Intrinsic(name, ("v",), ("(f32xN) -> f32xN",), doc, rule, FAMILY, since)


INTRINSICS = [
    _poly("exp_poly_f32", "exp", "e^x by a degree-5 polynomial, defined on [-50, 50] (rel. error ~2^-18).",
          "v1.11"),
    _poly("tanh_approx_f32", "tanh", "tanh(x) as a rational approximation, all finite inputs "
          "(abs. error ~3e-7).", "v1.14"),
    _poly("log_approx_f32", "log", "Natural log, defined on (0, +inf) (abs. error ~3e-6).", "v1.14"),
    _poly("sin_approx_f32", "sin", "sin(x), defined on [-1e7, 1e7] rad (abs. error ~3e-6).", "v1.14"),
    _poly("cos_approx_f32", "cos", "cos(x), defined on [-1e7, 1e7] rad (abs. error ~3e-6).", "v1.14"),
]
