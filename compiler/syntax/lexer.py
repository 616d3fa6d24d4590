"""The lexer: source bytes -> tokens, never failing.

`lex(..., trivia=True)` also keeps each `//` comment as a `Comment` token
(its text without the line end): the tools colour and fold from them. The
parser skips them, and `--emit-tokens` does not list them.

Bad characters, `;`, unterminated strings and invalid UTF-8 become
diagnostics and lexing continues. One master regular expression does the
longest-match scan; the source is latin-1 text so match offsets are bytes.
In a non-ASCII file, columns are counted from the last known position on
the line (`mark`), so a line costs time linear in its length.
"""
from __future__ import annotations

import re
import sys
from bisect import bisect_right
from decimal import Decimal

from ..diagnostics import DiagnosticSink, Label, Suggestion
from ..source import SourceFile, Span, char_count
from .tokens import BIN, COMMENT, EOF, FLOAT, HEX, IDENT, INT, KEYWORDS, OPERATORS, STRING, Token

_OPS = sorted(OPERATORS, key=len, reverse=True)
# Leading blanks and line ends are folded into each match: fewer iterations of the scan (the
# line of a token is found from the file's line starts when it is past the current line's end).
# Identifiers and operators come first (the scan tests `lastindex <= _OP` for the common case);
# an operator never starts a comment (`//`) or a number (`.5`), which come later.
_MASTER = re.compile(
    r"[ \t\r\n]*(?:"
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?!//|\.[0-9])(?P<op>" + "|".join(re.escape(o) for o in _OPS) + r")"
    r"|(?P<comment>//[^\n]*)"
    r"|(?P<exponent>(?:[0-9]+\.[0-9]+|\.[0-9]+|[0-9]+)[eE][+-]?[0-9]+)"
    r"|(?P<float>[0-9]+\.[0-9]+|\.[0-9]+)"
    r"|(?P<hex>0x[0-9a-fA-F]+)"
    r"|(?P<bin>0b[01]+)"
    r"|(?P<int>[0-9]+)"
    r'|(?P<string>"[^"]*")'
    r'|(?P<unterminated>"[^\n]*)'
    r"|(?P<bad>[^ \t\r\n]+?(?=[ \t\r\n\"/A-Za-z0-9_(){}\[\],:+\-*%=<>!.&|^#]|$))"
    r"|(?P<end>\Z))",
    re.DOTALL,
)
_GROUP_KIND = {"exponent": FLOAT, "float": FLOAT, "hex": HEX, "bin": BIN, "int": INT, "string": STRING}
# The scan compares group numbers (`lastindex`, every group is named), cheaper than names.
_G = _MASTER.groupindex
_COMMENT, _IDENT, _OP, _END, _STRING = _G["comment"], _G["ident"], _G["op"], _G["end"], _G["string"]
assert _IDENT < _OP and all(n > _OP for n in _G.values() if n not in (_IDENT, _OP))
_WORDS = {**KEYWORDS, **OPERATORS}  # an identifier's or operator's text -> kind (identifiers: IDENT)
_NEVER = sys.maxsize
_EXPONENT = _G["exponent"]
_ERRORS = {_G["bad"]: "bad", _G["unterminated"]: "unterminated"}
_KIND_OF = {_G[name]: kind for name, kind in _GROUP_KIND.items()}

MAX_LEX_ERRORS = 50


def lex(source: SourceFile, sink: DiagnosticSink, trivia: bool = False) -> list[Token]:
    """Tokenise the whole file; the list always ends with an Eof token.
    With `trivia`, comments are kept as `Comment` tokens."""
    return lex_range(source, sink, trivia, 0, len(source.raw), eof=True)


