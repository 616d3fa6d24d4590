"""Bit-exact Python models of the f32 polynomial approximations of
INTRINSICS.md §9, written from the spec's algorithm text (not from our
compiler): numpy float32 for the correctly rounded +, -, *, /, and an exact
rational fma rounded once to f32. Every Horner step is an fma, as the
reference algorithms are (one rounding per step)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

F = np.float32


def _bits(x: np.float32) -> int:
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


def _from_bits(b: int) -> np.float32:
    return np.array([b & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0]


def round_f32(q: Fraction) -> np.float32:
    """Round an exact non-zero rational to the nearest f32, ties to even."""
    guess = F(float(q))  # within one ulp; pick the true nearest among neighbours
    cands = [guess, np.nextafter(guess, F(np.inf)), np.nextafter(guess, F(-np.inf))]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - q), _bits(c) & 1))


def fma(a, b, c) -> np.float32:
    a, b, c = F(a), F(b), F(c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:
        # IEEE: an exact zero sum is +0, except (-0) + (-0).
        prod_neg_zero = (a == 0 or b == 0) and math.copysign(1, a) * math.copysign(1, b) < 0
        neg = prod_neg_zero and c == 0 and math.copysign(1, c) < 0
        return F(-0.0) if neg else F(0.0)
    return round_f32(exact)


def horner(coeffs, x) -> np.float32:
    acc = F(coeffs[0])
    for k in coeffs[1:]:
        acc = fma(acc, x, F(k))
    return acc


def nearbyint(x) -> np.float32:
    return F(np.rint(F(x)))


def exp_poly(x) -> np.float32:
    x = F(x)
    n = nearbyint(x * F(math.log2(math.e)))
    r = fma(-n, F(0.6931381), x)
    r = fma(-n, F(9.058006e-6), r)
    p = horner([0.008336987, 0.041665725, 0.16666655, 0.5, 1.0, 1.0], r)
    return _from_bits(_bits(p) + (int(n) << 23))


def tanh_approx(x) -> np.float32:
    x = F(min(max(F(x), F(-9.0)), F(9.0)))
    s = x * x
    alpha = [-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-8,
             1.48572235717979e-5, 6.37261928875436e-4, 4.89352455891786e-3]
    beta = [1.19825839466702e-6, 1.18534705686654e-4, 2.26843463243900e-3, 4.89352518554385e-3]
    return F(x * horner(alpha, s)) / horner(beta, s)


def log_approx(x) -> np.float32:
    bits = _bits(F(x))
    e = ((bits >> 23) & 0xFF) - 126
    m = _from_bits((bits & 0x807FFFFF) | 0x3F000000)
    if m < F(math.sqrt(0.5)):
        m = m + m
        e -= 1
    fe = F(e)
    u = m - F(1.0)
    u2 = u * u
    p = horner([7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
                -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1], u)
    y = (p * u) * u2
    y = fma(u2, F(-0.5), y)
    y = fma(fe, F(-2.1219444e-4), y)
    y = y + u
    return fma(fe, F(0.693359375), y)


def _sin_cos(x, cosine: bool) -> np.float32:
    x = F(x)
    q = nearbyint(x * F(2 / math.pi))
    d = fma(-q, F(1.5707963705062866), x)
    d = fma(-q, F(-4.3711388e-8), d)
    s = d * d
    sin = fma(d * s, horner([-1 / 5040, 1 / 120, -1 / 6], s), d)
    cos = horner([1 / 40320, -1 / 720, 1 / 24, -1 / 2, 1.0], s)
    k = int(q) + (1 if cosine else 0)
    r = cos if k & 1 else sin
    return -r if k & 2 else r


def sin_approx(x) -> np.float32:
    return _sin_cos(x, False)


def cos_approx(x) -> np.float32:
    return _sin_cos(x, True)
