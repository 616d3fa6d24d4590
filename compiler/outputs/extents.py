"""Which pointer arguments provably hold at least `n` elements: those a
`kernel ... over i in n` (or a function's top-level `for i in 0..n` /
`foreach (i in 0..n)`, `n` a parameter) indexes by its loop variable itself
(`p[i]`, `load(p, i)`, `store(p, i, v)` and every other `(ptr, index, ...)`
intrinsic) — the code touches `p[i]` for every `i` the loop visits, up to `n`.
Bindings check exactly these lengths (an array that is too short would be
read or written out of bounds) and no others: an array passed beside them
(a lookup table, a matrix of `k * k` entries) may have any length.

Written to `.ea.json` as the extension field `"min_lengths"` of an export."""
from __future__ import annotations

from ..intrinsics import lookup
from ..syntax import ast as A


def min_lengths(func: A.Func) -> dict[str, str]:
    """{pointer parameter: name of the bound it is indexed up to}, in parameter order."""
    pointers = {p.name for p in func.params if isinstance(p.type, A.PointerType)}
    found: dict[str, str] = {}
    k = func.origin
    if isinstance(k, A.Kernel):
        for block in (k.body, k.tail_body):
            if block is not None:
                found |= {p: k.bound for p in _indexed(block, k.var, pointers)}
    else:
        for var, bound, body in _counting_loops(func):
            found |= {p: bound for p in _indexed(body, var, pointers) if p not in found}
    return {p.name: found[p.name] for p in func.params if p.name in found}


def _counting_loops(func: A.Func):
    """(var, bound, body) of the loops `for i in 0..n` / `foreach (i in 0..n)`
    (step 1, `n` a parameter) at the top level of a function, before any
    `return`: they run for every i in [0, n)."""
    params = {p.name for p in func.params}
    stmts = func.body.stmts
    for k, stmt in enumerate(stmts):
        if any(isinstance(x, A.Return) for x in A.walk([stmt])):
            return
        if (isinstance(stmt, A.ForEach) and _is_zero(stmt.start) and isinstance(stmt.end, A.Name)
                and stmt.end.name in params):
            yield stmt.var, stmt.end.name, stmt.body
        elif isinstance(stmt, A.While) and stmt.synthetic and k > 0:
            loop = _desugared_for(stmts[k - 1], stmt, params)
            if loop is not None:
                yield loop


def _desugared_for(init, loop: A.While, params: set[str]):
    """`let mut i: i32 = 0; while i < n { ...; i = i + 1 }` as desugar.py writes `for`."""
    if not (isinstance(init, A.Let) and init.synthetic and _is_zero(init.value)):
        return None
    cond, var = loop.cond, init.name
    if not (isinstance(cond, A.Binary) and cond.op == "<" and _is(cond.left, var)
            and isinstance(cond.right, A.Name) and cond.right.name in params):
        return None
    body = loop.body.stmts
    step = body[-1] if body else None
    if not (isinstance(step, A.Assign) and step.synthetic and isinstance(step.value, A.Binary)
            and isinstance(step.value.right, A.IntLit) and step.value.right.value == 1):
        return None
    if any(isinstance(x, A.Assign) and _is(x.target, var) for x in A.walk(body[:-1])):
        return None
    return var, cond.right.name, A.Block(body[:-1], loop.body.span)


def _is_zero(expr) -> bool:
    return isinstance(expr, A.IntLit) and expr.value == 0


def _indexed(block: A.Block, var: str, pointers: set[str]) -> set[str]:
    indexed: set[str] = set()
    shadowed: set[str] = set()
    for node in A.walk([block]):
        if isinstance(node, A.Let):
            shadowed.add(node.name)  # a local of a parameter's name hides it: prove nothing about it
        elif isinstance(node, A.Index) and _is(node.index, var):
            base = node.base.inner if isinstance(node.base, A.Paren) else node.base
            if isinstance(base, A.Name) and base.name in pointers:
                indexed.add(base.name)
        elif isinstance(node, A.Call) and len(node.args) >= 2:
            intr = lookup(node.name)
            if intr is not None and intr.params[:2] == ("ptr", "index") and _is(node.args[1], var):
                ptr = node.args[0]
                if isinstance(ptr, A.Name) and ptr.name in pointers:
                    indexed.add(ptr.name)
    return indexed - shadowed


def _is(expr, name: str) -> bool:
    expr = A.unparen(expr)
    return isinstance(expr, A.Name) and expr.name == name
