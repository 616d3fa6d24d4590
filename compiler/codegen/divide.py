"""Integer `/` and `%` that never trap. LANGUAGE.md leaves division by zero
undefined; x86's div/idiv raise SIGFPE for it and for MIN / -1, which kills
the Python process calling the kernel (a call fuzzer found `uint_ops(197,
0, out)`, tests/test_call_fuzz.py). So every target gives AArch64's results:
x / 0 = 0, x % 0 = x, MIN / -1 = MIN, MIN % -1 = 0. The divisor is made
safe with selects; a constant divisor folds them away, and a variable one
adds a compare and a cmov to a 20-40 cycle division."""
from __future__ import annotations

from llvmlite import ir


def _const(ty: ir.Type, value: int) -> ir.Constant:
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [value] * ty.count)
    return ir.Constant(ty, value)


def divide(bld: ir.IRBuilder, op: str, a: ir.Value, b: ir.Value, unsigned: bool) -> ir.Value:
    """`a / b` (op "/") or `a % b` (op "%"), with the results above where the hardware traps."""
    ty = a.type
    bits = (ty.element if isinstance(ty, ir.VectorType) else ty).width
    zero = bld.icmp_unsigned("==", b, _const(ty, 0))
    bad = zero
    if not unsigned:
        overflow = bld.and_(bld.icmp_signed("==", a, _const(ty, -(1 << (bits - 1)))),
                            bld.icmp_signed("==", b, _const(ty, -1)))
        bad = bld.or_(zero, overflow)
    safe = bld.select(bad, _const(ty, 1), b)
    if op == "/":
        q = bld.udiv(a, safe) if unsigned else bld.sdiv(a, safe)
        return bld.select(zero, _const(ty, 0), q)  # MIN / 1 = MIN already
    r = bld.urem(a, safe) if unsigned else bld.srem(a, safe)
    return bld.select(zero, a, r)  # MIN % 1 = 0 already
