"""Lowering of the horizontal reductions."""
from __future__ import annotations

from llvmlite import ir

from .common import call_intrinsic


def _operand(em, call):
    """The reduced vector's checked type, its value and its element's LLVM type."""
    vt = call.args[0].ty
    return vt, em.expr(call.args[0]), em.types(vt.elem)


def _reduce_add(fast: bool):
    def lower(em, call, want):
        vt, v, elem = _operand(em, call)
        if vt.elem.is_float:
            # Strictly ordered ((0 + v0) + v1) + ... unless reassociation is asked for.
            start = ir.Constant(elem, -0.0 if fast else 0.0)
            return call_intrinsic(em, "llvm.vector.reduce.fadd", [em.types(vt)], elem, [start, v],
                                  fastmath=("reassoc",) if fast else ())
        return call_intrinsic(em, "llvm.vector.reduce.add", [em.types(vt)], elem, [v])
    return lower


def _reduce_minmax(which: str):
    def lower(em, call, want):
        vt, v, elem = _operand(em, call)
        if vt.elem.is_float:
            kind = f"f{which}"
        else:  # the checked element type decides signedness (INTRINSICS.md §3)
            kind = ("u" if vt.elem.is_unsigned else "s") + which
        return call_intrinsic(em, f"llvm.vector.reduce.{kind}", [em.types(vt)], elem, [v])
    return lower


LOWER = {"reduce_add": _reduce_add(False), "reduce_add_fast": _reduce_add(True),
         "reduce_max": _reduce_minmax("max"), "reduce_min": _reduce_minmax("min")}
