"""Lowering of shuffle and select."""
from __future__ import annotations

from llvmlite import ir


def _shuffle(em, call, want):
    vt = call.ty
    vecs = [em.expr(a) for a in call.args[:-1]]
    indices = [x.value for x in call.args[-1].elems]
    second = vecs[1] if len(vecs) == 2 else ir.Constant(em.types(vt), ir.Undefined)
    mask = ir.Constant(ir.VectorType(ir.IntType(32), len(indices)), indices)
    return em.builder.shuffle_vector(vecs[0], second, mask)


def _select(em, call, want):
    vt = call.ty
    m = em.expr(call.args[0])
    a, b = (em.expr(x, vt) for x in call.args[1:])
    return em.builder.select(m, a, b)


LOWER = {"shuffle": _shuffle, "select": _select}
