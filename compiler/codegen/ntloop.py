"""A kernel's main loop, versioned by the alignment of its streaming stores.

`stream_store(out, i + c, v)` in a kernel whose index advances by whole
vectors (step x element size a multiple of the vector size) stores at one
misalignment for the whole loop: out + c elements, mod the vector size. So
the misalignment is computed once, before the loop, and the loop is emitted
once per misalignment class (compiler/codegen/lower/ntplan.py), each copy
with the stores of its class fixed:
- aligned: full-width non-temporal stores;
- misaligned, when the stores to the output follow one another (each one
  vector after the last, unconditionally, on every trip: `contiguous`):
  full-width stores of realigned vectors (lower/ntrealign.py), the first
  trip peeled off to start them;
- misaligned otherwise: the non-temporal pieces of each store (lower/ntstore.py);
- not 4-byte aligned: plain stores.
Stores to the same output at indices that differ by a constant share one
test; each other output multiplies the copies, up to ntplan.MAX_VERSIONS;
stores past that (and any whose index is not affine in the loop variable
with parameters only, or that sit in an inner loop) test their address at
the store (lower/ntstore.py `dispatch`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from llvmlite import ir

from ..check.affine import AffineEnv, symbol
from ..check.loop_accesses import merge, of_loop
from ..intrinsics import entry
from ..runtime_paths import RuntimePath
from ..syntax import ast as A
from ..typesys import model as T
from .lower.ntplan import MAX_VERSIONS, classes, pieces, rule
from .lower.ntrealign import Realigned, RealignedSite
from .lower.ntstore import Fixed, describe, misalignment
from .ntauto import describe as auto_describe
from .ntpeel import arrays_apart, emit_peel, plan

OTHER = "other"  # the class of addresses no piece fits: plain stores
DYNAMIC = "dynamic"  # a follower not at the leader's misalignment: tested at each store
# The misalignments a streaming plain store (ntauto.py) gets a copy of the
# loop for: multiples of 16 bytes (NumPy's arrays are 16 bytes past a line):
# full-width stores or 16-byte pieces; elsewhere the copy as written.
AUTO_ALIGN = 16
# A misalignment no class holds (not a multiple of 4 bytes): the switch sends it to OTHER's copy.
UNALIGNED_KEY = 1


@dataclass
class Group:
    """Stores to one output whose addresses differ by constants."""
    ptr: str
    size: int  # vector bytes
    elem_bytes: int
    coef: int  # of the loop variable in the index
    terms: tuple  # the index's invariant terms ((param, coefficient), ...)
    first: A.Call
    first_const: int
    sites: list[tuple[A.Call, int]] = field(default_factory=list)  # (call, bytes past `first`'s address)
    contiguous: bool = False  # each store one vector after the last, every trip (realigned when misaligned)
    merge: bool = True  # misalignments with the same code share a copy of the loop (not with followers)
    auto: bool = False  # plain stores streaming on a big call (ntauto.py): 16-byte classes only

    def classes(self) -> list[tuple[int, ...] | str]:
        """The misalignments that give every store of the group the same code,
        together (for 32-byte pieces, 4 and 20 are both 4+8+16+4 bytes at their
        own offsets; realigned stores shift by each their own), then OTHER:
        one version of the loop each."""
        step = rule(self.size).min_align
        if self.auto:
            return [(m,) for m in range(0, self.size, AUTO_ALIGN)] + [OTHER]
        if self.contiguous or not self.merge:
            return [(m,) for m in classes(self.size)] + [OTHER]
        same: dict[tuple, list[int]] = {}
        for m in classes(self.size):
            at = [(m + delta) % self.size for _, delta in self.sites]
            same.setdefault(tuple(tuple(pieces(a, self.size)) if a % step == 0 else None for a in at), []).append(m)
        return [tuple(ms) for ms in same.values()] + [OTHER]


def version_groups(em, loop: A.While) -> list[Group]:
    """The groups of a kernel main loop's vector stream_stores whose
    misalignment is fixed for the loop: the first (the leader) and the
    others of its vector size (followers), as MAX_VERSIONS allows."""
    kernel = em.func.origin
    if em.options.is_arm or kernel is None or not (loop.synthetic and loop.span == kernel.body.span):
        return []
    params = {p.name for p in em.func.params}
    env = AffineEnv(kernel.var, params, em.module_emitter.const_values, lambda span: f"\0{span.start}")
    found: list[tuple[A.Call, object, bool]] = []
    decisions, auto = em.module_emitter.decisions, em.nt_auto

    def streams(x: A.Call) -> bool:  # a stream_store, or a plain store streaming here (ntauto.py)
        intr = decisions.intrinsic_of(x)
        return intr is not None and (entry(intr).name == "stream_store" or id(x) in auto)
    _scan(loop.body.stmts, env, streams, found, True)
    groups: dict[tuple, Group] = {}
    unconditional: dict[int, bool] = {}
    for call, form, top in found:
        unconditional[id(call)] = top
        ptr, vt = A.unparen(call.args[0]).name, call.args[2].ty
        size, elem = vt.bits // 8, call.args[0].ty.pointee.bits // 8
        if size not in (16, 32, 64) or (form.coef * kernel.step * elem) % size:
            continue
        key = (ptr, size, form.coef, form.invariant)
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(ptr, size, elem, form.coef, form.invariant, call, form.const)
        g.sites.append((call, (form.const - g.first_const) * elem))
    returns = any(isinstance(x, A.Return) for x in A.statements(loop.body.stmts))
    for g in groups.values():
        deltas = [d for _, d in g.sites]
        g.auto = all(id(c) in auto for c, _ in g.sites)
        g.contiguous = (not g.auto and rule(g.size).realign and not returns
                        and all(unconditional[id(c)] for c, _ in g.sites)
                        and deltas == [k * g.size for k in range(len(deltas))]
                        and len(deltas) * g.size == g.coef * kernel.step * g.elem_bytes)
    if not groups:
        return []
    leader, *others = groups.values()
    followers = [g for g in others if g.size == leader.size]
    leader.merge = not followers
    if followers and copies(leader, followers) > MAX_VERSIONS:
        followers, leader.merge = [], True
    return [leader] + followers


def copies(leader: Group, followers: list[Group]) -> int:
    """Copies of the loop: one per class of the leader's misalignment, two
    (the followers at the same misalignment, or not) when there are followers."""
    n = len(leader.classes())
    return (n - 1) * 2 + 1 if followers else n


def _scan(stmts, env: AffineEnv, streams, found: list, top: bool) -> None:
    """Vector stream_stores in `stmts` (not in inner loops) whose pointer is a
    parameter and whose index is affine in the loop variable and parameters,
    in program order, each with whether it runs on every trip (`top`)."""
    for s in stmts:
        if getattr(s, "synthetic", False):
            continue
        if isinstance(s, A.If):
            _calls(s.cond, env, streams, found, top)
            _scan(s.then.stmts, env.child(), streams, found, False)
            if s.orelse is not None:
                orelse = s.orelse.stmts if isinstance(s.orelse, A.Block) else [s.orelse]
                _scan(orelse, env.child(), streams, found, False)
            continue
        if isinstance(s, (A.While, A.ForEach, A.Unroll)):
            continue
        for e in A.children(s):
            if isinstance(e, A.Expr):
                _calls(e, env, streams, found, top)
        if isinstance(s, A.Let):
            env.bind(s)
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Name):
            env.known[s.target.name] = None


def _calls(e: A.Expr, env: AffineEnv, streams, found: list, top: bool) -> None:
    for x in A.walk([e]):
        if not isinstance(x, A.Call) or len(x.args) != 3 or not isinstance(x.args[2].ty, T.Vector):
            continue
        if not streams(x):
            continue
        ptr = A.unparen(x.args[0])
        if not isinstance(ptr, A.Name) or env.known.get(ptr.name) != symbol(ptr.name):
            continue  # not the parameter (a local, or a parameter's name rebound)
        form = env.form(x.args[1])
        if form is not None and all(env.known.get(k) == symbol(k) for k, _ in form.invariant):
            found.append((x, form, top))


def emit_versioned(em, loop: A.While, groups: list[Group], emit_copy) -> None:
    """The misalignment of each group, then one copy of the loop per class
    of the leader's (`emit_copy(exit_block)` emits one), aligned first; with
    followers, each class twice: the followers at the leader's misalignment
    (their stores fixed alike), or not (tested at each store)."""
    bld = em.builder
    leader, followers = groups[0], groups[1:]
    peel = plan(em, leader)
    em.nt_peeled = peel.ok
    realigns = any(g.contiguous for g in groups)
    apart = _apart(em, loop, peel) if peel.ok or realigns else None
    if peel.ok:
        emit_peel(em, leader, peel, apart, _misalignment_at_entry(em, leader))
    keys = [_misalignment_at_entry(em, g) for g in groups]
    if realigns:  # a realigned run keeps part of each vector for the next trip: only apart from all else
        aligned = bld.icmp_unsigned("==", keys[0], ir.Constant(ir.IntType(64), 0))
        keys[0] = bld.select(bld.or_(apart, aligned), keys[0], ir.Constant(ir.IntType(64), UNALIGNED_KEY))
    end = em.fn.append_basic_block("while.end")
    saved_vars = dict(em.vars)

    def version(chosen: list) -> None:
        em.vars = dict(saved_vars)
        _version(em, loop, groups, chosen, emit_copy, end)

    blocks = {c: em.fn.append_basic_block(f"ntversion.{leader.ptr}.{c if c == OTHER else c[0]}")
              for c in leader.classes()}
    switch = bld.switch(keys[0], blocks[OTHER])
    for c, block in blocks.items():
        for m in (() if c == OTHER else c):
            switch.add_case(ir.Constant(ir.IntType(64), m), block)
    for c, block in blocks.items():
        bld.position_at_end(block)
        c = c if c == OTHER else c[0]
        if c == OTHER or not followers:
            version([c] + [DYNAMIC] * len(followers))
            continue
        same = bld.icmp_unsigned("==", keys[1], keys[0])
        for key in keys[2:]:
            same = bld.and_(same, bld.icmp_unsigned("==", key, keys[0]))
        joint, apart = em.fn.append_basic_block("ntversion.same"), em.fn.append_basic_block("ntversion.apart")
        bld.cbranch(same, joint, apart)
        bld.position_at_end(joint)
        version([c] * len(groups))
        bld.position_at_end(apart)
        version([c] + [DYNAMIC] * len(followers))
    em.nt_static = {}
    bld.position_at_end(end)  # the bindings stay those of the last copy, as after an unversioned loop
    _record(em, loop, groups, peel)


def _version(em, loop: A.While, groups: list[Group], chosen: list, emit_copy, end: ir.Block) -> None:
    """One copy of the loop with its stores fixed; with realigned outputs the
    first trip comes first (its first store starts the run of aligned blocks)
    and the last vector's remainder is stored after the loop."""
    statics: dict[int, object] = {}
    realigned: list[Realigned] = []
    for g, c in zip(groups, chosen):
        if c == DYNAMIC:
            continue
        if g.contiguous and c not in (OTHER, 0):
            out = Realigned(em, g.first.args[2].ty, c)
            realigned.append(out)
            statics.update({id(call): RealignedSite(out, k) for k, (call, _) in enumerate(g.sites)})
        else:
            statics.update(_fixed(g, c))
    em.nt_static = statics
    if not realigned:
        emit_copy(end)
        return
    bld = em.builder
    first = em.fn.append_basic_block("ntversion.first")
    em.at(loop.cond.span)
    bld.cbranch(em.expr(loop.cond), first, end)
    bld.position_at_end(first)
    em.block(loop.body)  # no return in it (contiguous)
    for out in realigned:
        out.first_trip = False
    after = em.fn.append_basic_block("ntversion.last")
    emit_copy(after)
    bld.position_at_end(after)
    for out in realigned:
        out.finish(em)
    bld.branch(end)


