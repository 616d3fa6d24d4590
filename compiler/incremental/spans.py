"""The span objects an analysis is made of, found once and moved in place.

An analysis shares its `Span` objects (tokens are spans) between the token
list, both trees, the symbols, the diagnostics and the expression types. When
an edit inside one function body adds or removes bytes or lines, every span
after it moves by the same amount: the session keeps, per top-level item, the
list of the span objects located in it (items.py) and moves those lists when
they are read, rather than building the objects again.
"""
from __future__ import annotations

from bisect import bisect_right

from ..diagnostics import Diagnostic, Label, Suggestion
from ..source import Span
from ..symbols import Symbol
from ..syntax import ast as A

# Attributes that hold no span of the item: checked types (they may point at
# declarations elsewhere), a desugared function's kernel (collected as an item
# of its own), a symbol's type and value.
_SKIP = frozenset({"ty", "ret_ty", "origin"})
_FIELDS: dict[type, tuple[str, ...]] = {Symbol: ("span", "references"), Diagnostic: ("span", "labels", "suggestions"),
                                        Label: ("span",), Suggestion: ("span",)}
_LEAVES = (str, int, float, bool, type(None))


def _fields(cls: type) -> tuple[str, ...]:
    found = _FIELDS.get(cls)
    if found is None:
        names = getattr(cls, "__dataclass_fields__", None)
        if names is None or cls.__module__ != A.__name__:
            raise TypeError(f"no spans known in {cls.__name__}")
        found = _FIELDS[cls] = tuple(n for n in names if n not in _SKIP)
    return found


def collect(roots, into: dict[int, Span]) -> dict[int, Span]:
    """Every span object reachable from `roots` (tree nodes, tokens,
    diagnostics, symbols, lists and tuples of them), by identity."""
    stack = list(roots)
    pop, push = stack.pop, stack.append
    while stack:
        x = pop()
        if isinstance(x, Span):
            into[id(x)] = x
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif not isinstance(x, _LEAVES):
            for name in _fields(type(x)):
                value = getattr(x, name)
                if not isinstance(value, _LEAVES):
                    push(value)
    return into


def bucket(spans, starts: list[int]) -> list[list[Span]]:
    """`spans` sorted into the items starting at `starts` (the text before
    the first item goes with the first)."""
    out: list[list[Span]] = [[] for _ in starts]
    for s in spans:
        out[max(0, bisect_right(starts, s.start) - 1)].append(s)
    return out


def move(spans, by: int, lines: int) -> None:
    """Move spans that lie wholly after an edit (their columns stay: they
    start on a line after the edit's last one)."""
    if lines:
        for s in spans:
            s.start += by
            s.end += by
            s.line += lines
            s.end_line += lines
    else:
        for s in spans:
            s.start += by
            s.end += by


def stretch(s: Span, by: int, lines: int) -> None:
    """Move the end of a span that contains the edit."""
    s.end += by
    s.end_line += lines
