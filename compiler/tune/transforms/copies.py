"""Copy j of a loop body: the index advanced by j steps, the accumulators
and body locals renamed. Shared by the `while` and the `kernel` unrolling.

Offsets are written the way a person would: a step that is a literal or a
multiple of one name (`8`, `LANES`, `2 * LANES`) is kept in that form, and
an index already offset by the same kind of term is folded
(`i + LANES` in copy 1 of a `2 * LANES` loop reads `i + 3 * LANES`)."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .text import sum_needs_parens, text_of


def copy_subs(analysis: Analysis, work, index: str, step, up: dict, renames: dict[str, str], j: int) -> list:
    """The (start, end, text) substitutions that turn the statements `work`
    into copy j. `step` is the step's expression, or its value for a kernel;
    `up` maps id(node) to its parent."""
    subs = []
    unit = linear(step)
    for node in A.walk(list(work)):
        if isinstance(node, A.Let) and node.name in renames:
            subs.append((node.name_span.start, node.name_span.end, renames[node.name]))
        if not isinstance(node, A.Name):
            continue
        if node.name in renames:
            subs.append((node.span.start, node.span.end, renames[node.name]))
        elif node.name == index:
            parent = up.get(id(node))
            if unit is not None and isinstance(parent, A.Binary) and parent.op == "+" and parent.left is node:
                extra = linear(parent.right)
                if extra is not None and extra[1] == unit[1]:
                    coef = j * unit[0] + extra[0]
                    subs.append((parent.span.start, parent.span.end, f"{index} + {_linear_text(coef, unit[1])}"))
                    continue
            text = f"{index} + {times(analysis, step, j)}"
            subs.append((node.span.start, node.span.end, f"({text})" if sum_needs_parens(node, parent) else text))
    return subs


def times(analysis: Analysis, step, j: int) -> str:
    """`j * step` as readable text, parentheses only where needed."""
    unit = linear(step)
    if unit is not None:
        return _linear_text(j * unit[0], unit[1])
    if j == 1:
        return text_of(analysis, step)
    e = A.unparen(step)
    if isinstance(step, (A.Name, A.Paren, A.Call, A.Field, A.Index)) or (isinstance(e, A.Binary) and e.op == "*"):
        return f"{j} * {text_of(analysis, step)}"
    return f"{j} * ({text_of(analysis, step)})"


def linear(e) -> tuple[int, str | None] | None:
    """(c, None) for a literal c, (c, X) for `X`, `c * X` or `X * c` with X
    a name; None for anything else."""
    if isinstance(e, int):
        return e, None
    e = A.unparen(e)
    if isinstance(e, A.IntLit):
        return e.value, None
    if isinstance(e, A.Name):
        return 1, e.name
    if isinstance(e, A.Binary) and e.op == "*":
        left, right = A.unparen(e.left), A.unparen(e.right)
        if isinstance(left, A.IntLit) and isinstance(right, A.Name):
            return left.value, right.name
        if isinstance(left, A.Name) and isinstance(right, A.IntLit):
            return right.value, left.name
    return None


def _linear_text(coef: int, unit: str | None) -> str:
    if unit is None:
        return str(coef)
    return unit if coef == 1 else f"{coef} * {unit}"


def start_value(a) -> str:
    """Where an extra accumulator starts: a copy for max/min, else the identity."""
    if a.kind in ("max", "min"):
        return a.name
    elem = a.ty.elem if isinstance(a.ty, T.Vector) else a.ty
    one = "1" if a.kind == "product" else "0"
    value = f"{one}.0" if elem.is_float else one
    return f"splat({value})" if isinstance(a.ty, T.Vector) else value


def combine(a, names: list[str]) -> str:
    """The partial results combined pairwise, as a balanced tree."""
    level = list(names)
    while len(level) > 1:
        nxt = []
        for x, y in zip(level[0::2], level[1::2]):
            nxt.append(f"{a.op}({x}, {y})" if a.op in ("max", "min") else f"({x} {a.op} {y})")
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    out = level[0]
    return out[1:-1] if out.startswith("(") else out