def _apart(em, loop: A.While, peel) -> ir.Value:
    """Whether what the loop writes is apart from all else it touches (and,
    when peeling, all the tail touches), tested once: then a store may be
    delayed to the next trip or elements run out of order unseen."""
    kernel = em.func.origin
    params = {p.name: p for p in em.func.params}
    acc = of_loop(loop.body.stmts[:-1], kernel.var, params, em.module_emitter.decisions,
                  em.module_emitter.const_values)
    if not acc.known:  # a gather, a view: only `restrict` everywhere says nothing else is there
        every = all(p.ty.restrict for p in em.func.params if isinstance(p.ty, T.Pointer))
        return ir.Constant(ir.IntType(1), int(every and not peel.ok))
    if acc.read_after_write or acc.reads_behind():
        return ir.Constant(ir.IntType(1), 0)
    ranges = merge(acc.ranges, peel.arrays) if peel.ok else acc.ranges
    return arrays_apart(em, ranges, set(acc.writes) | set(peel.written))


def _misalignment_at_entry(em, g: Group) -> ir.Value:
    """The address of the group's first store on the coming trip, mod size:
    from there the loop variable advances by a multiple of the size on every
    trip (version_groups checked). The variable is 0, or where a peeled
    prologue (ntpeel.py) left it."""
    bld = em.builder
    i64 = ir.IntType(64)
    var_slot, var_t = em.vars[em.func.origin.var]
    at = em.convert_int(bld.load(var_slot, typ=em.types(var_t)), var_t, T.I64)
    offset = bld.add(ir.Constant(i64, g.first_const), bld.mul(at, ir.Constant(i64, g.coef)))
    for name, coef in g.terms:
        slot, t = em.vars[name]
        value = em.convert_int(bld.load(slot, typ=em.types(t)), t, T.I64)
        offset = bld.add(offset, bld.mul(value, ir.Constant(i64, coef)))
    ptr_slot, ptr_t = em.vars[g.ptr]
    base = bld.ptrtoint(bld.load(ptr_slot, typ=em.types(ptr_t)), i64)
    addr = bld.add(base, bld.mul(offset, ir.Constant(i64, g.elem_bytes)))
    return misalignment(em, bld.inttoptr(addr, ir.PointerType()), g.size)


