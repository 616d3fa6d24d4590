"""A peeled prologue: the tail runs first, on the elements before the first
streaming store's next vector boundary, so that the main loop's stores of
that output are aligned, full-width non-temporal stores on every trip.

NumPy's arrays start 16 bytes past a 64-byte boundary; realigning each
vector in registers (ntrealign.py) keeps the stores non-temporal but
measured 4-7 % slower than aligned arrays (bench/stream_store_bench.py);
starting the loop at the boundary is as fast as aligned arrays, and for
NumPy's arrays (every one at the same offset) it aligns the loads too.

It is only done when it stores the same values as the kernel as written:
the tail computes what the body does, element by element
(check/tail_match.py), and the arrays written are apart in memory from the
others (`arrays_apart`, tested at run time: an array read through one
parameter and written through another would otherwise see another order of
writes). Otherwise the loop starts at 0 as written and the versions of
compiler/codegen/ntloop.py take the misalignment as it is."""
from __future__ import annotations

from llvmlite import ir

from ..check.tail_match import TailMatch, match
from ..syntax import ast as A
from ..typesys import model as T

_I64 = ir.IntType(64)


def plan(em, leader) -> TailMatch:
    """Whether the kernel's main loop may start at the leader's boundary."""
    if leader.coef != 1 or leader.terms:
        return TailMatch(False, f"the index of `{leader.ptr}` is not the loop variable plus a constant")
    return match(em.func, em.module_emitter.decisions, em.module_emitter.const_values)


def emit_peel(em, leader, found: TailMatch, apart: ir.Value, misalignment: ir.Value) -> None:
    """Run the tail for VAR < min(bound, elements to the leader's boundary)
    when the arrays are apart, that many whole elements reach it, and no
    array the loop reads would go from aligned to misaligned (an input at
    another offset than the output: its loads would cross cache lines, which
    measured 1.3x slower than realigned stores, bench/stream_store_bench.py)."""
    bld = em.builder
    kernel = em.func.origin
    size, elem = leader.size, leader.elem_bytes
    var_slot, var_t = em.vars[kernel.var]
    bound64 = _bound64(em)
    to_boundary = bld.and_(bld.sub(ir.Constant(_I64, size), misalignment), ir.Constant(_I64, size - 1))
    whole = bld.icmp_unsigned("==", bld.urem(misalignment, ir.Constant(_I64, elem)), ir.Constant(_I64, 0))
    peeled = bld.udiv(to_boundary, ir.Constant(_I64, elem))
    ok = bld.and_(bld.and_(whole, apart), _inputs_stay_aligned(em, found, peeled, size))
    count = bld.select(ok, peeled, ir.Constant(_I64, 0))
    count = bld.select(bld.icmp_signed("<", bound64, count), bound64, count)
    limit = bld.trunc(count, em.types(var_t))

    tail = [s for s in em.func.body.stmts if isinstance(s, A.While)][1]
    saved = dict(em.vars)
    cond_bb = em.fn.append_basic_block("ntpeel.cond")
    body_bb = em.fn.append_basic_block("ntpeel.body")
    end_bb = em.fn.append_basic_block("ntpeel.end")
    bld.branch(cond_bb)
    bld.position_at_end(cond_bb)
    var = bld.load(var_slot, typ=em.types(var_t))
    bld.cbranch(bld.icmp_signed("<", var, limit), body_bb, end_bb)
    bld.position_at_end(body_bb)
    em.block(tail.body)  # the tail's statements, then VAR = VAR + 1
    em._latch(cond_bb, None, em._kernel_loop_md(tail))
    bld.position_at_end(end_bb)
    em.vars = saved


def _inputs_stay_aligned(em, found: TailMatch, peeled: ir.Value, size: int) -> ir.Value:
    """No array only read is `size`-aligned now and misaligned `peeled` elements on."""
    bld = em.builder
    mask = ir.Constant(_I64, size - 1)
    zero = ir.Constant(_I64, 0)
    ok = ir.Constant(ir.IntType(1), 1)
    for name in sorted(set(found.arrays) - set(found.written)):
        slot, t = em.vars[name]
        base = bld.ptrtoint(bld.load(slot, typ=em.types(t)), _I64)
        after = bld.add(base, bld.mul(peeled, ir.Constant(_I64, max(t.pointee.bits // 8, 1))))
        was_aligned = bld.icmp_unsigned("==", bld.and_(base, mask), zero)
        stays = bld.icmp_unsigned("==", bld.and_(after, mask), zero)
        ok = bld.and_(ok, bld.or_(bld.not_(was_aligned), stays))
    return ok


def _bound64(em) -> ir.Value:
    name = em.func.origin.bound
    slot, t = em.vars[name]
    return em.convert_int(em.builder.load(slot, typ=em.types(t)), t, T.I64)


def arrays_apart(em, ranges: dict[str, tuple[int, int]], written) -> ir.Value:
    """Every array written is apart from every other array the loop touches
    (the bytes from its lowest to its highest element over the whole range,
    `ranges` counting from the loop variable); pairs of `restrict` pointers
    are apart by the programmer's promise."""
    bld = em.builder
    params = {p.name: p for p in em.func.params}
    bound64 = _bound64(em)
    spans = {name: _span(em, name, lo, hi, bound64) for name, (lo, hi) in ranges.items()}
    ok = ir.Constant(ir.IntType(1), 1)
    names = sorted(ranges)
    for k, a in enumerate(names):
        for b in names[k + 1:]:
            if a not in written and b not in written:
                continue
            if params[a].ty.restrict and params[b].ty.restrict:
                continue
            (a0, a1), (b0, b1) = spans[a], spans[b]
            ok = bld.and_(ok, bld.or_(bld.icmp_unsigned("<=", a1, b0), bld.icmp_unsigned("<=", b1, a0)))
    return ok


def _span(em, name: str, lo: int, hi: int, bound64: ir.Value) -> tuple[ir.Value, ir.Value]:
    """[p + lo, p + bound + hi) in bytes, as integers."""
    bld = em.builder
    slot, t = em.vars[name]
    elem = max(t.pointee.bits // 8, 1)
    base = bld.ptrtoint(bld.load(slot, typ=em.types(t)), _I64)
    start = bld.add(base, ir.Constant(_I64, lo * elem))
    end = bld.add(base, bld.mul(bld.add(bound64, ir.Constant(_I64, hi)), ir.Constant(_I64, elem)))
    return start, end
