"""Intrinsic lowerings, one file per family (mirroring compiler/intrinsics/).

`LOWER[name](emitter, call_node, want) -> ir.Value | None`. Every intrinsic
of the table that type-checks has an entry; `missing()` lists any that do
not, and codegen refuses those with a clear error instead of guessing.
"""
from __future__ import annotations

from . import arith, convert, dot, fp16, halves, lanes, memaccess, memory, poly, reduce, saturate

LOWER: dict = {}
for _family in (memory, arith, reduce, lanes, halves, convert, dot, saturate, fp16, poly, memaccess):
    for _name, _fn in _family.LOWER.items():
        assert _name not in LOWER, f"lowering of {_name} declared twice"
        LOWER[_name] = _fn


def missing() -> list[str]:
    from ...intrinsics import TABLE
    return sorted(n for n in TABLE if n not in LOWER)
