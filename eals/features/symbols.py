"""textDocument/documentSymbol (the outline) and textDocument/foldingRange.

The outline is read from the AST as written, so it also lists what the checker
skipped (a `#[cfg]` variant for the other architecture, a function with
errors): functions and kernels with their parameters, loop variables and
locals as children (locals are function-scoped, so the children are flat, in
source order), structs with their fields, and constants. Clients without
hierarchical support get the same symbols flattened, with container names.

Folding ranges: function/kernel/struct bodies (from the item's first line),
the blocks of if/else, while, foreach and for, and runs of two or more
whole-line `//` comments. A closing `}` alone on its line stays visible.
"""
from __future__ import annotations

from lsprotocol import types as lsp
from pygls.capabilities import get_capability

from ea_compiler import Span
from ea_compiler.tooling import ast as A
from ea_compiler.tooling import comments, gc_paused

from ..convert import to_range
from ..support import guarded

SK = lsp.SymbolKind


def _symbol(source, name: str, kind: lsp.SymbolKind, span: Span, name_span: Span, detail: str = "",
            children: list | None = None) -> lsp.DocumentSymbol:
    if name_span.start < span.start or name_span.end > span.end:  # odd recovery: keep the LSP invariant
        first = span if span.start <= name_span.start else name_span
        last = span if span.end >= name_span.end else name_span
        span = Span(first.start, last.end, first.line, first.col, last.end_line, last.end_col)
    return lsp.DocumentSymbol(name=name, kind=kind, range=to_range(source, span),
                              selection_range=to_range(source, name_span), detail=detail or None,
                              children=children)


def _params_text(params: list[A.Param]) -> str:
    return ", ".join(("out " if p.out else "") + f"{p.name}: {A.type_text(p.type)}" for p in params)


def _locals(source, stmts: list, out: list) -> None:
    for s in stmts:
        if isinstance(s, A.Let) and s.name:
            detail = ("mut " if s.mutable else "") + A.type_text(s.type)
            out.append(_symbol(source, s.name, SK.Variable, s.span, s.name_span, detail))
        elif isinstance(s, A.If):
            _locals(source, s.then.stmts, out)
            if isinstance(s.orelse, A.Block):
                _locals(source, s.orelse.stmts, out)
            elif s.orelse is not None:
                _locals(source, [s.orelse], out)
        elif isinstance(s, A.While):
            _locals(source, s.body.stmts, out)
        elif isinstance(s, (A.ForEach, A.For)):
            if s.var:
                out.append(_symbol(source, s.var, SK.Variable, s.span, s.var_span, "i32 (loop variable)"))
            _locals(source, s.body.stmts, out)
        elif isinstance(s, A.Unroll):
            _locals(source, [s.loop], out)


def _function(source, f: A.Func | A.Kernel) -> lsp.DocumentSymbol:
    children = [_symbol(source, p.name, SK.Variable, p.span, p.name_span, A.type_text(p.type))
                for p in f.params if p.name]
    export = "export " if f.export else ""
    if isinstance(f, A.Kernel):
        detail = f"{export}kernel({_params_text(f.params)}) over {f.var} in {f.bound} step {f.step}"
        if f.bound:
            children.append(_symbol(source, f.bound, SK.Variable, f.bound_span, f.bound_span,
                                    "i32 (range bound)"))
        if f.var:
            children.append(_symbol(source, f.var, SK.Variable, f.var_span, f.var_span,
                                    f"i32 (loop variable, step {f.step})"))
        if f.tail_body is not None:
            _locals(source, f.tail_body.stmts, children)
    else:
        ret = f" -> {A.type_text(f.ret)}" if f.ret is not None else ""
        detail = f"{export}func({_params_text(f.params)}){ret}"
    _locals(source, f.body.stmts, children)
    children.sort(key=lambda c: (c.selection_range.start.line, c.selection_range.start.character))
    return _symbol(source, f.name, SK.Function, f.span, f.name_span, detail, children)


def outline(analysis) -> list[lsp.DocumentSymbol]:
    with gc_paused():
        return _outline(analysis)


