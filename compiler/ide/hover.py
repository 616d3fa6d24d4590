"""What a hover shows, as data: the word under the cursor and what it names
(a symbol of the file, the intrinsic a call calls or a name of the table,
a built-in type), with what the tool needs to describe it."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from ..intrinsics import Intrinsic, lookup
from ..symbols import CALLABLE_KINDS, Symbol, SymbolKind
from ..syntax.tokens import KEYWORDS, Token, TokenKind
from ..typesys.model import SCALARS
from ..typesys.vectors import VECTORS
from .scope import fields_of

_WORD_KINDS = frozenset(KEYWORDS.values()) | {TokenKind.Identifier}


@dataclass
class Hover:
    """`word` is the token hovered. Exactly one of `symbol`, `intrinsic`,
    `vector`, `scalar` is set (the last two: a built-in type's table entry);
    `fields` are a struct's, `callable` says the symbol is a function or
    kernel (the tool adds what its compiled code does)."""
    word: Token
    symbol: Symbol | None = None
    intrinsic: Intrinsic | None = None
    vector: object = None  # typesys.vectors.VectorInfo
    scalar: object = None  # the SCALARS entry
    fields: list[Symbol] = field(default_factory=list)

    @property
    def callable(self) -> bool:
        return self.symbol is not None and self.symbol.kind in CALLABLE_KINDS


def word_at(analysis, offset: int) -> Token | None:
    """The identifier or keyword token touching `offset` (either side)."""
    tokens = analysis.tokens
    i = bisect_right(analysis.token_starts, offset) - 1
    for j in (i, i - 1):
        if 0 <= j < len(tokens):
            t = tokens[j]
            if t.kind in _WORD_KINDS and t.start <= offset <= t.end and t.end > t.start:
                return t
    return None


def hover(analysis, offset: int) -> Hover | None:
    analysis = analysis.focus(offset)  # one place: after an edit, only its item is read
    tok = word_at(analysis, offset)
    if tok is None:
        return None
    sym = analysis.symbol_at(tok.start)
    if sym is not None and sym.name == tok.text:
        fields = fields_of(analysis, sym.name) if sym.kind == SymbolKind.STRUCT else []
        return Hover(tok, symbol=sym, fields=fields)
    intr = analysis.callee_at(tok)  # a call: what it calls; a bare name: the table's entry
    if isinstance(intr, Intrinsic) or (intr := lookup(tok.text)) is not None:
        return Hover(tok, intrinsic=intr)
    if tok.text in VECTORS:
        return Hover(tok, vector=VECTORS[tok.text])
    if tok.text in SCALARS:
        return Hover(tok, scalar=SCALARS[tok.text])
    return None
