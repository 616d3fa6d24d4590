"""Lowering of prefetch, streaming stores and their fence, masked load/store,
gather and scatter."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from .common import call_intrinsic, const_int, is_arm
from .memory import element_address


def _prefetch(rw: int, locality: int):
    def lower(em, call, want):
        addr = element_address(em, call.args[0], call.args[1], call.args[0].ty.pointee)
        call_intrinsic(em, "llvm.prefetch", [ir.PointerType()], ir.VoidType(),
                       [addr, const_int(rw), const_int(locality), const_int(1)])
    return lower


def lane_mask(em, count_node, lanes: int) -> ir.Value:
    """Lanes k < count as <N x i1>; count compares unsigned as i32 (INTRINSICS.md §11)."""
    count = em.convert_int(em.expr(count_node, T.I32), count_node.ty, T.I32)
    bld = em.builder
    wide = ir.VectorType(ir.IntType(32), lanes)
    splat = bld.insert_element(ir.Constant(wide, ir.Undefined), count, const_int(0))
    splat = bld.shuffle_vector(splat, ir.Constant(wide, ir.Undefined), ir.Constant(wide, [0] * lanes))
    return bld.icmp_unsigned("<", ir.Constant(wide, list(range(lanes))), splat)


def _load_masked(em, call, want):
    vt = call.ty
    addr = element_address(em, call.args[0], call.args[1], vt.elem)
    mask = lane_mask(em, call.args[2], vt.lanes)
    lt = em.types(vt)
    return call_intrinsic(em, "llvm.masked.load", [lt, ir.PointerType()], lt,
                          [addr, const_int(max(vt.elem.bits // 8, 1)), mask, ir.Constant(lt, None)])


def _store_masked(em, call, want):
    vt = call.args[2].ty
    addr = element_address(em, call.args[0], call.args[1], vt.elem)
    value = em.expr(call.args[2])
    mask = lane_mask(em, call.args[3], vt.lanes)
    call_intrinsic(em, "llvm.masked.store", [em.types(vt), ir.PointerType()], ir.VoidType(),
                   [value, addr, const_int(max(vt.elem.bits // 8, 1)), mask])


def _addresses(em, ptr_node, idx_node, elem: T.Type) -> ir.Value:
    """&p[idx[k]] per lane: a GEP with a vector index yields <N x ptr>."""
    ptr = em.expr(ptr_node)
    idx = em.expr(idx_node)
    addrs = em.builder.gep(ptr, [idx], source_etype=em.types(elem))
    # llvmlite types any GEP on a scalar base as `ptr`; users of the value
    # (the masked.gather/scatter calls) must see the vector type LLVM gives it.
    addrs.type = ir.VectorType(ir.PointerType(), idx.type.count)
    return addrs


def _all_true(lanes: int) -> ir.Constant:
    return ir.Constant(ir.VectorType(ir.IntType(1), lanes), [1] * lanes)


def _gather(em, call, want):
    vt = call.ty
    addrs = _addresses(em, call.args[0], call.args[1], vt.elem)
    lt = em.types(vt)
    ptrs = ir.VectorType(ir.PointerType(), vt.lanes)
    return call_intrinsic(em, "llvm.masked.gather", [lt, ptrs], lt,
                          [addrs, const_int(max(vt.elem.bits // 8, 1)), _all_true(vt.lanes),
                           ir.Constant(lt, ir.Undefined)])


def _scatter(em, call, want):
    vt = call.args[2].ty
    addrs = _addresses(em, call.args[0], call.args[1], vt.elem)
    value = em.expr(call.args[2])
    ptrs = ir.VectorType(ir.PointerType(), vt.lanes)
    call_intrinsic(em, "llvm.masked.scatter", [em.types(vt), ptrs], ir.VoidType(),
                   [value, addrs, const_int(max(vt.elem.bits // 8, 1)), _all_true(vt.lanes)])


def _stream_store(em, call, want):
    """A non-temporal store that never faults. x86's movntps/movntdq fault
    unless the address is aligned to the full vector size, and NumPy data
    (a slice, a large array) is often only 16- or 4-byte aligned. LLVM does
    not help: an under-aligned `!nontemporal` store becomes one 8-byte movnti
    per quarter vector. So on x86 a vector stream_store tests the address:
    aligned, the full-width non-temporal store; otherwise a plain store,
    which is what any cache-friendly store loop does. The test costs one
    predictable branch; when the index steps by whole vectors, LLVM reduces
    it to a test of the base pointer's low bits. AArch64's stnp and x86's
    movnti (scalars) accept any address: one store at element alignment."""
    ptr_t = call.args[0].ty
    vt = call.args[2].ty
    addr = element_address(em, call.args[0], call.args[1], ptr_t.pointee)
    value = em.expr(call.args[2])
    natural = max(ptr_t.pointee.bits // 8, 1)
    nontemporal = em.module.add_metadata([const_int(1)])
    if not isinstance(vt, T.Vector) or is_arm(em):
        em.builder.store(value, addr, align=natural).set_metadata("nontemporal", nontemporal)
        return
    size = vt.bits // 8
    bld = em.builder
    i64 = ir.IntType(64)
    misalignment = bld.and_(bld.ptrtoint(addr, i64), ir.Constant(i64, size - 1))
    aligned = bld.icmp_unsigned("==", misalignment, ir.Constant(i64, 0))
    with bld.if_else(aligned, likely=True) as (fast, plain):
        with fast:
            bld.store(value, addr, align=size).set_metadata("nontemporal", nontemporal)
        with plain:
            bld.store(value, addr, align=natural)


def _fence_nt(em, call, want):
    if is_arm(em):  # dmb ishst: orders stores against stores, inner shareable
        call_intrinsic(em, "llvm.aarch64.dmb", [], ir.VoidType(), [const_int(10)])
    else:
        call_intrinsic(em, "llvm.x86.sse.sfence", [], ir.VoidType(), [])


LOWER = {"prefetch": _prefetch(0, 3), "prefetch_write": _prefetch(1, 3), "prefetch_nta": _prefetch(0, 0),
         "load_masked": _load_masked, "store_masked": _store_masked, "gather": _gather, "scatter": _scatter,
         "stream_store": _stream_store, "fence_nt": _fence_nt}
