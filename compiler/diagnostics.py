"""The diagnostic model shared by the compiler, the CLI and the language server.

A diagnostic has a severity, a kind (what found it: lex, parse, type, target
for the checker's target rules, codegen), a stable code, a message, a primary span, secondary labels, notes
and machine-applicable suggestions (span + replacement) that tools offer as
quick fixes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Label:
    span: Span
    message: str


@dataclass(frozen=True)
class Suggestion:
    """Replace the text of `span` with `replacement` (empty span = insert)."""

    span: Span
    replacement: str
    title: str


@dataclass
class Diagnostic:
    severity: str
    kind: str
    code: str
    message: str
    span: Span | None
    labels: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def to_json(self) -> dict:
        def span_json(s: Span | None):
            if s is None:
                return None
            return {"start": s.start, "end": s.end, "line": s.line, "col": s.col,
                    "end_line": s.end_line, "end_col": s.end_col}

        return {
            "severity": self.severity,
            "kind": self.kind,
            "code": self.code,
            "message": self.message,
            "span": span_json(self.span),
            "labels": [{"span": span_json(l.span), "message": l.message} for l in self.labels],
            "notes": list(self.notes),
            "suggestions": [
                {"span": span_json(s.span), "replacement": s.replacement, "title": s.title}
                for s in self.suggestions
            ],
        }


class DiagnosticSink:
    """Collects diagnostics for one file; caps runaway error counts."""

    LIMIT = 200

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self.dropped = 0

    def add(self, d: Diagnostic) -> Diagnostic:
        if len(self.items) >= self.LIMIT:
            self.dropped += 1
        else:
            self.items.append(d)
        return d

    def error(self, kind: str, code: str, message: str, span: Span | None, **extra) -> Diagnostic:
        return self.add(Diagnostic(ERROR, kind, code, message, span, **extra))

    def warning(self, kind: str, code: str, message: str, span: Span | None, **extra) -> Diagnostic:
        return self.add(Diagnostic(WARNING, kind, code, message, span, **extra))

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)
