"""Which `while` loops can be unrolled, and what their bodies hold: the
index and its step, the accumulators (reductions that can be split into
independent partial results: compiler/check/accumulators.py says which)
and the locals declared in the body.

The shape (LANGUAGE.md §4): `while I + K <= N { ...; I = I + K }` with `I`
a mutable integer local, `K` a positive constant, `N` free of side effects
and of anything the body assigns, and `I` assigned nowhere else; or
`while I < N { ...; I = I + 1 }`, the same loop when the step is 1 (with a
larger step `I < N` also runs a last, partial step). A loop that holds a
loop is left alone (unrolling it copies the inner loop, which gains
nothing), and so is a loop finishing what an earlier loop over the same
index and bound left (fewer iterations than that loop's step)."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...check.accumulators import Accumulator, accumulators
from ...syntax import ast as A
from ...typesys import model as T
from .base import NotApplicable


@dataclass(frozen=True)
class WhileLoop:
    node: A.While
    index: str  # I
    step: A.Expr  # K
    step_value: int  # K's value
    bound: A.Expr  # N
    advance: A.Assign  # the final `I = I + K`
    work: tuple  # the body's statements before the advance
    accumulators: tuple[Accumulator, ...]
    lets: tuple[str, ...]  # names declared in the body, in order
    start: int  # where the statement holding the loop starts (an `unroll(N)` hint in front included)
    strict: bool = False  # written `I < N` (step 1): the unrolled loop tests `I + k <= N`


_PURE = (A.Name, A.IntLit, A.Paren, A.Binary, A.Unary, A.Field)


@dataclass
class Scope:
    """What the loop analyses read from the whole function, gathered in one
    pass so each loop's analysis costs the loop, not the function: the block
    each statement is written in, the `unroll(N)` hint of each hinted loop,
    and every name read or written (in walk order), by name."""
    func: object  # A.Func | A.Kernel
    blocks: dict  # id(statement) -> the statement list it is written in (a hinted loop: its hint's)
    hints: dict  # id(loop) -> its A.Unroll
    names: dict  # name -> [(walk position, A.Name)]

    def block_of(self, stmt) -> list:
        """The statement list `stmt` is written in (a function's body, a branch, a
        loop body), directly or under an `unroll(N)` hint."""
        found = self.blocks.get(id(stmt))
        if found is None:
            raise NotApplicable("the loop is not in a block of the function")
        return found

    def names_outside(self, wanted, node) -> list[A.Name]:
        """The Name nodes called one of `wanted` outside `node`'s span, in walk order."""
        out = [(i, n) for name in set(wanted) for i, n in self.names.get(name, ())
               if not node.span.start <= n.span.start < node.span.end]
        return [n for _, n in sorted(out, key=lambda x: x[0])]


def scope_of(func) -> Scope:
    roots = [func.body] + ([func.tail_body] if isinstance(func, A.Kernel) and func.tail_body else [])
    blocks: dict = {}
    hints: dict = {}
    names: dict = {}
    for i, node in enumerate(A.walk(roots)):
        if isinstance(node, A.Block):
            for s in node.stmts:
                blocks.setdefault(id(s), node.stmts)
                if isinstance(s, A.Unroll):
                    blocks.setdefault(id(s.loop), node.stmts)
        elif isinstance(node, A.Unroll):
            hints.setdefault(id(node.loop), node)
        elif isinstance(node, A.Name):
            names.setdefault(node.name, []).append((i, node))
    return Scope(func, blocks, hints, names)


def loops_of(func) -> list[A.While]:
    """The `while` loops of a function or kernel body, in source order."""
    found = [s for s in A.statements(func.body.stmts) if isinstance(s, A.While)]
    return sorted(found, key=lambda w: w.span.start)


def const_value(analysis: Analysis, e) -> int | None:
    """The value of an integer expression made of literals and `const`s, or None."""
    e = A.unparen(e)
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Name):
        sym = analysis.symbol_at(e.span.start)
        return sym.value if sym is not None and sym.kind == "const" and isinstance(sym.value, int) else None
    if isinstance(e, A.Unary) and e.op == "-":
        v = const_value(analysis, e.operand)
        return None if v is None else -v
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
        a, b = const_value(analysis, e.left), const_value(analysis, e.right)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def _is_name(e, name: str) -> bool:
    e = A.unparen(e)
    return isinstance(e, A.Name) and e.name == name


def names_in(roots) -> list[A.Name]:
    return [n for n in A.walk(roots) if isinstance(n, A.Name)]


def assigned_in(stmts) -> set[str]:
    """Names assigned or declared anywhere in `stmts` (the root variable of a
    field or element assignment counts: `s.len = ...` assigns `s`)."""
    out: set[str] = set()
    for s in A.statements(stmts):
        if isinstance(s, A.Assign):
            root = s.target
            while isinstance(root, (A.Field, A.Index)):
                root = root.base
            if isinstance(root, A.Name):
                out.add(root.name)
        elif isinstance(s, A.Let):
            out.add(s.name)
        elif isinstance(s, (A.For, A.ForEach)):
            out.add(s.var)
    return out


def is_pure(e) -> bool:
    return all(isinstance(n, _PURE) for n in A.walk([e]))


