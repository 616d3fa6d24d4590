"""textDocument/definition, references, prepareRename and rename: the IDE
layer's answers (ea_compiler.tooling `definition`, `references`, `rename`:
functions, kernels, structs, fields, constants, parameters, locals and loop
variables; the `#[cfg]` variants of a function are one name) as LSP types. A
rename the layer refuses is answered with an LSP RequestFailed error saying why.
"""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler import tooling as ide
from ea_compiler.tooling import Refused, renamable

from ..convert import offset, to_range
from ..support import guarded, request_failed


def cursor_offset(source, position: lsp.Position) -> int | None:
    """Byte offset of a position, None when its line is past the end of the file."""
    if position.line >= source.line_count:
        return None
    return offset(source, position)


def intrinsic_at(analysis, position: lsp.Position) -> str | None:
    """The intrinsic called by the call whose name is at the cursor, as the checker resolved it."""
    at = cursor_offset(analysis.source, position)
    intr = None if at is None else analysis.intrinsic_called_at(at)
    return None if intr is None else intr.name


def definition(analysis, uri: str, position: lsp.Position) -> lsp.Location | None:
    span = ide.definition(analysis, cursor_offset(analysis.source, position))
    return None if span is None else lsp.Location(uri=uri, range=to_range(analysis.source, span))


def references(analysis, uri: str, position: lsp.Position, include_declaration: bool) -> list[lsp.Location] | None:
    spans = ide.references(analysis, cursor_offset(analysis.source, position), include_declaration)
    return None if spans is None else [lsp.Location(uri=uri, range=to_range(analysis.source, s)) for s in spans]


def prepare_rename(analysis, position: lsp.Position) -> lsp.PrepareRenamePlaceholder:
    try:
        _, occ = renamable(analysis, cursor_offset(analysis.source, position))
    except Refused as refused:
        raise request_failed(str(refused)) from None
    return lsp.PrepareRenamePlaceholder(range=to_range(analysis.source, occ.span), placeholder=occ.symbol.name)


def rename(analysis, uri: str, position: lsp.Position, new_name: str) -> lsp.WorkspaceEdit:
    try:
        spans = ide.rename(analysis, cursor_offset(analysis.source, position), new_name)
    except Refused as refused:
        raise request_failed(str(refused)) from None
    return lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=to_range(analysis.source, s), new_text=new_name)
                                            for s in spans]})


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @guarded("textDocument/definition")
    async def on_definition(ls, params: lsp.DefinitionParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        return None if analysis is None else definition(analysis, params.text_document.uri, params.position)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @guarded("textDocument/references")
    async def on_references(ls, params: lsp.ReferenceParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        if analysis is None:
            return None
        return references(analysis, params.text_document.uri, params.position,
                          params.context.include_declaration)

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded("textDocument/prepareRename")
    async def on_prepare_rename(ls, params: lsp.PrepareRenameParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        return None if analysis is None else prepare_rename(analysis, params.position)

    @server.feature(lsp.TEXT_DOCUMENT_RENAME)
    @guarded("textDocument/rename")
    async def on_rename(ls, params: lsp.RenameParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        if analysis is None:
            raise request_failed(f"cannot rename: {params.text_document.uri} is not open")
        return rename(analysis, params.text_document.uri, params.position, params.new_name)
