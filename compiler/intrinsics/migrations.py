"""Removed, renamed and deprecated intrinsics (INTRINSICS.md §13), declared once.

The checker reads this table to report a call of a removed or renamed name
(an error) or of a deprecated one (a warning) with the documented replacement
as a quick fix; the "did you mean" engine never guesses for these names (a
near name may have other semantics: `maddubs_i16` is not `maddubs_i32`); the
deprecated intrinsics take their deprecation text from here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..typesys import model as T

# (argument source texts, argument types) -> the replacement text, or None
# when the arguments do not say which replacement applies.
Rewrite = Callable[[list[str], list[T.Type]], Optional[str]]

# The vector types of the typed saturating and absolute-difference intrinsics
# (sat_add_u8x16, abs_diff_i32x4, ...): declared here once, read by the family
# file, its lowerings and the migrations of the untyped names.
SAT_TYPES = ("i8x16", "u8x16", "i16x8", "u16x8")
ABD_TYPES = SAT_TYPES + ("i32x4", "u32x4")


@dataclass(frozen=True)
class Migration:
    name: str
    status: str            # "deprecated", "removed" or "renamed"
    version: str           # the release of that status change
    replacement: str       # the documented replacement, as the message shows it
    rewrite: Rewrite
    whole_call: bool       # the fix replaces the whole call, not only the name
    note: Optional[str] = None

    @property
    def deprecated(self) -> bool:
        return self.status == "deprecated"

    def message(self) -> str:
        if self.status == "deprecated":  # TOOLCHAIN.md §9.4
            return f"intrinsic '{self.name}' is deprecated since {self.version} \u2014 {self.replacement}"
        if self.status == "renamed":
            return f"intrinsic '{self.name}' was renamed to '{self.replacement}' in {self.version}"
        return f"intrinsic '{self.name}' was removed in {self.version}; use {self.replacement}"

    def fix(self, args: list[str], types: list[T.Type]) -> Optional[str]:
        return self.rewrite(args, types)


def _typed(op: str, types: tuple[str, ...]) -> Rewrite:
    """`sat_add` -> `sat_add_u8x16`: the typed name for the operands' type."""
    def rewrite(args, ts):
        if len(ts) == 2 and ts[0] is ts[1] and str(ts[0]) in types:
            return f"{op}_{ts[0]}"
        return None
    return rewrite


def _deprecated(op: str, types: tuple[str, ...], suffix: str = "") -> Migration:
    spelled = " / ".join(f"{op}_{t}" for t in types)
    return Migration(op, "deprecated", "1.12.0", f"use the typed spelling: {spelled}{suffix}",
                     _typed(op, types), whole_call=False)


def _maddubs_i32(args, ts):
    # `ones` of the spec: an i16 vector of 1s; as madd_i16's operand, splat(1)
    # takes the i16 type of the other operand.
    if len(args) != 2:
        return None
    return f"madd_i16(maddubs_i16({args[0]}, {args[1]}), splat(1))"


MIGRATIONS: dict[str, Migration] = {m.name: m for m in (
    _deprecated("sat_add", SAT_TYPES),
    _deprecated("sat_sub", SAT_TYPES),
    _deprecated("abs_diff", ABD_TYPES, " (ARM-only)"),
    Migration("maddubs_i32", "removed", "1.11", "madd_i16(maddubs_i16(a, b), ones)", _maddubs_i32,
              whole_call=True,
              note="ones is an i16 vector of 1s (splat(1) takes i16xN from the other operand of madd_i16); "
                   "maddubs_i16 alone returns i16 pair sums, not i32 results"),
    Migration("maddubs", "renamed", "0.4", "maddubs_i16", lambda args, ts: "maddubs_i16", whole_call=False),
)}


def migration(name: str) -> Migration | None:
    return MIGRATIONS.get(name)
