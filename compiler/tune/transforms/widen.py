"""Widen a function's vectors: every vector type twice (or four times) as
wide, and its vector loops stepping as many more elements (f32x4 -> f32x8,
`step 4` -> `step 8`, `i + 4 <= n` -> `i + 8 <= n`).

A site is a function whose vector code has one width; the choices are the
wider widths the target has registers for (256 bits on x86; 512 with
`--avx512`; nothing on AArch64, where 128 bits is the limit). The rewrite
keeps what each lane computes and changes how many lanes a step takes, so it
refuses (NotApplicable, with the reason) whatever ties the code to its lane
count: shuffles, lane indices and vector literals, intrinsics with no wider
form of the same operation (the table's signatures decide), scalar accesses
at the loop index, a step whose vectors leave some of its elements
untouched, a kernel tail whose correctness depends on the step
(`tail pad`, no tail, a `tail mask` with lane-count literals), a step in a
`const` other functions share, a loop bound that runs past the end, and
integer literals that may count lanes outside the recognised index
positions. The index arithmetic it rewrites (`widen_index.py`): the step,
the constant offsets of the loop bound, and the offsets of loads and stores
that are whole vectors (`load(x, i + 4)` -> `load(x, i + 8)`); other
offsets (`i + 1`, a neighbour) stay. A last check analyses the result: every
vector in the function must have the new width, and no `vector-too-wide`
warning may appear."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...analysis import Analysis, analyze
from ...intrinsics import lookup
from ...syntax import ast as A
from ...typesys import model as T
from ...typesys.vectors import VECTORS
from . import loopscan as L
from .base import Edit, NotApplicable, Site, bodies, functions, splice
from .text import text_of
from .widen_index import Scaler

NAME = "widen"
HINTS = ("narrow-vectors",)
WIDTHS = (256, 512)
_GENERIC = re.compile(r"xN\b|\bFV\b")  # a signature for any lane count


@dataclass(frozen=True)
class WidenSite(Site):
    vectors: tuple[str, ...] = ()  # the function's vector types, first use first


def vector_types(item) -> list[T.Vector]:
    """The vector types the function's code has (written or inferred), in
    order of first appearance; masks aside."""
    nodes = [n for n in A.walk(bodies(item)) if isinstance(n, (A.Expr, A.Let))]
    nodes += [p for p in item.params]
    seen: dict[str, tuple[int, T.Vector]] = {}
    for n in nodes:
        t = n.ty
        if isinstance(t, T.Vector) and (t.name not in seen or n.span.start < seen[t.name][0]):
            seen[t.name] = (n.span.start, t)
    if isinstance(item, A.Func) and isinstance(item.ret_ty, T.Vector):
        seen.setdefault(item.ret_ty.name, (item.span.start, item.ret_ty))
    return [t for _, t in sorted(seen.values(), key=lambda x: x[0])]


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    if not analysis.ok or analysis.options.is_arm:
        return []
    out = []
    for item in functions(analysis, function):
        vecs = vector_types(item)
        bits = {v.bits for v in vecs}
        if len(bits) != 1:
            continue
        (now,) = bits
        choices = tuple(w for w in WIDTHS if w > now and (w < 512 or analysis.options.avx512))
        if choices:
            out.append(WidenSite(NAME, item.name, 0, item.name_span.line, item.span.start, item.span.end,
                                 choices, HINTS[0], vectors=tuple(v.name for v in vecs)))
    return out


def _wider(v: T.Vector, ratio: int) -> str:
    return f"{v.elem.name}x{v.lanes * ratio}"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    item = next(iter(functions(analysis, site.function)), None)
    if item is None:
        raise NotApplicable(f"no function {site.function}")
    vecs = vector_types(item)
    if not vecs or len({v.bits for v in vecs}) != 1 or choice not in WIDTHS or choice <= vecs[0].bits:
        raise NotApplicable(f"{site.function} has no vectors narrower than {choice} bits of one width")
    ratio = choice // vecs[0].bits
    lanes = {v.lanes for v in vecs}
    if len(lanes) != 1:
        raise NotApplicable(f"{site.function} mixes lane counts ({', '.join(v.name for v in vecs)})")
    mapping = {v.name: _wider(v, ratio) for v in vecs}
    missing = [new for new in mapping.values() if new not in VECTORS]
    if missing:
        raise NotApplicable(f"there is no {missing[0]} type")
    _refuse_kernel_tail(item, lanes.pop() * ratio)
    out = _type_edits(item, mapping)
    out += _call_edits(analysis, item, mapping, ratio)
    out += Scaler(analysis, item, vecs[0].lanes, ratio).edits()
    _check_result(analysis, item, out, mapping)
    return out


def _refuse_kernel_tail(item, new_step: int) -> None:
    if not isinstance(item, A.Kernel):
        return
    if item.tail is None:
        raise NotApplicable(f"kernel {item.name} has no tail: with step {new_step} it would leave "
                            "other elements unprocessed")
    if item.tail == "pad":
        raise NotApplicable(f"kernel {item.name} has tail pad: its callers pad {item.bound} to a multiple "
                            f"of {item.step}, not of {new_step}")


def _type_edits(item, mapping: dict[str, str]) -> list[Edit]:
    """Every vector type written in the function's `let`s; one in its
    signature is its callers' business."""
    signature = [p.type for p in item.params] + ([item.ret] if getattr(item, "ret", None) else [])
    for t in signature:
        if isinstance(t, A.NamedType) and t.name in mapping:
            raise NotApplicable(f"{item.name} takes or returns {t.name}: its callers fix the width")
    lets = [s.type for s in A.statements(bodies(item)) if isinstance(s, A.Let)]
    return [Edit(t.span.start, t.span.end, mapping[t.name]) for t in lets
            if isinstance(t, A.NamedType) and t.name in mapping]


