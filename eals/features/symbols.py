"""textDocument/documentSymbol (the outline) and textDocument/foldingRange:
the IDE layer's `outline` and `folds` (ea_compiler.tooling) as LSP types.
Clients without hierarchical support get the same symbols flattened, with
container names."""
from __future__ import annotations

from lsprotocol import types as lsp
from pygls.capabilities import get_capability

from ea_compiler.tooling import OutlineItem, SymbolKind, folds, gc_paused, outline

from ..convert import to_range
from ..support import guarded

SK = lsp.SymbolKind
_KIND = {SymbolKind.FUNCTION: SK.Function, SymbolKind.STRUCT: SK.Struct, SymbolKind.FIELD: SK.Field,
         SymbolKind.CONST: SK.Constant, SymbolKind.LOCAL: SK.Variable}


def _symbol(source, item: OutlineItem) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(name=item.name, kind=_KIND[item.kind], range=to_range(source, item.span),
                              selection_range=to_range(source, item.name_span), detail=item.detail or None,
                              children=[_symbol(source, c) for c in item.children]
                              if item.kind in (SymbolKind.FUNCTION, SymbolKind.STRUCT) else None)


def document_symbols(analysis) -> list[lsp.DocumentSymbol]:
    with gc_paused():
        return [_symbol(analysis.source, item) for item in outline(analysis)]


def flatten(symbols: list[lsp.DocumentSymbol], uri: str, container: str | None = None,
            out: list | None = None) -> list[lsp.SymbolInformation]:
    out = [] if out is None else out
    for s in symbols:
        out.append(lsp.SymbolInformation(name=s.name, kind=s.kind, location=lsp.Location(uri=uri, range=s.range),
                                         container_name=container))
        flatten(s.children or [], uri, s.name, out)
    return out


def folding_ranges(analysis) -> list[lsp.FoldingRange]:
    return [lsp.FoldingRange(start_line=f.first_line - 1, end_line=f.last_line - 1,
                             kind=lsp.FoldingRangeKind.Comment if f.comment else None) for f in folds(analysis)]


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded("textDocument/documentSymbol")
    async def document_symbol(ls, params: lsp.DocumentSymbolParams):
        uri = params.text_document.uri
        analysis = await ls.current_analysis(uri)
        if analysis is None:
            return None
        symbols = document_symbols(analysis)
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
        ranges = folding_ranges(analysis)
        limit = get_capability(ls.client_capabilities, "text_document.folding_range.range_limit", None)
        return ranges[:limit] if limit else ranges
