"""Lint: a kernel body whose stores do not cover its step (warning
`kernel-coverage`).

Each trip of a kernel's main loop owns the elements [i, i+step) of every
output it writes. The stores in the body (`store`, `stream_store`,
`store_masked` with a constant count, `out[i] = ...`) are collected per
output pointer with their index as an affine form in `i`
(compiler/check/affine.py); where they leave part of the step unwritten, or
write outside it, the first such store is reported, naming the width it
writes and, when that width is the 4-lane default of a context-typed call
(LANGUAGE.md §5.6), the call it comes from. An output whose writes cannot
be followed (an index not affine in `i`, the pointer passed to a function or
copied) is not judged.

Runs on the typed, desugared tree: the body is the main `while` that
desugaring made from the kernel (compiler/desugar.py).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import intrinsics
from ..diagnostics import Label, Suggestion
from ..syntax import ast as A
from ..typesys import model as T
from ..typesys.vectors import VECTORS, target_error
from .affine import Affine, AffineEnv
from .consteval import ConstError, evaluate
from .decisions import Decisions

STORES = frozenset(("store", "stream_store", "store_masked"))
_MAX_STEP = 4096  # wider steps are not worth tracking element by element


@dataclass
class Store:
    ptr: str
    index: A.Expr
    form: Affine
    lanes: int
    what: str  # "4 lanes (f32x4)" / "1 element"
    node: object  # the Call or the Assign
    value: A.Expr | None  # the stored vector, for store/stream_store
    origin: A.Call | None = None  # the context-typed call whose 4-lane default it has


def lint_coverage(func: A.Func, checker) -> None:
    k = func.origin
    main = _main_loop(func)
    if main is None or k.step > _MAX_STEP:
        return
    body = [s for s in main.body.stmts if not getattr(s, "synthetic", False)]
    invariants = {p.name for p in func.params}
    env = AffineEnv(k.var, invariants, checker.const_values, checker.source.text_of)
    walker = _Walker(checker.const_values, checker.decisions)
    walker.block(body, env)
    by_ptr: dict[str, list[Store]] = {}
    for s in walker.stores:
        by_ptr.setdefault(s.ptr, []).append(s)
    for ptr, stores in by_ptr.items():
        if ptr in walker.escaped:
            continue
        groups: dict[tuple, list[Store]] = {}
        for s in stores:
            if s.form.coef > 0:
                groups.setdefault((s.form.coef, s.form.invariant), []).append(s)
            elif s.form.coef < 0:
                groups = {}
                break
        for (coef, _), group in groups.items():
            _judge(checker, func, ptr, coef, group, walker.stores)


def _main_loop(func: A.Func) -> A.While | None:
    stmts = func.body.stmts
    if len(stmts) >= 2 and isinstance(stmts[1], A.While) and stmts[1].synthetic:
        return stmts[1]
    return None


class _Walker:
    """Collects the body's stores and the pointers whose writes it cannot follow."""

    def __init__(self, consts: dict, decisions: Decisions):
        self.consts = consts
        self.decisions = decisions
        self.stores: list[Store] = []
        self.escaped: set[str] = set()

    def block(self, stmts, env: AffineEnv) -> None:
        for s in stmts:
            self.stmt(s, env)

    def stmt(self, s, env: AffineEnv) -> None:
        if isinstance(s, A.Let):
            self.expr(s.value, env)
            env.bind(s)
        elif isinstance(s, A.Assign):
            self.assign(s, env)
        elif isinstance(s, A.ExprStmt):
            self.expr(s.expr, env)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.expr(s.value, env)
        elif isinstance(s, A.If):
            self.expr(s.cond, env)
            self.block(s.then.stmts, env.child())
            if isinstance(s.orelse, A.Block):
                self.block(s.orelse.stmts, env.child())
            elif s.orelse is not None:
                self.stmt(s.orelse, env.child())
        elif isinstance(s, A.While):
            self.expr(s.cond, env)
            self.block(s.body.stmts, env.child())
        elif isinstance(s, A.ForEach):
            self.expr(s.start, env)
            self.expr(s.end, env)
            inner = env.child()
            inner.known[s.var] = None
            self.block(s.body.stmts, inner)
        elif isinstance(s, A.Unroll):
            self.stmt(s.loop, env)

    def assign(self, s: A.Assign, env: AffineEnv) -> None:
        target = s.target
        self.expr(s.value, env)
        if isinstance(target, A.Name):
            env.known[target.name] = None
            return
        if isinstance(target, A.Index) and _mut_ptr_name(target.base):
            self.expr(target.index, env)
            self.add(target.base.name, target.index, env, 1, "1 element", s, None)
            return
        self.expr(target, env)
        base = target
        while isinstance(base, (A.Field, A.Index)):  # a field of out[i]: part of an element
            base = base.base
        if _mut_ptr_name(base):
            self.escaped.add(base.name)

    def add(self, ptr: str, index: A.Expr, env: AffineEnv, lanes: int, what: str, node, value,
            origin=None) -> None:
        form = env.form(index)
        if form is None or lanes <= 0:
            self.escaped.add(ptr)
        else:
            self.stores.append(Store(ptr, index, form, lanes, what, node, value, origin))

    def expr(self, e, env: AffineEnv) -> None:
        """Find store calls and pointers used other than to read or store."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, A.Call):
                args = x.args
                intr = self.decisions.intrinsic_of(x)
                name = intr.name if intr is not None else ""  # a user function's call: pointers escape
                if name in STORES and args and _mut_ptr_name(args[0]):
                    self.store_call(x, env)
                    stack.extend(args[1:])
                elif (name.startswith("load") or name in ("gather", "prefetch")) and args:
                    if not isinstance(args[0], A.Name):
                        stack.append(args[0])
                    stack.extend(args[1:])
                else:
                    stack.extend(args)
            elif isinstance(x, A.Name):
                if _mut_ptr_name(x):
                    self.escaped.add(x.name)  # passed on or copied: its writes are out of sight
            elif isinstance(x, A.Index):
                if not isinstance(x.base, A.Name):
                    stack.append(x.base)
                stack.append(x.index)
            elif isinstance(x, A.Binary):
                stack.extend((x.left, x.right))
            elif isinstance(x, A.Unary):
                stack.append(x.operand)
            elif isinstance(x, A.Paren):
                stack.append(x.inner)
            elif isinstance(x, A.Field):
                stack.append(x.base)
            elif isinstance(x, A.StructLit):
                stack.extend(f.value for f in x.fields)
            elif isinstance(x, A.VectorLit):
                stack.extend(x.elems)

    def store_call(self, call: A.Call, env: AffineEnv) -> None:
        ptr = call.args[0].name
        want = 4 if call.name == "store_masked" else 3
        if len(call.args) != want:
            self.escaped.add(ptr)
            return
        value = call.args[2]
        t = value.ty
        origin = None
        if isinstance(t, T.Vector):
            origin = width_origin(value, self.decisions) if t.lanes == 4 else None
            inferred = f", inferred: `{origin.name}` defaults to 4 lanes here" if origin is not None else ""
            lanes, what = t.lanes, f"{t.lanes} lanes ({t}{inferred})"
        elif isinstance(t, T.Scalar) and call.name == "stream_store":
            lanes, what = 1, "1 element"
        else:
            self.escaped.add(ptr)
            return
        if call.name == "store_masked":
            try:
                count = evaluate(call.args[3], self.consts)
            except ConstError:
                count = None
            if not isinstance(count, int) or isinstance(count, bool):
                self.escaped.add(ptr)
                return
            lanes = min(lanes, count)
            what = f"{lanes} lanes ({t} masked to {count})"
            value = origin = None
        self.add(ptr, call.args[1], env, lanes, what, call, value, origin)


def _mut_ptr_name(e) -> bool:
    return isinstance(e, A.Name) and isinstance(e.ty, T.Pointer) and e.ty.mutable


# ---- where a width comes from ----

def width_origin(e: A.Expr, decisions: Decisions) -> A.Call | None:
    """The context-typed call whose default width `e` has, or None when an
    explicitly typed operand fixes it (a `let` type, `load_f32x8`, ...)."""
    e = A.unparen(e)
    if isinstance(e, A.Call):
        if decisions.inferred_type(e) is not None:
            return e
        if decisions.intrinsic_of(e) is None:
            return None
        vectors = [a for a in e.args if isinstance(a.ty, T.Vector)]
        if not vectors or not isinstance(e.ty, T.Vector) or any(a.ty.lanes != e.ty.lanes for a in vectors):
            return None
        origins = [width_origin(a, decisions) for a in vectors]
        return origins[0] if all(origins) else None
    if isinstance(e, A.Unary):
        return width_origin(e.operand, decisions)
    if isinstance(e, A.Binary):
        left, right = width_origin(e.left, decisions), width_origin(e.right, decisions)
        return left if left is not None and right is not None else None
    return None


def _leaves(e: A.Expr, decisions: Decisions) -> list[A.Expr] | None:
    """Leaves of a tree of operators over context-typed calls, leftmost
    first; None when anything else is in it. Such a tree takes its width
    from an expected type or from its leftmost leaf (§5.6)."""
    out: list[A.Expr] = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Paren):
            stack.append(x.inner)
        elif isinstance(x, A.Unary):
            stack.append(x.operand)
        elif isinstance(x, A.Binary):
            stack.extend((x.right, x.left))
        elif isinstance(x, A.Call) and decisions.inferred_type(x) is not None:
            out.append(x)
        else:
            return None
    return out


# ---- the verdict ----

def _spans(offsets: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for k in sorted(offsets):
        if out and out[-1][1] == k - 1:
            out[-1] = (out[-1][0], k)
        else:
            out.append((k, k))
    return out


def _gaps(written: set[int], lo: int, hi: int) -> list[tuple[int, int]]:
    """The spans (first, last) of [lo, hi) that `written` leaves out."""
    out, at = [], lo
    for x in sorted(w for w in written if lo <= w < hi):
        if x > at:
            out.append((at, x - 1))
        at = x + 1
    if at < hi:
        out.append((at, hi - 1))
    return out


def _judge(checker, func: A.Func, ptr: str, coef: int, group: list[Store], every: list[Store]) -> None:
    k = func.origin
    width = coef * k.step
    simple = coef == 1 and not group[0].form.invariant
    base_const = 0 if simple else min(s.form.const for s in group)
    base = k.var if simple else _index_text(checker, next(s for s in group if s.form.const == base_const))

    def at(offset: int) -> str:
        d = offset - base_const
        sep = "" if base.isidentifier() else " "
        return base if d == 0 else f"{base}{sep}{'+' if d > 0 else '-'}{sep}{abs(d)}"

    def ranges(offsets=None, spans=None) -> str:
        spans = _spans(list(offsets)) if spans is None else spans
        return ", ".join(at(a) if a == b else f"{at(a)}..{at(b)}" for a, b in spans)

    lo, hi = base_const, base_const + width
    written: set[int] = set()
    for s in group:
        written.update(range(s.form.const, s.form.const + s.lanes))
    missing = _gaps(written, lo, hi)  # spans: the step may be wider than memory holds elements
    before = [x for x in written if x < lo]
    after = [x for x in written if x >= hi]
    if not (missing or before or after):
        return
    steps = f"the kernel steps by {k.step}" if coef == 1 else \
        f"each step covers {width} elements of '{ptr}' ({coef} per step of {k.step})"
    problems = []
    if missing:
        problems.append(f"element {ranges(spans=missing)} is never written" if missing == [(missing[0][0],) * 2]
                        else f"elements {ranges(spans=missing)} are never written")
    if after:
        problems.append(f"elements {ranges(after)} lie past the step (written again by the next step; "
                        "on the last step, past the end)")
    if before:
        problems.append(f"elements {ranges(before)} lie before the step")
    primary = next((s for s in group if _inferred_store(s)), group[0])
    if len(group) == 1:
        head = f"this store writes {primary.what} at {at(primary.form.const)}"
    else:
        parts = ", ".join(ranges(range(s.form.const, s.form.const + s.lanes)) for s in group)
        head = f"the stores to '{ptr}' write {parts}"
    labels = [Label(s.node.span, f"this store writes {ranges(range(s.form.const, s.form.const + s.lanes))}")
              for s in group if s is not primary]
    fixes = _fixes(checker, func, primary, width) if len(group) == 1 and missing and not (before or after) \
        and primary.form.const == lo and coef == 1 else []
    if not fixes and simple and len(group) == 1 and missing and not (before or after) and primary.form.const == 0 \
            and not _inferred_store(primary):  # the width is written: the step is what disagrees
        fixes = _step_fix(checker, k, primary.lanes, every)
    checker.sink.warning("type", "kernel-coverage", f"{head}, but {steps}: " + "; ".join(problems),
                         primary.node.span, labels=labels, suggestions=fixes)


def _step_fix(checker, k: A.Kernel, lanes: int, every: list[Store]) -> list[Suggestion]:
    """`step 16` around one f32x8 store: `step 8`, when that is certainly
    what was meant: every store of the body writes those lanes at the
    kernel's index, and every other access of the body reads at most as many
    lanes there (a narrower step must not read past the end)."""
    if k.step % lanes or any(s.form.coef != 1 or s.form.invariant or s.form.const or s.lanes != lanes
                             for s in every):
        return []
    for node in A.walk([k.body]):
        index = None
        if isinstance(node, A.Index):
            index, touched = node.index, 1
        elif isinstance(node, A.Call):
            intr = checker.decisions.intrinsic_of(node)
            memory = intr.memory if intr is not None else None
            if memory is None or memory.kind in ("hint", "view"):
                continue
            if memory.kind != "touch" or memory.index is None or memory.index >= len(node.args):
                return []
            index = node.args[memory.index]
            shaped = node.args[memory.lanes].ty if memory.lanes is not None and memory.lanes < len(node.args) \
                else node.ty
            touched = shaped.lanes if isinstance(shaped, T.Vector) else 1
        else:
            continue
        index = A.unparen(index)
        if not (isinstance(index, A.Name) and index.name == k.var) or touched > lanes:
            return []
    return [Suggestion(k.step_span, str(lanes), f"step by {lanes}, the lanes the store writes")]


def _inferred_store(s: Store) -> bool:
    return s.origin is not None


def _index_text(checker, s: Store) -> str:
    text = " ".join(checker.source.text_of(s.index.span).split())
    return text if isinstance(s.index, (A.Name, A.Paren, A.Call)) else f"({text})"


def _fixes(checker, func: A.Func, s: Store, width: int) -> list[Suggestion]:
    """`load_f32x8(...)` for the leading `load`, or an explicit `let v: f32x8`:
    offered only when the stored value is operators over context-typed
    calls, so the new width reaches every one of them."""
    value = s.value
    if value is None or not _inferred_store(s):
        return []
    leaves = _leaves(value, checker.decisions)
    elem = value.ty.elem
    name = f"{elem}x{width}"
    if not leaves or name not in VECTORS or \
            target_error(name, checker.options.is_arm, checker.options.fp16) is not None:
        return []
    fixes = []
    first = leaves[0]
    if first.name == "load" and intrinsics.lookup(f"load_{name}") is not None:
        fixes.append(Suggestion(first.name_span, f"load_{name}", f"load {width} lanes: load_{name}(...)"))
    let = _let_fix(checker, func, s, name)
    if let is not None:
        fixes.append(let)
    return fixes


def _let_fix(checker, func: A.Func, s: Store, type_name: str) -> Suggestion | None:
    """Replace `store(out, i, E)` on its own line by `let v: T = E` and
    `store(out, i, v)`."""
    source = checker.source
    call = s.node
    line = source.line_text(call.span.line)
    indent = line[: len(line) - len(line.lstrip())]
    if call.span.col != len(indent) + 1 or call.span.end_line != call.span.line:
        return None
    taken = local_names(func) | set(checker.consts)
    name = next(n for n in (f"v{k}" if k else "v" for k in range(len(taken) + 2)) if n not in taken)
    value = s.value
    head = source.data[call.span.start:value.span.start].decode("utf-8", "replace")
    tail = source.data[value.span.end:call.span.end].decode("utf-8", "replace")
    replacement = f"let {name}: {type_name} = {source.text_of(value.span)}\n{indent}{head}{name}{tail}"
    return Suggestion(call.span, replacement, f"declare the width: let {name}: {type_name} = ...")


def local_names(func: A.Func) -> set[str]:
    """Parameter and `let` names of a function, at any depth."""
    names = {p.name for p in func.params}
    for s in A.statements(func.body.stmts):
        if isinstance(s, A.Let):
            names.add(s.name)
        elif isinstance(s, A.ForEach):
            names.add(s.var)
    return names
