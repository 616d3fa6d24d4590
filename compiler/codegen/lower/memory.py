"""Lowering of load, load_<T>x<N>, store, println, align_offset."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from .common import declare, element_address, immediate
from .memaccess import stream_store


def _load(em, call, want):
    vt = call.ty
    addr = element_address(em, call.args[0], call.args[1], vt.elem)
    # Element alignment: unaligned vector access is fine (LANGUAGE.md §10).
    return em.builder.load(addr, typ=em.types(vt), align=max(vt.elem.bits // 8, 1))


def _store(em, call, want):
    if id(call) in em.nt_auto:  # a big call of a kernel that streams its output (codegen/ntauto.py)
        return stream_store(em, call)
    ptr_t = call.args[0].ty
    addr = element_address(em, call.args[0], call.args[1], ptr_t.pointee)
    value = em.expr(call.args[2])
    em.builder.store(value, addr, align=max(ptr_t.pointee.bits // 8, 1))


_FORMATS = {8: "%d", 16: "%d", 32: "%d", 64: "%ld"}


def _println(em, call, want):
    arg = call.args[0]
    t = arg.ty
    bld = em.builder
    if t is T.STRING:
        fmt, value = "%s\n", em.string_constant(arg.value)
    else:
        t = T.I32 if t is T.INT_LIT else T.F64 if t is T.FLOAT_LIT else t
        value = em.expr(arg, t)
        if t.is_float:
            fmt = "%g\n"
            if t.bits < 64:
                value = bld.fpext(value, ir.DoubleType())
        else:
            unsigned = t.is_unsigned  # also a lane of an unsigned vector (§6)
            fmt = (_FORMATS[t.bits].replace("d", "u") if unsigned and t.bits >= 32 else _FORMATS[t.bits]) + "\n"
            if t.bits < 32:
                value = bld.zext(value, ir.IntType(32)) if unsigned else bld.sext(value, ir.IntType(32))
    printf = declare(em, "printf", ir.IntType(32), [ir.PointerType()], varargs=True)
    bld.call(printf, [em.string_constant(fmt), value])


def _align_offset(em, call, want):
    """((-address) mod bytes) / element size: the elements to the next multiple of `bytes`."""
    bld = em.builder
    size = max(call.args[0].ty.pointee.bits // 8, 1)
    boundary = immediate(em, call.args[1])
    address = bld.ptrtoint(em.expr(call.args[0]), ir.IntType(64))
    gap = bld.and_(bld.neg(address), ir.Constant(ir.IntType(64), boundary - 1))
    return bld.trunc(bld.lshr(gap, ir.Constant(ir.IntType(64), size.bit_length() - 1)), ir.IntType(32))


LOWER = {"load": _load, "store": _store, "println": _println, "align_offset": _align_offset}
