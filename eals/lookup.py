"""Shared by hover, completion, signature help and inlay hints: what is at a
position (the word, the enclosing function, the call around the cursor),
and parameters of user functions. (Machine code: eals/machine.py.)"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ea_compiler.tooling import IDENT, KEYWORDS, Intrinsic, Symbol, Token
from ea_compiler.tooling import ast as A

WORD_KINDS = frozenset(KEYWORDS.values()) | {IDENT}
_OPEN = {"LeftParen": "RightParen", "LeftBracket": "RightBracket", "LeftBrace": "RightBrace"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def word_at(analysis, offset: int) -> Token | None:
    """The identifier or keyword token touching `offset` (either side)."""
    tokens = analysis.tokens
    i = bisect_right(analysis.token_starts, offset) - 1
    for j in (i, i - 1):
        if 0 <= j < len(tokens):
            t = tokens[j]
            if t.kind in WORD_KINDS and t.start <= offset <= t.end and t.end > t.start:
                return t
    return None


def enclosing_item(analysis, offset: int) -> A.Func | A.Kernel | None:
    """The function or kernel (as written) whose text contains `offset`."""
    for item in analysis.ast.items:
        if isinstance(item, (A.Func, A.Kernel)) and item.span.start <= offset <= item.span.end:
            return item
    return None


def params_of(analysis, name: str) -> list[Symbol]:
    """Parameters of a user function or kernel, in order."""
    found = [s for s in analysis.symbols.symbols if s.kind == "param" and s.container == name]
    return sorted(found, key=lambda s: s.span.start)


def callable_named(analysis, name: str) -> Symbol | None:
    for s in analysis.symbols.symbols:
        if s.name == name and s.kind in ("function", "kernel"):
            return s
    return None


@dataclass
class CallSite:
    name: str
    name_token: Token
    open_paren: Token
    active: int  # top-level commas between the `(` and the cursor


def call_at(analysis, offset: int) -> CallSite | None:
    """The innermost call whose `(` is open at `offset`: the nearest
    unmatched `(` before the cursor, preceded by a name."""
    before = analysis.tokens_before(offset)
    depth = {"LeftParen": 0, "LeftBracket": 0, "LeftBrace": 0}
    commas = 0
    for k in range(len(before) - 1, -1, -1):
        t = before[k]
        if t.end > offset:  # the cursor sits inside this token
            continue
        if t.kind in _CLOSE:
            depth[_CLOSE[t.kind]] += 1
        elif t.kind in _OPEN:
            if depth[t.kind]:
                depth[t.kind] -= 1
                continue
            if t.kind != "LeftParen":
                if t.kind == "LeftBrace":
                    return None  # left the statement: not inside a call
                commas = 0  # an unmatched `[`: its commas are not arguments
                continue
            prev = before[k - 1] if k > 0 else None
            if prev is not None and (prev.kind == IDENT or prev.kind in WORD_KINDS
                                     and isinstance(analysis.callee_at(prev), Intrinsic)):
                if k > 1 and (before[k - 2].kind == "Func" or before[k - 2].text == "kernel"):
                    return None  # the parameter list of a definition
                return CallSite(prev.text, prev, t, commas)
            commas = 0  # a parenthesised expression: keep looking outwards
        elif t.kind == "Comma" and not any(depth.values()):
            commas += 1
    return None


def split_params(signature: str) -> tuple[list[str], str]:
    """`(a, [x, y], c) -> r` -> (["a", "[x, y]", "c"], "-> r")."""
    if not signature.startswith("("):
        return [], signature
    level, parts, start = 0, [], 1
    for i, ch in enumerate(signature):
        if ch in "([":
            level += 1
        elif ch in ")]":
            level -= 1
            if level == 0:
                last = signature[start:i].strip()
                if last or parts:
                    parts.append(last)
                return parts, signature[i + 1:].strip()
        elif ch == "," and level == 1:
            parts.append(signature[start:i].strip())
            start = i + 1
    return parts, ""
