"""textDocument/semanticTokens/full: the IDE layer's token classes
(ea_compiler.tooling `highlights`: one classification, shared with the TUI)
in the LSP's relative encoding. Positions and lengths are in the negotiated
position encoding."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import Modifier, TokenClass, gc_paused, highlights

from ..convert import column
from ..support import guarded

TOKEN_TYPES = [c.value for c in TokenClass]
_MODIFIERS = (Modifier.DECLARATION, Modifier.READONLY, Modifier.DEFAULT_LIBRARY, Modifier.MUTABLE)
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "mutable"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)
_T = {c: i for i, c in enumerate(TokenClass)}


def _bits(mods: Modifier) -> int:
    return sum(1 << i for i, m in enumerate(_MODIFIERS) if m in mods)


def classify(analysis) -> list[tuple[int, int, int, int, int]]:
    """(line, column, end column, type index, modifiers) per single-line token piece;
    lines and columns are the compiler's (1-based, in characters)."""
    return [(h.line, h.col, h.end_col, _T[h.cls], _bits(h.mods)) for h in highlights(analysis)]


def encode(analysis, pieces: list[tuple[int, int, int, int, int]]) -> list[int]:
    """The LSP's relative encoding: deltaLine, deltaStart, length, type, modifiers
    (columns and lengths in the negotiated position encoding)."""
    source = analysis.source
    data: list[int] = []
    prev_line = prev_start = 0
    for line, col, end_col, type_index, mods in pieces:
        start = column(source, line, col)
        length = column(source, line, end_col) - start
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
