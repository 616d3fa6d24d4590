"""The symbol table tools read: every definition with its references.

Kinds: function, kernel, struct, field, const, param, local, loop-var.
Spans are the name's span at the definition and at each use.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .source import Span


class SymbolKind(StrEnum):
    """What a symbol names (a str enum: `SymbolKind.LOCAL == "local"`)."""
    FUNCTION = "function"
    KERNEL = "kernel"
    STRUCT = "struct"
    FIELD = "field"
    CONST = "const"
    PARAM = "param"
    LOCAL = "local"
    LOOP_VAR = "loop-var"


_KINDS: dict[str, SymbolKind] = {k.value: k for k in SymbolKind}
CALLABLE_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.KERNEL})
VARIABLE_KINDS = frozenset({SymbolKind.PARAM, SymbolKind.LOCAL, SymbolKind.LOOP_VAR})
TOP_LEVEL_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.KERNEL, SymbolKind.STRUCT, SymbolKind.CONST})


@dataclass(eq=False)
class Symbol:
    name: str
    kind: SymbolKind
    span: Span
    type: object = None
    detail: str = ""
    container: str | None = None
    references: list[Span] = field(default_factory=list)
    value: object = None  # constants: their value

    def __post_init__(self) -> None:
        # A kind outside the vocabulary fails here, where it is made (the table first: Enum's call is slow).
        self.kind = _KINDS.get(self.kind) or SymbolKind(self.kind)


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
        return [s for s in self.symbols if s.kind in TOP_LEVEL_KINDS]
