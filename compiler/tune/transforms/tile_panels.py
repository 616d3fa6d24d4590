"""Cache blocking of a register-tiled nest (`tile.py`): the column blocks
outside, the row tiles inside, so one panel of the right-hand array (K rows
of nr*W columns: b[k*n + j .. j + nr*W) for every k) stays in the L1/L2
cache while every row tile of the left-hand array streams past it, instead
of the whole right-hand array streaming past each row tile (which no longer
fits a cache once it is larger than L2: 1 MB at n = 512).

    let i_0: i32 = i                       (where the rows start)
    while i + 6 <= n { i = i + 6 }         (the end of the whole row tiles)
    let i_6: i32 = i
    while i < n { i = i + 1 }              (the end of the rows: i's value after the original loop)
    let i_3: i32 = i
    let mut j: i32 = 0
    while j + 16 <= n {                    one panel of 16 columns
        let mut i_1: i32 = i_0
        while i_1 < i_6 {                  the row tiles: as `tile.py`'s, rows read at i_1
            ...
            i_1 = i_1 + 6
        }
        while i_1 < i_3 {                  the rows left: tiles of one row (nr vectors)
            ...
            i_1 = i_1 + 1
        }
        j = j + 16
    }
    (the columns left, for every row: the original j loop, row by row)

The rows left go through vectors too: left to the original (scalar, column
by column) loop they cost more than all the tiles at n = 256 with 6-row
tiles (4 rows of 256, each reading b down a column).

Choices and conditions are the tile's (the tile size is the panel's width,
nr*W, and its row count mr); besides, `j` must not be read after the nest
(the panels run the j loop before any row does, whatever the row count)."""
from __future__ import annotations

from ...analysis import Analysis
from .base import Edit, NotApplicable, Site, functions
from .loopshape import loops_of, names_in, scope_of
from .text import copy_range, fresh, in_file_style, line_start
from .tile import find, layout, tile_body
from .tile_shape import Tile, analyse_tile

NAME = "panels"
HINTS = ()
SHAPES = ((4, 2), (6, 2), (4, 3), (4, 4), (6, 3), (8, 3), (6, 4))


def sites(analysis: Analysis, function: str | None = None, name: str = NAME) -> list[Site]:
    out = []
    for site in find(analysis, function, name, SHAPES):
        item = next(iter(functions(analysis, site.function)))
        w = next(w for w in loops_of(item) if w.span.start == site.start)
        try:
            check(analysis, analyse_tile(analysis, scope_of(item), w))
        except NotApplicable:
            continue
        out.append(site)
    return out


def check(analysis: Analysis, tile: Tile) -> None:
    advance = tile.nest.advance.target
    sym = analysis.symbol_at(advance.span.start)
    w = tile.outer
    if sym is not None and any(not w.span.start <= r.start < w.span.end for r in sym.references):
        raise NotApplicable(f"'{advance.name}' is read after the nest (the panels leave it another value)")


def why_not(analysis: Analysis, item) -> str:
    from .tile import why_not as tile_why
    return tile_why(analysis, item)


def title(site: Site, choice) -> str:
    mr, nr, width, fused = choice
    return f"Cache-block: panels of {nr * width} columns, register tiles {mr}×{nr}{' with fma' if fused else ''}"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if choice not in site.choices:
        raise NotApplicable(f"{site.transform} {choice!r} is not one of this site's choices")
    for item in functions(analysis, site.function):
        w = next((w for w in loops_of(item) if w.span.start == site.start), None)
        if w is not None:
            tile = analyse_tile(analysis, scope_of(item), w)
            check(analysis, tile)
            return [panel_edit(analysis, tile, *choice)]
    raise NotApplicable(f"no row loop at line {site.line} of '{site.function}'")