def _fixed(g: Group, c) -> dict[int, Fixed]:
    """Per store of the group in a version of class `c`: its misalignment
    (pieces), None (a plain store), or absent (not known: tested at the store)."""
    out: dict[int, Fixed] = {}
    step = AUTO_ALIGN if g.auto else rule(g.size).min_align
    for call, delta in g.sites:
        if c != OTHER:
            m = (c + delta) % g.size
            out[id(call)] = Fixed(m if m % step == 0 else None)
        elif g.auto or delta % step == 0:
            out[id(call)] = Fixed(None)
    return out


def _record(em, loop: A.While, groups: list[Group], peel) -> None:
    versions = copies(groups[0], groups[1:])
    leader = groups[0]
    decided = f"once per loop: {versions} versions of the main loop at lines {loop.span.line}-{loop.span.end_line}"
    if peel.ok:
        decided += (f"; before it, when the arrays are apart and no aligned input would lose its alignment, "
                    f"the tail runs on the elements before {leader.ptr}'s next {leader.size}-byte boundary "
                    "(peeled: the tail computes what the body does, element by element), so the loop starts "
                    "there, aligned")
    else:
        decided += f"; not peeled to alignment: {peel.why}"
    var = em.func.origin.var
    for k, g in enumerate(groups):
        how = decided if k == 0 else (f"{decided}, when {g.ptr} is at {groups[0].ptr}'s misalignment; "
                                      "otherwise at each store")
        for call, delta in g.sites:
            if g.auto:
                path = auto_describe(f"store (streaming) to {g.ptr}", g.size, how)
            else:
                path = describe(f"stream_store to {g.ptr}", call.args[2].ty, em.options, how, g.contiguous)
            index = _index_text(var, g, delta // g.elem_bytes)
            em.record_path(RuntimePath(call.span.line, path.what, f"the address of {g.ptr}[{index}] mod {g.size} "
                                       "(before the loop)", path.paths, how, loop_versions=versions,
                                       summary=path.summary))


def _index_text(var: str, g: Group, extra: int) -> str:
    """`i + 8`, `i + first + 8`: the index as an affine form."""
    parts = [var if g.coef == 1 else f"{g.coef}*{var}"] + [name if c == 1 else f"{c}*{name}" for name, c in g.terms]
    const = g.first_const + extra
    return " + ".join(parts) + (f" + {const}" if const > 0 else f" - {-const}" if const < 0 else "")
