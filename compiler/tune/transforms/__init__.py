"""Source-to-source transformations the tuner searches over and the
language server offers as code actions. Each is a module with the interface
described in `base.py`; this registry is the one list of them.

    sites = find_sites(analysis, function=None, only=None)   # list[Site]
    rw = apply(analysis, site, choice)   # Rewrite (checked clean, rw.analysis) or raises NotApplicable
    title(site, choice)                  # what apply's Rewrite will be titled, without applying
    site = locate(analysis, ident)       # the same site in another version of the text
"""
from __future__ import annotations

from ...analysis import Analysis, analyze
from . import fast_reduce, fma, interchange, kblock, panel_lines, prefetch, prefetch_change, restrict, stream_store, tile, tile_panels, unroll, vectorise, vectorise_sum, widen
from .base import Edit, NotApplicable, Rewrite, Site, bodies, functions, splice

# name -> module, in the order the tuner applies them: `restrict` first (the loop-nest
# transformations need it), then the nest restructurings, then what works inside a loop.
MODULES: dict = {m.NAME: m for m in (restrict, tile, tile_panels, kblock, panel_lines, vectorise, interchange, vectorise_sum, widen, fma, unroll,
                                     prefetch, prefetch_change, stream_store, fast_reduce)}


def find_sites(analysis: Analysis, function: str | None = None, only=None) -> list[Site]:
    out = []
    for name, mod in MODULES.items():
        if only is None or name in only:
            out += mod.sites(analysis, function)
    return out


def locate(analysis: Analysis, ident: str) -> Site | None:
    transform, function, _ = ident.split(":", 2)
    mod = MODULES.get(transform)
    if mod is None:
        return None
    return next((s for s in mod.sites(analysis, function) if s.ident == ident), None)


def title(site: Site, choice) -> str:
    return MODULES[site.transform].title(site, choice)


def apply(analysis: Analysis, site: Site, choice) -> Rewrite:
    """The rewritten source; NotApplicable unless it checks clean."""
    mod = MODULES[site.transform]
    edits = mod.edits(analysis, site, choice)
    data = splice(analysis.source.data, edits)
    text = data.decode()
    after = analyze(text, analysis.path, analysis.options)
    if not after.ok:
        first = after.errors[0]
        raise NotApplicable(f"{site.transform} would not compile: {first.message}")
    return Rewrite(site, choice, mod.title(site, choice), text, after, tuple(edits))


__all__ = ["Edit", "MODULES", "NotApplicable", "Rewrite", "Site", "apply", "bodies", "find_sites", "functions",
           "locate", "splice", "title"]
