"""Colouring, as style categories (see tui/widgets/code_view.py CATEGORIES).

Eä source is coloured from the compiler's own tokens (`Analysis.tokens`,
comments included), so the TUI and the compiler never disagree about what a
word is. The dump stages (tokens, trees, LLVM IR, assembly) are coloured line
by line with small regular expressions: they are compiler output, not user
input.

Spans are `(start, end, category)` with 0-based character columns.
"""
from __future__ import annotations

import re

from ea_compiler import Analysis
from ea_compiler.tooling import (EOF, HEADER_WORDS, IDENT, TAIL_WORDS, Intrinsic, comments, significant,
                                 token_class)

Span = tuple[int, int, str]

_DOT_OPERATOR = re.compile(r"^\.[^.\w]+$|^\.(<<|>>)$")


def source_spans(analysis: Analysis) -> dict[int, list[Span]]:
    """Per 1-based source line, the coloured spans of that line."""
    out: dict[int, list[Span]] = {}
    tokens = [t for t in significant(analysis.tokens) if t.kind != EOF]
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1] if i else None
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        category = _token_category(analysis, tok, prev, nxt)
        if category:
            start = tok.col - 1
            end = tok.end_col - 1 if tok.end_line == tok.line else start + len(tok.text)
            out.setdefault(tok.line, []).append((start, end, category))
    for tok in comments(analysis.tokens):
        out.setdefault(tok.line, []).append((tok.col - 1, tok.end_col - 1, "comment"))
    return out


def _token_category(analysis: Analysis, tok, prev, nxt) -> str | None:
    call = nxt is not None and nxt.kind == "LeftParen"
    if tok.kind == IDENT:
        if tok.text in HEADER_WORDS or (tok.text in TAIL_WORDS and prev is not None and prev.text == "tail"):
            return "keyword"
        if call:
            defines = prev is not None and (prev.kind == "Func" or prev.text == "kernel")
            return "intrinsic" if not defines and isinstance(analysis.callee_at(tok), Intrinsic) else "function"
        return None
    if call and isinstance(analysis.callee_at(tok), Intrinsic):  # `splat(...)`: a keyword calling an intrinsic
        return "intrinsic"
    category = token_class(tok.kind)
    if category is None and _DOT_OPERATOR.match(tok.text):
        return "operator"
    return category


# ---- compiler output --------------------------------------------------------

def _spans(text: str, rules: list[tuple[re.Pattern, str]]) -> list[Span]:
    spans: list[Span] = []
    taken = [False] * len(text)
    for pattern, category in rules:
        for m in pattern.finditer(text):
            start, end = m.span(m.lastindex or 0)
            if end > start and not any(taken[start:end]):
                spans.append((start, end, category))
                taken[start:end] = [True] * (end - start)
    return spans


_TOKEN_RULES = [(re.compile(r'\("(.*)"\) at '), "string"), (re.compile(r"( at \d+:\d+)$"), "muted")]
_TOKEN_LINE = re.compile(r"^(\w+)\(")


def token_dump_spans(line: str) -> list[Span]:
    spans = _spans(line, _TOKEN_RULES)
    m = _TOKEN_LINE.match(line)
    if m:
        spans.append((0, m.end(1), token_class(m.group(1)) or "function"))
    return spans


_TREE_RULES = [
    (re.compile(r"^\s*([\w\[\]]+): "), "muted"),
    (re.compile(r"(?:^\s*(?:[\w\[\]]+: )?)([A-Z]\w*)"), "keyword"),
    (re.compile(r"\b(\d+:\d+)\b"), "muted"),
    (re.compile(r'("(?:[^"\\]|\\.)*")'), "string"),
    (re.compile(r"( : .*)$"), "type"),
    (re.compile(r"=(-?[\d.]+(?:e[+-]?\d+)?)\b"), "number"),
]


def tree_dump_spans(line: str) -> list[Span]:
    return _spans(line, _TREE_RULES)


_IR_RULES = [
    (re.compile(r"(;.*)$"), "comment"),
    (re.compile(r'("(?:[^"\\]|\\.)*")'), "string"),
    (re.compile(r"^([\w.$-]+):"), "label"),
    (re.compile(r"^(define|declare|attributes|target|source_filename)\b"), "keyword"),
    (re.compile(r"(@[\w.$-]+)"), "function"),
    (re.compile(r"(![\w.]+)"), "muted"),
    (re.compile(r"^\s+(?:%[\w.$-]+ = )?([a-z][\w.]*)"), "keyword"),
    (re.compile(r"(<\d+ x [\w]+>|\b(?:i\d+|half|float|double|ptr|void|label)\b)"), "type"),
    (re.compile(r"(?<![%@\w.])(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|0x[0-9A-Fa-f]+)\b"), "number"),
]


def ir_spans(line: str) -> list[Span]:
    return _spans(line, _IR_RULES)


# ---- assembly ---------------------------------------------------------------

_ASM_OPERAND_RULES = [
    (re.compile(r"((?:#|//).*)$"), "comment"),
    (re.compile(r"(%[xyz]mm\d+|\b[vq]\d+(?:\.\d*[bhsd])?\b)"), "vector"),
    (re.compile(r"(\$-?\w+|#-?\w+)"), "number"),
]


def asm_display(raw: str, kind: str) -> tuple[str, list[Span]]:
    """One assembly line laid out for reading (`  mnemonic   operands`) and its spans."""
    stripped = raw.strip()
    if kind in ("label", "blank"):
        return stripped, [(0, len(stripped), "label")] if stripped else []
    if kind in ("directive", "comment"):
        text = "  " + " ".join(stripped.split())
        return text, [(2, len(text), kind)]
    mnemonic, _, operands = stripped.partition("\t") if "\t" in stripped else stripped.partition(" ")
    operands = " ".join(operands.replace("\t", " ").split())
    head = "  " + mnemonic.ljust(11)
    text = f"{head} {operands}".rstrip()
    spans = [(2, 2 + len(mnemonic), kind)]
    spans += [(s + len(head) + 1, e + len(head) + 1, c) for s, e, c in _spans(operands, _ASM_OPERAND_RULES)]
    return text, spans
