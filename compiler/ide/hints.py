"""Inlay type hints and the functions a range shows, as data.

Width hints: a context-typed call (`splat`, `load`, `load_masked`) shows the
type the checker gave it (LANGUAGE.md §5.6: 4 lanes without an expected
type), unless it is the direct initialiser of a `let`, whose type is written
beside it."""
from __future__ import annotations

from dataclasses import dataclass

from ..syntax import ast as A
from ..typesys.model import Vector


@dataclass(frozen=True)
class TypeHint:
    line: int  # 1-based line and character column the hint stands at (the call's end)
    col: int
    label: str


def width_hints(analysis, first_line: int, last_line: int) -> list[TypeHint]:
    """The width hints of the calls ending on lines first_line..last_line (1-based)."""
    hints = []
    written = _let_initialisers(analysis.desugared)
    for call in analysis.context_calls():
        t = analysis.inferred_type(call)
        if id(call) in written or not isinstance(t, Vector) or not first_line <= call.span.end_line <= last_line:
            continue
        hints.append(TypeHint(call.span.end_line, call.span.end_col, f": {t}"))
    return hints


def _let_initialisers(program: A.Program) -> set[int]:
    """Ids of the expressions `let` statements initialise (parentheses stripped)."""
    bodies = [s for item in program.items if isinstance(item, A.Func) for s in item.body.stmts]
    return {id(A.unparen(s.value)) for s in A.statements(bodies) if isinstance(s, A.Let) and s.value is not None}


@dataclass(frozen=True)
class FunctionAt:
    """A function or kernel as written, and whether the target compiles it."""
    name: str
    name_span: object
    span: object
    exported: bool
    live: bool


def functions(analysis, first_line: int = 1, last_line: int | None = None) -> list[FunctionAt]:
    """The functions and kernels (as written) overlapping lines first_line..last_line, in source order."""
    last = last_line if last_line is not None else analysis.source.line_count
    return [FunctionAt(item.name, item.name_span, item.span, item.export, analysis.is_live(item))
            for item in analysis.ast.items
            if isinstance(item, (A.Func, A.Kernel)) and item.span.line <= last and item.span.end_line >= first_line]
