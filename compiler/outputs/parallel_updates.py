"""The accumulator updates `parallel.py` accepts, recognised by their shape:
`acc = acc + e`, `acc = e + acc`, `acc = acc - e`, `acc = fma(a, b, acc)`
(sums; `.+` and `.-` for vectors), `acc = max(acc, e)`, `acc = min(e, acc)`
and `if e > acc { acc = e }` (`<`: a minimum)."""
from __future__ import annotations

from ..intrinsics import Intrinsic
from ..syntax import ast as A
from ..typesys import model as T


def update_form(decisions, name: str, value) -> tuple[str, list] | None:
    """(operation, the other operands) of `name = value`, or None."""
    v = A.unparen(value)
    if isinstance(v, A.Binary) and v.op in ("+", ".+", "-", ".-"):
        if _is(v.left, name):
            return "+", [v.right]
        if _is(v.right, name) and v.op in ("+", ".+"):
            return "+", [v.left]
        return None
    if isinstance(v, A.Call) and isinstance(decisions.callee_of(v), Intrinsic):
        args = [A.unparen(a) for a in v.args]
        if v.name == "fma" and len(args) == 3 and _is(args[2], name):
            return "+", v.args[:2]
        if v.name in ("max", "min") and len(args) == 2 and any(_is(a, name) for a in args):
            return v.name, [v.args[1] if _is(args[0], name) else v.args[0]]
    return None


def conditional_form(s: A.If) -> tuple[str, str, list] | None:
    """(accumulator, operation, [e]) of `if e > acc { acc = e }` and its mirrors."""
    cond, then = A.unparen(s.cond), s.then.stmts
    if not (s.orelse is None and len(then) == 1 and isinstance(then[0], A.Assign)
            and isinstance(cond, A.Binary) and cond.op in ("<", "<=", ">", ">=")):
        return None
    target = A.unparen(then[0].target)
    if not isinstance(target, A.Name):
        return None
    left, right, value = A.unparen(cond.left), A.unparen(cond.right), then[0].value
    if _is(right, target.name) and same_tree(left, value):
        return target.name, "max" if cond.op in (">", ">=") else "min", [value]
    if _is(left, target.name) and same_tree(right, value):
        return target.name, "max" if cond.op in ("<", "<=") else "min", [value]
    return None


def direct_element(e) -> tuple[object, object, int] | None:
    """(pointer, index, width) when `e` is an element or a vector load: `x[i]`, `load(x, i)`."""
    e = A.unparen(e)
    if isinstance(e, A.Index):
        return e.base, e.index, 1
    if isinstance(e, A.Call) and (e.name == "load" or e.name.startswith("load_")) and len(e.args) == 2:
        return e.args[0], e.args[1], e.ty.lanes if isinstance(e.ty, T.Vector) else 1
    return None


def same_tree(a, b) -> bool:
    """The same expression written twice (spans and types aside)."""
    a, b = A.unparen(a), A.unparen(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (A.IntLit, A.FloatLit, A.BoolLit)):
        return a.value == b.value
    if isinstance(a, A.Name):
        return a.name == b.name
    if isinstance(a, (A.Binary, A.Unary)) and a.op != b.op:
        return False
    if isinstance(a, (A.Call, A.Field)) and a.name != b.name:
        return False
    if not isinstance(a, (A.Binary, A.Unary, A.Call, A.Field, A.Index)):
        return False
    ca, cb = A.children(a), A.children(b)
    return len(ca) == len(cb) and all(same_tree(x, y) for x, y in zip(ca, cb))


def _is(e, name: str) -> bool:
    e = A.unparen(e)
    return isinstance(e, A.Name) and e.name == name
