"""Everything an analysis says, as plain data, to compare an incremental
analysis with a from-scratch one field by field."""
from __future__ import annotations

from ea_compiler.intrinsics import Intrinsic
from ea_compiler.source import Span
from ea_compiler.syntax import ast as A


def _callee(c) -> tuple | None:
    if c is None:
        return None
    if isinstance(c, Intrinsic):
        return ("intrinsic", c.name)
    return ("function", c.name, c.kind, c.span.as_tuple())


def dump(x):
    """A tree as nested tuples: node type, every field, spans as tuples,
    checked types as text (`origin`, the kernel a function came from, by its name)."""
    if isinstance(x, Span):
        return ("span",) + x.as_tuple()
    if isinstance(x, (list, tuple)):
        return tuple(dump(v) for v in x)
    fields = getattr(type(x), "__dataclass_fields__", None)
    if fields is None or type(x).__module__ != A.__name__:
        return x if isinstance(x, (str, int, float, bool, type(None))) else str(x)
    out = [type(x).__name__]
    for name in fields:
        value = getattr(x, name)
        if name == "origin":
            out.append(None if value is None else value.name)
        elif name in ("ty", "ret_ty"):
            out.append(None if value is None else str(value))
        else:
            out.append(dump(value))
    return tuple(out)


def snapshot(a) -> dict:
    calls = [n for item in a.desugared.items if isinstance(item, A.Func)
             for n in A.walk(item.body.stmts) if isinstance(n, A.Call)]
    return {
        "tokens": [(t.kind, t.text, t.as_tuple(), t.first_on_line) for t in a.tokens],
        "diagnostics": [d.to_json() for d in a.diagnostics],
        "symbols": [(s.name, s.kind, s.span.as_tuple(), str(s.type), s.detail, s.container,
                     [r.as_tuple() for r in s.references], s.value) for s in a.symbols.symbols],
        "expr_types": [(s.as_tuple(), str(t)) for s, t in a.expr_types],
        "decisions": [(c.span.as_tuple(), _callee(a.callee_of(c)), str(a.inferred_type(c)),
                       a.decisions.defaulted(c)) for c in calls],
        "recorded": (len(a.decisions._callees), len(a.decisions._context),
                     [c.span.as_tuple() for c in a.context_calls()]),
        "ast": dump(a.ast),
        "desugared": dump(a.desugared),
        "text": a.source.data,
    }


def differences(got: dict, want: dict) -> list[str]:
    """The fields that differ, with the first differing element of each."""
    out = []
    for key, value in want.items():
        other = got[key]
        if other == value:
            continue
        if isinstance(value, (list, tuple)) and isinstance(other, (list, tuple)):
            n = next((i for i, (x, y) in enumerate(zip(other, value)) if x != y), min(len(other), len(value)))
            out.append(f"{key}: lengths {len(other)} vs {len(value)}; first difference at {n}: "
                       f"{other[n] if n < len(other) else '-'!r} vs {value[n] if n < len(value) else '-'!r}"[:2000])
        else:
            out.append(f"{key} differs")
    return out
