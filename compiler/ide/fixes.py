"""Quick fixes: the compiler's machine-applicable suggestions, one per
suggestion of each diagnostic, the only fix of a diagnostic preferred."""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import Diagnostic
from ..source import Span


@dataclass(frozen=True)
class Fix:
    diagnostic: Diagnostic
    title: str
    span: Span  # the bytes to replace
    replacement: str
    preferred: bool


def fixes(diagnostics: list[Diagnostic]) -> list[Fix]:
    return [Fix(d, s.title, s.span, s.replacement, preferred=len(d.suggestions) == 1)
            for d in diagnostics for s in d.suggestions]
