"""The search space: one knob per tuned const (its listed values) and per
transformation site (not applied, or one of its choices). A point gives
every knob a value; rendering a point is setting the consts, then applying
the chosen transformations in the registry's order to the source."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from ..analysis import Analysis, analyze
from ..syntax import ast as A
from . import transforms as T
from .config import TuneError
from .params import set_params


@dataclass(frozen=True)
class Knob:
    name: str  # a const's name, or a site's ident ("unroll:max_f32:0")
    kind: str  # "param" or "transform"
    values: tuple  # values[0] is the original: the const's value, or None (not applied)
    site: T.Site | None = None
    needs_noalias: bool = False  # the site exists only once the pointers are `restrict` (--assume-noalias)

    def label(self, value) -> str:
        if self.kind == "param":
            return f"{self.name}={value}"
        s = self.site
        suffix = "" if value is True else f" {_choice_text(s.transform, value)}"
        return f"{s.transform} {s.function}#{s.index}{suffix}{' (with restrict)' if self.needs_noalias else ''}"


def _choice_text(transform: str, value) -> str:
    if transform == "unroll":
        return f"×{value}"
    if transform in ("prefetch", "prefetch_change"):
        return "removed" if value == "remove" else f"{value} B"
    if transform == "widen":
        return f"to {value}-bit"
    if transform == "stream_store":
        return f"for {value}"
    if transform == "vectorise_sum":
        width, u, fused = value
        return f"{u}×{width}" + (" fma" if fused else "")
    if transform in ("kblock", "lines"):
        mr, nr, width, fused, kc = value
        return f"{mr}×{nr}×{width}" + (f" k{kc}" if kc else "") + (" fma" if fused else "")
    if transform in ("tile", "panels", "vectorise"):
        mr, nr, width, fused = value
        shape = f"×{width}" if transform == "vectorise" else f"{mr}×{nr}×{width}"
        return shape + (" fma" if fused else "")
    return str(value)


@dataclass
class Space:
    knobs: list[Knob]
    constraints: list[str] = field(default_factory=list)
    fixed: dict = field(default_factory=dict)  # the values of tuned params that are not knobs here
    _compiled: list = field(default_factory=list, repr=False)
    _sites: dict = field(default_factory=dict, repr=False)  # (function, transform) -> the base's sites
    # With --assume-noalias: the source with the function's pointers `restrict`, where the
    # transformation sites were found (a nest transformation needs it; see `build_space`).
    restricted: Analysis | None = None

    @property
    def origin(self) -> tuple:
        return tuple(k.values[0] for k in self.knobs)

    @property
    def size(self) -> int:
        return math.prod(len(k.values) for k in self.knobs)

    def points(self):
        return itertools.product(*(k.values for k in self.knobs))

    def neighbours(self, point: tuple):
        """Points differing from `point` in one knob."""
        for i, knob in enumerate(self.knobs):
            for value in knob.values:
                if value != point[i]:
                    yield point[:i] + (value,) + point[i + 1:]

    def allowed(self, point: tuple) -> bool:
        params = dict(self.fixed)
        params.update((k.name, v) for k, v in zip(self.knobs, point) if k.kind == "param")
        if not self._compiled:
            self._compiled = [(c, compile(c, "constraint", "eval")) for c in self.constraints]
        for c, code in self._compiled:
            try:
                if not eval(code, {"__builtins__": {"min": min, "max": max, "abs": abs}}, params):  # noqa: S307
                    return False
            except Exception as err:  # noqa: BLE001 - the suite's expression
                raise TuneError(f"[tune] constraint {c!r} failed: {type(err).__name__}: {err}") from None
        return True

    def label(self, point: tuple) -> str:
        parts = [k.label(v) for k, v in zip(self.knobs, point) if v != k.values[0]]
        return ", ".join(parts) or "original"


def uses_name(analysis: Analysis, function: str, name: str) -> bool:
    return any(isinstance(n, A.Name) and n.name == name
               for item in T.functions(analysis, function) for n in A.walk(T.bodies(item)))


def build_space(analysis: Analysis, function: str, params: dict[str, list], current: dict[str, object],
                constraints: list[str], transforms: tuple[str, ...] | None) -> Space:
    """Knobs for tuning `function`: the params it uses, and the transformation sites in it."""
    knobs = []
    for name, values in params.items():
        if uses_name(analysis, function, name):
            ordered = (current[name],) + tuple(v for v in values if v != current[name])
            knobs.append(Knob(name, "param", ordered))
    restricted = None
    if transforms:
        found = T.find_sites(analysis, function, only=transforms)
        plain = {(s.transform, s.line) for s in found}
        for site in found:
            if site.transform == "restrict":
                knobs.append(Knob(site.ident, "transform", (None,) + tuple(site.choices), site))
                # `restrict` combines with everything: the other sites are found where the
                # pointers are restrict, and one that exists only there needs it.
                try:
                    restricted = T.apply(analysis, site, True).analysis
                except T.NotApplicable:
                    restricted = None  # a call passes one array twice: the knob says so when tried
        for site in (T.find_sites(restricted, function, only=[t for t in transforms if t != "restrict"])
                     if restricted is not None else [s for s in found if s.transform != "restrict"]):
            knobs.append(Knob(site.ident, "transform", (None,) + tuple(site.choices), site,
                              needs_noalias=(site.transform, site.line) not in plain))
    names = {k.name for k in knobs}
    return Space(knobs, constraints if any(k.kind == "param" for k in knobs) else [],
                 {name: value for name, value in current.items() if name not in names}, restricted=restricted)


def _same_site(space: Space, base: Analysis, current: Analysis, site: T.Site) -> T.Site | None:
    """`site` (found in `base`) in `current`: by its number while the transformation's sites in
    the function are as many as in `base`; when an earlier rewrite added or removed some (an
    interchange, an unroll), by the text of the construct's first line, so the knob never lands
    on another loop."""
    if base is current:
        return site
    key = (site.function, site.transform)
    if key not in space._sites:
        space._sites[key] = T.find_sites(base, site.function, only=(site.transform,))
    before = space._sites[key]
    after = T.find_sites(current, site.function, only=(site.transform,))
    if len(before) == len(after):
        return next((s for s in after if s.index == site.index), None)
    anchor = _first_line(base, site)
    nth = [s.index for s in before if _first_line(base, s) == anchor].index(site.index)
    same = [s for s in after if _first_line(current, s) == anchor]
    return same[nth] if nth < len(same) else None


def _first_line(analysis: Analysis, site: T.Site) -> bytes:
    data = analysis.source.data
    end = data.find(b"\n", site.start)
    return data[site.start:end if end >= 0 else len(data)].strip()


def render(analysis: Analysis, space: Space, point: tuple) -> tuple[str, Analysis]:
    """The source of `point` and its analysis; raises NotApplicable when a transformation does
    not apply there."""
    params = {k.name: v for k, v in zip(space.knobs, point) if k.kind == "param" and v != k.values[0]}
    chosen = [(k, v) for k, v in zip(space.knobs, point) if k.kind == "transform" and v is not None]
    where = space.restricted or analysis  # where the sites were found
    if space.restricted is not None and any(k.needs_noalias or k.site.transform == "restrict" for k, _ in chosen):
        analysis = space.restricted  # start from the restricted source: `restrict` is applied
        chosen = [(k, v) for k, v in chosen if k.site.transform != "restrict"]
    text = set_params(analysis, params) if params else analysis.source.data.decode()
    order = list(T.MODULES)
    # Sites of one transformation in one function are applied last-first: rewriting a loop
    # adds loops, which would renumber the sites after it.
    chosen.sort(key=lambda kv: (order.index(kv[0].site.transform), kv[0].site.function, -kv[0].site.index))
    current = analysis if not params else analyze(text, analysis.path, analysis.options)
    for knob, value in chosen:
        if knob.site.transform == "restrict":
            site = _same_site(space, analysis, current, knob.site)
        else:
            site = _same_site(space, where, current, knob.site)
        if site is None:
            raise T.NotApplicable(f"{knob.label(value)}: the site is gone after the other changes")
        rewrite = T.apply(current, site, value)
        current = rewrite.analysis
        text = rewrite.text
    return text, current
