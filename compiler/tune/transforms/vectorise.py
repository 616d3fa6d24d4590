"""Vectorise a reduction nest along its contiguous column axis: W columns
at once in one vector sum each, loads of what depends on `j`, splats of
what does not, the columns left over by the original loop (scalar
remainder). The one-row, one-vector case of `tile.py`, which holds the
rewrite and its conditions; offered on its own so a search (and a code
action) can take the plain vector form without register blocking."""
from __future__ import annotations

from ...analysis import Analysis
from .base import Edit, Site
from . import tile

NAME = "vectorise"
HINTS = ()


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    return tile.find(analysis, function, NAME, ((1, 1),))


def title(site: Site, choice) -> str:
    _, _, width, fused = choice
    var = getattr(site, "cols_var", "") or "j"
    return f"Vectorise '{var}' by {width} lanes{' with fma' if fused else ''} (scalar remainder)"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    return tile.edits(analysis, site, choice)


why_not = tile.why_not
