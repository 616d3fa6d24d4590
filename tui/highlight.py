"""Colouring, as style categories (see tui/widgets/code_view.py CATEGORIES).

Eä source is coloured from the IDE layer's token classes (the ones the
language server's semantic tokens send), so the TUI, the editors and the
compiler never disagree about what a word is. The dump stages (tokens,
trees, LLVM IR, assembly) are coloured line by line with small regular
expressions: they are compiler output, not user input.

Spans are `(start, end, category)` with 0-based character columns.
"""
from __future__ import annotations

import re

from ea_compiler import Analysis
from ea_compiler.tooling import Modifier, TokenClass, highlights, token_class

Span = tuple[int, int, str]

# The IDE layer's token classes as the TUI's style categories (tui/widgets/code_view.py);
# variables, parameters, fields, struct names and decorators stay plain.
_CATEGORY = {TokenClass.KEYWORD: "keyword", TokenClass.TYPE: "type", TokenClass.NUMBER: "number",
             TokenClass.STRING: "string", TokenClass.COMMENT: "comment", TokenClass.MACRO: "intrinsic",
             TokenClass.FUNCTION: "function"}


def source_spans(analysis: Analysis) -> dict[int, list[Span]]:
    """Per 1-based source line, the coloured spans of that line."""
    out: dict[int, list[Span]] = {}
    for h in highlights(analysis):
        category = _CATEGORY.get(h.cls)
        if category is None and h.cls is TokenClass.OPERATOR and Modifier.ELEMENTWISE in h.mods:
            category = "operator"  # only the element-wise operators stand out
        if category:
            out.setdefault(h.line, []).append((h.col - 1, h.end_col - 1, category))
    return out


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
        spans.append((0, m.end(1), _CATEGORY.get(token_class(m.group(1)), "function")))
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
