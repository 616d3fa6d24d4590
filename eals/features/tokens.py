"""textDocument/semanticTokens/full: classes for every token, from the token list
and the symbol table.

An identifier takes the class of the symbol it defines or references (function,
struct, property for fields, parameter, variable; constants are readonly
variables, `let mut` locals are mutable); an unresolved identifier called like
an intrinsic is a `macro` with `defaultLibrary` (as is `splat`); `u32`/`u64` are
types; the contextual words of kernel headers and parameter annotations are
keywords; `#[cfg(...)]` is a decorator; comments are the lexer's comment
tokens. Positions and lengths are in the negotiated position encoding, and
a string spanning lines is split into one token per line.
"""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import (CONTEXTUAL_WORDS, EOF, IDENT, TYPE_IDENTIFIERS, PositionEncoding, comments,
                              gc_paused, significant, token_class)
from ea_compiler.tooling import Intrinsic

from ..convert import encoding
from ..support import guarded, occurrences

TOKEN_TYPES = ["keyword", "type", "function", "parameter", "variable", "property", "struct", "number",
               "string", "comment", "operator", "macro", "decorator"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "mutable"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)

_T = {name: i for i, name in enumerate(TOKEN_TYPES)}
DECLARATION, READONLY, DEFAULT_LIBRARY, MUTABLE = (1 << i for i in range(len(TOKEN_MODIFIERS)))

_SYMBOL_TYPE = {"function": "function", "kernel": "function", "struct": "struct", "field": "property",
                "const": "variable", "param": "parameter", "local": "variable", "loop-var": "variable"}
_PUNCTUATION = frozenset({"LeftParen", "RightParen", "LeftBrace", "RightBrace", "LeftBracket", "RightBracket",
                          "Comma", "Colon", "Dot", "Arrow"})


class _Columns:
    """1-based character column -> 0-based column in the negotiated
    encoding, one table per non-ASCII line."""

    def __init__(self, source, units: PositionEncoding):
        self.source = source
        self.units = units
        self.tables: dict[int, list[int]] = {}

    def col(self, line: int, col: int) -> int:
        if self.source.ascii:
            return col - 1
        table = self.tables.get(line)
        if table is None:
            table = [0]
            for ch in self.source.line_text(line):
                table.append(table[-1] + self.units.width(ch))
            self.tables[line] = table
        return table[min(max(col - 1, 0), len(table) - 1)]

    def line_end(self, line: int) -> int:
        """1-based character column just past the end of `line`."""
        return len(self.source.line_text(line)) + 1


def _identifier(analysis, tokens, i: int, occ) -> tuple[str, int]:
    tok = tokens[i]
    if occ is not None:
        sym = occ.symbol
        mods = DECLARATION if occ.definition else 0
        if sym.kind == "const":
            mods |= READONLY
        elif sym.kind == "local" and sym.detail.startswith("let mut"):
            mods |= MUTABLE
        return _SYMBOL_TYPE.get(sym.kind, "variable"), mods
    before = [tokens[j].kind if j >= 0 else None for j in (i - 1, i - 2, i - 3)]
    if tokens[i + 1].kind == "LeftParen" and isinstance(analysis.callee_at(tok), Intrinsic):
        return "macro", DEFAULT_LIBRARY
    if before[:2] == ["LeftBracket", "Hash"] or \
            (before[0] == "LeftParen" and tokens[i - 2].text == "cfg" and before[2] == "LeftBracket"):
        return "decorator", 0
    if tok.text in TYPE_IDENTIFIERS:
        return "type", 0
    if tok.text in CONTEXTUAL_WORDS:
        return "keyword", 0
    return "variable", 0


def classify(analysis) -> list[tuple[int, int, int, int, int]]:
    """(line, column, end column, type index, modifiers) per single-line token piece;
    lines and columns are the compiler's (1-based, in characters)."""
    by_start = {o.span.start: o for o in occurrences(analysis)}
    tokens = significant(analysis.tokens)  # neighbours are read past comments
    out: list[tuple[int, int, int, int, int]] = []
    for i, tok in enumerate(tokens):
        kind = tok.kind
        mods = 0
        if kind == EOF:
            break
        if kind == IDENT:
            occ = by_start.get(tok.start)
            name, mods = _identifier(analysis, tokens, i, occ if occ is not None and occ.span.end == tok.end else None)
        elif kind == "Splat":
            name, mods = "macro", DEFAULT_LIBRARY
        elif kind == "Hash":
            name = "decorator"
        elif kind in _PUNCTUATION:
            continue
        else:
            name = token_class(kind) or "operator"
        if tok.end_line == tok.line:
            out.append((tok.line, tok.col, tok.end_col, _T[name], mods))
        else:  # a string over several lines: one piece per line
            for line in range(tok.line, tok.end_line + 1):
                out.append((line, tok.col if line == tok.line else 1,
                            tok.end_col if line == tok.end_line else -1, _T[name], mods))
    out += [(t.line, t.col, t.end_col, _T["comment"], 0) for t in comments(analysis.tokens)]
    out.sort()
    return out


def encode(analysis, pieces: list[tuple[int, int, int, int, int]]) -> list[int]:
    """The LSP's relative encoding: deltaLine, deltaStart, length, type, modifiers
    (columns and lengths in the negotiated position encoding)."""
    utf16 = _Columns(analysis.source, encoding())
    data: list[int] = []
    prev_line = prev_start = 0
    for line, col, end_col, type_index, mods in pieces:
        if end_col < 0:
            end_col = utf16.line_end(line)
        start = utf16.col(line, col)
        length = utf16.col(line, end_col) - start
        if length <= 0:
            continue
        line0 = line - 1
        data += [line0 - prev_line, start - prev_start if line0 == prev_line else start, length, type_index, mods]
        prev_line, prev_start = line0, start
    return data


def semantic_tokens(analysis) -> lsp.SemanticTokens:
    with gc_paused():
        return lsp.SemanticTokens(data=encode(analysis, classify(analysis)))


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @guarded("textDocument/semanticTokens/full")
    async def semantic_tokens_full(ls, params: lsp.SemanticTokensParams):
        analysis = await ls.current_analysis(params.text_document.uri)
        return None if analysis is None else semantic_tokens(analysis)
