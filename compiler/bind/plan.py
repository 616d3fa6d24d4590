"""The statements every wrapper runs before calling the kernel, in an order
where each name exists before a `cap` expression uses it: collapsed lengths,
allocated outputs, then the length checks: every pointer with a proven
extent (metadata `extents`, `outputs/bounds/`) must have at least that many
elements — an allocated output too, whose cap might be smaller. Shared by
the Python, PyTorch, Rust and C++ generators, with the cap expressions'
names and the source constants they use.

A pointer whose extent is not provable (`unchecked`) is not checked: the
generators say so in their documentation and `ea bind` warns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..outputs.bounds.limits import IndexLimit
from ..outputs.bounds.poly import Extent
from .meta import Api, Arg, BindError, Export

_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


@dataclass
class Step:
    """One statement before the call: bind a collapsed length (`kind ==
    "length"`, filled from the element count of `source`), allocate an
    auto-output (`kind == "alloc"`), check that the array `arg` has at
    least `extent` elements (`kind == "check"`), or that a value an index of
    `arg` is computed from stays in its type (`kind == "limit"`)."""
    kind: str
    arg: Arg
    source: Arg | None = None
    extent: Extent | None = None
    limit: IndexLimit | None = None


def cap_names(cap: str) -> set[str]:
    """Identifiers used in a `cap` expression."""
    return set(_IDENT.findall(cap))


def prologue(export: Export) -> list[Step]:
    """Lengths, length checks and allocations in an order where every name is
    bound before a `cap` uses it: lengths read from caller-supplied pointers
    first, then each output followed by the lengths read from it; the
    length checks last, when every length is bound."""
    args = export.args
    by_name = {a.name: a for a in args}
    steps = {}
    for a in args:
        if a.collapsed_from is not None:
            steps[a.name] = Step("length", a, by_name[a.collapsed_from])
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
    last, placed = -1, set()
    for name, found in export.index_limits.items():
        for lim in found:  # as early as its names are bound: nothing is allocated for a refused call
            if lim in placed:  # the same limit of another pointer: one check refuses the call
                continue
            placed.add(lim)
            bound = [k for k, step in enumerate(order) if step.kind == "length" and step.arg.name in lim.index.names()]
            last = max([last + 1] + [k + 1 for k in bound])
            order.insert(last, Step("limit", by_name[name], limit=lim))
    for name, extent in export.extents.items():
        arg = by_name[name]
        if not (arg.auto_out and arg.cap.replace(" ", "") == extent.text().replace(" ", "")):  # else: allocated so
            order.append(Step("check", arg, extent=extent))
    return order


def prologue_lines(export: Export, length, alloc, check, limit) -> list[str]:
    """The prologue in a generator's words: `length(arg, source)` binds a
    collapsed length read from `source`, `alloc(arg)` allocates an output,
    `check(arg, extent)` checks that `arg` has at least `extent` elements,
    `limit(arg, index_limit)` that the limit's polynomial is at most its
    `most`; each returns its lines."""
    lines: list[str] = []
    for step in prologue(export):
        if step.kind == "length":
            lines += length(step.arg, step.source)
        elif step.kind == "alloc":
            lines += alloc(step.arg)
        elif step.kind == "limit":
            lines += limit(step.arg, step.limit)
        else:
            lines += check(step.arg, step.extent)
    return lines


def extent_expr(extent: Extent, rename, maximum: str = "max") -> str:
    """The extent as an expression of the parameters spelled by `rename`
    (`n * n + 2`; several: `maximum(n, 1)`), in the syntax Python and the
    canonical text share."""
    polys = [cap_expr(p.text(), rename) for p in extent.alternatives]
    return polys[0] if len(polys) == 1 else f"{maximum}({', '.join(polys)})"


def cap_expr(cap: str, rename) -> str:
    """The cap text with its identifiers spelled as the generator spells names."""
    return _IDENT.sub(lambda m: rename(m.group(0)), cap)


def cap_constants(api: Api, source: str | None) -> dict[str, object]:
    """Constants of the source that `cap` expressions use (not parameters),
    by name; a name that is neither is a BindError."""
    wanted = set()
    for e in api.exports:
        params = {a.name for a in e.args}
        for a in e.outputs:
            wanted |= cap_names(a.cap) - params
    if not wanted:
        return {}
    consts: dict[str, object] = {}
    if source is not None:
        from ..analysis import analyze
        try:
            with open(source, "rb") as fh:
                data = fh.read()
        except OSError as err:
            raise BindError(f"cannot read '{source}' for the constants a cap uses: {err.strerror}") from None
        consts = {s.name: s.value for s in analyze(data, source).symbols.symbols if s.kind == "const"}
    missing = sorted(wanted - set(consts))
    if missing:
        raise BindError(f"cap expression uses '{missing[0]}', which is neither a parameter nor a constant")
    return {k: consts[k] for k in sorted(wanted)}
