"""Saturating arithmetic and absolute difference (INTRINSICS.md §7).

Each operation has typed spellings (`sat_add_u8x16`) and a deprecated
polymorphic one (`sat_add`) kept until 2.0; signedness follows the element
type.
"""
from __future__ import annotations

from ..typesys import model as T
from .migrations import ABD_TYPES, SAT_TYPES, migration
from .table import Intrinsic, arm_only, declare_typed, peer_operands

FAMILY = "saturating arithmetic"

_ABD_ARM = ("abs_diff is ARM-only (NEON); no x86 equivalent \u2014 "
            "use max(a .- b, b .- a) explicitly")

_DOCS = {
    "sat_add": "a + b per lane, clamped to the element range",
    "sat_sub": "a - b per lane, clamped to the element range",
    "abs_diff": "|a - b| per lane without intermediate overflow",
}


def _polymorphic(op: str, types: tuple[str, ...], target=None) -> Intrinsic:
    accepted = [T.vector(T.SCALARS[t.split("x")[0]], int(t.split("x")[1])) for t in types]
    listing = ", ".join(types[:-1]) + " or " + types[-1]

    def rule(c) -> T.Type:
        ts = peer_operands(c, op, 2)
        if ts is None:
            return T.ERROR
        a, b = ts
        if a is b and a in accepted:
            return a
        notes, fixes = c.blame_peers([0, 1])
        return c.fail(f"{op} expects two vectors of the same type ({listing}), got ({a}, {b})", notes=notes,
                      suggestions=fixes)

    m = migration(op)
    return Intrinsic(op, ("a", "b"), tuple(f"({t}, {t}) -> {t}" for t in types),
                     f"{_DOCS[op][0].upper()}{_DOCS[op][1:]} (deprecated: use the typed {op}_<T>).",
                     rule, FAMILY, "v1.11", target, deprecated=m.version, advice=m.replacement)


def _typed(op: str, ty: str, target=None) -> Intrinsic:
    return declare_typed(f"{op}_{ty}", ("a", "b"), ty, _DOCS[op] + ".", FAMILY, "v1.12", target=target)


_abd_target = arm_only(_ABD_ARM)

INTRINSICS = [
    *[_typed(op, t) for op in ("sat_add", "sat_sub") for t in SAT_TYPES],
    _polymorphic("sat_add", SAT_TYPES),
    _polymorphic("sat_sub", SAT_TYPES),
    *[_typed("abs_diff", t, _abd_target) for t in ABD_TYPES],
    _polymorphic("abs_diff", ABD_TYPES, _abd_target),
]
