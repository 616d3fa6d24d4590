"""Plain vector stores that stream past the cache on calls too big for it.

A kernel main loop that stores more in one call than the last-level cache
can keep gains nothing from caching what it writes: the first lines are
evicted before the call ends, and each plain store first reads its line for
ownership. Non-temporal stores skip that read. Measured through `ea.load`
(examples/leaky_relu.ea with `store` and with `stream_store`, x and out from
np.empty, repeated calls, medians; AMD EPYC Zen 3, 32 MiB L3), non-temporal
time / plain time by the bytes the call stores:
  1 MiB 1.30   2 MiB 1.32   4 MiB 1.11   8 MiB 0.95   16 MiB 0.81   32 MiB 0.71   64 MiB 0.65
So the loop is emitted twice and chosen once per call, by the bytes its
trips will store ((n - i) / step x the bytes of one trip): from the
threshold (Options.stream_threshold; by default half the last-level cache)
its stores are non-temporal (a copy of the loop per 16-byte misalignment of
the output, compiler/codegen/ntloop.py `AUTO_ALIGN`: full-width stores, or
16-byte pieces at NumPy's 16 bytes past a line; plain stores elsewhere),
then an sfence, so callers see ordinary stores; below it, as written.

Only stores the function never reads back qualify: the output parameter
appears only as the destination of stores (a read of it wants the lines in
the cache), the index advances by whole vectors (as ntloop.py's groups), and
the store runs on every trip of the main loop (its bytes are counted). x86
only: AArch64's stnp has not been measured.

Only exported kernels: their arguments are the caller's, which the bindings
check (outputs/bounds). A kernel called from Eä code gets arguments computed
there, and the bindings' proof takes that arithmetic as exact: with
examples/sobel.ea's `w - 2` wrapping at w = -2^31 (undefined behaviour in
the language), LLVM folded the loops of the kernel as written away, but not
the tail after a second copy, which read past the image (the call fuzzer,
tests/test_call_fuzz.py). A copy of the loop is a second place for such a
wrap to show; none is made where the bindings do not see the arguments."""
from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ..check.affine import AffineEnv, symbol
from ..cpu_levels import native_override
from ..host_caches import host_cache_sizes
from ..intrinsics import entry
from ..runtime_paths import RuntimePath
from ..syntax import ast as A
from ..typesys import model as T
from .lower.common import call_intrinsic

# Half of a 32 MiB L3 (the threshold measured above), for a CPU that is not the host.
DEFAULT_THRESHOLD = 16 << 20


@dataclass(frozen=True)
class AutoStream:
    calls: tuple[A.Call, ...]  # the stores that stream on a big call
    outputs: tuple[str, ...]  # their pointers
    trip_bytes: int  # bytes they store on one trip
    threshold: int  # bytes per call from which they stream
    elements: int  # the loop's elements from which they do: threshold / trip_bytes trips of `step`


def threshold(options) -> int:
    """Options.stream_threshold, else half the host's last-level cache when
    compiling for the host, else DEFAULT_THRESHOLD."""
    if options.stream_threshold is not None:
        return options.stream_threshold
    native = options.target_cpu in ("", "native") and options.target_triple is None
    llc = host_cache_sizes().get("L3") if native and native_override() is None else None
    return llc // 2 if llc else DEFAULT_THRESHOLD


