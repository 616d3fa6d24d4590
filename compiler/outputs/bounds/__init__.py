"""Bounds analysis: for each pointer parameter of each exported function,
how many elements the code may touch, as an `Extent` (the maximum of a few
polynomials in the integer parameters), or why that is not provable (the
pointer is then *unchecked*). Bindings check every extent before the call
(`bind/plan.py`), and say which pointers are unchecked.

Read from the desugared, type-checked program (and the checker's recorded
callees, when given): `for`/`while`/`foreach` loops whose counters only
grow by constants and are bounded in their condition (`while i + 32 <= n`,
`for i in 0..n step 4`), `if` guards, constant offsets (`i + 2`, `i - 1`
when i >= 1 is known), nested loops (`i * n + j`), immutable and mutable
locals tracked per program point, called functions inlined, the lanes of
vector accesses from the intrinsic table's `Memory` (intrinsics/table.py),
`ptr_as_*` views converted to the parameter's elements. The lowest index
must be provably >= 0. Integer arithmetic is taken as exact, and each value
an index, a guard or a loop counter is computed from gets limits, its
type's largest (and smallest) value, where the parameters' types do not
already keep it there (`wraps.py`, `limits.py`): a call that would make
such a value wrap around its type is refused, not run.

Written to `.ea.json` as the export fields `extents`, `extent_terms`,
`unchecked` and `index_limits` (`outputs/metadata.py`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...syntax import ast as A
from ...typesys import model as T
from .limits import IndexLimit
from .poly import Extent, Poly
from .facts import Facts

__all__ = ["Bounds", "Extent", "IndexLimit", "Poly", "export_bounds", "program_bounds"]


@dataclass
class Bounds:
    """One function's pointers, in parameter order: those with a proven
    extent, those unchecked (with the reason); a pointer never touched is in neither."""
    extents: dict[str, Extent] = field(default_factory=dict)
    unchecked: dict[str, str] = field(default_factory=dict)
    index_limits: dict[str, list[IndexLimit]] = field(default_factory=dict)  # limits.py

    @property
    def min_lengths(self) -> dict[str, str]:
        """{pointer: parameter} for extents that are one parameter (the older metadata field)."""
        return {p: e.bare_name for p, e in self.extents.items() if e.bare_name is not None}


def export_bounds(program: A.Program, decisions=None) -> list[tuple[A.Func, Bounds]]:
    """Each exported function of a desugared, checked program with its
    bounds, in source order (both functions of a `#[cfg]` pair when the
    program holds both: each has its own). `decisions`: the checker's record
    of what each call calls (without it, calls are resolved by name)."""
    from .walk import Walk  # here: bindings read `poly` without loading the analysis
    walk = Walk(program, decisions)
    out: list[tuple[A.Func, Bounds]] = []
    for f in program.items:
        if isinstance(f, A.Func) and f.export:
            found, unchecked, limits = walk.run(f)
            b = Bounds(index_limits=limits)
            for p in f.params:
                if not isinstance(p.ty, T.Pointer):
                    continue
                if p.name in unchecked:
                    b.unchecked[p.name] = unchecked[p.name]
                elif found.get(p.name):
                    extent = Extent(_dominant(found[p.name]))
                    if extent:
                        b.extents[p.name] = extent
            out.append((f, b))
    return out


def program_bounds(program: A.Program, decisions=None) -> dict[str, Bounds]:
    """The bounds of each exported function, by name. Which of two same-named
    exports (a `#[cfg]` pair) is meant is not this module's to decide: pass
    the items one target compiles (`Analysis.is_live`), or use `export_bounds`."""
    out: dict[str, Bounds] = {}
    for f, b in export_bounds(program, decisions):
        if f.name in out:
            raise ValueError(f"two exported functions named '{f.name}': pass the items one target compiles")
        out[f.name] = b
    return out


def _dominant(accesses: list[tuple[Poly, dict]]) -> list[Poly]:
    """The extents of one pointer's accesses without those another kept one
    provably exceeds wherever they apply (under the parameter minimums known
    at that access): `h * w - w` beside `h * w` where w >= 3."""
    unique: dict[Poly, list[dict]] = {}
    for poly, minimums in accesses:
        unique.setdefault(poly, []).append(minimums)
    kept = list(unique)
    for p in sorted(unique, key=lambda p: (p.degree, p.text())):
        for minimums in unique[p]:
            facts = Facts(set())
            facts.param_lo = minimums
            if not any(q is not p and facts.params_nonneg(q - p) for q in kept):
                break
        else:
            kept.remove(p)
    return kept
