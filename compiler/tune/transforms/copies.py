"""Copy j of a loop body: the index advanced by j steps, the accumulators
and body locals renamed. Shared by the `while` and the `kernel` unrolling."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from .text import sum_needs_parens, text_of


def copy_subs(analysis: Analysis, work, index: str, step, up: dict, renames: dict[str, str], j: int) -> list:
    """The (start, end, text) substitutions that turn the statements `work`
    into copy j. `step` is the step's expression, or its value for a kernel;
    `up` maps id(node) to its parent."""
    subs = []
    literal = isinstance(step, int) or isinstance(A.unparen(step), A.IntLit)
    value = step if isinstance(step, int) else A.unparen(step).value if literal else None
    for node in A.walk(list(work)):
        if isinstance(node, A.Let) and node.name in renames:
            subs.append((node.name_span.start, node.name_span.end, renames[node.name]))
        if not isinstance(node, A.Name):
            continue
        if node.name in renames:
            subs.append((node.span.start, node.span.end, renames[node.name]))
        elif node.name == index:
            parent = up.get(id(node))
            if literal and isinstance(parent, A.Binary) and parent.op == "+" and parent.left is node \
                    and isinstance(parent.right, A.IntLit):
                # `i + 8` in copy 2 of a step-16 loop reads `i + 40`, not `i + 32 + 8`
                subs.append((parent.span.start, parent.span.end, f"{index} + {j * value + parent.right.value}"))
                continue
            text = f"{index} + {times(analysis, step, j)}"
            subs.append((node.span.start, node.span.end, f"({text})" if sum_needs_parens(node, parent) else text))
    return subs


def times(analysis: Analysis, step, j: int) -> str:
    """`j * step` as readable text: a literal computed (`24`), a literal
    factor folded (`2 * LANES` ×4 -> `8 * LANES`), parentheses only where needed."""
    if isinstance(step, int):
        return str(j * step)
    e = A.unparen(step)
    if isinstance(e, A.IntLit):
        return str(j * e.value)
    if j == 1:
        return text_of(analysis, step)
    if isinstance(e, A.Binary) and e.op == "*" and isinstance(A.unparen(e.left), A.IntLit) and step is e:
        return f"{j * A.unparen(e.left).value} * {text_of(analysis, e.right)}"
    if isinstance(step, (A.Name, A.Paren, A.Call, A.Field, A.Index)) or (isinstance(e, A.Binary) and e.op == "*"):
        return f"{j} * {text_of(analysis, step)}"
    return f"{j} * ({text_of(analysis, step)})"
