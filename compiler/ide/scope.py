"""What is visible at a position: the enclosing function, the locals in
scope, the fields after `expr.`, the parameters of a function: what
completion and rename read."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..intrinsics import TABLE
from ..symbols import CALLABLE_KINDS, VARIABLE_KINDS, Symbol, SymbolKind
from ..syntax import ast as A
from ..syntax.tokens import HEADER_WORDS, KEYWORDS, TokenKind
from ..typesys.model import SCALARS, Pointer, Struct
from ..typesys.vectors import VECTORS

# Reserved words, and the contextual words a construct starts with (`out` starts a
# parameter; `cap`/`count` and the tail strategies only follow another word).
COMPLETION_KEYWORDS = tuple(sorted({k for k in KEYWORDS if k not in SCALARS and k not in VECTORS and k not in TABLE}
                                   | HEADER_WORDS | {"out"}))
_WORD_KINDS = frozenset(KEYWORDS.values()) | {TokenKind.Identifier}


def enclosing_item(analysis, offset: int) -> A.Func | A.Kernel | None:
    """The function or kernel (as written) whose text contains `offset`."""
    for item in analysis.ast.items:
        if isinstance(item, (A.Func, A.Kernel)) and item.span.start <= offset <= item.span.end:
            return item
    return None


def params_of(analysis, name: str) -> list[Symbol]:
    """Parameters of a user function or kernel, in order."""
    found = [s for s in analysis.symbols.symbols if s.kind == SymbolKind.PARAM and s.container == name]
    return sorted(found, key=lambda s: s.span.start)


def fields_of(analysis, struct: str) -> list[Symbol]:
    """The fields of a struct, in declaration order."""
    return [s for s in analysis.symbols.symbols if s.kind == SymbolKind.FIELD and s.container == struct]


def in_scope(analysis, at: int) -> list[Symbol]:
    """Locals, parameters and loop variables visible at byte offset `at`: those
    of the enclosing function defined before it (the last `let` of a name
    wins), except the ones inside a `foreach` the cursor is not in."""
    item = enclosing_item(analysis, at)
    if item is None:
        return []
    blocks = [item.body] + ([item.tail_body] if isinstance(item, A.Kernel) and item.tail_body else [])
    hidden = [s for s in A.statements(st for b in blocks for st in b.stmts)
              if isinstance(s, A.ForEach) and not s.span.start <= at <= s.span.end]
    seen: dict[str, Symbol] = {}
    for s in sorted(analysis.symbols.symbols, key=lambda s: s.span.start):
        if s.kind not in VARIABLE_KINDS or s.container != item.name or s.span.start >= at:
            continue
        if s.kind != SymbolKind.PARAM and any(fe.span.start <= s.span.start < fe.span.end for fe in hidden):
            continue
        seen[s.name] = s
    return list(seen.values())


@dataclass
class TopLevel:
    """A function, kernel, struct or constant of the file (a callable's parameters in order)."""
    symbol: Symbol
    params: list[Symbol] = field(default_factory=list)


@dataclass
class Completion:
    """What may be written at a position. After `expr.`: `after_dot`, and the
    fields of its struct type (none when it has none). Elsewhere: the locals in
    scope, the file's functions (with parameters), structs and constants; the
    tool adds the built-in tables (intrinsics, type names, COMPLETION_KEYWORDS)."""
    after_dot: bool
    fields: list[Symbol] = field(default_factory=list)
    scope: list[Symbol] = field(default_factory=list)
    top_level: list[TopLevel] = field(default_factory=list)  # in source order


def completion(analysis, at: int) -> Completion:
    before = [t for t in analysis.tokens_before(at)[-3:] if t.end <= at or t.kind in _WORD_KINDS]
    if before and before[-1].kind in _WORD_KINDS and before[-1].end >= at:
        before = before[:-1]  # the word being typed
    if before and before[-1].kind == TokenKind.Dot:
        return Completion(after_dot=True, fields=_fields_after(analysis, before[:-1]))
    params: dict[str, list[Symbol]] = {}  # one pass, not one scan per function
    for sym in analysis.symbols.symbols:
        if sym.kind == SymbolKind.PARAM:
            params.setdefault(sym.container, []).append(sym)
    top = [TopLevel(s, sorted(params.get(s.name, []), key=lambda p: p.span.start) if s.kind in CALLABLE_KINDS
                    else []) for s in analysis.symbols.top_level()]
    return Completion(after_dot=False, scope=in_scope(analysis, at), top_level=top)


def _fields_after(analysis, before) -> list[Symbol]:
    if not before or before[-1].kind not in (TokenKind.Identifier, TokenKind.RightBracket, TokenKind.RightParen):
        return []
    last = before[-1]
    t = analysis.type_at(last.start if last.kind == TokenKind.Identifier else last.end - 1)
    if isinstance(t, Pointer):
        t = t.pointee  # `p.f` auto-dereferences
    return fields_of(analysis, t.name) if isinstance(t, Struct) else []