def plan(em, loop: A.While) -> AutoStream | None:
    """The stores of a kernel's main loop that stream on a big call, or None."""
    kernel = em.func.origin
    if em.options.is_arm or kernel is None or not (loop.synthetic and loop.span == kernel.body.span):
        return None
    if not kernel.export:
        return None
    limit = threshold(em.options)
    if limit <= 0:
        return None
    decisions = em.module_emitter.decisions
    params = {p.name for p in em.func.params}
    written = _written_only(em.func, decisions, params)
    env = AffineEnv(kernel.var, params, em.module_emitter.const_values, lambda span: f"\0{span.start}")
    calls: list[A.Call] = []
    for s in loop.body.stmts:
        if getattr(s, "synthetic", False) or isinstance(s, (A.If, A.While, A.ForEach, A.For, A.Unroll)):
            continue  # a store under an `if` or in an inner loop does not run once per trip
        for e in A.children(s):
            if isinstance(e, A.Expr):
                calls.extend(c for c in A.walk([e]) if _streams(c, env, decisions, written, kernel.step))
        if isinstance(s, A.Let):
            env.bind(s)
        elif isinstance(s, A.Assign) and isinstance(s.target, A.Name):
            env.known[s.target.name] = None
    if not calls:
        return None
    outputs = tuple(dict.fromkeys(A.unparen(c.args[0]).name for c in calls))
    trip = sum(c.args[2].ty.bits // 8 for c in calls)
    elements = -(-limit // trip) * kernel.step
    if elements > 2 ** 31 - 1:
        return None  # the loop variable (i32) never gets there
    return AutoStream(tuple(calls), outputs, trip, limit, elements)


def _streams(x, env: AffineEnv, decisions, written: set[str], step: int) -> bool:
    """A vector `store` to an output parameter at an index that advances by whole vectors."""
    if not isinstance(x, A.Call) or len(x.args) != 3 or not isinstance(x.args[2].ty, T.Vector):
        return False
    intr = decisions.intrinsic_of(x)
    ptr = A.unparen(x.args[0])
    if intr is None or entry(intr).name != "store" or not isinstance(ptr, A.Name) or ptr.name not in written:
        return False
    if env.known.get(ptr.name) != symbol(ptr.name):
        return False
    form = env.form(x.args[1])
    if form is None or form.coef <= 0 or not all(env.known.get(k) == symbol(k) for k, _ in form.invariant):
        return False
    size, elem = x.args[2].ty.bits // 8, x.args[0].ty.pointee.bits // 8
    return size in (16, 32, 64) and (form.coef * step * elem) % size == 0


def _written_only(func: A.Func, decisions, params: set[str]) -> set[str]:
    """The pointer parameters `func` only stores through: every use is the
    destination of a storing intrinsic (the table's `Memory.stores`) or of an
    indexed assignment."""
    pointers = {p.name for p in func.params if isinstance(p.ty, T.Pointer)} & params
    allowed: set[int] = set()
    for node in A.walk(func.body.stmts):
        if isinstance(node, A.Call) and node.args:
            intr = decisions.intrinsic_of(node)
            if intr is not None and intr.memory is not None and intr.memory.stores:
                allowed.add(id(A.unparen(node.args[0])))
        elif isinstance(node, A.Assign) and isinstance(node.target, A.Index):
            allowed.add(id(A.unparen(node.target.base)))
    for node in A.walk(func.body.stmts):
        if isinstance(node, A.Name) and node.name in pointers and id(node) not in allowed:
            pointers.discard(node.name)
    return pointers


def emit(em, loop: A.While, auto: AutoStream, emit_loop) -> None:
    """The test, then the loop streaming (`emit_loop()` with the stores
    marked, an sfence after) or as written; `emit_loop` leaves the builder
    after its loop."""
    bld = em.builder
    kernel = em.func.origin
    var_slot, var_t = em.vars[kernel.var]
    bound_slot, bound_t = em.vars[kernel.bound]
    at = bld.load(var_slot, typ=em.types(var_t))
    n = em.convert_int(bld.load(bound_slot, typ=em.types(bound_t)), bound_t, var_t)
    # In the loop's own arithmetic (signed, no wrap: LANGUAGE.md), so LLVM
    # folds it as it folds the loop's condition `i + step <= n`.
    elements = bld.sub(n, at, flags=["nsw"])
    big = bld.icmp_signed(">=", elements, ir.Constant(elements.type, auto.elements))
    streaming = em.fn.append_basic_block("ntauto.stream")
    cached = em.fn.append_basic_block("ntauto.cached")
    end = em.fn.append_basic_block("ntauto.end")
    bld.cbranch(big, streaming, cached)
    saved = dict(em.vars)
    bld.position_at_end(streaming)
    em.nt_auto, em.nt_peeled = frozenset(id(c) for c in auto.calls), False
    try:
        emit_loop()
        peeled = em.nt_peeled
    finally:
        em.nt_auto = frozenset()
    call_intrinsic(em, "llvm.x86.sse.sfence", [], ir.VoidType(), [])
    bld.branch(end)
    em.vars = dict(saved)
    bld.position_at_end(cached)
    emit_loop()
    bld.branch(end)
    bld.position_at_end(end)
    em.record_path(_path(loop, auto, kernel.step, peeled))


def _size_text(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def _path(loop: A.While, auto: AutoStream, step: int, peeled: bool) -> RuntimePath:
    outs = ", ".join(auto.outputs)
    limit = _size_text(auto.threshold)
    what = f"store to {outs} (main loop, lines {loop.span.line}-{loop.span.end_line})"
    condition = f"the bytes the call's main loop stores, (n - i) / {step} trips x {auto.trip_bytes} bytes"
    paths = ((f">= {limit}", f"non-temporal stores to {outs} (16-byte-aligned addresses), then sfence"),
             (f"< {limit}", "plain stores, as written"))
    return RuntimePath(loop.span.line, what, condition, paths, "once per call: 2 versions of the main loop",
                       loop_versions=2, summary=f"non-temporal when a call stores >= {limit} (--stream-threshold)",
                       main_copy="plain", stream=(auto.threshold, auto.trip_bytes, step, peeled))


def describe(what: str, size: int, decided: str) -> RuntimePath:
    """A streaming plain store's paths in its copies of the loop (ntloop.py, AUTO_ALIGN)."""
    paths = [(f"{size}-byte aligned", f"one {size}-byte non-temporal store")]
    others = list(range(16, size, 16))
    if others:
        paths.append((" or ".join(str(m) for m in others) + f" mod {size}",
                      f"{size // 16} aligned 16-byte non-temporal stores"))
    paths.append(("not 16-byte aligned", "a plain store (the loop as written)"))
    return RuntimePath(None, what, f"the address mod {size}", tuple(paths), decided,
                       summary=f"non-temporal at 16-byte-aligned addresses, else plain")
