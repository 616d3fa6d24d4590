"""Lint: kernels that leave the last `n % step` elements untouched (warnings
`kernel-no-tail` and `kernel-tail-pad`).

Without a tail, and with `tail pad`, a kernel's remainder is not processed
(LANGUAGE.md §7). A kernel with no tail and a step above 1 is reported
where its step is declared when callers may pass an `n` that is not a
multiple of the step: any caller of an exported kernel, and calls in the
file whose bound is not provably a multiple. `tail pad` states the promise
that `n` is a multiple, so it is reported only where a call in the file
may break it.
"""
from __future__ import annotations

from ..diagnostics import Label, Suggestion
from ..syntax import ast as A
from .consteval import ConstError, evaluate


def multiple_of(e: A.Expr, step: int, consts: dict) -> bool:
    """True when `e` is provably a multiple of `step`: a constant one, or a
    product with such a factor."""
    e = A.unparen(e)
    try:
        value = evaluate(e, consts)
    except ConstError:
        value = None
    if isinstance(value, int) and not isinstance(value, bool):
        return value % step == 0
    if isinstance(e, A.Binary) and e.op == "*":
        return multiple_of(e.left, step, consts) or multiple_of(e.right, step, consts)
    if isinstance(e, A.Binary) and e.op in ("+", "-"):
        return multiple_of(e.left, step, consts) and multiple_of(e.right, step, consts)
    return False


def needs_callers(func: A.Func) -> bool:
    """Whether the kernel's tail leaves elements untouched (then its callers matter)."""
    return func.origin.step > 1 and func.origin.tail in (None, "pad")


def lint_tail(func: A.Func, calls: list[A.Call], checker) -> None:
    k = func.origin
    if not needs_callers(func):
        return
    nparams = len(func.params)
    risky = [c for c in calls if len(c.args) == nparams and
             not multiple_of(c.args[-1], k.step, checker.const_values)]
    labels = [Label(c.args[-1].span, f"passed as '{k.bound}': not provably a multiple of {k.step}") for c in risky[:3]]
    header = k.var_span.to(k.step_span)
    n = k.bound
    if k.tail is None:
        if not (k.export or risky):
            return
        callers = "callers" if k.export else "a call in this file"
        checker.sink.warning(
            "type", "kernel-no-tail",
            f"kernel '{k.name}' has no tail: when {callers} pass{'' if k.export else 'es'} a value of '{n}' "
            f"that is not a multiple of {k.step}, the last {n} % {k.step} elements are never processed",
            header, labels=labels,
            notes=[f"add 'tail scalar {{ ... }}' or 'tail mask {{ ... }}' to process them, or 'tail pad' "
                   f"to state that '{n}' is always a multiple of {k.step}"],
            suggestions=[Suggestion(k.step_span.at_end(), " tail pad",
                                    f"'{n}' is always a multiple of {k.step}: declare 'tail pad'")])
    elif risky:
        checker.sink.warning(
            "type", "kernel-tail-pad",
            f"'tail pad' leaves the last {n} % {k.step} elements untouched, and a call in this file may pass "
            f"a value of '{n}' that is not a multiple of {k.step}",
            header, labels=labels,
            notes=["'tail pad' pads nothing: it is a promise that callers pass a multiple of the step; "
                   "use 'tail scalar { ... }' or 'tail mask { ... }' to process the rest"])
