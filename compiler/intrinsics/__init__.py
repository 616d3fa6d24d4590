"""The intrinsic table: every built-in function, declared once.

`lookup(name)` finds an intrinsic (including the `load_<T>x<N>` family);
`TABLE` maps names to declarations; `names()` lists them for completion and
"did you mean". Each family file declares its members with their type rule,
target rule, signatures and doc. Codegen's lowerings (compiler/codegen/lower/)
are keyed by these entries: `entry(intr)` is the one a resolved intrinsic
belongs to.
"""
from __future__ import annotations

from . import (arith, convert, dot, fp16, gather, halves, lanes, masked, memory, poly, prefetch, reduce,
               saturate, vnni)
from .table import Intrinsic

_FAMILIES = [memory, arith, reduce, lanes, halves, convert, dot, vnni, saturate, fp16, poly, prefetch, masked,
             gather]

TABLE: dict[str, Intrinsic] = {}
for _family in _FAMILIES:
    for _intr in _family.INTRINSICS:
        assert _intr.name not in TABLE, f"intrinsic {_intr.name} declared twice"
        TABLE[_intr.name] = _intr

_AKA: dict[str, Intrinsic] = {}
for _intr in TABLE.values():
    for _alias in _intr.aka:
        assert _alias not in TABLE and _alias not in _AKA, f"{_alias}: an intrinsic's name or another's alias"
        _AKA[_alias] = _intr

_WIDTH_CACHE: dict[str, Intrinsic | None] = {}


def lookup(name: str) -> Intrinsic | None:
    found = TABLE.get(name)
    if found is not None or not name.startswith("load_"):
        return found
    if name not in _WIDTH_CACHE:
        _WIDTH_CACHE[name] = memory.load_width(name)
    return _WIDTH_CACHE[name]


def entry(intr: Intrinsic) -> Intrinsic:
    """The TABLE entry declaring `intr`: itself, or `load` for a member of the
    `load_<T>x<N>` family (the width is in the call's type)."""
    if TABLE.get(intr.name) is intr:
        return intr
    if _WIDTH_CACHE.get(intr.name) is intr:
        return TABLE["load"]
    raise KeyError(f"{intr.name} is not an intrinsic of the table")


def names() -> list[str]:
    return list(TABLE)


def known_as(name: str) -> Intrinsic | None:
    """The intrinsic another SIMD library calls `name` (`reduce_sum` is
    `reduce_add`): what "did you mean" offers when no name is close."""
    return _AKA.get(name)


# A user function may take an intrinsic's name (it is compiled and exported
# under it), but a call by that name still resolves to the intrinsic; only
# these names are shadowed by a user function (INTRINSICS.md §0.1, LANGUAGE.md
# §3.1). The checker asks `resolve_call` once per call and records the answer
# (check/decisions.py); codegen and the tools read that record.
SHADOWABLE = frozenset(("abs",))


def resolve_call(name: str, user_defined: bool) -> Intrinsic | None:
    """The intrinsic a call to `name` means, or None when it calls the user
    function (`user_defined`: the file declares a function of that name)."""
    if user_defined and name in SHADOWABLE:
        return None
    return lookup(name)


__all__ = ["Intrinsic", "TABLE", "SHADOWABLE", "entry", "known_as", "lookup", "names", "resolve_call"]
