"""Token classes for highlighting: the one classification the language
server's semantic tokens and the TUI's colours both read.

An identifier takes the class of the symbol it defines or references
(function, struct, property for fields, parameter, variable; constants are
readonly, `let mut` locals mutable); a call the checker resolved to an
intrinsic (or, in text being typed, one the same rule resolves) is a `MACRO`
with `DEFAULT_LIBRARY`, as is `splat`; another call's name is a `FUNCTION`;
`u32`/`u64` are types; the contextual words of kernel headers and parameter
annotations are keywords; `#[cfg(...)]` is a decorator; comments are the
lexer's comment tokens. Punctuation gets no class. A token over several
lines (a string) gives one piece per line.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, Flag, auto

from ..gc_pause import gc_paused
from ..intrinsics import Intrinsic
from ..symbols import SymbolKind
from ..syntax.tokens import (CONTEXTUAL_WORDS, ELEMENTWISE_KINDS, KEYWORDS, NUMBER_KINDS, TYPE_IDENTIFIERS,
                             TYPE_KINDS, TokenKind)
from .occurrences import occurrences


class TokenClass(Enum):
    KEYWORD = "keyword"
    TYPE = "type"
    FUNCTION = "function"
    PARAMETER = "parameter"
    VARIABLE = "variable"
    PROPERTY = "property"
    STRUCT = "struct"
    NUMBER = "number"
    STRING = "string"
    COMMENT = "comment"
    OPERATOR = "operator"
    MACRO = "macro"  # an intrinsic (and `splat`)
    DECORATOR = "decorator"


class Modifier(Flag):
    NONE = 0
    DECLARATION = auto()
    READONLY = auto()
    DEFAULT_LIBRARY = auto()
    MUTABLE = auto()
    ELEMENTWISE = auto()  # an element-wise operator (`.*`, `.+`, ...)


@dataclass(frozen=True, slots=True)
class Highlight:
    """One classified piece of one line: 1-based line, 1-based character columns [col, end_col)."""
    line: int
    col: int
    end_col: int
    cls: TokenClass
    mods: Modifier = Modifier.NONE


_SYMBOL_CLASS = {SymbolKind.FUNCTION: TokenClass.FUNCTION, SymbolKind.KERNEL: TokenClass.FUNCTION,
                 SymbolKind.STRUCT: TokenClass.STRUCT, SymbolKind.FIELD: TokenClass.PROPERTY,
                 SymbolKind.CONST: TokenClass.VARIABLE, SymbolKind.PARAM: TokenClass.PARAMETER,
                 SymbolKind.LOCAL: TokenClass.VARIABLE, SymbolKind.LOOP_VAR: TokenClass.VARIABLE}
_PUNCTUATION = frozenset({TokenKind.LeftParen, TokenKind.RightParen, TokenKind.LeftBrace, TokenKind.RightBrace,
                          TokenKind.LeftBracket, TokenKind.RightBracket, TokenKind.Comma, TokenKind.Colon,
                          TokenKind.Dot, TokenKind.Arrow})
_KEYWORD_KINDS = frozenset(KEYWORDS.values()) - TYPE_KINDS


def token_class(kind: str) -> TokenClass | None:
    """The class a token kind has whatever its neighbours: reserved words,
    type names, literals, comments; None for identifiers and punctuation
    (operators: OPERATOR)."""
    if kind in TYPE_KINDS:
        return TokenClass.TYPE
    if kind in NUMBER_KINDS:
        return TokenClass.NUMBER
    if kind == TokenKind.StringLiteral:
        return TokenClass.STRING
    if kind in _KEYWORD_KINDS:
        return TokenClass.KEYWORD
    if kind == TokenKind.Comment:
        return TokenClass.COMMENT
    if kind in _PUNCTUATION or kind in (TokenKind.Identifier, TokenKind.Eof):
        return None
    return TokenClass.OPERATOR


def highlights(analysis) -> list[Highlight]:
    """Every classified token piece of the file, in position order."""
    with gc_paused():
        return _highlights(analysis)


def _highlights(analysis) -> list[Highlight]:
    by_start = {o.span.start: o for o in occurrences(analysis)}
    tokens = [t for t in analysis.tokens if t.kind != TokenKind.Comment]  # neighbours are read past comments
    out: list[Highlight] = []
    for i, tok in enumerate(tokens):
        kind = tok.kind
        mods = Modifier.NONE
        if kind == TokenKind.Eof:
            break
        if kind == TokenKind.Identifier:
            occ = by_start.get(tok.start)
            cls, mods = _identifier(analysis, tokens, i, occ if occ is not None and occ.span.end == tok.end else None)
        elif kind == TokenKind.Splat:
            cls, mods = TokenClass.MACRO, Modifier.DEFAULT_LIBRARY
        elif kind == TokenKind.Hash:
            cls = TokenClass.DECORATOR
        else:
            cls = token_class(kind)
            if cls is None:
                continue
            if kind in ELEMENTWISE_KINDS:
                mods = Modifier.ELEMENTWISE
        _pieces(analysis.source, tok, cls, mods, out)
    for tok in analysis.tokens:
        if tok.kind == TokenKind.Comment:
            out.append(Highlight(tok.line, tok.col, tok.end_col, TokenClass.COMMENT))
    out.sort(key=lambda h: (h.line, h.col))
    return out


def _pieces(source, tok, cls: TokenClass, mods: Modifier, out: list[Highlight]) -> None:
    if tok.end_line == tok.line:
        out.append(Highlight(tok.line, tok.col, tok.end_col, cls, mods))
        return
    for line in range(tok.line, tok.end_line + 1):  # a string over several lines: one piece per line
        end = tok.end_col if line == tok.end_line else len(source.line_text(line)) + 1
        out.append(Highlight(line, tok.col if line == tok.line else 1, end, cls, mods))


def _identifier(analysis, tokens, i: int, occ) -> tuple[TokenClass, Modifier]:
    tok = tokens[i]
    if occ is not None:
        sym = occ.symbol
        mods = Modifier.DECLARATION if occ.definition else Modifier.NONE
        if sym.kind == SymbolKind.CONST:
            mods |= Modifier.READONLY
        elif sym.kind == SymbolKind.LOCAL and sym.detail.startswith("let mut"):
            mods |= Modifier.MUTABLE
        return _SYMBOL_CLASS[sym.kind], mods
    before = [tokens[j].kind if j >= 0 else None for j in (i - 1, i - 2, i - 3)]
    if before[:2] == [TokenKind.LeftBracket, TokenKind.Hash] or \
            (before[0] == TokenKind.LeftParen and tokens[i - 2].text == "cfg" and before[2] == TokenKind.LeftBracket):
        return TokenClass.DECORATOR, Modifier.NONE
    if tok.text in CONTEXTUAL_WORDS:  # `kernel`, `over`, `static_assert`, `tail`, `out`, ...
        return TokenClass.KEYWORD, Modifier.NONE
    if tokens[i + 1].kind == TokenKind.LeftParen and before[0] != TokenKind.Func and \
            not (i and tokens[i - 1].text == "kernel"):
        if isinstance(analysis.callee_at(tok), Intrinsic):
            return TokenClass.MACRO, Modifier.DEFAULT_LIBRARY
        return TokenClass.FUNCTION, Modifier.NONE  # a call to a name nothing defines (yet)
    if tok.text in TYPE_IDENTIFIERS:
        return TokenClass.TYPE, Modifier.NONE
    return TokenClass.VARIABLE, Modifier.NONE
