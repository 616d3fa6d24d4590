"""Lowering of the polynomial approximations on f32 vectors (INTRINSICS.md
§9). Each is straight-line vector code, never a libm call. The operation
sequence is part of the contract (results are reproducible bit for bit), so
every Horner step is one llvm.fma, as in the reference algorithms, and no
fast-math flag is set."""
from __future__ import annotations

import math

from llvmlite import ir

from .common import call_intrinsic, splat_const

# exp_poly_f32: Cody-Waite split of ln 2, degree-5 polynomial c5..c1, then 1.
_LOG2_E = math.log2(math.e)
_EXP_LN2 = (0.6931381, 9.058006e-6)
_EXP_C = (0.008336987, 0.041665725, 0.16666655, 0.5, 1.0, 1.0)

# tanh_approx_f32: odd numerator x*P(x^2) (alpha13 first), even denominator Q(x^2) (beta6 first).
_TANH_CLAMP = 9.0
_TANH_ALPHA = (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-8,
               1.48572235717979e-5, 6.37261928875436e-4, 4.89352455891786e-3)
_TANH_BETA = (1.19825839466702e-6, 1.18534705686654e-4, 2.26843463243900e-3, 4.89352518554385e-3)

# log_approx_f32: p0..p8 and the Cody-Waite split of ln 2 (hi is exact in f32).
_LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
          -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1)
_LOG_LN2_LO = -2.1219444e-4
_LOG_LN2_HI = 0.693359375

# sin/cos_approx_f32: two-piece pi/2, Taylor coefficients.
_PIO2 = (1.5707963705062866, -4.3711388e-8)
_SIN_C = (-1 / 5040, 1 / 120, -1 / 6)
_COS_C = (1 / 40320, -1 / 720, 1 / 24, -1 / 2, 1.0)


class _Vec:
    """Vector arithmetic at one f32xN shape."""

    def __init__(self, em, lanes: int):
        self.em = em
        self.b = em.builder
        self.f = ir.VectorType(ir.FloatType(), lanes)
        self.i = ir.VectorType(ir.IntType(32), lanes)

    def c(self, x: float) -> ir.Constant:
        return splat_const(self.f, x)

    def ci(self, x: int) -> ir.Constant:
        return splat_const(self.i, x)

    def call(self, base: str, *args: ir.Value) -> ir.Value:
        return call_intrinsic(self.em, base, [self.f], self.f, list(args))

    def fma(self, a, b, c) -> ir.Value:
        return self.call("llvm.fma", a, b, c)

    def horner(self, coeffs, x, acc=None) -> ir.Value:
        """((k0*x + k1)*x + k2)... with one fma per step; `acc` replaces k0."""
        acc = self.c(coeffs[0]) if acc is None else acc
        for k in coeffs[1:]:
            acc = self.fma(acc, x, self.c(k))
        return acc


def _exp_poly(em, call, want):
    v = _Vec(em, call.ty.lanes)
    x = em.expr(call.args[0])
    b = v.b
    n = v.call("llvm.nearbyint", b.fmul(x, v.c(_LOG2_E)))
    neg_n = b.fneg(n)
    r = v.fma(neg_n, v.c(_EXP_LN2[0]), x)
    r = v.fma(neg_n, v.c(_EXP_LN2[1]), r)
    p = v.horner(_EXP_C, r)
    # Scale by 2^n by adding n to the exponent field (no overflow check: the
    # contract stops at |x| <= 50).
    scale = b.shl(b.fptosi(n, v.i), v.ci(23))
    return b.bitcast(b.add(b.bitcast(p, v.i), scale), v.f)


def _tanh(em, call, want):
    v = _Vec(em, call.ty.lanes)
    b = v.b
    x = em.expr(call.args[0])
    x = v.call("llvm.maxnum", v.call("llvm.minnum", x, v.c(_TANH_CLAMP)), v.c(-_TANH_CLAMP))
    s = b.fmul(x, x)
    num = b.fmul(x, v.horner(_TANH_ALPHA, s))
    return b.fdiv(num, v.horner(_TANH_BETA, s))


def _log(em, call, want):
    v = _Vec(em, call.ty.lanes)
    b = v.b
    bits = b.bitcast(em.expr(call.args[0]), v.i)
    # x = m * 2^e with m in [0.5, 1): exponent field minus 126, mantissa re-biased to 2^-1.
    e = b.sub(b.and_(b.lshr(bits, v.ci(23)), v.ci(0xFF)), v.ci(126))
    keep = 0x807FFFFF - (1 << 32)  # sign and mantissa bits, as a signed i32 constant
    m = b.bitcast(b.or_(b.and_(bits, v.ci(keep)), v.ci(0x3F000000)), v.f)
    # Centre the polynomial's range: m in [sqrt(1/2), sqrt(2)).
    small = b.fcmp_ordered("<", m, v.c(math.sqrt(0.5)))
    m = b.select(small, b.fadd(m, m), m)
    e = b.select(small, b.sub(e, v.ci(1)), e)
    fe = b.sitofp(e, v.f)
    u = b.fsub(m, v.c(1.0))
    u2 = b.fmul(u, u)
    y = b.fmul(b.fmul(v.horner(_LOG_P, u), u), u2)
    y = v.fma(u2, v.c(-0.5), y)
    y = v.fma(fe, v.c(_LOG_LN2_LO), y)
    y = b.fadd(y, u)
    return v.fma(fe, v.c(_LOG_LN2_HI), y)


def _sin_cos(cosine: bool):
    def lower(em, call, want):
        v = _Vec(em, call.ty.lanes)
        b = v.b
        x = em.expr(call.args[0])
        q = v.call("llvm.nearbyint", b.fmul(x, v.c(2 / math.pi)))
        neg_q = b.fneg(q)
        d = v.fma(neg_q, v.c(_PIO2[0]), x)
        d = v.fma(neg_q, v.c(_PIO2[1]), d)
        s = b.fmul(d, d)
        sin = v.fma(b.fmul(d, s), v.horner(_SIN_C, s), d)
        cos = v.horner(_COS_C, s)
        # Quadrant k: odd picks the cosine branch, bit 1 flips the sign; cos(x) = sin(x + pi/2).
        k = b.fptosi(q, v.i)
        if cosine:
            k = b.add(k, v.ci(1))
        zero = v.ci(0)
        swap = b.icmp_signed("!=", b.and_(k, v.ci(1)), zero)
        negate = b.icmp_signed("!=", b.and_(k, v.ci(2)), zero)
        r = b.select(swap, cos, sin)
        return b.select(negate, b.fneg(r), r)
    return lower


LOWER = {"exp_poly_f32": _exp_poly, "tanh_approx_f32": _tanh, "log_approx_f32": _log,
         "sin_approx_f32": _sin_cos(False), "cos_approx_f32": _sin_cos(True)}
