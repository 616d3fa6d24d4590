"""The intrinsic declaration type and the helpers family files use.

Each intrinsic is declared once, in the file of its family, with: its name,
parameter names (signature help), every accepted signature as text (hover,
completion, error messages), a one-line doc, its type rule, its target rule
and the version that introduced it. Type rules receive a `CallCheck`
(`ea_compiler.check.calls`): `c.arg(i, expected)`, `c.fail(msg)`, `c.nargs`,
`c.expected`, `c.options`, `c.const_int(i, lo, hi)` for immediates.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..typesys import model as T
from ..typesys.vectors import VECTORS

Rule = Callable[..., T.Type]
TargetRule = Callable[..., Optional[str]]


@dataclass(frozen=True)
class Memory:
    """How a call reaches memory through its pointer argument (argument 0),
    for the bounds analysis (`outputs/bounds`), which names no intrinsic:
    - `"touch"`: the elements ptr[index .. index + lanes), `index` being
      argument `index`, `lanes` the lanes of argument `lanes` (1 for a
      scalar) or, when None, of the call's result; with `count`, only lanes
      k < argument `count` are touched (none when it is <= 0);
    - `"indices"`: ptr[indices[k]] for each lane of argument `index`;
    - `"hint"`: only the address is used (a prefetch's hint at ptr[index],
      `align_offset`'s place in a line: `index` None), no element is touched;
    - `"view"`: the result is the same memory in other units (its own pointee)."""
    kind: str
    index: Optional[int] = None
    lanes: Optional[int] = None
    count: Optional[int] = None

    @property
    def stores(self) -> bool:
        """The call writes the elements it touches: their lanes are those of an argument (the value stored)."""
        return self.kind == "touch" and self.lanes is not None


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
    # Appended to the deprecation warning (TOOLCHAIN.md §9.4): what to use instead.
    advice: Optional[str] = None
    memory: Optional[Memory] = None  # set when argument 0 is a pointer the call reads, writes or views
    # Names other SIMD libraries give this operation: "did you mean" offers this one for them.
    aka: tuple[str, ...] = ()

    @property
    def extension(self) -> bool:
        """Not in the reference compiler (documented in the README's Extensions)."""
        return self.since.startswith("extension")

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
        actual = c.signature_args(typed)
        if any(a.is_error for a in actual):
            return T.ERROR
        for params, ret in typed:
            if len(params) == len(actual) and all(T.compatible(a, p) for a, p in zip(actual, params)):
                return ret
        got = ", ".join(str(a) for a in actual)
        notes, fixes = c.blame(list(range(c.nargs)), None, f", which fits no signature of {name}")
        if arities == [1]:  # one operand: `widen_u8_u16_hi expects u8x16, got f32x4`
            alternatives = [p[0] for p, _ in sigs]
            wanted = alternatives[0] if len(alternatives) == 1 else \
                ", ".join(alternatives[:-1]) + " or " + alternatives[-1]
            return c.fail(f"{name} expects {wanted}, got {got}", c.arg_span(0), notes=notes, suggestions=fixes)
        return c.fail(f"{name} expects {listing}, got ({got})", code="intrinsic-args", notes=notes,
                      suggestions=fixes)

    return rule


def signatures_of(sigs: list[tuple[tuple[str, ...], str]]) -> tuple[str, ...]:
    return tuple(f"({', '.join(p)}) -> {r}" for p, r in sigs)


def declare_fixed(name: str, params: tuple[str, ...], sigs: list[tuple[tuple[str, ...], str]], doc: str,
                  family: str, since: str, target: Optional[TargetRule] = None,
                  deprecated: Optional[str] = None) -> Intrinsic:
    """Declare a fixed-signature intrinsic in one call."""
    return Intrinsic(name, params, signatures_of(sigs), doc, fixed(name, sigs), family, since,
                     target, deprecated)


def check_arity(c, name: str, n: int, shown: str = "") -> bool:
    """`<name> expects <n> arguments<shown>` unless the call has n arguments
    (`shown` with its punctuation: `": (ptr, offset)"`, `" (ptr, index)"`)."""
    if c.nargs == n:
        return True
    c.args()
    plural = "argument" if n == 1 else "arguments"
    c.fail(f"{name} expects {n} {plural}{shown}", code="intrinsic-arity")
    return False


def peer_operands(c, name: str, n: int) -> list[T.Type] | None:
    """The `n` arguments of an intrinsic whose operands share one type
    (`CallCheck.peer_args`), or None when the arity is wrong (reported) or an
    operand is already in error (quiet)."""
    if not check_arity(c, name, n):
        return None
    ts = c.peer_args()
    return None if any(t.is_error for t in ts) else ts


def typed_rule(name: str, ty: str, count: int, ret: str | None = None,
               imm: tuple[int, int] | None = None) -> Rule:
    """A rule for intrinsics named after their operand type (`sat_add_u8x16`,
    `lo128_i8x32`, `bsrli_i8x16`): `count` operands of exactly `ty`, then an
    optional immediate. The message names the first offending operand,
    `<name> expects <ty>, got <actual>` (INTRINSICS.md §0.3). The operands get
    `ty` as expected type, so `splat`/`load` arguments take its width."""
    want = type_named(ty)
    result = type_named(ret) if ret else want
    shown = [ty] * count + ([f"imm {imm[0]}..={imm[1]}"] if imm else [])
    listing = f"({', '.join(shown)})"

    def rule(c) -> T.Type:
        if not check_arity(c, name, len(shown), f": {listing}"):
            return T.ERROR
        actual = [c.arg(i, want) for i in range(count)]
        if any(a.is_error for a in actual):
            return T.ERROR
        for i, a in enumerate(actual):
            if not T.compatible(a, want):
                return c.fail(f"{name} expects {ty}, got {a}", c.arg_span(i))
        if imm is not None and c.const_int(count, imm[0], imm[1]) is None:
            return T.ERROR
        return result

    return rule


def declare_typed(name: str, params: tuple[str, ...], ty: str, doc: str, family: str, since: str,
                  ret: str | None = None, imm: tuple[int, int] | None = None,
                  target: Optional[TargetRule] = None) -> Intrinsic:
    """Declare an intrinsic checked by `typed_rule`; operand count is
    len(params) minus the immediate."""
    count = len(params) - (1 if imm else 0)
    shown = [ty] * count + ([f"imm {imm[0]}..={imm[1]}"] if imm else [])
    sig = f"({', '.join(shown)}) -> {ret or ty}"
    return Intrinsic(name, params, (sig,), doc, typed_rule(name, ty, count, ret, imm), family, since,
                     target)


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


def declare_fixed_imm(name: str, params: tuple[str, ...], types: tuple[str, ...], ret: str,
                      imm: tuple[int, int], doc: str, family: str, since: str,
                      target: Optional[TargetRule] = None, range_message: str | None = None) -> Intrinsic:
    """One fixed signature whose last argument is an immediate (`blend_i32`,
    `vdot_lane_i32`). Operand mismatches use the fixed-signature message,
    `<name> expects (<sig>), got (<actual>)`."""
    want = [type_named(t) for t in types]
    listing = f"({', '.join(types)}, imm {imm[0]}..={imm[1]})"

    def rule(c) -> T.Type:
        if not check_arity(c, name, len(types) + 1, f": {listing}"):
            return T.ERROR
        actual = [c.arg(i) for i in range(len(types))]
        if any(a.is_error for a in actual):
            return T.ERROR
        if not all(T.compatible(a, w) for a, w in zip(actual, want)):
            got = ", ".join(str(a) for a in actual + [c.arg(len(types))])
            return c.fail(f"{name} expects {listing}, got ({got})")
        if c.const_int(len(types), imm[0], imm[1], range_message) is None:
            return T.ERROR
        return type_named(ret)

    return Intrinsic(name, params, (f"{listing} -> {ret}",), doc, rule, family, since, target)
