"""What is known at one point of a function: its loop counters as atoms
with ranges, and constant lower bounds of its integer parameters; and the
bounds of a polynomial over them in the parameters alone.

An atom stands for the value a loop counter has during one stretch of the
code (an iteration of a loop, the code after a loop, a guarded branch). Its
range is a few lower and upper bounds, polynomials over the parameters and
older atoms; an atom is never bounded by a newer one, so eliminating the
newest first ends. `bounds(p, up=True)` replaces each atom by an end of its
range that makes `p` largest — the upper end where p grows with the atom,
the lower where it shrinks — which needs the sign of its coefficient: that
is proved the same way, down to the parameters, where `p >= 0` holds when
writing every parameter as its known minimum plus a non-negative part leaves
no negative coefficient. Where no sign or no end is known there is no bound."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import count

from .poly import Poly

_DEPTH = 48  # substitutions along one path: far beyond any loop nest seen
_CHOICES = 8  # bounds kept per polynomial


@dataclass(frozen=True)
class Atom:
    lo: tuple[Poly, ...]
    hi: tuple[Poly, ...]
    order: int
    origin: str | None = None  # the atom this one narrows (the same value, known better)


class Facts:
    def __init__(self, params: set[str]):
        self.params = params  # the exported function's integer parameters
        self.atoms: dict[str, Atom] = {}
        self.param_lo: dict[str, int] = {}
        self.assumed: list[Poly] = []  # conditions known to hold here (each >= 0)
        self._numbers = count()
        self._memo: dict = {}  # (poly, up) -> bounds; cleared when a fact is learnt

    def child(self) -> "Facts":
        """Facts for a nested stretch (a loop body, a branch): what it learns stays there."""
        f = Facts.__new__(Facts)
        f.params, f.atoms, f.param_lo, f._numbers = self.params, dict(self.atoms), dict(self.param_lo), self._numbers
        f.assumed = list(self.assumed)
        f._memo = dict(self._memo)  # the child knows all the parent does: its bounds still hold
        return f

    def fresh(self, lo=(), hi=(), origin: str | None = None) -> str:
        n = next(self._numbers)
        name = f"\0{n}"
        self.atoms[name] = Atom(tuple(lo), tuple(hi), n, origin)
        return name

    # ---- bounds ----
    def bounds(self, p: Poly, up: bool, depth: int = 0) -> list[Poly]:
        """Upper (`up`) or lower bounds of `p` over the parameters alone (a
        few: one per choice of the ends of the atoms' ranges)."""
        key = (p, up)
        if key not in self._memo:
            self._memo[key] = self._bounds(p, up, depth)
        return self._memo[key]

    def _bounds(self, p: Poly, up: bool, depth: int) -> list[Poly]:
        atoms = [n for n in p.names() if n in self.atoms]
        if not atoms:
            return [p] if p.names() <= self.params else []
        if depth > _DEPTH:
            return []
        name = max(atoms, key=lambda n: self.atoms[n].order)
        atom = self.atoms[name]
        coefs = [c for k, c in p.by_power(name).items() if k > 0]
        monotone = p.degree_in(name) == 1 or self.nonneg(Poly.name(name))
        if monotone and all(self.nonneg(c) for c in coefs):
            grows = True
        elif monotone and all(self.nonneg(-c) for c in coefs):
            grows = False
        else:
            return []
        found: list[Poly] = []
        for end in (atom.hi if up == grows else atom.lo):
            for b in self.bounds(p.substitute(name, end), up, depth + 1):
                if b not in found:
                    found.append(b)
            if len(found) >= _CHOICES:
                break
        return found[:_CHOICES]

    def direct(self, p: Poly, up: bool) -> list[Poly]:
        """Bounds of `p` from a condition that names it whole: under `4 * i + 3 < n`, `4 * i + 3`
        is at most n - 1 (a guard that scales a counter narrows none of its atoms)."""
        # An upper bound only for an index of counters: `x[a]` under `if a < n` keeps its own
        # a + 1 (neither is the smaller everywhere, and an extent has no minimum).
        mine = p.names() & (self.atoms.keys() if up else p.names())
        found: list[Poly] = []
        for q in self.assumed:
            r = p + q if up else p - q  # p <= p + q, p >= p - q
            if mine and not (r.names() & mine):
                found += [b for b in self.bounds(r, up) if b not in found]
        return found

    def upper(self, p: Poly) -> Poly | None:
        """The least of the upper bounds of `p` that one is provably below the others, else the
        first: a guard's own (`direct`) before those of the loops around it."""
        found = self.direct(p, up=True)
        found += [b for b in self.bounds(p, up=True) if b not in found]
        for b in found:
            if all(self.params_nonneg(other - b) for other in found):
                return b
        return found[0] if found else None

    def lower(self, p: Poly) -> Poly | None:
        """The greatest of the lower bounds of `p` that one is provably above the others, else the first."""
        found = self.bounds(p, up=False)
        for b in found:
            if all(self.params_nonneg(b - other) for other in found):
                return b
        return found[0] if found else None

    def knowing(self, param_lo: dict[str, int]) -> "Facts":
        """These facts with parameter minimums known elsewhere in the same call added."""
        f = self.child()
        for name, least in param_lo.items():
            if least > f.param_lo.get(name, least - 1):
                f.param_lo[name] = least
                f._memo.clear()
        return f

    def nonneg(self, p: Poly) -> bool:
        """`p >= 0` is proved here."""
        if p.is_const:
            return p.value >= 0
        return any(self.params_nonneg(low) for low in self.bounds(p, up=False) + self.direct(p, up=False))

    def params_nonneg(self, p: Poly) -> bool:
        """`p` (over the parameters) is >= 0 given their known minimums."""
        for name in p.names():
            if name not in self.param_lo:
                return False
            p = p.substitute(name, Poly.const(self.param_lo[name]) + Poly.name("\1" + name))
        return all(c >= 0 for c in p.terms.values())

    # ---- learning ----
    def assume(self, q: Poly) -> None:
        """`q >= 0` holds here: a parameter alone in a bound of it gets a minimum."""
        self.assumed.append(q)
        for up in self.bounds(q, up=True):
            if up.degree != 1 or len(up.names()) != 1:
                continue
            (name,) = up.names()
            c, d = up.terms[(name,)], up.value
            if c > 0:  # c * name + d >= 0
                least = -(d // c)
                if least > self.param_lo.get(name, least - 1):
                    self.param_lo[name] = least
                    self._memo.clear()