def analyse_while(analysis: Analysis, scope: Scope, w: A.While) -> WhileLoop:
    """The loop's plan, or NotApplicable saying why it cannot be unrolled."""
    cond = A.unparen(w.cond)
    head = A.unparen(cond.left) if isinstance(cond, A.Binary) else None
    strict = isinstance(cond, A.Binary) and cond.op == "<" and isinstance(head, A.Name)
    if not strict and not (isinstance(cond, A.Binary) and cond.op == "<=" and isinstance(head, A.Binary)
                           and head.op == "+" and isinstance(A.unparen(head.left), A.Name)):
        raise NotApplicable("the loop condition is not of the form `i + step <= n` (or `i < n` with step 1)")
    var = head if strict else A.unparen(head.left)
    index, bound = var.name, cond.right
    ty = var.ty
    sym = analysis.symbol_at(var.span.start)
    if not (isinstance(ty, T.Scalar) and ty.is_integer and sym is not None and sym.kind == "local"):
        raise NotApplicable(f"'{index}' is not a mutable integer local")
    stmts = w.body.stmts
    last = stmts[-1] if stmts else None
    if not (isinstance(last, A.Assign) and _is_name(last.target, index)):
        raise NotApplicable(f"the loop body does not end with `{index} = {index} + step`")
    inc = A.unparen(last.value)
    if not (isinstance(inc, A.Binary) and inc.op == "+" and _is_name(inc.left, index)):
        raise NotApplicable(f"the loop body does not end with `{index} = {index} + step`")
    if strict and const_value(analysis, inc.right) != 1:
        raise NotApplicable(f"the loop tests `{index} < n` but advances '{index}' by more than 1 "
                            "(its last step may be partial)")
    step = inc.right if strict else head.right
    k = const_value(analysis, step)
    if k is None or k <= 0:
        raise NotApplicable("the step is not a positive constant")
    if const_value(analysis, inc.right) != k:
        raise NotApplicable(f"the loop advances '{index}' by a different step than its condition tests")
    work = tuple(stmts[:-1])
    if not work:
        raise NotApplicable("the loop body does nothing but advance the index")
    for s in A.statements(work):
        if isinstance(s, A.Return):
            raise NotApplicable("the loop body returns")
        if isinstance(s, (A.While, A.For, A.ForEach)):
            raise NotApplicable("the loop body holds a loop (unroll the inner loop instead)")
    _not_a_remainder(analysis, scope, w, index, bound)
    assigned = assigned_in(work)
    if index in assigned:
        raise NotApplicable(f"the loop body assigns or redeclares '{index}' besides advancing it")
    if not is_pure(bound) or not is_pure(step):
        raise NotApplicable("the loop bound or step has side effects")
    if any(n.name in assigned for n in names_in([bound, step])):
        raise NotApplicable("the loop body changes the loop bound")
    if any(n.name == index for n in names_in([bound])):
        raise NotApplicable(f"the loop bound depends on '{index}'")
    # Outside the loop, a body local would read the last copy's value, not the last step's.
    declared = [s.name for s in A.statements(work) if isinstance(s, A.Let)]
    lets = body_lets(work, scope.names_outside(declared, w))
    accs = tuple(accumulators(analysis.decisions, work, exclude={index}))
    hinted = scope.hints.get(id(w))
    start = w.span.start if hinted is None else hinted.span.start
    return WhileLoop(w, index, step, k, bound, last, work, accs, tuple(lets), start, strict)


def _not_a_remainder(analysis: Analysis, scope: Scope, w: A.While, index: str, bound) -> None:
    """NotApplicable when the statements before `w` in its block end with a
    loop over `index` to the same bound, with `index` not reset since: `w`
    then runs the fewer-than-a-step iterations that loop left."""
    siblings = scope.block_of(w)
    before = siblings[:next(n for n, s in enumerate(siblings) if _holds(s, w))]
    text = analysis.source.data[bound.span.start:bound.span.end]
    for s in reversed(before):
        loop = s.loop if isinstance(s, A.Unroll) else s
        if not isinstance(loop, A.While) or index not in assigned_in(loop.body.stmts):
            if index in assigned_in([s]):
                return
            continue
        cond = A.unparen(loop.cond)
        if isinstance(cond, A.Binary) and cond.op in ("<", "<=") \
                and analysis.source.data[cond.right.span.start:cond.right.span.end] == text:
            raise NotApplicable(f"the loop runs what the loop at line {loop.span.line} leaves "
                                f"(fewer iterations than its step)")
        return


def _holds(s, stmt) -> bool:
    return s is stmt or (isinstance(s, A.Unroll) and s.loop is stmt)


def body_lets(work, later) -> list[str]:
    """The names the body declares (each gets a fresh name per copy). Refused
    when the copies could not keep their meaning: a name declared twice, read
    before its declaration (the previous iteration's value), or read in
    `later` (Name nodes outside the loop)."""
    lets: list[str] = []
    names = names_in(work)
    for s in A.statements(work):
        if not isinstance(s, A.Let):
            continue
        if s.name in lets:
            raise NotApplicable(f"the loop body declares '{s.name}' twice")
        if any(n.name == s.name and n.span.start < s.span.start for n in names):
            raise NotApplicable(f"the loop body reads '{s.name}' before declaring it")
        lets.append(s.name)
    after = [n for n in later if n.name in lets]
    if after:
        raise NotApplicable(f"'{after[0].name}', declared in the loop, is used outside it")
    return lets


def loop_refusals(analysis: Analysis, item, analyse, none: str) -> str:
    """Why no `while` loop of `item` takes a transformation: the first two
    loops' reasons (`analyse(analysis, scope, loop)` raises NotApplicable),
    or `none` when the function has no loop."""
    scope = scope_of(item)
    reasons = []
    for w in loops_of(item):
        try:
            analyse(analysis, scope, w)
        except NotApplicable as err:
            reasons.append(f"line {w.span.line}: {err}")
    return "; ".join(reasons[:2]) or none
