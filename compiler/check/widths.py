"""Blaming the right thing in a vector type mismatch: a context-typed call
(`splat`, `load`, `load_masked`) without a type from context defaults to 4
lanes, and `splat` of a literal to i32/f32 lanes (LANGUAGE.md §5.6). When such
a default is the cause, the error names that call, the type it was inferred
as and why, and offers a fix that gives it the type it needs."""
from __future__ import annotations

from .. import intrinsics
from ..diagnostics import Suggestion
from ..syntax import ast as A
from ..typesys import model as T
from ..typesys.vectors import LITERAL_SUFFIXES

# Longer literals than this make a worse fix than the note's `let`.
_MAX_LITERAL_LANES = 16


def origin(checker, e: A.Expr) -> A.Call | None:
    """The context-typed call whose default gave `e` its vector type: `e`
    itself, the left operand of a dotted operator (typed first, it gives the
    right one its type), the operand of `-`, or the first argument of an
    intrinsic whose result has that argument's type (`sqrt(load(p, i))`)."""
    while True:
        e = A.unparen(e)
        if isinstance(e, A.Unary):
            e = e.operand
        elif isinstance(e, A.Binary) and e.op.startswith(".") and not isinstance(e.ty, T.Mask):
            e = e.left
        elif isinstance(e, A.Call):
            if checker.decisions.defaulted(e):
                return e
            if not (e.args and e.args[0].ty is e.ty and isinstance(e.ty, T.Vector)
                    and checker.decisions.intrinsic_of(e) is not None):
                return None
            e = e.args[0]
        else:
            return None


def why(call: A.Call) -> str:
    if call.name == "splat":
        arg = call.args[0].ty if call.args else None
        kind = {T.INT_LIT: ", and an integer literal to i32,", T.FLOAT_LIT: ", and a float literal to f32,"}
        return f"splat defaults to 4 lanes{kind.get(arg, '')} without a type from context"
    return f"{call.name} defaults to 4 lanes without a type from context"


def inferred(checker, call: A.Call) -> str:
    return f"`{checker.source.text_of(call.span)}` is inferred as {call.ty} ({why(call)})"


def retyped(checker, call: A.Call, want: T.Vector) -> str | None:
    """`call` rewritten to have type `want`, where the language can say it in
    place: `load_f32x8(p, i)`, or a suffixed literal `[255, 255, ...]u8x16`."""
    if call.name == "load" and call.ty.elem is want.elem and \
            intrinsics.lookup(f"load_{want.elem}x{want.lanes}") is not None:
        return f"load_{want.elem}x{want.lanes}" + checker.source.text_of(call.span)[len("load"):]
    if call.name == "splat" and len(call.args) == 1 and str(want) in LITERAL_SUFFIXES \
            and want.lanes <= _MAX_LITERAL_LANES:
        arg = A.unparen(call.args[0])
        simple = isinstance(arg, (A.IntLit, A.FloatLit, A.Name))
        if simple and T.compatible(arg.ty, want.elem):
            text = checker.source.text_of(arg.span)
            return "[" + ", ".join([text] * want.lanes) + f"]{want}"
    return None


def spelled(checker, call: A.Call, want: T.Vector) -> str:
    """The call as it would be written with type `want` from a `let`: an
    integer literal splatted into float lanes must become a float literal."""
    arg = A.unparen(call.args[0]) if call.name == "splat" and len(call.args) == 1 else None
    if isinstance(arg, A.IntLit) and want.elem.is_float and arg.text.isdigit():
        return f"splat({arg.text}.0)"
    return checker.source.text_of(call.span)


def want_for(call: A.Call, operand: A.Expr, want: T.Vector) -> T.Vector:
    """The type `call` needs so that `operand` (which contains it) gets the
    lanes of `want`: all of `want` when the call is the operand, else its own
    element with `want`'s lanes (`sqrt(load(p, i))`)."""
    if A.unparen(operand) is call:
        return want
    return T.vector(call.ty.elem, want.lanes)


def blame(checker, operands: list[A.Expr], want: T.Vector | None, other: str, elem: T.Type | None = None):
    """Notes and a quick fix for a mismatch in which `operands` should have type
    `want` (None: unknown); `other` ends the sentence (" but `a` is f32x8").
    Without `want`, the note shows a 128-bit `let` of `elem` (default: the
    call's element). Returns ([], []) when no context-typed default is involved."""
    calls = [(e, origin(checker, e)) for e in operands]
    calls = [(e, c) for e, c in calls if c is not None]
    if not calls:
        return [], []
    notes = [f"{inferred(checker, calls[0][1])}{other}"]
    if want is None:
        elem = elem if isinstance(elem, T.Scalar) else calls[0][1].ty.elem
        example = T.vector(elem, max(1, 128 // elem.bits))
        notes.append(f"give it a type with a `let`, e.g. let v: {example} = {spelled(checker, calls[0][1], example)}")
        return notes, []
    fixes = [(c, retyped(checker, c, want_for(c, e, want))) for e, c in calls]
    if any(text is None for _, text in fixes):
        shown = want_for(calls[0][1], calls[0][0], want)
        notes.append(f"give it a type with a `let`, e.g. let v: {shown} = {spelled(checker, calls[0][1], shown)}")
        return notes, []
    # One edit for all of them: from the first call to the last, the text between kept.
    data = checker.source.data
    first, last = fixes[0][0].span, fixes[-1][0].span
    out, at = [], first.start
    for c, text in fixes:
        out.append(_text(data, at, c.span.start))
        out.append(text)
        at = c.span.end
    replacement = "".join(out)
    title = f"write {fixes[0][1]}" if len(fixes) == 1 else f"give them the type {want}"
    return notes, [Suggestion(first.to(last), replacement, title)]


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", "replace")


def splat_element(checker, e: A.Expr, want: T.Vector):
    """`splat(t)` of a concrete scalar keeps t's type even with a vector type
    from context: name that, and convert the argument (`splat(to_u8(t))`)."""
    e = A.unparen(e)
    if not (isinstance(e, A.Call) and e.name == "splat" and len(e.args) == 1 and isinstance(e.ty, T.Vector)):
        return [], []
    arg = e.args[0]
    if T.is_literal(arg.ty) or arg.ty is want.elem:
        return [], []
    text = checker.source.text_of(arg.span)
    note = f"`{checker.source.text_of(e.span)}` is {e.ty}: splat keeps the type of its argument ({arg.ty})"
    conv = f"to_{want.elem}"
    if intrinsics.lookup(conv) is None:
        return [note], []
    return [note], [Suggestion(arg.span, f"{conv}({text})", f"convert: {conv}({text})")]
