"""The outline (document symbols) and folding ranges, from the AST as written,
so they also list what the checker skipped (a `#[cfg]` variant for the other
architecture, a function with errors).

Outline: functions and kernels with their parameters, loop variables and
locals as children (locals are function-scoped, so the children are flat, in
source order), structs with their fields, and constants.

Folding: function/kernel/struct bodies (from the item's first line), the
blocks of if/else, while, foreach and for, and runs of two or more
whole-line `//` comments. A closing `}` alone on its line stays visible.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..gc_pause import gc_paused
from ..source import Span
from ..symbols import SymbolKind
from ..syntax import ast as A
from ..syntax.tokens import TokenKind


@dataclass
class OutlineItem:
    name: str
    kind: SymbolKind  # FUNCTION (kernels too), STRUCT, FIELD, CONST, or LOCAL for every variable
    span: Span  # the whole construct; it contains `name_span`
    name_span: Span
    detail: str = ""
    children: list["OutlineItem"] = field(default_factory=list)


@dataclass(frozen=True)
class Fold:
    first_line: int  # 1-based, inclusive
    last_line: int
    comment: bool = False


def _item(name: str, kind: SymbolKind, span: Span, name_span: Span, detail: str = "",
          children: list | None = None) -> OutlineItem:
    if name_span.start < span.start or name_span.end > span.end:  # odd recovery: keep the span around the name
        first = span if span.start <= name_span.start else name_span
        last = span if span.end >= name_span.end else name_span
        span = Span(first.start, last.end, first.line, first.col, last.end_line, last.end_col)
    return OutlineItem(name, kind, span, name_span, detail, children or [])


def _params_text(params: list[A.Param]) -> str:
    return ", ".join(("out " if p.out else "") + f"{p.name}: {A.type_text(p.type)}" for p in params)


def _locals(blocks: list[A.Block]) -> list[OutlineItem]:
    out = []
    for s in A.statements(st for b in blocks for st in b.stmts):
        if isinstance(s, A.Let) and s.name:
            detail = ("mut " if s.mutable else "") + A.type_text(s.type)
            out.append(_item(s.name, SymbolKind.LOCAL, s.span, s.name_span, detail))
        elif isinstance(s, (A.ForEach, A.For)) and s.var:
            out.append(_item(s.var, SymbolKind.LOCAL, s.span, s.var_span, "i32 (loop variable)"))
    return out


def _function(f: A.Func | A.Kernel) -> OutlineItem:
    children = [_item(p.name, SymbolKind.LOCAL, p.span, p.name_span, A.type_text(p.type))
                for p in f.params if p.name]
    export = "export " if f.export else ""
    blocks = [f.body]
    if isinstance(f, A.Kernel):
        detail = f"{export}kernel({_params_text(f.params)}) over {f.var} in {f.bound} step {f.step}"
        if f.bound:
            children.append(_item(f.bound, SymbolKind.LOCAL, f.bound_span, f.bound_span, "i32 (range bound)"))
        if f.var:
            children.append(_item(f.var, SymbolKind.LOCAL, f.var_span, f.var_span,
                                  f"i32 (loop variable, step {f.step})"))
        if f.tail_body is not None:
            blocks.append(f.tail_body)
    else:
        ret = f" -> {A.type_text(f.ret)}" if f.ret is not None else ""
        detail = f"{export}func({_params_text(f.params)}){ret}"
    children += _locals(blocks)
    children.sort(key=lambda c: c.name_span.start)
    return _item(f.name, SymbolKind.FUNCTION, f.span, f.name_span, detail, children)


def outline(analysis) -> list[OutlineItem]:
    with gc_paused():
        out = []
        for item in analysis.ast.items:
            if isinstance(item, A.StaticAssert) or not item.name:
                continue
            if isinstance(item, (A.Func, A.Kernel)):
                out.append(_function(item))
            elif isinstance(item, A.StructDecl):
                fields = [_item(f.name, SymbolKind.FIELD, f.span, f.name_span, A.type_text(f.type))
                          for f in item.fields if f.name]
                out.append(_item(item.name, SymbolKind.STRUCT, item.span, item.name_span, "struct", fields))
            elif isinstance(item, A.ConstDecl):
                detail = f"{A.type_text(item.type)} = {analysis.source.text_of(item.value.span)}"
                out.append(_item(item.name, SymbolKind.CONST, item.span, item.name_span, detail))
        return out


def folds(analysis) -> list[Fold]:
    """The folding ranges, by first line (the outermost fold of a line wins)."""
    source = analysis.source
    found: dict[int, Fold] = {}

    def add(first_line: int, body: Span) -> None:
        last = body.end_line
        text = source.line_text(last)
        if source.text_of(body).endswith("}") and not text[: max(body.end_col - 2, 0)].strip():
            last -= 1  # keep a lone closing brace visible
        if last > first_line and first_line not in found:
            found[first_line] = Fold(first_line, last)

    def nested(blocks: list[A.Block]) -> None:
        for s in A.statements(st for b in blocks for st in b.stmts):
            if isinstance(s, A.If):
                add(s.span.line, s.then.span)
                if isinstance(s.orelse, A.Block):
                    add(s.orelse.span.line, s.orelse.span)
            elif isinstance(s, (A.While, A.ForEach, A.For)):
                add(s.span.line, s.body.span)

    for item in analysis.ast.items:
        if isinstance(item, A.Func):
            add(item.span.line, item.body.span)
            nested([item.body])
        elif isinstance(item, A.Kernel):
            add(item.span.line, item.span)
            if item.tail_body is not None:
                add(item.tail_body.span.line, item.tail_body.span)
                nested([item.tail_body])
            add(item.body.span.line, item.body.span)
            nested([item.body])
        elif isinstance(item, A.StructDecl):
            add(item.span.line, item.span)
    for first, last in _comment_runs(analysis):
        found.setdefault(first, Fold(first, last, comment=True))
    return [found[line] for line in sorted(found)]


def _comment_runs(analysis) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each run of 2+ lines that hold only a `//` comment."""
    lines = [t.line for t in analysis.tokens if t.kind == TokenKind.Comment and t.first_on_line]
    runs, start = [], None
    for i, line in enumerate(lines):
        if start is None:
            start = line
        if i + 1 == len(lines) or lines[i + 1] != line + 1:
            if line > start:
                runs.append((start, line))
            start = None
    return runs
