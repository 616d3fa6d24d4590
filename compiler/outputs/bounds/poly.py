"""Polynomials with integer coefficients over names (parameters, loop
counters), and extents: the maximum of a few polynomials (and 0).

A monomial is a sorted tuple of names, a name repeated for its power
(`("n", "n")` is n²; `()` is the constant). The text form is canonical:
monomials by degree, highest first, then by their names; `n * n + 2 * n - 1`,
`h * w - w - 1`; an extent of several is `max(n, 1)`. The structured form
(`.ea.json`) is a list of `[coefficient, name, name, ...]` per polynomial."""
from __future__ import annotations

from typing import Iterable, Mapping

Monomial = tuple[str, ...]


class Poly:
    __slots__ = ("terms", "_key")

    def __init__(self, terms: Mapping[Monomial, int] | None = None):
        self.terms: dict[Monomial, int] = {m: c for m, c in (terms or {}).items() if c}
        self._key = None

    # ---- construction ----
    @staticmethod
    def const(value: int) -> "Poly":
        return Poly({(): value})

    @staticmethod
    def name(name: str) -> "Poly":
        return Poly({(name,): 1})

    # ---- arithmetic ----
    def __add__(self, other: "Poly") -> "Poly":
        terms = dict(self.terms)
        for m, c in other.terms.items():
            terms[m] = terms.get(m, 0) + c
        return Poly(terms)

    def __neg__(self) -> "Poly":
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return Poly(terms)

    def scale(self, factor: int) -> "Poly":
        return Poly({m: c * factor for m, c in self.terms.items()})

    # ---- inspection ----
    def key(self) -> tuple:
        if self._key is None:
            self._key = tuple(sorted(self.terms.items()))
        return self._key

    def __eq__(self, other) -> bool:
        return isinstance(other, Poly) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"Poly({self.text()})"

    @property
    def is_const(self) -> bool:
        return all(not m for m in self.terms)

    @property
    def value(self) -> int:
        """The constant term (the whole value of a constant polynomial)."""
        return self.terms.get((), 0)

    def names(self) -> set[str]:
        return {n for m in self.terms for n in m}

    @property
    def degree(self) -> int:
        return max((len(m) for m in self.terms), default=0)

    def degree_in(self, name: str) -> int:
        return max((m.count(name) for m in self.terms), default=0)

    def by_power(self, name: str) -> dict[int, "Poly"]:
        """{k: C_k} with self = sum of C_k * name^k (C_k free of `name`)."""
        out: dict[int, dict[Monomial, int]] = {}
        for m, c in self.terms.items():
            k = m.count(name)
            rest = tuple(x for x in m if x != name)
            out.setdefault(k, {})[rest] = out.setdefault(k, {}).get(rest, 0) + c
        return {k: Poly(t) for k, t in out.items()}

    def substitute(self, name: str, value: "Poly") -> "Poly":
        if name not in self.names():
            return self
        result = Poly()
        powers = {0: Poly.const(1)}
        for k, coef in self.by_power(name).items():
            while max(powers) < k:
                top = max(powers)
                powers[top + 1] = powers[top] * value
            result = result + coef * powers[k]
        return result

    def rename(self, mapping: Mapping[str, str]) -> "Poly":
        if not mapping or not (self.names() & mapping.keys()):
            return self
        return Poly({tuple(sorted(mapping.get(n, n) for n in m)): c for m, c in self.terms.items()})

    def evaluate(self, values: Mapping[str, int]) -> int:
        total = 0
        for m, c in self.terms.items():
            for n in m:
                c *= values[n]
            total += c
        return total

    # ---- the two written forms ----
    def ordered(self) -> list[tuple[Monomial, int]]:
        return sorted(self.terms.items(), key=lambda mc: (-len(mc[0]), mc[0]))

    def checked_text(self, constant, variable, product, total) -> str:
        """The polynomial as a binding's overflow-checked expression: each term
        written by `constant(c)`, `variable(name)` (a lone name, coefficient 1)
        or `product(c, names)`, several joined by `total(terms)` (C++ and Rust
        differ only in these four)."""
        def term(m: Monomial, c: int) -> str:
            if not m:
                return constant(c)
            if c == 1 and len(m) == 1:
                return variable(m[0])
            return product(c, m)

        terms = [term(m, c) for m, c in self.ordered()]
        return terms[0] if len(terms) == 1 else total(terms)

    def text(self) -> str:
        if not self.terms:
            return "0"
        out = []
        for k, (m, c) in enumerate(self.ordered()):
            body = " * ".join(m)
            size = abs(c)
            part = str(size) if not m else body if size == 1 else f"{size} * {body}"
            if k == 0:
                out.append(f"-{part}" if c < 0 else part)
            else:
                out.append(f"{'-' if c < 0 else '+'} {part}")
        return " ".join(out)

    def to_json(self) -> list[list]:
        return [[c, *m] for m, c in self.ordered()]

    @staticmethod
    def from_json(data) -> "Poly":
        """Raises ValueError on anything but a list of [int, name, ...]."""
        if not isinstance(data, list):
            raise ValueError("a polynomial is a list of [coefficient, name, ...] terms")
        terms: dict[Monomial, int] = {}
        for term in data:
            if not (isinstance(term, list) and term and isinstance(term[0], int) and not isinstance(term[0], bool)
                    and all(isinstance(n, str) and n for n in term[1:])):
                raise ValueError("a term is [coefficient, name, ...]")
            m = tuple(sorted(term[1:]))
            terms[m] = terms.get(m, 0) + term[0]
        return Poly(terms)


