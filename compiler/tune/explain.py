"""Which transformations apply to each function, and for those that do not,
why: what `ea tune --explain` prints, and what the language server's code
actions and the TUI's Tune pane show. Never raises on a file that checks."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis import Analysis
from . import transforms as T

# Why a transformation whose module has no `why_not` found no site: the shape it looks for.
SHAPES = {
    "restrict": "needs two or more pointer parameters, one written, not all `restrict` already",
    "widen": "no main loop of 128-bit vectors that could use the target's wider registers",
    "fma": "no `a * b + c` (or `.*`/`.+`) of floats outside an fma",
    "unroll": "no `while i + K <= n { ...; i = i + K }` loop without an inner loop, "
              "nor a `kernel ... tail scalar`",
    "prefetch": "no main loop (step above 1) loading from a pointer parameter",
    "stream_store": "no main loop storing whole vectors it never reads back",
}
NEST = ("tile", "panels", "kblock", "lines", "vectorise", "interchange")
NO_RUNTIME_CHECK = "Eä has no pointer comparison, so no runtime overlap check can be written"


@dataclass(frozen=True)
class Reason:
    transform: str
    applies: bool
    reason: str  # what applies where (lines, choices), or why nothing does
    line: int | None = None  # the first site's line, or None


def explain(analysis: Analysis, function: str | None = None, assume_noalias: bool = False,
            only: tuple[str, ...] | None = None) -> dict[str, list[Reason]]:
    """Per function (in source order): [(transform, applies, reason)] for every transformation
    (or the `only` ones). With `assume_noalias`, a nest transformation that needs `restrict`
    applies (the tuner adds it)."""
    if not analysis.ok:
        return {}
    out: dict[str, list[Reason]] = {}
    for item in T.functions(analysis, function):
        restricted = _restricted(analysis, item.name)
        rows = []
        for name, mod in T.MODULES.items():
            if only is not None and name not in only:
                continue
            rows.append(_one(analysis, restricted, item, name, mod, assume_noalias))
        out[item.name] = rows
    return out


def _restricted(analysis: Analysis, function: str) -> Analysis | None:
    found = T.find_sites(analysis, function, only=("restrict",))
    if not found:
        return None
    try:
        return T.apply(analysis, found[0], True).analysis
    except T.NotApplicable:
        return None


def _one(analysis: Analysis, restricted, item, name: str, mod, assume_noalias: bool) -> Reason:
    sites = mod.sites(analysis, item.name)
    if sites:
        return Reason(name, True, _where(sites), sites[0].line)
    if name in NEST and restricted is not None:
        later = mod.sites(restricted, item.name)
        if later:
            pointers = _unrestricted(item)
            if assume_noalias:
                return Reason(name, True, f"{_where(later)}, with `restrict` added (--assume-noalias)",
                              later[0].line)
            written, others = pointers
            return Reason(name, False, f"`{written}` may alias {', '.join(f'`{p}`' for p in others)} "
                                       f"(not restrict): use --assume-noalias ({NO_RUNTIME_CHECK})",
                          later[0].line)
    why = mod.why_not(analysis, item) if hasattr(mod, "why_not") else SHAPES.get(name, "no site")
    return Reason(name, False, why)


def _where(sites) -> str:
    parts = []
    for s in sites[:3]:
        choices = f" ({len(s.choices)} choices)" if len(s.choices) > 1 else ""
        parts.append(f"line {s.line}: {T.title(s, s.choices[0] if s.choices else None)}{choices}")
    more = f"; {len(sites) - 3} more" if len(sites) > 3 else ""
    return "; ".join(parts) + more


def _unrestricted(item) -> tuple[str, list[str]]:
    """(a written pointer parameter, the other pointer parameters), for the message."""
    from ..syntax import ast as A
    pointers = [p for p in item.params if isinstance(p.type, A.PointerType)]
    written = next((p for p in pointers if p.type.mutable), pointers[0])
    return written.name, [p.name for p in pointers if p is not written]


def explain_text(analysis: Analysis, assume_noalias: bool = False) -> str:
    """The report `ea tune --explain` prints."""
    lines = []
    for function, rows in explain(analysis, assume_noalias=assume_noalias).items():
        lines.append(f"{function}:")
        for r in rows:
            mark = "applies" if r.applies else "no"
            lines.append(f"  {r.transform:<13} {mark:<8} {r.reason}")
    return "\n".join(lines) + ("\n" if lines else "")