def lex_range(source: SourceFile, sink: DiagnosticSink, trivia: bool, begin: int, stop: int,
              eof: bool = False) -> list[Token]:
    """The tokens of the bytes [begin, stop) of the file, as lexing the whole
    file gives them when no token crosses `begin` or `stop` (the incremental
    analysis re-lexes a function body this way)."""
    raw = source.raw
    data = source.data
    ascii_src = source.ascii
    line_starts = source.line_starts
    last_line = len(line_starts)
    tokens: list[Token] = []
    append = tokens.append
    line = source.line_of(begin)
    line_start = line_starts[line - 1]
    next_start = line_starts[line] if line < last_line else _NEVER  # where the line after `line` starts
    mark, mark_col = begin, source.col_of(line, begin)  # a byte offset on the current line and its column
    first = not raw[line_start:begin].strip(" \t\r")
    errors = 0
    words = _WORDS
    kind_of = _KIND_OF
    for m in _MASTER.finditer(raw, begin, stop):
        group = m.lastindex
        start, end = m.span(group)
        if start >= next_start:  # line ends were skipped before the token: find its line
            line = bisect_right(line_starts, start)
            line_start = mark = line_starts[line - 1]
            next_start = line_starts[line] if line < last_line else _NEVER
            mark_col = 1
            first = True
        if group <= _OP:  # an identifier or an operator: the common case
            text = raw[start:end]
            kind = words.get(text, IDENT)
        elif group == _END or (group == _COMMENT and not trivia):
            continue
        else:
            text = raw[start:end]
            if group == _COMMENT:
                kind = COMMENT
                if text.endswith("\r"):  # a CRLF line end is not comment text
                    end -= 1
                    text = text[:-1]
            elif group in _ERRORS:
                col = start - line_start + 1 if ascii_src else mark_col + char_count(data, mark, start)
                errors += 1
                if errors <= MAX_LEX_ERRORS:
                    _report_bad(source, sink, _ERRORS[group], start, end, line, col)
                elif errors == MAX_LEX_ERRORS + 1:
                    sink.error("lex", "too-many-lex-errors",
                               "too many lexical errors; further ones are not reported",
                               source.span(start, end),
                               notes=["is this an Eä source file? It may be binary or in another language"])
                if _ERRORS[group] == "bad":
                    mark, mark_col = start, col
                    continue
                kind = STRING  # recover: the string ends at the end of its line
            else:
                kind = kind_of[group]
                if group == _EXPONENT:  # kept as the float it means, so nothing cascades
                    _report_exponent(sink, source.span(start, end), text)
                elif group == _STRING and "\n" in text:
                    col = start - line_start + 1 if ascii_src else mark_col + char_count(data, mark, start)
                    end_line = line + text.count("\n")
                    line_start_end = start + text.rfind("\n") + 1
                    end_col = end - line_start_end + 1 if ascii_src else char_count(data, line_start_end, end) + 1
                    append(Token(kind, text, start, end, line, col, end_line, end_col, first))
                    line = end_line
                    line_start = line_start_end
                    next_start = line_starts[line] if line < last_line else _NEVER
                    mark, mark_col = end, end_col
                    first = False
                    continue
        if ascii_src:
            col = start - line_start + 1
            append(Token(kind, text, start, end, line, col, line, col + end - start, first))
        else:
            col = mark_col + char_count(data, mark, start)
            mark, mark_col = start, col
            end_col = col + (end - start) if text.isascii() else col + char_count(data, start, end)
            append(Token(kind, text, start, end, line, col, line, end_col, first))
        first = False
    if eof:
        n = stop
        col = n - line_start + 1 if ascii_src else mark_col + char_count(data, mark, n)
        append(Token(EOF, "", n, n, line, col, line, col, True))
    return tokens


def _report_exponent(sink: DiagnosticSink, span: Span, text: str) -> None:
    """`1e-6`: LANGUAGE.md §1.5 has no exponent form; say so and write the
    value out (when that stays readable)."""
    value = Decimal(text)
    fix = abs(value.adjusted()) <= 20  # `1e999999999` is not worth writing out
    written = format(value, "f") if fix else ""
    written += "" if "." in written else ".0"
    sink.error("lex", "exponent-literal", f"float literals have no exponent in Eä: '{text}' is not a literal", span,
               notes=["write the value out with a decimal point (LANGUAGE.md §1.5)"],
               suggestions=[Suggestion(span, written, f"write {written}")] if fix else [])


def _report_bad(source: SourceFile, sink: DiagnosticSink, group: str, start: int, end: int,
                line: int, col: int) -> None:
    span = source.span(start, end)
    if group == "unterminated":
        sink.error("lex", "unterminated-string", "unterminated string literal", span,
                   labels=[Label(Span(start, start + 1, line, col, line, col + 1),
                                 "string starts here and has no closing '\"'")],
                   suggestions=[Suggestion(span.at_end(), '"', "close the string")])
        return
    chunk = source.data[start:end]
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError:
        sink.error("lex", "invalid-utf8",
                   f"invalid UTF-8 byte 0x{chunk[0]:02x} in source text", span,
                   notes=["Eä source files must be UTF-8 encoded"])
        return
    if text == ";":
        sink.error("lex", "unexpected-character", 'unexpected character: ";"', span,
                   notes=["Eä has no statement terminators: statements end where the grammar says so"],
                   suggestions=[Suggestion(span, "", "remove the ';'")])
        return
    first = text[0]
    shown = first if first.isprintable() else f"\\u{ord(first):04x}"
    message = f'unexpected character: "{shown}"'
    if len(text) > 1:
        message = f'unexpected characters: "{text}"' if text.isprintable() else message
    sink.error("lex", "unexpected-character", message, span)


def token_dump(tokens: list[Token]) -> str:
    """The `--emit-tokens` text: one `Kind("lexeme") at line:col` per token."""
    return "".join(f'{t.kind}("{t.text}") at {t.line}:{t.col}\n' for t in tokens
                   if t.kind != EOF and t.kind != COMMENT)
