"""What the loop-level transformations (widen, prefetch, stream_store,
restrict) read from a function's source tree: its indexed loops, the memory
accesses in them and its pointer parameters. Everything comes from the
non-desugared AST and the checker's records; memory accesses are recognised
by the intrinsic table's parameter names (`ptr, index`: a load or a store at
an element index; `ptr, offset`: a prefetch hint), not by a list of names."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...intrinsics import Intrinsic
from ...syntax import ast as A
from ...typesys import model as T


@dataclass
class Loop:
    """A loop advanced by an index variable: a kernel (its header is the
    loop), a `while` whose body ends its iteration with `I = I + STEP`, or a
    `for` with a step."""
    node: object  # A.Kernel | A.While | A.For
    var: str
    step: A.Expr | int | None  # the increment: an expression, or the literal of a kernel/for header
    body: A.Block
    update: A.Assign | None = None  # the `I = I + STEP` statement of a while loop
    nested_in: "Loop | None" = field(default=None, repr=False)

    @property
    def line(self) -> int:
        return self.node.span.line

    @property
    def main(self) -> bool:
        """A main loop: a kernel, or a loop stepping by more than the literal 1
        (a scalar remainder loop is not one)."""
        if isinstance(self.node, A.Kernel):
            return True
        step = self.step if isinstance(self.step, int) else A.unparen(self.step)
        return not (step == 1 or isinstance(step, A.IntLit) and step.value == 1)


def index_loops(item) -> list[Loop]:
    """The indexed loops of a function or kernel, outermost first."""
    out: list[Loop] = []
    if isinstance(item, A.Kernel):
        top = Loop(item, item.var, item.step, item.body)
        out.append(top)
        _collect(item.body.stmts, top, out)
    else:
        _collect(item.body.stmts, None, out)
    return out


def _collect(stmts, outer: Loop | None, out: list[Loop]) -> None:
    for s in stmts:
        loop = s.loop if isinstance(s, A.Unroll) else s
        found = None
        if isinstance(loop, A.While):
            found = _while_loop(loop)
        elif isinstance(loop, A.For):
            found = Loop(loop, loop.var, loop.step, loop.body)
        if found is not None:
            found.nested_in = outer
            out.append(found)
        if isinstance(loop, (A.While, A.For, A.ForEach)):
            _collect(loop.body.stmts, found or outer, out)
        elif isinstance(s, A.If):
            _collect(s.then.stmts, outer, out)
            if s.orelse is not None:
                _collect(s.orelse.stmts if isinstance(s.orelse, A.Block) else [s.orelse], outer, out)


def _while_loop(w: A.While) -> Loop | None:
    """`while ... I ... { ...  I = I + STEP }` with I in the condition."""
    for s in w.body.stmts:
        if not (isinstance(s, A.Assign) and isinstance(s.target, A.Name)):
            continue
        var, v = s.target.name, A.unparen(s.value)
        if isinstance(v, A.Binary) and v.op == "+" and isinstance(A.unparen(v.left), A.Name) \
                and A.unparen(v.left).name == var and var in names_in(w.cond):
            return Loop(w, var, v.right, w.body, s)
    return None


def names_in(e) -> set[str]:
    return {n.name for n in A.walk([e]) if isinstance(n, A.Name)}


def own_nodes(body: A.Block):
    """The statements and expressions of a loop body, branches included,
    nested loops left out (their accesses belong to them); source order."""
    found = []
    stack = list(reversed(body.stmts))
    while stack:
        s = stack.pop()
        found.append(s)
        if isinstance(s, A.If):
            found += _exprs(s.cond)
            rest = [] if s.orelse is None else s.orelse.stmts if isinstance(s.orelse, A.Block) else [s.orelse]
            stack += list(reversed(s.then.stmts + rest))
        elif isinstance(s, (A.While, A.For, A.ForEach, A.Unroll)):
            continue
        else:
            found += _exprs(s)
    return found


def _exprs(x) -> list:
    nodes = [n for n in A.walk(A.children(x) if not isinstance(x, A.Expr) else [x])]
    return sorted((n for n in nodes if isinstance(n, A.Expr)), key=lambda n: n.span.start)


def is_access(intr: Intrinsic | None) -> bool:
    """A contiguous load or store at (ptr, index)."""
    return intr is not None and intr.params[:2] == ("ptr", "index")


def is_hint(intr: Intrinsic | None) -> bool:
    """A prefetch hint at (ptr, offset)."""
    return intr is not None and intr.params[:2] == ("ptr", "offset")


def writes(intr: Intrinsic | None) -> bool:
    """Stores through its pointer argument (a value or vector parameter)."""
    return intr is not None and intr.params[:1] == ("ptr",) and bool({"vector", "value"} & set(intr.params))


def pointer_params(item) -> dict[str, A.Param]:
    """The parameters of pointer type, by name, unless a `let` rebinds the name."""
    rebound = {s.name for s in A.statements(item.body.stmts) if isinstance(s, A.Let)}
    return {p.name: p for p in item.params if isinstance(p.ty, T.Pointer) and p.name not in rebound}


def pointer_name(e) -> str | None:
    e = A.unparen(e)
    return e.name if isinstance(e, A.Name) else None
