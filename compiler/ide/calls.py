"""The call around a cursor and its signatures (signature help).

The call is found from the tokens before the cursor, so it works in text
being typed that does not parse yet; what it calls is the checker's decision
(`Analysis.callee_at`: the recorded callee, or for unchecked text the same
rule applied to the name)."""
from __future__ import annotations

from dataclasses import dataclass

from ..intrinsics import Intrinsic
from ..symbols import Symbol
from ..syntax.tokens import KEYWORDS, Token, TokenKind
from .scope import params_of

_WORD_KINDS = frozenset(KEYWORDS.values()) | {TokenKind.Identifier}
_OPEN = {TokenKind.LeftParen: TokenKind.RightParen, TokenKind.LeftBracket: TokenKind.RightBracket,
         TokenKind.LeftBrace: TokenKind.RightBrace}
_CLOSE = {v: k for k, v in _OPEN.items()}


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
    depth = dict.fromkeys(_OPEN, 0)
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
            if t.kind != TokenKind.LeftParen:
                if t.kind == TokenKind.LeftBrace:
                    return None  # left the statement: not inside a call
                commas = 0  # an unmatched `[`: its commas are not arguments
                continue
            prev = before[k - 1] if k > 0 else None
            if prev is not None and (prev.kind == TokenKind.Identifier
                                     or prev.kind in _WORD_KINDS
                                     and isinstance(analysis.callee_at(prev), Intrinsic)):
                if k > 1 and (before[k - 2].kind == TokenKind.Func or before[k - 2].text == "kernel"):
                    return None  # the parameter list of a definition
                return CallSite(prev.text, prev, t, commas)
            commas = 0  # a parenthesised expression: keep looking outwards
        elif t.kind == TokenKind.Comma and not any(depth.values()):
            commas += 1
    return None


@dataclass
class Parameter:
    name: str | None
    type: str


@dataclass
class Signature:
    name: str
    params: list[Parameter]
    tail: str  # `" -> f32"`, or ""
    doc: str


@dataclass
class SignatureHelp:
    signatures: list[Signature]
    active_signature: int
    active_parameter: int


def signature_help(analysis, offset: int) -> SignatureHelp | None:
    call = call_at(analysis, offset)
    if call is None:
        return None
    callee = analysis.callee_at(call.name_token)
    if isinstance(callee, Symbol):
        params = params_of(analysis, callee.name)
        ret = "" if str(callee.type) == "void" else f" -> {callee.type}"
        sigs = [Signature(call.name, [Parameter(p.name, str(p.type)) for p in params], ret, callee.detail)]
    elif isinstance(callee, Intrinsic):
        sigs = []
        for text in callee.signatures:
            types, rest = split_params(text)
            names = callee.params if len(callee.params) == len(types) else [None] * len(types)
            sigs.append(Signature(callee.name, [Parameter(n, t) for n, t in zip(names, types)],
                                  f" {rest}" if rest else "", callee.doc))
    else:
        return None
    fits = [i for i, s in enumerate(sigs) if len(s.params) > call.active]
    return SignatureHelp(sigs, fits[0] if fits else 0, call.active)


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
