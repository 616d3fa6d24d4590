"""The intrinsic declaration type and the helpers family files use.

Each intrinsic is declared once, in the file of its family, with: its name,
parameter names (signature help), every accepted signature as text (hover,
completion, error messages), a one-line doc, its type rule, its target rule
and the version that introduced it. Type rules receive a `CallCheck`
(`compiler.check.calls`): `c.arg(i, expected)`, `c.fail(msg)`, `c.nargs`,
`c.expected`, `c.options`, `c.const_int(i, lo, hi)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..typesys import model as T
from ..typesys.vectors import VECTORS

Rule = Callable[..., T.Type]
TargetRule = Callable[..., Optional[str]]


@dataclass(frozen=True)
class Intrinsic:
    name: str
    params: tuple[str, ...]
    signatures: tuple[str, ...]
    doc: str
    rule: Rule
    family: str
    since: str = "CORE"
    target: Optional[TargetRule] = None
    deprecated: Optional[str] = None

    @property
    def core(self) -> bool:
        return self.since.startswith("CORE")

    def snippet(self) -> str:
        """An LSP snippet: `fma(${1:a}, ${2:b}, ${3:c})`."""
        inner = ", ".join(f"${{{i + 1}:{p}}}" for i, p in enumerate(self.params))
        return f"{self.name}({inner})"

    def signature_text(self) -> str:
        return " | ".join(f"{self.name}{s}" for s in self.signatures)


def type_named(name: str) -> T.Type:
    """A type from its spelling in a signature table (`i16x8`, `f32`, `bool`)."""
    if name in T.SCALARS:
        return T.SCALARS[name]
    info = VECTORS[name]
    return T.vector(T.SCALARS[info.elem], info.lanes)


def fixed(name: str, sigs: list[tuple[tuple[str, ...], str]]) -> Rule:
    """A rule for fixed signatures: the first signature the arguments fit wins.

    Messages follow INTRINSICS.md §0.3: `<name> expects (<sig>), got (<actual>)`
    and `<name> expects <n> arguments: (<sig>)`.
    """
    typed = [([type_named(p) for p in params], type_named(ret) if ret != "void" else T.VOID)
             for params, ret in sigs]
    arities = sorted({len(p) for p, _ in typed})
    shown = [f"({', '.join(p)})" for p, _ in sigs]
    listing = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]

    def rule(c) -> T.Type:
        if c.nargs not in arities:
            c.args()
            n = arities[0]
            plural = "argument" if n == 1 else "arguments"
            return c.fail(f"{name} expects {n} {plural}: {listing}", code="intrinsic-arity")
        actual = c.args()
        if any(a.is_error for a in actual):
            return T.ERROR
        for params, ret in typed:
            if len(params) == len(actual) and all(T.compatible(a, p) for a, p in zip(actual, params)):
                return ret
        got = ", ".join(str(a) for a in actual)
        return c.fail(f"{name} expects {listing}, got ({got})", code="intrinsic-args")

    return rule


def signatures_of(sigs: list[tuple[tuple[str, ...], str]]) -> tuple[str, ...]:
    return tuple(f"({', '.join(p)}) -> {r}" for p, r in sigs)


def declare_fixed(name: str, params: tuple[str, ...], sigs: list[tuple[tuple[str, ...], str]], doc: str,
                  family: str, since: str, target: Optional[TargetRule] = None,
                  deprecated: Optional[str] = None) -> Intrinsic:
    """Declare a fixed-signature intrinsic in one call."""
    return Intrinsic(name, params, signatures_of(sigs), doc, fixed(name, sigs), family, since,
                     target, deprecated)


# ---- target rules ----

def x86_only(message: str) -> TargetRule:
    return lambda c, result: message if c.options.is_arm else None


def arm_only(message: str, flag: str | None = None, flag_message: str | None = None) -> TargetRule:
    """ARM-only; with `flag`, also needs that option (`dotprod`, `i8mm`)."""
    def rule(c, result):
        if not c.options.is_arm:
            return message
        if flag is not None and not getattr(c.options, flag):
            return flag_message
        return None
    return rule
