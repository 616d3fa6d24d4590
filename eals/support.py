"""Helpers shared by the feature modules.

- `guarded(where, quiet=False)`: the wrapper every request handler runs under.
  It counts columns in the server's position encoding (convert.using). An
  unexpected exception is logged (`server.report_crash`) and answered with an
  LSP InternalError, or, for `quiet` requests (completion, hover, signature
  help, inlay hints: the editor asks them as the user types), with no result;
  deliberate LSP errors (a refused rename) pass through as they are;
  cancellation (asyncio.CancelledError) is not an Exception and passes too.
- `apply_text_edits(text, edits)`: apply LSP TextEdits (UTF-16 positions) to a
  text, as a client does; tests and tools use it to check edits.
"""
from __future__ import annotations

import functools

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError

from ea_compiler import SourceFile
from ea_compiler.tooling import PositionEncoding

from .convert import using
from .protocol import REQUEST_FAILED

_UTF16 = PositionEncoding("utf-16")


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


# ---- applying edits ----------------------------------------------------------

def _offsets(text: str):
    """String index of an LSP position (UTF-16 character) in `text`, through the
    compiler's column tables (SourceFile)."""
    source = SourceFile("<edit>", text)
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def index(pos: lsp.Position) -> int:
        if pos.line >= len(starts):
            return len(text)
        line = pos.line + 1
        return starts[pos.line] + min(_UTF16.char_col(source, line, pos.character) - 1,
                                      len(source.line_text(line)))
    return index


def apply_text_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """The text after applying non-overlapping LSP edits (positions refer to the original)."""
    index = _offsets(text)
    spans = sorted(((index(e.range.start), index(e.range.end), e.new_text) for e in edits),
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