class Extent:
    """The number of elements a pointer needs: max(0, *alternatives)."""
    __slots__ = ("alternatives",)

    def __init__(self, alternatives: Iterable[Poly] = ()):
        self.alternatives: tuple[Poly, ...] = _simplify(alternatives)

    @staticmethod
    def of_name(name: str) -> "Extent":
        return Extent([Poly.name(name)])

    def __or__(self, other: "Extent") -> "Extent":
        return Extent(self.alternatives + other.alternatives)

    def __eq__(self, other) -> bool:
        return isinstance(other, Extent) and self.alternatives == other.alternatives

    def __hash__(self) -> int:
        return hash(self.alternatives)

    def __bool__(self) -> bool:
        return bool(self.alternatives)

    def __repr__(self) -> str:
        return f"Extent({self.text()})"

    def names(self) -> set[str]:
        return {n for p in self.alternatives for n in p.names()}

    @property
    def bare_name(self) -> str | None:
        """`n` when the extent is exactly one parameter (the `min_lengths` form)."""
        terms = self.alternatives[0].terms if len(self.alternatives) == 1 else {}
        if len(terms) == 1:
            (m, c), = terms.items()
            if c == 1 and len(m) == 1:
                return m[0]
        return None

    def text(self) -> str:
        if not self.alternatives:
            return "0"
        if len(self.alternatives) == 1:
            return self.alternatives[0].text()
        return f"max({', '.join(p.text() for p in self.alternatives)})"

    def to_json(self) -> list:
        return [p.to_json() for p in self.alternatives]

    @staticmethod
    def from_json(data) -> "Extent":
        if not isinstance(data, list):
            raise ValueError("an extent is a list of polynomials")
        return Extent(Poly.from_json(p) for p in data)

    def evaluate(self, values: Mapping[str, int]) -> int:
        return max([0] + [p.evaluate(values) for p in self.alternatives])


def _simplify(alternatives: Iterable[Poly]) -> tuple[Poly, ...]:
    """Without duplicates, constants <= 0 and any polynomial another exceeds by
    a constant >= 0; highest degree first, then by text."""
    unique: list[Poly] = []
    for p in alternatives:
        if p.is_const and p.value <= 0:
            continue
        if p not in unique:
            unique.append(p)
    kept = [p for p in unique if not any(q is not p and (q - p).is_const and (q - p).value >= 0 for q in unique)]
    return tuple(sorted(kept, key=lambda p: (-p.degree, p.text())))