def panel_edit(analysis: Analysis, tile: Tile, mr: int, nr: int, width: int, fused: bool, kc: int = 0,
               start: str | None = None) -> Edit:
    """The panels; with kc > 0, the k loop of each panel in blocks of kc (`kblock.py`); with
    `start` (a pointer read along j), the panels begin at its first 64-byte line and the
    columns before and after them go through one- and half-vector tiles (`panel_lines.py`)."""
    data, nest, w, jw, ind, step, l1, l2, taken, i, j, src = layout(analysis, tile)
    ity, jty = tile.row_advance.target.ty.name, nest.advance.target.ty.name
    block = nr * width
    i0, iend, row = fresh(i, 0, taken), fresh(i, mr, taken), fresh(i, 1, taken)
    ilast = fresh(i, 3, taken)
    lines = [f"{ind}let {i0}: {ity} = {i}\n",
             f"{ind}while {i} + {mr} <= {src(tile.rows_bound)} {{\n", f"{l1}{i} = {i} + {mr}\n", f"{ind}}}\n",
             f"{ind}let {iend}: {ity} = {i}\n",
             f"{ind}while {src(w.cond)} {{\n", f"{l1}{src(tile.row_advance)}\n", f"{ind}}}\n",
             f"{ind}let {ilast}: {ity} = {i}\n", f"{ind}{src(tile.j_start)}\n"]
    rows = (i0, iend, ilast, row, ity, src)
    if start:
        half = width // 2
        ja = fresh(j, "line", taken)
        first = f"align_offset({start}, 64) / {half} * {half}"
        first = first if jty == "i32" else f"to_{jty}({first})"
        lines.append(f"{ind}let {ja}: {jty} = min({first}, {src(nest.outer_bound)})\n")
        lines += _edge(analysis, tile, mr, width, fused, kc, rows, taken, ind, step, ja)
    lines.append(f"{ind}while {j} + {block} <= {src(nest.outer_bound)} {{\n")
    lines += _panel(analysis, tile, mr, nr, width, fused, kc, rows, taken, l1, step)
    lines += [f"{l1}{j} = {j} + {block}\n", f"{ind}}}\n"]
    if start:  # the columns after the last panel too: left to the scalar loop they cost as much as
        # all the panels at n = 256
        lines += _edge(analysis, tile, mr, width, fused, kc, rows, taken, ind, step, src(nest.outer_bound))
    jt, ir = fresh(j, block, taken), fresh(i, 2, taken)
    subs = [(n.span.start, n.span.end, ir) for n in names_in([jw]) if n.name == i]
    copy = copy_range(data, line_start(data, jw.span.start), jw.span.end, subs)  # already at l1
    lines += [f"{ind}let {jt}: {jty} = {j}\n", f"{ind}let mut {ir}: {ity} = {i0}\n",
              f"{ind}while {ir} < {ilast} {{\n", f"{l1}{j} = {jt}\n", f"{copy}\n",
              f"{l1}{ir} = {ir} + 1\n", f"{ind}}}"]
    return Edit(line_start(data, w.span.start), w.span.end, in_file_style(data, "".join(lines)))


def _edge(analysis: Analysis, tile: Tile, mr: int, width: int, fused: bool, kc: int, rows, taken: set[str],
          ind: str, step: str, end: str) -> list[str]:
    """The columns up to `end` narrower than a panel: one vector, then half a vector, wide."""
    j, lines = tile.nest.j, []
    for w in (width, width // 2):
        lines.append(f"{ind}while {j} + {w} <= {end} {{\n")
        lines += _panel(analysis, tile, mr, 1, w, fused, kc, rows, taken, ind + step, step)
        lines += [f"{ind}{step}{j} = {j} + {w}\n", f"{ind}}}\n"]
    return lines


def _panel(analysis: Analysis, tile: Tile, mr: int, nr: int, width: int, fused: bool, kc: int, rows,
           taken: set[str], l1: str, step: str) -> list[str]:
    """The body of one column panel at `l1`: its row tiles (mr rows, then the rows left one
    by one), their k loop in blocks of kc when kc > 0."""
    nest = tile.nest
    i0, iend, ilast, row, ity, src = rows
    l2 = l1 + step
    lines, kblock, lr = [], None, l1  # lr: the row loops' indent
    if kc:
        kty, m = nest.k_advance.target.ty.name, src(nest.inner_bound)
        kb, ke, first = fresh(nest.k, 0, taken), fresh(nest.k, kc, taken), fresh(nest.k, "first", taken)
        kblock, lr = (kb, ke, first), l2
        # `first ||`: one block even when the k loop runs no iteration (the sums' starts are stored)
        lines += [f"{l1}let mut {kb}: {kty} = {src(nest.counter.value)}\n", f"{l1}let mut {first}: bool = true\n",
                  f"{l1}while {first} || {kb} < {m} {{\n", f"{l2}let mut {ke}: {kty} = {kb} + {kc}\n",
                  f"{l2}if {ke} > {m} {{\n", f"{l2}{step}{ke} = {m}\n", f"{l2}}}\n"]
    lb = lr + step
    lines += [f"{lr}let mut {row}: {ity} = {i0}\n", f"{lr}while {row} < {iend} {{\n"]
    lines += tile_body(analysis, tile, mr, nr, width, fused, taken, lb, step, row, kblock)
    lines += [f"{lb}{row} = {row} + {mr}\n", f"{lr}}}\n", f"{lr}while {row} < {ilast} {{\n"]
    lines += tile_body(analysis, tile, 1, nr, width, fused, taken, lb, step, row, kblock)
    lines += [f"{lb}{row} = {row} + 1\n", f"{lr}}}\n"]
    if kc:
        lines += [f"{l2}{kb} = {ke}\n", f"{l2}{first} = false\n", f"{l1}}}\n"]
    return lines

