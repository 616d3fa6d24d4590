"""Lowering of prefetch, streaming stores and their fence, masked load/store,
gather and scatter."""
from __future__ import annotations

from dataclasses import replace

from llvmlite import ir

from ...syntax import ast as A
from ...typesys import model as T
from . import ntstore
from .common import call_intrinsic, const_int, element_address, is_arm


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


def stream_store(em, call, want=None):
    """A non-temporal store that never faults. AArch64's stnp and x86's
    movnti (scalars) accept any address: one store at element alignment.
    x86's vector movnt* fault unless the address is aligned to the vector, and
    NumPy data is often only 16- or 4-byte aligned; such a store becomes the
    widest aligned non-temporal pieces (lower/ntplan.py, lower/ntstore.py).
    Its misalignment is fixed when a kernel's main loop was versioned for it
    (compiler/codegen/ntloop.py: `em.nt_static`), else tested here."""
    ptr_t = call.args[0].ty
    vt = call.args[2].ty
    addr = element_address(em, call.args[0], call.args[1], ptr_t.pointee)
    value = em.expr(call.args[2])
    if not isinstance(vt, T.Vector) or is_arm(em):
        natural = max(ptr_t.pointee.bits // 8, 1)
        em.builder.store(value, addr, align=natural).set_metadata("nontemporal", ntstore.nontemporal(em))
        return
    fixed = em.nt_static.get(id(call))
    if fixed is not None:
        fixed.emit(em, value, vt, addr)
        return
    ptr = A.unparen(call.args[0])
    name = "store (streaming)" if id(call) in em.nt_auto else "stream_store"
    what = f"{name} to {ptr.name}" if isinstance(ptr, A.Name) else name
    path = ntstore.describe(what, vt, em.options, "at each store")
    em.record_path(replace(path, line=call.span.line))
    ntstore.dispatch(em, value, vt, addr)


def _fence_nt(em, call, want):
    if is_arm(em):  # dmb ishst: orders stores against stores, inner shareable
        call_intrinsic(em, "llvm.aarch64.dmb", [], ir.VoidType(), [const_int(10)])
    else:
        call_intrinsic(em, "llvm.x86.sse.sfence", [], ir.VoidType(), [])


LOWER = {"prefetch": _prefetch(0, 3), "prefetch_write": _prefetch(1, 3), "prefetch_nta": _prefetch(0, 0),
         "load_masked": _load_masked, "store_masked": _store_masked, "gather": _gather, "scatter": _scatter,
         "stream_store": stream_store, "fence_nt": _fence_nt}
