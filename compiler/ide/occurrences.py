"""Where each symbol occurs: its definition and every use, from the checker's
symbol table (plus the field names of struct literals, which the table does
not record as references), and the questions asked of them: what is at a
position, where it is defined, every occurrence of it."""
from __future__ import annotations

from typing import NamedTuple

from ..gc_pause import gc_paused
from ..source import Span
from ..symbols import CALLABLE_KINDS, Symbol, SymbolKind
from ..syntax import ast as A


class Occurrence(NamedTuple):
    span: Span
    symbol: Symbol
    definition: bool


def bodies(program: A.Program) -> list:
    """The statement blocks of a program's functions and kernels (the roots `ast.walk` starts from)."""
    roots: list = []
    for item in program.items:
        if isinstance(item, (A.Func, A.Kernel)):
            roots.append(item.body)
            if isinstance(item, A.Kernel) and item.tail_body is not None:
                roots.append(item.tail_body)
    return roots


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
        if sym.kind == SymbolKind.FIELD:
            fields.setdefault((sym.container, sym.name), sym)
    for sym in analysis.symbols.symbols:
        for ref in sym.references:
            add(ref, sym, False)
    if fields:
        for node in A.walk(bodies(analysis.ast)):
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


def same_entity(analysis, sym: Symbol) -> list[Symbol]:
    """`sym`, and for a function its same-named variants (`#[cfg(x86_64)]` / `#[cfg(aarch64)]`):
    calls reference only the variant for the analysed target, but they are one name."""
    if sym.kind not in CALLABLE_KINDS:
        return [sym]
    return [s for s in analysis.symbols.symbols if s.name == sym.name and s.kind in CALLABLE_KINDS]


def all_occurrences(analysis, occs: list[Occurrence], sym: Symbol) -> list[Occurrence]:
    """Every occurrence of `sym` and of the variants it is one name with."""
    group = same_entity(analysis, sym)
    return [o for o in occs if any(o.symbol is s for s in group)]


def struct_literals_of(analysis, name: str) -> list[A.StructLit]:
    """The struct literals of struct `name` in the file, as written."""
    return [n for n in A.walk(bodies(analysis.ast)) if isinstance(n, A.StructLit) and n.name == name]
