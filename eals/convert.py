"""Compiler positions and diagnostics to LSP types (UTF-16 columns)."""
from __future__ import annotations

from lsprotocol import types as lsp

from compiler import Diagnostic, SourceFile, Span

_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning,
             "hint": lsp.DiagnosticSeverity.Hint}


def position(source: SourceFile, line: int, col: int) -> lsp.Position:
    return lsp.Position(line=max(line - 1, 0), character=source.utf16_col(line, col))


def to_range(source: SourceFile, span: Span | None) -> lsp.Range:
    if span is None:
        start = lsp.Position(line=0, character=0)
        return lsp.Range(start=start, end=start)
    return lsp.Range(start=position(source, span.line, span.col),
                     end=position(source, span.end_line, span.end_col))


def offset(source: SourceFile, pos: lsp.Position) -> int:
    """Byte offset of an LSP position."""
    line = pos.line + 1
    return source.offset_at(line, source.col_from_utf16(line, pos.character))


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
