"""Definition, references and rename, as spans.

The `#[cfg]` variants of a function count as one name for references and
rename. A rename is refused (`Refused`, with the reason) when the new name is
not an identifier, is a reserved word, would clash with a name in the same
scope, or when the cursor is on an intrinsic or on nothing renamable.
"""
from __future__ import annotations

from ..source import Span
from ..symbols import CALLABLE_KINDS, VARIABLE_KINDS, Symbol, SymbolKind
from ..syntax.parse_exprs import names_struct_literal
from ..syntax.tokens import KEYWORDS, TYPE_IDENTIFIERS, is_identifier
from .occurrences import Occurrence, all_occurrences, occurrence_at, occurrences, same_entity, struct_literals_of

_NAMED = {SymbolKind.FUNCTION: "a function", SymbolKind.KERNEL: "a kernel", SymbolKind.STRUCT: "a struct",
          SymbolKind.FIELD: "a field", SymbolKind.CONST: "a constant", SymbolKind.PARAM: "a parameter",
          SymbolKind.LOCAL: "a variable", SymbolKind.LOOP_VAR: "a loop variable"}


class Refused(Exception):
    """A rename the rules do not allow; str() says why."""


def target(analysis, offset: int | None) -> tuple[list[Occurrence], Occurrence | None]:
    """Every occurrence, and the one at `offset` (None: nothing named there, or no position)."""
    occs = occurrences(analysis)
    return occs, (None if offset is None else occurrence_at(occs, offset))


def definition(analysis, offset: int | None) -> Span | None:
    """The definition's name span of what is named at `offset`."""
    _, occ = target(analysis, offset)
    return None if occ is None else occ.symbol.span


def references(analysis, offset: int | None, include_declaration: bool) -> list[Span] | None:
    occs, occ = target(analysis, offset)
    if occ is None:
        return None
    return [o.span for o in all_occurrences(analysis, occs, occ.symbol) if include_declaration or not o.definition]


def renamable(analysis, offset: int | None) -> tuple[list[Occurrence], Occurrence]:
    """The occurrence a rename at `offset` renames; Refused when there is none."""
    occs, occ = target(analysis, offset)
    if occ is not None:
        return occs, occ
    intr = None if offset is None else analysis.intrinsic_called_at(offset)
    if intr is not None:
        raise Refused(f"cannot rename '{intr.name}': it is an intrinsic")
    raise Refused("nothing to rename here: put the cursor on the name of a function, kernel, "
                  "struct, field, constant, parameter or variable")


def refusal(analysis, sym: Symbol, new: str) -> str | None:
    """Why `sym` cannot be renamed to `new` (None: it can)."""
    if not is_identifier(new):
        return f"'{new}' is not a valid identifier"
    if new in KEYWORDS:
        return f"'{new}' is a keyword"
    if sym.kind in CALLABLE_KINDS and analysis.intrinsic_wins(new):
        return f"'{new}' is an intrinsic; calls to '{new}' would call the intrinsic, not this function"
    if sym.kind == SymbolKind.STRUCT:
        if new in TYPE_IDENTIFIERS:
            return f"'{new}' is a type name"
        if not names_struct_literal(new) and struct_literals_of(analysis, sym.name):
            return f"'{new}' must start with a capital letter: struct literals of '{sym.name}' need one"
    group = same_entity(analysis, sym)
    for other in analysis.symbols.symbols:
        if other in group or other.name != new:
            continue
        if _same_scope(sym, other):
            where = f" in '{sym.container}'" if (sym.kind in VARIABLE_KINDS or sym.kind == SymbolKind.FIELD) \
                and sym.container else ""
            return f"'{new}' is already {_NAMED.get(other.kind, 'defined')}{where}"
    return None


def _same_scope(sym: Symbol, other: Symbol) -> bool:
    return ((sym.kind in CALLABLE_KINDS and other.kind in CALLABLE_KINDS)
            or (sym.kind == other.kind == SymbolKind.STRUCT)
            or (sym.kind == other.kind == SymbolKind.FIELD and sym.container == other.container)
            or (sym.kind == SymbolKind.CONST and (other.kind == SymbolKind.CONST or other.kind in VARIABLE_KINDS))
            or (sym.kind in VARIABLE_KINDS and (other.kind == SymbolKind.CONST
                                                or (other.kind in VARIABLE_KINDS
                                                    and other.container == sym.container))))


def rename(analysis, offset: int | None, new_name: str) -> list[Span]:
    """The spans to replace with `new_name` (none when it is the same name); Refused when not allowed."""
    occs, occ = renamable(analysis, offset)
    sym = occ.symbol
    if new_name == sym.name:
        return []
    reason = refusal(analysis, sym, new_name)
    if reason is not None:
        raise Refused(f"cannot rename '{sym.name}' to '{new_name}': {reason}")
    return [o.span for o in all_occurrences(analysis, occs, sym)]
