"""The symbol table tools read: every definition with its references.

Kinds: function, kernel, struct, field, const, param, local, loop-var.
Spans are the name's span at the definition and at each use.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .source import Span


@dataclass(eq=False)
class Symbol:
    name: str
    kind: str
    span: Span
    type: object = None
    detail: str = ""
    container: str | None = None
    references: list[Span] = field(default_factory=list)
    value: object = None  # constants: their value


class SymbolTable:
    def __init__(self) -> None:
        self.symbols: list[Symbol] = []

    def define(self, sym: Symbol) -> Symbol:
        self.symbols.append(sym)
        return sym

    def reference(self, sym: Symbol | None, span: Span) -> None:
        if sym is not None and span is not sym.span:
            sym.references.append(span)

    def at(self, offset: int) -> Symbol | None:
        """The symbol defined or referenced at a byte offset."""
        for sym in self.symbols:
            if sym.span.start <= offset <= sym.span.end and sym.span.start != sym.span.end:
                return sym
            for ref in sym.references:
                if ref.start <= offset <= ref.end:
                    return sym
        return None

    def named(self, name: str, kind: str | None = None) -> list[Symbol]:
        return [s for s in self.symbols if s.name == name and (kind is None or s.kind == kind)]

    def top_level(self) -> list[Symbol]:
        return [s for s in self.symbols if s.kind in ("function", "kernel", "struct", "const")]
