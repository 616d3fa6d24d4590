"""Which pointer arguments provably hold at least `n` elements: those a
`kernel ... over i in n` indexes by its loop variable itself (`p[i]`,
`load(p, i)`, `store(p, i, v)` and every other `(ptr, index, ...)`
intrinsic) — the kernel touches `p[i]` for every `i` the loop visits, up to
`n`. Bindings check exactly these lengths (an array that is too short would be
read or written out of bounds) and no others: an array passed beside them
(a lookup table, a matrix of `k * k` entries) may have any length.

Written to `.ea.json` as the extension field `"min_lengths"` of an export."""
from __future__ import annotations

from dataclasses import fields

from ..intrinsics import lookup
from ..syntax import ast as A


def min_lengths(func: A.Func) -> dict[str, str]:
    """{pointer parameter: name of the bound it is indexed up to}, in parameter order."""
    k = func.origin
    if not isinstance(k, A.Kernel):
        return {}
    pointers = {p.name for p in k.params if isinstance(p.type, A.PointerType)}
    shadowed: set[str] = set()
    indexed: set[str] = set()
    for block in (k.body, k.tail_body):
        if block is not None:
            _visit(block, k.var, pointers, indexed, shadowed)
    return {p.name: k.bound for p in k.params if p.name in indexed - shadowed}


def _is(expr, name: str) -> bool:
    while isinstance(expr, A.Paren):
        expr = expr.inner
    return isinstance(expr, A.Name) and expr.name == name


def _visit(node, var: str, pointers: set[str], indexed: set[str], shadowed: set[str]) -> None:
    if isinstance(node, A.Let):
        shadowed.add(node.name)  # a local of a parameter's name hides it: prove nothing about it
    if isinstance(node, A.Index) and _is(node.index, var):
        base = node.base.inner if isinstance(node.base, A.Paren) else node.base
        if isinstance(base, A.Name) and base.name in pointers:
            indexed.add(base.name)
    if isinstance(node, A.Call) and len(node.args) >= 2:
        intr = lookup(node.name)
        if intr is not None and intr.params[:2] == ("ptr", "index") and _is(node.args[1], var):
            ptr = node.args[0]
            if isinstance(ptr, A.Name) and ptr.name in pointers:
                indexed.add(ptr.name)
    if isinstance(node, (list, tuple)):
        for item in node:
            _visit(item, var, pointers, indexed, shadowed)
        return
    if type(node).__module__ != A.__name__:
        return
    for f in fields(node):
        child = getattr(node, f.name)
        if isinstance(child, (list, tuple)) or type(child).__module__ == A.__name__:
            _visit(child, var, pointers, indexed, shadowed)
