"""Text helpers the transformations share: lines and their indentation in
the original bytes, fresh names, and copying a range of source with some of
its spans replaced. Everything works on byte offsets into
`analysis.source.data`; nothing here parses."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from ...syntax.tokens import COMMENT, IDENT
from .base import NotApplicable


def text_of(analysis: Analysis, node) -> str:
    """The source text of a node, verbatim."""
    return analysis.source.data[node.span.start:node.span.end].decode()


def line_start(data: bytes, offset: int) -> int:
    return data.rfind(b"\n", 0, offset) + 1


def next_line(data: bytes, offset: int) -> int:
    """The start of the line after the one holding `offset` (or the end)."""
    nl = data.find(b"\n", offset)
    return len(data) if nl < 0 else nl + 1


def in_file_style(data: bytes, text: str) -> str:
    """New lines end the way the file's lines do (`\r\n` in a CRLF file)."""
    text = text.replace("\r\n", "\n")
    return text.replace("\n", "\r\n") if b"\r\n" in data else text


def first_on_line(data: bytes, offset: int) -> bool:
    return not data[line_start(data, offset):offset].strip()


def indent_at(data: bytes, offset: int) -> str:
    """The indentation of the line holding `offset`; NotApplicable when
    something other than blanks precedes `offset` on that line."""
    before = data[line_start(data, offset):offset]
    if before.strip():
        raise NotApplicable("the statement does not start its line")
    return before.decode()


def identifiers(analysis: Analysis) -> set[str]:
    """Every identifier written anywhere in the file: fresh names avoid them all."""
    return {t.text for t in analysis.tokens if t.kind == IDENT}


def fresh(base: str, j: int, taken: set[str]) -> str:
    """`base_j`, or `base_j_2`, `base_j_3`, ... if that is taken; the result is added to `taken`."""
    name = f"{base}_{j}"
    n = 2
    while name in taken:
        name = f"{base}_{j}_{n}"
        n += 1
    taken.add(name)
    return name


def comment_spans(analysis: Analysis, start: int, end: int) -> list[tuple[int, int]]:
    return [(t.start, t.end) for t in analysis.tokens if t.kind == COMMENT and start <= t.start < end]


def copy_range(data: bytes, start: int, end: int, subs: list[tuple[int, int, str]],
               drop_blank: bool = False) -> str:
    """data[start:end] with each (s, e, text) of `subs` (non-overlapping,
    inside the range) replacing bytes s..e. With `drop_blank`, lines left
    empty (a removed comment, a blank line) are dropped and trailing blanks
    trimmed."""
    out, pos = [], start
    for s, e, t in sorted(subs):
        if s < pos:
            raise NotApplicable("overlapping substitutions")  # a bug in the caller, reported, not hidden
        out += [data[pos:s].decode(), t]
        pos = e
    out.append(data[pos:end].decode())
    text = "".join(out)
    if drop_blank:
        text = "".join(line.rstrip() + "\n" for line in text.splitlines() if line.strip())
    return text


def parents(roots) -> dict[int, object]:
    """id(child) -> parent for every node under `roots`."""
    up: dict[int, object] = {}
    for node in A.walk(roots):
        for child in A.children(node):
            up[id(child)] = node
    return up


_COMPARE = frozenset({"==", "!=", "<", ">", "<=", ">="})
_ADDITIVE = frozenset({"+", "-", ".+", ".-", ".&", ".|", ".^", ".<<", ".>>", "&", "|", "^", "<<", ">>"})


def sum_needs_parens(node, parent) -> bool:
    """Whether `node` replaced by a sum `x + y` must be parenthesised to keep
    its place in `parent` (precedence, LANGUAGE.md §2.1)."""
    if isinstance(parent, A.Unary):
        return True
    if not isinstance(parent, A.Binary):
        return False  # call argument, subscript, let/assign value, condition, parentheses
    if parent.op in _COMPARE or parent.op in ("&&", "||"):
        return False
    if parent.op in _ADDITIVE and parent.left is node:
        return False
    return not (parent.op == "+" and parent.right is node)
