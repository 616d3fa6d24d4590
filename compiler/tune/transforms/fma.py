"""Fuse a multiply and an add into `fma`: the fix for inspect's `mul-add`
hint. `a .* b .+ c` and `c .+ a .* b` on float vectors, `a * b + c` and
`c + a * b` on f32/f64 scalars, become `fma(a, b, c)` with the operands'
text kept as written (less the parentheses around a whole operand, which an
argument does not need). The result rounds once instead of twice
(INTRINSICS.md §2), so it can differ from the original in the last bit.

fma's signatures: `(FV, FV, FV) -> FV` with one vector type, and scalar
`(f32, f32, f32) -> f32`, `(f64, f64, f64) -> f64` where float literals
adopt the concrete type; an all-literal call would be f32, so an
all-literal expression (f64) is left alone."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .base import Edit, NotApplicable, Site, bodies, functions
from .text import text_of

NAME = "fma"
HINTS = ("mul-add",)
CHOICES = (True,)
_SHORT = 40  # longest call text a title spells out


@dataclass(frozen=True)
class FmaSite(Site):
    """A site that also carries the call it would write (for the title)."""
    call: str = ""


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok:
        return []  # a rewrite must check clean, so a file with errors offers none
    out: list[Site] = []
    for item in functions(analysis, function):
        found = []
        for e in _candidates(item):
            try:
                found.append((e, _call_text(analysis, e)))
            except NotApplicable:
                continue
        for index, (e, call) in enumerate(found):
            out.append(FmaSite(NAME, item.name, index, e.span.line, e.span.start, e.span.end, CHOICES,
                               hint="mul-add", call=call))
    return out


def title(site: Site, choice) -> str:
    call = getattr(site, "call", "")
    if call and len(call) <= _SHORT and "\n" not in call:
        return f"Use {call}"
    return "Use fma(a, b, c)"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice is not True:
        raise NotApplicable(f"fma has one choice, True; got {choice!r}")
    for item in functions(analysis, site.function):
        for e in _candidates(item):
            if (e.span.start, e.span.end) == (site.start, site.end):
                return [Edit(e.span.start, e.span.end, _call_text(analysis, e))]
    raise NotApplicable(f"no multiply-add at line {site.line} of '{site.function}'")


def _candidates(item) -> list[A.Binary]:
    """Every `+`/`.+` with a multiplication as an operand, in source order."""
    found = [e for e in A.walk(bodies(item)) if isinstance(e, A.Binary) and e.op in ("+", ".+") and _operands(e)]
    return sorted(found, key=lambda e: (e.span.start, -e.span.end))


def _operands(e: A.Binary):
    """(a, b, c) for `a*b + c` or `c + a*b` (the left product first), or None."""
    mul = "*" if e.op == "+" else ".*"
    left, right = A.unparen(e.left), A.unparen(e.right)
    if isinstance(left, A.Binary) and left.op == mul:
        return left.left, left.right, e.right
    if isinstance(right, A.Binary) and right.op == mul:
        return right.left, right.right, e.left
    return None


def _call_text(analysis: Analysis, e: A.Binary) -> str:
    """`fma(a, b, c)` for the expression, or NotApplicable when fma's
    signature does not take these operand types."""
    a, b, c = _operands(e)
    ty = e.ty
    types = [x.ty for x in (a, b, c)]
    shown = ", ".join(str(t) for t in types)
    if isinstance(ty, T.Vector):
        if not ty.elem.is_float:
            raise NotApplicable(f"fma takes float vectors, not {ty}")
        if any(t is not ty for t in types):
            raise NotApplicable(f"fma takes three operands of one vector type, got {shown}")
    elif ty is T.F32 or ty is T.F64:
        if any(t is not ty and t is not T.FLOAT_LIT for t in types):
            raise NotApplicable(f"fma takes {ty} operands, got {shown}")
        if all(t is T.FLOAT_LIT for t in types):
            raise NotApplicable("fma of three literals would be f32 where the expression is f64")
    else:
        raise NotApplicable(f"fma takes f32, f64 or float vectors, not {ty}")
    return f"fma({_arg(analysis, a)}, {_arg(analysis, b)}, {_arg(analysis, c)})"


def _arg(analysis: Analysis, e) -> str:
    """An operand's text as written, without the parentheses an argument does not need."""
    return text_of(analysis, e.inner if isinstance(e, A.Paren) else e)
