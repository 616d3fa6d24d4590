"""Compiler positions and diagnostics to LSP types.

Columns are counted in the position encoding negotiated at initialisation
(UTF-16 unless the client prefers UTF-8 or UTF-32): `set_encoding` is
called once by the initialize handler; everything else goes through
`column`, `char_col` and `unit_width`."""
from __future__ import annotations

from lsprotocol import types as lsp

from compiler import Diagnostic, SourceFile, Span

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "hint": lsp.DiagnosticSeverity.Hint}


_encoding = "utf-16"


def set_encoding(encoding) -> None:
    global _encoding
    _encoding = str(getattr(encoding, "value", encoding) or "utf-16").lower()


def unit_width(ch: str) -> int:
    """Columns one character takes in the negotiated encoding."""
    if _encoding == "utf-8":
        return len(ch.encode("utf-8", "surrogatepass"))
    if _encoding == "utf-32":
        return 1
    return 2 if ord(ch) > 0xFFFF else 1


def column(source: SourceFile, line: int, col: int) -> int:
    """0-based LSP column of a 1-based character column."""
    if _encoding == "utf-16":
        return source.utf16_col(line, col)
    return sum(unit_width(c) for c in source.line_text(line)[: max(col - 1, 0)])


def char_col(source: SourceFile, line: int, character: int) -> int:
    """1-based character column of a 0-based LSP column."""
    if _encoding == "utf-16":
        return source.col_from_utf16(line, character)
    units = 0
    text = source.line_text(line)
    for i, c in enumerate(text):
        if units >= character:
            return i + 1
        units += unit_width(c)
    return len(text) + 1


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
