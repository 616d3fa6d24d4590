"""Lint: a vector type wider than the target's registers (warning
`vector-too-wide`).

x86 compiles every vector type, but a 512-bit type on a CPU without
AVX-512 (or a 256-bit one without AVX/AVX2) is split by LLVM into narrower
operations: it runs, at the speed of the narrower code, without a word
(LANGUAGE.md §5.3 keeps this legal). The CPU is the one code generation
uses (compiler/codegen/target.py): `--target`'s level from
compiler/cpu_levels.py, or the host's features; `--avx512` adds AVX-512.
A CPU whose features are not known gives no warning. AArch64's own rules
(wider than 128 bits is an error) are the checker's and stay errors.
Only the functions compiled for the target are linted: a `#[cfg]` function
of the other architecture is compiled for no CPU here.

One warning per vector type and file, at its first use.
"""
from __future__ import annotations

from bisect import bisect_right

from ..cpu_levels import cpu_label, target_features
from ..syntax import ast as A
from ..typesys import model as T
from ..typesys.vectors import VECTORS


def _needs(name: str) -> tuple[str, str] | None:
    """(feature, its display name) a full-width register of this type needs."""
    info = VECTORS[name]
    if info.bits == 512:
        return ("avx512bw", "AVX-512BW") if info.elem in ("i8", "u8", "i16", "u16") else ("avx512f", "AVX-512")
    if info.bits == 256:
        return ("avx", "AVX") if info.elem in ("f32", "f64") else ("avx2", "AVX2")
    return None


def wide_names(options) -> frozenset[str]:
    """The vector types this lint warns about for `options` (wider than its CPU's registers)."""
    if options.is_arm:
        return frozenset()
    features = target_features(options)
    if features is None:
        return frozenset()
    return frozenset(n for n in VECTORS if (need := _needs(n)) is not None and need[0] not in features)


def lint_widths(program: A.Program, checker, uses=None, candidates=None) -> None:
    """`uses(f)`, when given, answers `first_uses(f, ...)` for each live
    function (the incremental analysis keeps them per function);
    `candidates`, when given, are the only functions using a type of
    `wide_names` (in source order)."""
    if checker.base_options.is_arm:
        return
    funcs = [f for f in (program.items if candidates is None else candidates)
             if isinstance(f, A.Func) and checker.liveness.is_live(f)]
    if uses is None:
        vectors = [e for e in checker.expr_types if isinstance(e[1], T.Vector)]  # all first_uses reads
        types = _types_by_function(funcs, vectors)
        uses = lambda f: first_uses(f, types.get(id(f), ()))  # noqa: E731
    first: dict[str, object] = {}  # vector name -> span of its first use
    for f in funcs:
        for name, span in uses(f).items():
            if name not in first or span.start < first[name].start:
                first[name] = span
    if not first:
        return
    options = checker.base_options
    features = target_features(options)
    if features is None:
        return
    for name, span in sorted(first.items(), key=lambda kv: (kv[1].start, kv[0])):
        need = _needs(name)
        if need is None or need[0] in features:
            continue
        info = VECTORS[name]
        half = f"{info.elem}x{info.lanes // 2}"
        if need[0].startswith("avx512"):
            fix = "compile with --avx512 (for a CPU that has it)"
        else:
            fix = f"compile for a CPU with {need[1]} (e.g. --target=haswell)"
        alternative = f" or use {half}" if half in VECTORS else ""
        checker.sink.warning(
            "target", "vector-too-wide",
            f"{name} is {info.bits} bits wide, but {cpu_label(options)} has no {need[1]}: LLVM splits "
            f"every {name} operation into narrower ones. To use {info.bits}-bit registers, {fix}"
            f"{alternative}", span)


def _types_by_function(funcs: list[A.Func], expr_types) -> dict[int, list]:
    """The checked expression types inside each function (by id)."""
    starts = [f.span.start for f in funcs]  # items are in source order
    out: dict[int, list] = {}
    for span, t in expr_types:
        i = bisect_right(starts, span.start) - 1
        if i >= 0 and span.start < funcs[i].span.end:
            out.setdefault(id(funcs[i]), []).append((span, t))
    return out


def first_uses(f: A.Func, expr_types) -> dict[str, object]:
    """Each vector type `f` uses (written in its signature and `let`s, or the
    type of an expression among `expr_types`, its own) and where first."""
    first: dict[str, object] = {}
    for span, name in _written(f):
        if name not in first or span.start < first[name].start:
            first[name] = span
    for span, t in expr_types:
        if isinstance(t, T.Vector) and t.name in VECTORS:
            if t.name not in first or span.start < first[t.name].start:
                first[t.name] = span
    return first


def _written(func: A.Func):
    """(span, vector name) of every vector type written in `func`'s
    signature and `let`s."""
    for p in func.params:
        if isinstance(p.type, A.NamedType) and p.type.name in VECTORS:
            yield p.type.span, p.type.name
    if isinstance(func.ret, A.NamedType) and func.ret.name in VECTORS:
        yield func.ret.span, func.ret.name
    for s in A.statements(func.body.stmts):
        if isinstance(s, A.Let) and isinstance(s.type, A.NamedType) and s.type.name in VECTORS:
            yield s.type.span, s.type.name