def _outline(analysis) -> list[lsp.DocumentSymbol]:
    source = analysis.source
    out = []
    for item in analysis.ast.items:
        if isinstance(item, A.StaticAssert) or not item.name:
            continue
        if isinstance(item, (A.Func, A.Kernel)):
            out.append(_function(source, item))
        elif isinstance(item, A.StructDecl):
            fields = [_symbol(source, f.name, SK.Field, f.span, f.name_span, A.type_text(f.type))
                      for f in item.fields if f.name]
            out.append(_symbol(source, item.name, SK.Struct, item.span, item.name_span, "struct", fields))
        elif isinstance(item, A.ConstDecl):
            detail = f"{A.type_text(item.type)} = {source.text_of(item.value.span)}"
            out.append(_symbol(source, item.name, SK.Constant, item.span, item.name_span, detail))
    return out


def flatten(symbols: list[lsp.DocumentSymbol], uri: str, container: str | None = None,
            out: list | None = None) -> list[lsp.SymbolInformation]:
    out = [] if out is None else out
    for s in symbols:
        out.append(lsp.SymbolInformation(name=s.name, kind=s.kind, location=lsp.Location(uri=uri, range=s.range),
                                         container_name=container))
        flatten(s.children or [], uri, s.name, out)
    return out


# ---- folding ---------------------------------------------------------------

def folding_ranges(analysis) -> list[lsp.FoldingRange]:
    source = analysis.source
    folds: dict[int, lsp.FoldingRange] = {}  # by first line: the outermost fold wins

    def add(first_line: int, body: Span) -> None:
        last = body.end_line
        text = source.line_text(last)
        if source.text_of(body).endswith("}") and not text[: max(body.end_col - 2, 0)].strip():
            last -= 1  # keep a lone closing brace visible
        if last > first_line and first_line not in folds:
            folds[first_line] = lsp.FoldingRange(start_line=first_line - 1, end_line=last - 1)

    def statements(stmts: list) -> None:
        for s in stmts:
            if isinstance(s, A.If):
                add(s.span.line, s.then.span)
                statements(s.then.stmts)
                if isinstance(s.orelse, A.Block):
                    add(s.orelse.span.line, s.orelse.span)
                    statements(s.orelse.stmts)
                elif s.orelse is not None:
                    statements([s.orelse])
            elif isinstance(s, (A.While, A.ForEach, A.For)):
                add(s.span.line, s.body.span)
                statements(s.body.stmts)
            elif isinstance(s, A.Unroll):
                statements([s.loop])

    for item in analysis.ast.items:
        if isinstance(item, A.Func):
            add(item.span.line, item.body.span)
            statements(item.body.stmts)
        elif isinstance(item, A.Kernel):
            add(item.span.line, item.span)
            if item.tail_body is not None:
                add(item.tail_body.span.line, item.tail_body.span)
                statements(item.tail_body.stmts)
            add(item.body.span.line, item.body.span)
            statements(item.body.stmts)
        elif isinstance(item, A.StructDecl):
            add(item.span.line, item.span)

    for first, last in _comment_runs(analysis):
        folds.setdefault(first, lsp.FoldingRange(start_line=first - 1, end_line=last - 1,
                                                 kind=lsp.FoldingRangeKind.Comment))
    return [folds[line] for line in sorted(folds)]


def _comment_runs(analysis) -> list[tuple[int, int]]:
    """(first, last) 1-based lines of each run of 2+ lines that hold only a `//` comment."""
    lines = [t.line for t in comments(analysis.tokens) if t.first_on_line]
    runs, start = [], None
    for i, line in enumerate(lines):
        if start is None:
            start = line
        if i + 1 == len(lines) or lines[i + 1] != line + 1:
            if line > start:
                runs.append((start, line))
            start = None
    return runs


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded("textDocument/documentSymbol")
    async def document_symbol(ls, params: lsp.DocumentSymbolParams):
        uri = params.text_document.uri
        analysis = await ls.current_analysis(uri)
        if analysis is None:
            return None
        symbols = outline(analysis)
        if get_capability(ls.client_capabilities,
                          "text_document.document_symbol.hierarchical_document_symbol_support", False):
            return symbols
        return flatten(symbols, uri)

    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded("textDocument/foldingRange")
    async def folding_range(ls, params: lsp.FoldingRangeParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        if analysis is None:
            return None
        folds = folding_ranges(analysis)
        limit = get_capability(ls.client_capabilities, "text_document.folding_range.range_limit", None)
        return folds[:limit] if limit else folds
