"""Lowering of shuffle, select, movemask, byte tables, runtime permutes and
the immediate-controlled i32 shuffles (INTRINSICS.md §4)."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from .common import call_intrinsic, immediate, is_arm, shuffle


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


_PMOVMSKB = {16: "llvm.x86.sse2.pmovmskb.128", 32: "llvm.x86.avx2.pmovmskb"}


def _movemask(em, call, want):
    arg = call.args[0]
    v = em.expr(arg)
    lanes = arg.ty.lanes
    if isinstance(arg.ty, T.Mask):
        # A true lane becomes 0xFF, so its top bit is set (INTRINSICS.md §4).
        v = em.builder.sext(v, ir.VectorType(ir.IntType(8), lanes))
    return call_intrinsic(em, _PMOVMSKB[lanes], [], ir.IntType(32), [v])


def _shuffle_bytes(em, call, want):
    table, idx = (em.expr(a) for a in call.args)
    lt = em.types(call.ty)
    if is_arm(em):  # only the 16-lane form passes the target rule
        return call_intrinsic(em, "llvm.aarch64.neon.tbl1.v16i8", [], lt, [table, idx])
    name = "llvm.x86.ssse3.pshuf.b.128" if call.ty.lanes == 16 else "llvm.x86.avx2.pshuf.b"
    return call_intrinsic(em, name, [], lt, [table, idx])


def _permute_runtime(em, call, want):
    table, idx = (em.expr(a) for a in call.args)
    name = "llvm.x86.avx2.permps" if call.ty.elem.is_float else "llvm.x86.avx2.permd"
    return call_intrinsic(em, name, [], em.types(call.ty), [table, idx])


def _groups(lanes: int, pattern) -> list[int]:
    """A mask applying `pattern(j)` (0..3) inside every 4-lane (128-bit) group."""
    return [g + pattern(j) for g in range(0, lanes, 4) for j in range(4)]


def _shuffle_i32(em, call, want):
    imm = immediate(em, call.args[1])
    mask = _groups(call.ty.lanes, lambda j: (imm >> (2 * j)) & 3)
    return shuffle(em, em.expr(call.args[0]), None, mask)


def _blend_i32(em, call, want):
    a, b = (em.expr(x) for x in call.args[:2])
    imm = immediate(em, call.args[2])
    lanes = call.ty.lanes
    # Index j + lanes picks b[j] from the second operand.
    return shuffle(em, a, b, [j + lanes if (imm >> j) & 1 else j for j in range(lanes)])


def _pairs(first: int):
    def lower(em, call, want):
        mask = _groups(call.ty.lanes, lambda j: first + (j & 2))
        return shuffle(em, em.expr(call.args[0]), None, mask)
    return lower


LOWER = {"shuffle": _shuffle, "select": _select, "movemask": _movemask, "shuffle_bytes": _shuffle_bytes,
         "permute_runtime": _permute_runtime, "shuffle_i32x8": _shuffle_i32, "shuffle_i32x16": _shuffle_i32,
         "blend_i32": _blend_i32,
         "bcast_even_pairs_i32x8": _pairs(0), "bcast_even_pairs_i32x16": _pairs(0),
         "bcast_odd_pairs_i32x8": _pairs(1), "bcast_odd_pairs_i32x16": _pairs(1)}
