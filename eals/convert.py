"""Compiler positions and diagnostics to LSP types.

Columns are counted in the position encoding negotiated at initialisation
(UTF-16 unless the client prefers UTF-8 or UTF-32). The encoding belongs to
the server (`ls.positions`, a ea_compiler.tooling.PositionEncoding set by the
initialize handler); `using(ls.positions)` makes it the one these functions
count in for the code running inside it (a context variable: each request
runs in its own task, so two servers in one process never see each other's).
`support.guarded` does that for every request handler. Outside any server
(tests calling features directly) columns are UTF-16."""
from __future__ import annotations

import contextlib
import contextvars

from lsprotocol import types as lsp

from ea_compiler import Diagnostic, SourceFile, Span
from ea_compiler.tooling import PositionEncoding

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "hint": lsp.DiagnosticSeverity.Hint}

_UTF16 = PositionEncoding("utf-16")
_current: contextvars.ContextVar[PositionEncoding] = contextvars.ContextVar("eals_position_encoding", default=_UTF16)


def encoding() -> PositionEncoding:
    """The position encoding of the server whose request is running."""
    return _current.get()


@contextlib.contextmanager
def using(positions: PositionEncoding):
    token = _current.set(positions)
    try:
        yield positions
    finally:
        _current.reset(token)


def column(source: SourceFile, line: int, col: int) -> int:
    """0-based LSP column of a 1-based character column."""
    return _current.get().column(source, line, col)


def char_col(source: SourceFile, line: int, character: int) -> int:
    """1-based character column of a 0-based LSP column."""
    return _current.get().char_col(source, line, character)


def position(source: SourceFile, line: int, col: int) -> lsp.Position:
    return lsp.Position(line=max(line - 1, 0), character=column(source, line, col))


def to_range(source: SourceFile, span: Span | None) -> lsp.Range:
    if span is None:
        start = lsp.Position(line=0, character=0)
        return lsp.Range(start=start, end=start)
    return lsp.Range(start=position(source, span.line, span.col),
                     end=position(source, span.end_line, span.end_col))


def offset(source: SourceFile, pos: lsp.Position) -> int:
    """Byte offset of an LSP position."""
    line = pos.line + 1
    return source.offset_at(line, char_col(source, line, pos.character))


def to_diagnostic(d: Diagnostic, source: SourceFile, uri: str) -> lsp.Diagnostic:
    message = d.message
    if d.notes:
        message += "\n" + "\n".join(f"note: {n}" for n in d.notes)
    related = [lsp.DiagnosticRelatedInformation(location=lsp.Location(uri=uri, range=to_range(source, lab.span)),
                                                message=lab.message) for lab in d.labels]
    return lsp.Diagnostic(range=to_range(source, d.span), message=message,
                          severity=_SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error),
                          code=d.code, source=f"ea[{d.kind}]", related_information=related or None,
                          data={"fixes": [[s.span.start, s.span.end, s.replacement, s.title]
                                          for s in d.suggestions]} if d.suggestions else None)


class ConvertedDiagnostics:
    """A document's diagnostics in LSP form, kept from one publish to the
    next. After an edit inside one function the analysis keeps the other
    functions' diagnostic objects (compiler/incremental), so only the new
    ones, and the ones whose lines or columns moved, are converted again.
    A kept conversion is reused only for the same object (held, so its id
    is not reused) at the same lines and columns, label lines and columns
    and fix offsets, in the same encoding and document: what
    `to_diagnostic` reads of it besides its text, which stays."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[Diagnostic, tuple, lsp.Diagnostic]] = {}

    def convert(self, diagnostics: list[Diagnostic], source: SourceFile, uri: str) -> list[lsp.Diagnostic]:
        kept, fresh, out = self._kept, {}, []
        where = (uri, _current.get())
        for d in diagnostics:
            key = (where, _place(d.span), tuple(_place(lab.span) for lab in d.labels),
                   tuple((s.span.start, s.span.end) for s in d.suggestions))
            hit = kept.get(id(d))
            converted = hit[2] if hit is not None and hit[0] is d and hit[1] == key else to_diagnostic(d, source, uri)
            fresh[id(d)] = (d, key, converted)
            out.append(converted)
        self._kept = fresh
        return out


def _place(span: Span | None) -> tuple | None:
    return None if span is None else (span.line, span.col, span.end_line, span.end_col)
