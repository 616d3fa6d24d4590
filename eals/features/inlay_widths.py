"""Inlay type hints for context-typed calls: `load(data, i)` shows
`: f32x4` after it, so the width LANGUAGE.md §5.6 gives a `splat`, `load` or
`load_masked` (4 lanes without an expected type) is visible while typing.
A call that is the direct initialiser of a `let` gets none: the type is
written beside it. The calls and their types are the checker's decisions
(`analysis.context_calls()`, `analysis.inferred_type`); no codegen."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler import Analysis
from ea_compiler.tooling import ast as A
from ea_compiler.tooling import types as T

from ..convert import position


def width_hints(analysis: Analysis, rng: lsp.Range) -> list[lsp.InlayHint]:
    hints = []
    written = _let_initialisers(analysis.desugared)
    for call in analysis.context_calls():
        t = analysis.inferred_type(call)
        if id(call) in written or not isinstance(t, T.Vector) or \
                not rng.start.line <= call.span.end_line - 1 <= rng.end.line:
            continue
        hints.append(lsp.InlayHint(position=position(analysis.source, call.span.end_line, call.span.end_col),
                                   label=f": {t}", kind=lsp.InlayHintKind.Type))
    return hints


def _let_initialisers(program: A.Program) -> set[int]:
    """Ids of the expressions `let` statements initialise (parentheses stripped);
    statements only: expressions are not entered."""
    bodies = [s for item in program.items if isinstance(item, A.Func) for s in item.body.stmts]
    return {id(A.unparen(s.value)) for s in A.statements(bodies) if isinstance(s, A.Let) and s.value is not None}
