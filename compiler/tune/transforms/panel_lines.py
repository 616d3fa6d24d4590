"""Column panels that start on a cache line of the right-hand array: on
top of `panels` / `kblock` (`tile_panels.py`), the panels begin at the
first column whose element of B (the array the tile reads along j alone:
`b[k*n + j]`) lies at a multiple of 64 bytes, found at run time with
`align_offset(b, 64)`; the columns before it (at most a line's worth less
one) go through the same tiles with half-width vectors.

    let j_line: i32 = min(align_offset(b, 64) / 4 * 4, n)
    while j + 4 <= j_line { (the row tiles, f32x4) ; j = j + 4 }
    while j + 16 <= n { (the panels, as `panels` writes them) }

Why: NumPy puts an array at any 16-byte offset in a line, and with B 16
bytes past a line one of the two f32x8 loads of a 6×2 tile's k step
crosses a line: measured at n = 512, 71-73 % of NumPy against 81 % for
panels started on the line (README "Loop nests"). Where B lies changes from
call to call, so the start is read from the array, not chosen by the tuner.
Each element keeps its summation order, so the results are the panels'
bit for bit. Offered where j starts at 0 and B's rows start at the same
offset in a line (the start is right for every row when the row length is
a multiple of 16 floats; elsewhere only slower, never wrong)."""
from __future__ import annotations

from dataclasses import replace

from ...analysis import Analysis
from ...syntax import ast as A
from . import kblock, tile_panels
from .base import Edit, NotApplicable, Site, functions
from .loopshape import loops_of, names_in, scope_of
from .tile_shape import Tile, analyse_tile, term

NAME = "lines"
HINTS = ()
KCS = (0,) + kblock.KCS  # 0: the panels' k loop unblocked


def line_pointer(tile: Tile) -> str | None:
    """The pointer read along j alone in the tile's term (B), if the panels can start on its lines."""
    if not (isinstance(tile.j_start, (A.Let, A.Assign)) and isinstance(tile.j_start.value, A.IntLit)
            and tile.j_start.value.value == 0):
        return None
    for e in A.walk([term(tile.nest)]):
        if isinstance(e, A.Index) and isinstance(e.base, A.Name):
            used = {n.name for n in names_in([e.index])}
            if tile.nest.j in used and tile.i not in used:
                return e.base.name
    return None


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    out = []
    for site in tile_panels.sites(analysis, function, NAME):
        item = next(iter(functions(analysis, site.function)))
        w = next(w for w in loops_of(item) if w.span.start == site.start)
        tile = analyse_tile(analysis, scope_of(item), w)
        if line_pointer(tile) is None or tile.nest.advance.target.ty.name not in ("i32", "i64"):
            continue
        out.append(replace(site, choices=tuple((*c, kc) for c in site.choices if c[2] >= 4 for kc in KCS)))
    return out


def why_not(analysis: Analysis, item) -> str:
    return tile_panels.why_not(analysis, item)


def title(site: Site, choice) -> str:
    mr, nr, width, fused, kc = choice
    blocks = f", k in blocks of {kc}" if kc else ""
    return (f"Cache-block: panels of {nr * width} columns from the right-hand array's first cache line{blocks}, "
            f"register tiles {mr}×{nr}{' with fma' if fused else ''}")


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice not in site.choices:
        raise NotApplicable(f"{site.transform} {choice!r} is not one of this site's choices")
    mr, nr, width, fused, kc = choice
    for item in functions(analysis, site.function):
        w = next((w for w in loops_of(item) if w.span.start == site.start), None)
        if w is not None:
            tile = analyse_tile(analysis, scope_of(item), w)
            tile_panels.check(analysis, tile)
            return [tile_panels.panel_edit(analysis, tile, mr, nr, width, fused, kc, line_pointer(tile))]
    raise NotApplicable(f"no row loop at line {site.line} of '{site.function}'")
