"""Inlay type hints for context-typed calls: `load(data, i)` shows
`: f32x4` after it, so the width LANGUAGE.md §5.6 gives a `splat`, `load` or
`load_masked` (4 lanes without an expected type) is visible while typing.
A call that is the direct initialiser of a `let` gets none: the type is
written beside it. Computed from the analysis alone (no codegen)."""
from __future__ import annotations

from lsprotocol import types as lsp

from compiler import Analysis
from compiler.tooling import CTX_CALLS
from compiler.tooling import ast as A
from compiler.tooling import types as T

from ..convert import position


def width_hints(analysis: Analysis, rng: lsp.Range) -> list[lsp.InlayHint]:
    hints = []
    for call in context_calls(analysis.desugared):
        t = call.ty
        if not isinstance(t, T.Vector) or not rng.start.line <= call.span.end_line - 1 <= rng.end.line:
            continue
        hints.append(lsp.InlayHint(position=position(analysis.source, call.span.end_line, call.span.end_col),
                                   label=f": {t}", kind=lsp.InlayHintKind.Type))
    return hints


def context_calls(program: A.Program) -> list[A.Call]:
    """The context-typed calls of every function body, in source order,
    except direct `let` initialisers."""
    found: list[A.Call] = []
    seen: set[int] = set()  # kernel bodies are shared by the tree's loops
    stack: list = [item.body for item in program.items if isinstance(item, A.Func)]
    while stack:
        x = stack.pop()
        if x is None or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, A.Let):
            value = x.value
            while isinstance(value, A.Paren):
                value = value.inner
            stack.extend(value.args if isinstance(value, A.Call) and value.name in CTX_CALLS else [value])
            continue
        if isinstance(x, A.Call) and x.name in CTX_CALLS:
            found.append(x)
        stack.extend(_children(x))
    found.sort(key=lambda c: c.span.start)
    return found


def _children(x) -> list:
    if isinstance(x, A.Block):
        return list(x.stmts)
    if isinstance(x, A.Assign):
        return [x.target, x.value]
    if isinstance(x, A.Return):
        return [x.value]
    if isinstance(x, A.ExprStmt):
        return [x.expr]
    if isinstance(x, A.If):
        return [x.cond, x.then, x.orelse]
    if isinstance(x, A.While):
        return [x.cond, x.body]
    if isinstance(x, A.ForEach):
        return [x.start, x.end, x.body]
    if isinstance(x, A.Unroll):
        return [x.loop]
    if isinstance(x, A.Call):
        return list(x.args)
    if isinstance(x, A.Binary):
        return [x.left, x.right]
    if isinstance(x, A.Unary):
        return [x.operand]
    if isinstance(x, A.Paren):
        return [x.inner]
    if isinstance(x, A.Index):
        return [x.base, x.index]
    if isinstance(x, A.Field):
        return [x.base]
    if isinstance(x, A.StructLit):
        return [f.value for f in x.fields]
    if isinstance(x, A.VectorLit):
        return list(x.elems)
    return []
