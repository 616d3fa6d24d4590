"""Token kinds and the token type. Kind names are the ones `--emit-tokens`
prints (TOOLCHAIN.md §1.4)."""
from __future__ import annotations

import re
from enum import StrEnum

from ..source import Span
from ..typesys.vectors import VECTORS

# Keywords (reserved words) -> kind name.
KEYWORDS: dict[str, str] = {
    "func": "Func", "export": "Export", "return": "Return", "let": "Let", "mut": "Mut",
    "if": "If", "else": "Else", "while": "While", "true": "True", "false": "False",
    "struct": "Struct", "splat": "Splat", "restrict": "Restrict", "foreach": "ForEach",
    "in": "In", "unroll": "Unroll", "const": "Const", "for": "For",
    "i8": "I8", "u8": "U8", "i16": "I16", "u16": "U16", "i32": "I32", "i64": "I64",
    "f16": "F16", "f32": "F32", "f64": "F64", "bool": "Bool",
}
for _name in VECTORS:
    KEYWORDS[_name] = _name[0].upper() + _name[1:]

SCALAR_TYPE_KINDS = frozenset({"I8", "U8", "I16", "U16", "I32", "I64", "F16", "F32", "F64", "Bool"})
VECTOR_TYPE_KINDS = frozenset(KEYWORDS[n] for n in VECTORS)
TYPE_KINDS = SCALAR_TYPE_KINDS | VECTOR_TYPE_KINDS

# Words the parser reads in context; the lexer gives them as identifiers.
# Kernel headers and items: `kernel f(...) over i in n step 4 tail scalar { }`, `static_assert(...)`.
HEADER_WORDS = frozenset({"kernel", "over", "step", "tail", "static_assert"})
# The strategies after `tail`.
TAIL_WORDS = frozenset({"scalar", "mask", "pad"})
# Parameter annotations: `out dst: *mut f32 [cap: n, count: m]`.
PARAM_WORDS = frozenset({"out", "cap", "count"})
CONTEXTUAL_WORDS = HEADER_WORDS | TAIL_WORDS | PARAM_WORDS
# Scalar type names that are not reserved words (they are read in type position).
TYPE_IDENTIFIERS = ("u32", "u64")

# Operators and punctuation -> kind name.
OPERATORS: dict[str, str] = {
    "(": "LeftParen", ")": "RightParen", "{": "LeftBrace", "}": "RightBrace",
    "[": "LeftBracket", "]": "RightBracket", ",": "Comma", ":": "Colon", "->": "Arrow",
    "+": "Plus", "-": "Minus", "*": "Star", "/": "Slash", "%": "Percent", "=": "Equals",
    "<=": "LessEqual", ">=": "GreaterEqual", "==": "EqualEqual", "!=": "BangEqual",
    "<": "Less", ">": "Greater", ".+": "PlusDot", ".-": "MinusDot", ".*": "StarDot",
    "./": "SlashDot", ".<=": "LessEqualDot", ".>=": "GreaterEqualDot", ".==": "EqualEqualDot",
    ".!=": "BangEqualDot", ".<": "LessDot", ".>": "GreaterDot", ".<<": "ShiftLeftDot",
    ".>>": "ShiftRightDot", ".&": "AmpDot", ".|": "PipeDot", ".^": "CaretDot", "..": "DotDot",
    ".": "Dot", "<<": "ShiftLeft", ">>": "ShiftRight", "&": "Amp", "|": "Pipe", "^": "Caret",
    "&&": "AmpAmp", "||": "PipePipe", "!": "Bang", "#": "Hash",
}

IDENT = "Identifier"
INT = "IntLiteral"
HEX = "HexLiteral"
BIN = "BinLiteral"
FLOAT = "FloatLiteral"
STRING = "StringLiteral"
COMMENT = "Comment"  # trivia: kept by `lex(..., trivia=True)`, skipped by the parser
EOF = "Eof"

NUMBER_KINDS = frozenset({INT, HEX, BIN, FLOAT})

# Every token kind as one vocabulary: `TokenKind.LeftParen == "LeftParen"` (a str enum, so the
# lexer's kinds compare equal), and a misspelt member fails where it is read.
TokenKind = StrEnum("TokenKind", [(k, k) for k in dict.fromkeys(
    [*KEYWORDS.values(), *OPERATORS.values(), IDENT, INT, HEX, BIN, FLOAT, STRING, COMMENT, EOF])])

# The element-wise operators (`.+`, `.*`, `.<=`, `.<<`, ...): the ones tools mark apart.
ELEMENTWISE_KINDS = frozenset(TokenKind(k) for text, k in OPERATORS.items()
                              if text.startswith(".") and text not in (".", ".."))
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_identifier(text: str) -> bool:
    """`text` lexes as one identifier (reserved words included: see KEYWORDS)."""
    return _IDENTIFIER.match(text) is not None


class Token(Span):
    """A token is its own span, plus kind, text and whether it starts a line."""

    __slots__ = ("kind", "text", "first_on_line")

    def __init__(self, kind: str, text: str, start: int, end: int, line: int, col: int,
                 end_line: int, end_col: int, first_on_line: bool):
        # Set directly rather than via Span.__init__: tokens are the hottest allocation.
        self.start = start
        self.end = end
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col
        self.kind = kind
        self.text = text
        self.first_on_line = first_on_line

    def describe(self) -> str:
        """The token as diagnostics name it: its text, or `end of file`."""
        return "end of file" if self.kind == EOF else self.text

    def __repr__(self) -> str:
        return f'{self.kind}("{self.text}") at {self.line}:{self.col}'


def comments(tokens: list[Token]) -> list[Token]:
    """The comment tokens (`//` to the end of the line, the line end excluded)."""
    return [t for t in tokens if t.kind == COMMENT]


def significant(tokens: list[Token]) -> list[Token]:
    """The tokens the parser reads: every token but comments."""
    return [t for t in tokens if t.kind != COMMENT]
