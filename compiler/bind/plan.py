"""The statements every wrapper runs before calling the kernel, in an order
where each name exists before a `cap` expression uses it: collapsed lengths
(with the length checks of the pointers they govern) and allocated outputs.
Shared by the Python, Rust and C++ generators."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .meta import Arg, BindError, Export

_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


@dataclass
class Step:
    """One statement before the call: bind a collapsed length (`kind ==
    "length"`, filled from `source`, then `checks` must have the length of
    `source`) or allocate an auto-output (`kind == "alloc"`)."""
    kind: str
    arg: Arg
    source: Arg | None = None
    checks: list[Arg] = field(default_factory=list)


def cap_names(cap: str) -> set[str]:
    """Identifiers used in a `cap` expression."""
    return set(_IDENT.findall(cap))


def prologue(export: Export) -> list[Step]:
    """Lengths, length checks and allocations in an order where every name is
    bound before a `cap` uses it: lengths read from caller-supplied pointers
    first, then each output followed by the lengths read from it.

    The pointers a collapsed length governs are the caller-supplied ones
    between the previous collapsed length and itself (its source included);
    all must have the same number of elements."""
    args = export.args
    by_name = {a.name: a for a in args}
    steps, prev = {}, -1
    for i, a in enumerate(args):
        if a.collapsed_from is not None:
            source = by_name[a.collapsed_from]
            group = [p for p in args[prev + 1:i]
                     if p.is_pointer and not p.auto_out and p is not source]
            steps[a.name] = Step("length", a, source, group)
            prev = i
        elif a.auto_out:
            steps[a.name] = Step("alloc", a)
    lengths = {n for n, s in steps.items() if s.kind == "length"}

    def needs(step: Step) -> set[str]:
        if step.kind == "length":
            return {step.source.name} if step.source.auto_out else set()
        return cap_names(step.arg.cap) & lengths

    done: set[str] = set()
    order: list[Step] = []
    pending = list(steps.values())
    while pending:
        ready = [s for s in pending if needs(s) <= done]
        if not ready:
            stuck = next(s for s in pending if s.kind == "alloc")
            missing = sorted(needs(stuck) - done)[0]
            raise BindError(f"{export.name}: cap of '{stuck.arg.name}' ({stuck.arg.cap}) uses '{missing}', "
                            f"which is the length of '{steps[missing].source.name}'")
        step = next((s for s in ready if s.kind == "length"), ready[0])
        pending.remove(step)
        done.add(step.arg.name)
        order.append(step)
    return order


def cap_expr(cap: str, rename) -> str:
    """The cap text with its identifiers spelled as the generator spells names."""
    return _IDENT.sub(lambda m: rename(m.group(0)), cap)