def _call_edits(analysis: Analysis, item, mapping: dict[str, str], ratio: int) -> list[Edit]:
    """Intrinsics named after a width take the wider name; the rest must work
    on any lane count. Lane positions (literals, indices) are refused."""
    out = []
    for n in sorted(A.walk(bodies(item)), key=lambda n: n.span.start):
        if isinstance(n, A.VectorLit):
            raise NotApplicable(f"the vector literal at line {n.span.line} spells out its lanes")
        if isinstance(n, A.Index) and isinstance(n.base.ty, T.Vector):
            raise NotApplicable(f"the lane index {text_of(analysis, n)} at line {n.span.line} depends on the width")
        if not isinstance(n, A.Call) or not _has_vectors(n):
            continue
        callee = analysis.callee_of(n)
        intr = analysis.decisions.intrinsic_of(n)
        if intr is None:
            name = callee.name if callee is not None else n.name
            raise NotApplicable(f"the call to {name} at line {n.span.line} passes or returns vectors")
        if any(isinstance(a, A.VectorLit) for a in n.args):
            raise NotApplicable(f"{n.name} at line {n.span.line} picks lanes by position")
        named = [old for old in mapping if re.search(rf"(^|_){old}(_|$)", intr.name)]
        if named:
            new_name = intr.name
            for old in named:
                new_name = re.sub(rf"(^|_){old}(_|$)", rf"\g<1>{mapping[old]}\g<2>", new_name)
            new = lookup(new_name)
            if new is None or new.family == "lanes" or \
                    not {_mapped(s, mapping) for s in intr.signatures} <= set(new.signatures):
                raise NotApplicable(f"{intr.name} at line {n.span.line} has no wider form")
            out.append(Edit(n.name_span.start, n.name_span.end, new_name))
        elif not any(_GENERIC.search(s) for s in intr.signatures):
            raise NotApplicable(f"{intr.name} at line {n.span.line} works on fixed lane counts")
        elif analysis.decisions.defaulted(n) and isinstance(n.ty, T.Vector) and n.ty.name in mapping:
            out.append(_explicit_width(n, mapping[n.ty.name]))
    return out


def _has_vectors(call: A.Call) -> bool:
    return any(isinstance(x.ty, (T.Vector, T.Mask)) for x in [call] + call.args)


def _mapped(sig: str, mapping: dict[str, str]) -> str:
    return re.sub(r"\b(" + "|".join(map(re.escape, mapping)) + r")\b", lambda m: mapping[m.group(1)], sig)


def _explicit_width(call: A.Call, new_type: str) -> Edit:
    """A context-typed call that took the 4-lane default: `load` gets its
    explicit-width name; anything else needs a type the user writes."""
    name = f"{call.name}_{new_type}"
    if call.name != "load" or lookup(name) is None:
        raise NotApplicable(f"{call.name} at line {call.span.line} takes the default 4 lanes "
                            "(LANGUAGE.md §5.6): give it a vector type first")
    return Edit(call.name_span.start, call.name_span.end, name)


def _check_result(analysis: Analysis, item, edits: list[Edit], mapping: dict[str, str]) -> None:
    after = analyze(splice(analysis.source.data, edits), analysis.path, analysis.options)
    if not after.ok:
        return  # apply reports the first error
    new = next(f for f in functions(after, item.name))
    left = [v.name for v in vector_types(new) if v.name not in mapping.values()]
    if left:
        raise NotApplicable(f"after widening, {item.name} still has {left[0]} vectors")
    for d in after.diagnostics:
        if d.code == "vector-too-wide" and d.span is not None and new.span.start <= d.span.start < new.span.end:
            raise NotApplicable(d.message)


def title(site: Site, choice) -> str:
    vecs = getattr(site, "vectors", ())
    if not vecs:
        return f"Widen vectors to {choice} bits"
    old = [T.vector(T.SCALARS[v.split("x")[0]], int(v.split("x")[1])) for v in vecs]
    ratio = choice // old[0].bits
    return f"Widen {', '.join(vecs)} \u2192 {', '.join(_wider(v, ratio) for v in old)}"
