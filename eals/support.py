"""Helpers shared by the feature modules actions, navigation, symbols, tokens and pull.

- `guarded(where, quiet=False)`: the wrapper every request handler runs under.
  It counts columns in the server's position encoding (convert.using). An
  unexpected exception is logged (`server.report_crash`) and answered with an
  LSP InternalError, or, for `quiet` requests (completion, hover, signature
  help, inlay hints: the editor asks them as the user types), with no result;
  deliberate LSP errors (a refused rename) pass through as they are;
  cancellation (asyncio.CancelledError) is not an Exception and passes too.
- `occurrences(analysis)`: every identifier occurrence that names a symbol, at
  its definition or at a use, with the field names of struct literals added
  (the compiler's symbol table does not record those yet).
- `apply_text_edits(text, edits)`: apply LSP TextEdits (UTF-16 positions) to a
  text, as a client does; tests and tools use it to check edits.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from ea_compiler import Span
from ea_compiler.tooling import Symbol, gc_paused, unit_width
from ea_compiler.tooling import ast as A

from .convert import using
from .protocol import REQUEST_FAILED



def request_failed(message: str) -> JsonRpcException:
    """The LSP error for a well-formed request the server refuses (e.g. a rename)."""
    return JsonRpcException(message=message, code=REQUEST_FAILED)


def guarded(where: str, quiet: bool = False):
    """Decorate an async `(ls, params)` handler: it runs in the server's position
    encoding, and crashes are logged and become an InternalError (None if `quiet`)."""
    def decorate(handler):
        @functools.wraps(handler)
        async def run(ls, params):
            try:
                with using(ls.positions):
                    return await handler(ls, params)
            except JsonRpcException:
                raise
            except Exception as exc:
                ls.report_crash(where)
                if quiet:
                    return None
                raise JsonRpcInternalError(
                    message=f"eals: internal error in {where} ({type(exc).__name__}); see the server log") from None
        return run
    return decorate


# ---- symbol occurrences ----------------------------------------------------

class Occurrence(NamedTuple):
    span: Span
    symbol: Symbol
    definition: bool


def occurrences(analysis) -> list[Occurrence]:
    """All occurrences of all symbols, sorted by position, one per span."""
    with gc_paused():
        return _occurrences(analysis)


def _occurrences(analysis) -> list[Occurrence]:
    seen: set[tuple[int, int]] = set()
    out: list[Occurrence] = []

    def add(span: Span, sym: Symbol, definition: bool) -> None:
        key = (span.start, span.end)
        if span.start < span.end and key not in seen:
            seen.add(key)
            out.append(Occurrence(span, sym, definition))

    fields: dict[tuple[str | None, str], Symbol] = {}
    for sym in analysis.symbols.symbols:
        add(sym.span, sym, True)
        if sym.kind == "field":
            fields.setdefault((sym.container, sym.name), sym)
    for sym in analysis.symbols.symbols:
        for ref in sym.references:
            add(ref, sym, False)
    if fields:
        for node in walk(analysis.ast):
            if isinstance(node, A.StructLit):
                for init in node.fields:
                    sym = fields.get((node.name, init.name))
                    if sym is not None:
                        add(init.name_span, sym, False)
    out.sort(key=lambda o: o.span.start)
    return out


def occurrence_at(occs: list[Occurrence], offset: int) -> Occurrence | None:
    """The occurrence under a byte offset; a cursor just after a name counts."""
    touching = None
    for occ in occs:
        if occ.span.start > offset:
            break
        if offset < occ.span.end:
            return occ
        if offset == occ.span.end:
            touching = occ
    return touching


_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def walk(root):
    """Every AST node under `root` (any order)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        cls = type(node)
        names = _NODE_FIELDS.get(cls)
        if names is None:
            is_node = dataclasses.is_dataclass(cls) and cls.__module__ == A.__name__
            names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "ty") if is_node else ()
            _NODE_FIELDS[cls] = names
        if not names:
            continue
        yield node
        for name in names:
            value = getattr(node, name)
            if isinstance(value, list) or type(value).__module__ == A.__name__:
                stack.append(value)


# ---- applying edits ----------------------------------------------------------

def _index(lines: list[str], pos: lsp.Position) -> int:
    """String index of an LSP position (UTF-16 character) in "\n".join(lines)."""
    line = min(pos.line, len(lines) - 1)
    start = sum(len(l) + 1 for l in lines[:line])
    if pos.line >= len(lines):
        return start + len(lines[line])
    units = 0
    for i, ch in enumerate(lines[line]):
        if units >= pos.character:
            return start + i
        units += unit_width(ch)
    return start + len(lines[line])


def apply_text_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """The text after applying non-overlapping LSP edits (positions refer to the original)."""
    lines = text.split("\n")
    spans = sorted(((_index(lines, e.range.start), _index(lines, e.range.end), e.new_text) for e in edits),
                   key=lambda s: (s[0], s[1]))
    for (s1, e1, _), (s2, _, _) in zip(spans, spans[1:]):
        if s2 < e1:
            raise ValueError("overlapping text edits")
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def apply_workspace_edit(text: str, uri: str, edit: lsp.WorkspaceEdit) -> str:
    """Apply the edits of `edit` that target `uri` (either `changes` or `document_changes`)."""
    edits: list[lsp.TextEdit] = list((edit.changes or {}).get(uri, []))
    for change in edit.document_changes or []:
        if isinstance(change, lsp.TextDocumentEdit) and change.text_document.uri == uri:
            edits.extend(change.edits)
    return apply_text_edits(text, edits)
