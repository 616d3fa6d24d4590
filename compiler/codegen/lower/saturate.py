"""Lowering of saturating add/subtract and absolute difference
(INTRINSICS.md §7). Signedness always follows the checked element type, for
the typed and the deprecated polymorphic spellings alike."""
from __future__ import annotations

from ...intrinsics.migrations import ABD_TYPES, SAT_TYPES
from .common import call_intrinsic



def _by_sign(intrinsic: str):
    """A lane-wise binary operation whose LLVM intrinsic is named by the
    element's signedness (`{sign}` is `s` or `u`)."""
    def lower(em, call, want):
        vt = call.ty
        a, b = (em.expr(x, vt) for x in call.args)
        lt = em.types(vt)
        name = intrinsic.format(sign="u" if vt.elem.is_unsigned else "s")
        return call_intrinsic(em, name, [lt], lt, [a, b])
    return lower


def _sat(op: str):
    return _by_sign(f"llvm.{{sign}}{op}.sat")


# ARM-only (target rule); sabd/uabd compute |a - b| without overflow.
_abs_diff = _by_sign("llvm.aarch64.neon.{sign}abd")


LOWER = {
    **{f"sat_add_{t}": _sat("add") for t in SAT_TYPES}, "sat_add": _sat("add"),
    **{f"sat_sub_{t}": _sat("sub") for t in SAT_TYPES}, "sat_sub": _sat("sub"),
    **{f"abs_diff_{t}": _abs_diff for t in ABD_TYPES}, "abs_diff": _abs_diff,
}
