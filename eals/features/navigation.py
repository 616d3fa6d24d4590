"""textDocument/definition, references, prepareRename and rename.

Functions, kernels, structs, fields, constants, parameters, locals and loop
variables, from the analysis' symbol table (definition span + references; see
support.occurrences). The `#[cfg]` variants of a function count as one name for
references and rename. A rename is refused with an LSP RequestFailed error when
the new name is not an identifier, is a keyword, would clash with a name in the
same scope, or when the cursor is on an intrinsic or on nothing renamable.
"""
from __future__ import annotations

import re

from lsprotocol import types as lsp

from ea_compiler.tooling import KEYWORDS, Symbol
from ea_compiler.tooling import TYPE_IDENTIFIERS as _TYPE_IDENTIFIERS
from ea_compiler.tooling import ast as A

from ..convert import offset, to_range
from ..support import Occurrence, guarded, occurrence_at, occurrences, request_failed, walk

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
VARIABLES = ("param", "local", "loop-var")
_NAMED = {"function": "a function", "kernel": "a kernel", "struct": "a struct", "field": "a field",
          "const": "a constant", "param": "a parameter", "local": "a variable", "loop-var": "a loop variable"}


def cursor_offset(source, position: lsp.Position) -> int | None:
    """Byte offset of a position, None when its line is past the end of the file."""
    if position.line >= source.line_count:
        return None
    return offset(source, position)


def target(analysis, position: lsp.Position) -> tuple[list[Occurrence], Occurrence | None]:
    at = cursor_offset(analysis.source, position)
    occs = occurrences(analysis)
    return occs, (None if at is None else occurrence_at(occs, at))


def intrinsic_at(analysis, position: lsp.Position) -> str | None:
    """The intrinsic called by the call whose name is at the cursor, as the checker resolved it."""
    at = cursor_offset(analysis.source, position)
    intr = None if at is None else analysis.intrinsic_called_at(at)
    return None if intr is None else intr.name


def definition(analysis, uri: str, position: lsp.Position) -> lsp.Location | None:
    _, occ = target(analysis, position)
    if occ is None:
        return None
    return lsp.Location(uri=uri, range=to_range(analysis.source, occ.symbol.span))


def same_entity(analysis, sym: Symbol) -> list[Symbol]:
    """`sym`, and for a function its same-named variants (`#[cfg(x86_64)]` / `#[cfg(aarch64)]`):
    calls reference only the variant for the analysed target, but they are one name."""
    if sym.kind not in ("function", "kernel"):
        return [sym]
    return [s for s in analysis.symbols.symbols if s.name == sym.name and s.kind in ("function", "kernel")]


def _all_occurrences(analysis, occs: list[Occurrence], sym: Symbol) -> list[Occurrence]:
    group = same_entity(analysis, sym)
    return [o for o in occs if any(o.symbol is s for s in group)]


def references(analysis, uri: str, position: lsp.Position, include_declaration: bool) -> list[lsp.Location] | None:
    occs, occ = target(analysis, position)
    if occ is None:
        return None
    return [lsp.Location(uri=uri, range=to_range(analysis.source, o.span))
            for o in _all_occurrences(analysis, occs, occ.symbol) if include_declaration or not o.definition]


def _renamable(analysis, position: lsp.Position) -> tuple[list[Occurrence], Occurrence]:
    occs, occ = target(analysis, position)
    if occ is not None:
        return occs, occ
    name = intrinsic_at(analysis, position)
    if name is not None:
        raise request_failed(f"cannot rename '{name}': it is an intrinsic")
    raise request_failed("nothing to rename here: put the cursor on the name of a function, kernel, "
                         "struct, field, constant, parameter or variable")


def prepare_rename(analysis, position: lsp.Position) -> lsp.PrepareRenamePlaceholder:
    _, occ = _renamable(analysis, position)
    return lsp.PrepareRenamePlaceholder(range=to_range(analysis.source, occ.span), placeholder=occ.symbol.name)


def refusal(analysis, sym: Symbol, new: str) -> str | None:
    """Why `sym` cannot be renamed to `new` (None: it can)."""
    if not _IDENTIFIER.match(new):
        return f"'{new}' is not a valid identifier"
    if new in KEYWORDS:
        return f"'{new}' is a keyword"
    if sym.kind in ("function", "kernel") and analysis.intrinsic_wins(new):
        return f"'{new}' is an intrinsic; calls to '{new}' would call the intrinsic, not this function"
    if sym.kind == "struct":
        if new in _TYPE_IDENTIFIERS:
            return f"'{new}' is a type name"
        if not "A" <= new[0] <= "Z" and any(isinstance(n, A.StructLit) and n.name == sym.name
                                            for n in walk(analysis.ast)):
            return f"'{new}' must start with a capital letter: struct literals of '{sym.name}' need one"
    group = same_entity(analysis, sym)
    for other in analysis.symbols.symbols:
        if other in group or other.name != new:
            continue
        same_scope = (
            (sym.kind in ("function", "kernel") and other.kind in ("function", "kernel"))
            or (sym.kind == other.kind == "struct")
            or (sym.kind == other.kind == "field" and sym.container == other.container)
            or (sym.kind == "const" and other.kind in ("const",) + VARIABLES)
            or (sym.kind in VARIABLES and (other.kind == "const"
                                           or (other.kind in VARIABLES and other.container == sym.container))))
        if same_scope:
            where = f" in '{sym.container}'" if sym.kind in VARIABLES + ("field",) and sym.container else ""
            return f"'{new}' is already {_NAMED.get(other.kind, 'defined')}{where}"
    return None


def rename(analysis, uri: str, position: lsp.Position, new_name: str) -> lsp.WorkspaceEdit:
    occs, occ = _renamable(analysis, position)
    sym = occ.symbol
    if new_name == sym.name:
        return lsp.WorkspaceEdit(changes={uri: []})
    reason = refusal(analysis, sym, new_name)
    if reason is not None:
        raise request_failed(f"cannot rename '{sym.name}' to '{new_name}': {reason}")
    edits = [lsp.TextEdit(range=to_range(analysis.source, o.span), new_text=new_name)
             for o in _all_occurrences(analysis, occs, sym)]
    return lsp.WorkspaceEdit(changes={uri: edits})


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
