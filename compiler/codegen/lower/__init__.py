"""Intrinsic lowerings, one file per family (mirroring compiler/intrinsics/).

Each family file declares `LOWER = {name: lowering}`; here they are keyed by
the intrinsic table's entries, and importing fails unless every entry has
exactly one lowering and every lowering an entry. Codegen asks `lowering(intr)`
for the intrinsic the checker recorded on the call (a `load_<T>x<N>` member is
lowered by its entry, `load`). A lowering is `fn(emitter, call_node, want) ->
ir.Value | None`; one that finds no form of its intrinsic for the target
raises `cannot_lower` (common.py), a CodegenError at the call.
"""
from __future__ import annotations

from ...intrinsics import TABLE, Intrinsic, entry
from . import arith, convert, dot, fp16, halves, lanes, memaccess, memory, poly, reduce, saturate, vnni

_FAMILIES = (memory, arith, reduce, lanes, halves, convert, dot, vnni, saturate, fp16, poly, memaccess)


def key_by_entry(families, table: dict[str, Intrinsic]) -> dict[Intrinsic, object]:
    """The families' lowerings keyed by `table`'s entries; fails unless each
    entry has exactly one lowering and each lowering an entry."""
    by_entry: dict[Intrinsic, object] = {}
    for family in families:
        for name, fn in family.LOWER.items():
            intr = table.get(name)
            assert intr is not None, f"{family.__name__} lowers '{name}', which is not an intrinsic"
            assert intr not in by_entry, f"intrinsic '{name}' is lowered twice"
            by_entry[intr] = fn
    unlowered = sorted(n for n, intr in table.items() if intr not in by_entry)
    assert not unlowered, f"intrinsics without a lowering: {', '.join(unlowered)}"
    return by_entry


LOWERINGS = key_by_entry(_FAMILIES, TABLE)


def lowering(intr: Intrinsic):
    """The lowering of a resolved intrinsic."""
    return LOWERINGS[entry(intr)]
