"""Index expressions as affine forms in a kernel's loop variable, for lints.

`i + 4`, `first + i`, `2 * i + 1` and `k` after `let k: i32 = first + i`
are `coef * i + invariant terms + constant`. An index that is not affine in
the loop variable (`i / 2`, `idx[i]`, a mutable local) has no form: lints
that need one stay silent rather than guess.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..syntax import ast as A

VAR = "\0var"  # the loop variable's key among the terms (not a valid identifier)


@dataclass(frozen=True)
class Affine:
    terms: tuple[tuple[str, int], ...]  # sorted (key, coefficient), no zero coefficients
    const: int

    @property
    def coef(self) -> int:
        return dict(self.terms).get(VAR, 0)

    @property
    def invariant(self) -> tuple[tuple[str, int], ...]:
        return tuple(t for t in self.terms if t[0] != VAR)

    @property
    def uses_var(self) -> bool:
        return self.coef != 0


def constant(value: int) -> Affine:
    return Affine((), value)


def symbol(key: str) -> Affine:
    return Affine(((key, 1),), 0)


def _combine(a: Affine, b: Affine, sign: int) -> Affine:
    terms = dict(a.terms)
    for k, c in b.terms:
        terms[k] = terms.get(k, 0) + sign * c
    return Affine(tuple(sorted((k, c) for k, c in terms.items() if c)), a.const + sign * b.const)


def _scale(a: Affine, factor: int) -> Affine:
    if factor == 0:
        return constant(0)
    return Affine(tuple((k, c * factor) for k, c in a.terms), a.const * factor)


class AffineEnv:
    """Names known in a kernel body: the loop variable, loop invariants
    (parameters, the bound, immutable locals computed from them) and integer
    constants. Mutable locals and anything else are unknown."""

    def __init__(self, var: str, invariants: set[str], consts: dict[str, object], text_of):
        self.var = var
        self.known: dict[str, Affine | None] = {name: symbol(name) for name in invariants}
        self.known[var] = symbol(VAR)
        for name, value in consts.items():
            if isinstance(value, int) and not isinstance(value, bool):
                self.known.setdefault(name, constant(value))
        self.text_of = text_of

    def child(self) -> "AffineEnv":
        env = AffineEnv.__new__(AffineEnv)
        env.var, env.known, env.text_of = self.var, dict(self.known), self.text_of
        return env

    def bind(self, let: A.Let) -> None:
        integer = getattr(let.ty, "is_integer", False)
        self.known[let.name] = self.form(let.value) if integer and not let.mutable else None

    def form(self, e: A.Expr) -> Affine | None:
        if isinstance(e, A.Paren):
            return self.form(e.inner)
        if isinstance(e, A.IntLit):
            return constant(e.value)
        if isinstance(e, A.Name):
            return self.known.get(e.name)
        if isinstance(e, A.Unary) and e.op == "-":
            inner = self.form(e.operand)
            return None if inner is None else _scale(inner, -1)
        if isinstance(e, A.Binary) and e.op in ("+", "-", "*"):
            left, right = self.form(e.left), self.form(e.right)
            if left is None or right is None:
                return None
            if e.op != "*":
                return _combine(left, right, 1 if e.op == "+" else -1)
            if not left.terms:
                return _scale(right, left.const)
            if not right.terms:
                return _scale(left, right.const)
            if left.uses_var or right.uses_var:
                return None
            return self._opaque(e)
        return self._opaque(e) if self._invariant(e) else None

    def _opaque(self, e: A.Expr) -> Affine:
        """A loop-invariant expression of its own: a symbol named by its text."""
        return symbol("".join(self.text_of(e.span).split()))

    def _invariant(self, e) -> bool:
        """True when `e` reads only loop invariants (and literals)."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, A.Name):
                f = self.known.get(x.name)
                if f is None or f.uses_var:
                    return False
            elif isinstance(x, A.Call):
                stack.extend(x.args)
            elif isinstance(x, (A.Binary,)):
                stack.extend((x.left, x.right))
            elif isinstance(x, (A.Unary,)):
                stack.append(x.operand)
            elif isinstance(x, A.Paren):
                stack.append(x.inner)
            elif isinstance(x, A.Index):
                stack.extend((x.base, x.index))
            elif isinstance(x, A.Field):
                stack.append(x.base)
            elif not isinstance(x, (A.IntLit, A.FloatLit, A.BoolLit)):
                return False
        return True
