"""Register tiling (unroll-and-jam) of a row loop over a reduction nest,
vectorised along its contiguous column axis: mr rows by nr blocks of W
columns are computed at once, their mr×nr vector sums kept in registers
across the whole k loop, then stored.

    while i < n {                          while i + 4 <= n {
        let mut j: i32 = 0                     let mut j: i32 = 0
        while j < n {                          while j + 16 <= n {
            let mut sum: f32 = 0.0                 let sum_0: f32x8 = splat(0.0)
            let mut k: i32 = 0                     let mut sum_0_0: f32x8 = sum_0   (... 4×2 of them)
            while k < n {                          let mut k: i32 = 0
                sum = sum + a[i*n+k] * b[k*n+j]    while k < n {
                k = k + 1                 ->           let b_0: f32x8 = load_f32x8(b, k * n + j)
            }                                          let a_0: f32x8 = splat(a[i * n + k])   (...)
            c[i * n + j] = sum                         sum_0_0 = fma(a_0, b_0, sum_0_0)        (...)
            j = j + 1                                  k = k + 1
        }                                          }
        i = i + 1                                  store(c, i * n + j, sum_0_0)            (...)
    }                                              j = j + 16
                                               }
                                               (the columns left, row by row: the original j loop)
                                               i = i + 4
                                           }
                                           (the rows left: the original loop, verbatim)

The conditions are in `tile_shape.py`. Each element is summed in the order
the original sums it, so without `fma` (the choice's last field) the results
are equal bit for bit; with it, each multiply-add rounds once (within a
suite's float tolerance, not equal). Choices are (mr, nr, W, fused) with
mr*nr sums + nr column vectors + 1 row splat within the target's vector
registers (16 ymm; 32 zmm with --avx512; 32 NEON q)."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...options import Options
from ...syntax import ast as A
from .base import Edit, NotApplicable, Site, functions
from .loopshape import loop_refusals, loops_of, names_in, scope_of
from .text import comment_spans, copy_range, fresh, identifiers, in_file_style, indent_at, line_start
from .tile_emit import VectorText
from .tile_shape import Tile, analyse_tile, term

NAME = "tile"
HINTS = ()
SHAPES = ((1, 1), (1, 2), (2, 2), (4, 1), (4, 2), (3, 3), (6, 2), (4, 3), (4, 4), (6, 3), (8, 3), (6, 4))


@dataclass(frozen=True)
class TileSite(Site):
    rows_var: str = ""
    cols_var: str = ""


def registers(options: Options | None) -> tuple[int, int]:
    """(vector registers, bits per register) of the target."""
    options = options or Options()
    if options.is_arm:
        return 32, 128
    return (32, 512) if options.avx512 else (16, 256)


def choices(analysis: Analysis, tile: Tile, shapes=SHAPES) -> tuple:
    count, bits = registers(analysis.options)
    width = bits // tile.elem.bits
    fused = (False, True) if tile.fusable and not isinstance(A.unparen(tile.nest.update.value), A.Call) else (False,)
    return tuple((mr, nr, width, f) for mr, nr in shapes if mr * nr + nr + 1 <= count for f in fused)


def find(analysis: Analysis, function: str | None, name: str, shapes) -> list[Site]:
    if not analysis.ok:
        return []
    out: list[Site] = []
    for item in functions(analysis, function):
        scope = scope_of(item)
        found = []
        for w in loops_of(item):
            try:
                tile = analyse_tile(analysis, scope, w)
                indent_at(analysis.source.data, w.span.start)
            except NotApplicable:
                continue
            if id(w) not in scope.hints:
                found.append(tile)
        for index, tile in enumerate(found):
            w = tile.outer
            out.append(TileSite(name, item.name, index, w.span.line, w.span.start, w.span.end,
                                choices(analysis, tile, shapes), rows_var=tile.i, cols_var=tile.nest.j))
    return out


def why_not(analysis: Analysis, item) -> str:
    """Why no row loop of `item` can be tiled (the first loops' reasons)."""
    return loop_refusals(analysis, item, analyse_tile, "no `while` loop over rows holding a reduction nest")


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    return find(analysis, function, NAME, SHAPES)


def title(site: Site, choice) -> str:
    mr, nr, width, fused = choice
    return f"Register-tile {mr}×{nr} vectors of {width} lanes{' with fma' if fused else ''}"


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    if site.choices and choice not in site.choices:
        raise NotApplicable(f"{site.transform} {choice!r} is not one of this site's choices")
    for item in functions(analysis, site.function):
        w = next((w for w in loops_of(item) if w.span.start == site.start), None)
        if w is not None:
            return [tile_edit(analysis, analyse_tile(analysis, scope_of(item), w), *choice)]
    raise NotApplicable(f"no row loop at line {site.line} of '{site.function}'")


def layout(analysis: Analysis, tile: Tile):
    """What writing a tiled nest in the file's style starts from: the bytes,
    the nest, the row and column loops, the row loop's indent, one indent
    step, the indents one and two steps deeper, the names taken, the loop variables, and a node's text."""
    data = analysis.source.data
    nest = tile.nest
    w = tile.outer
    ind = indent_at(data, w.span.start)
    first = w.body.stmts[0].span.start
    written = data[line_start(data, first):first].decode()
    step = written[len(ind):] if written.startswith(ind) and not written[len(ind):].strip() else "    "
    src = lambda node: data[node.span.start:node.span.end].decode()  # noqa: E731
    return (data, nest, w, nest.outer, ind, step, ind + step, ind + 2 * step, identifiers(analysis),
            tile.i, nest.j, src)


def tile_edit(analysis: Analysis, tile: Tile, mr: int, nr: int, width: int, fused: bool) -> Edit:
    data, nest, w, jw, ind, step, l1, l2, taken, i, j, src = layout(analysis, tile)
    block = nr * width
    lines = []
    if mr == 1:
        lines += [f"{ind}{data[a:b].decode().strip()}\n" for a, b in comment_spans(analysis, w.span.start, w.span.end)
                  if not jw.span.start <= a < jw.span.end]
    cond = f"{i} + {mr} <= {src(tile.rows_bound)}" if mr > 1 else src(w.cond)
    lines += [f"{ind}while {cond} {{\n", f"{l1}{src(tile.j_start)}\n",
              f"{l1}while {j} + {block} <= {src(nest.outer_bound)} {{\n"]
    lines += tile_body(analysis, tile, mr, nr, width, fused, taken, l2, step)
    lines += [f"{l2}{j} = {j} + {block}\n", f"{l1}}}\n"]
    loop_text = data[line_start(data, jw.span.start):jw.span.end].decode()
    if mr == 1:
        lines.append(f"{loop_text}\n")
    else:
        jt, ii = fresh(j, block, taken), fresh(i, mr, taken)
        jty, ity = nest.advance.target.ty.name, tile.row_advance.target.ty.name
        subs = [(n.span.start, n.span.end, ii) for n in names_in([jw]) if n.name == i]
        copy = copy_range(data, line_start(data, jw.span.start), jw.span.end, subs)
        copy = "".join(step + ln if ln.strip() else ln for ln in copy.splitlines(keepends=True))
        lines += [f"{l1}let {jt}: {jty} = {j}\n", f"{l1}let mut {ii}: {ity} = {i}\n",
                  f"{l1}while {ii} < {i} + {mr} {{\n", f"{l2}{j} = {jt}\n", f"{copy}\n",
                  f"{l2}{ii} = {ii} + 1\n", f"{l1}}}\n"]
    lines += [f"{l1}{i} = {i} + {mr}\n", f"{ind}}}"]
    if mr > 1:
        lines.append(f"\n{data[line_start(data, w.span.start):w.span.end].decode()}")
    return Edit(line_start(data, w.span.start), w.span.end, in_file_style(data, "".join(lines)))


def tile_body(analysis: Analysis, tile: Tile, mr: int, nr: int, width: int, fused: bool, taken: set[str],
              indent: str, step: str, row: str | None = None, kblock: tuple[str, str, str] | None = None) -> list[str]:
    """The lines of one register tile at `indent`: its sums started, the k loop, the stores
    (`i` read as `row` when given). With `kblock` = (KB, KE, FIRST) the k loop runs from KB
    to KE, and unless FIRST the sums start from what the previous k block stored."""
    data = analysis.source.data
    nest = tile.nest
    i, j, s = tile.i, nest.j, nest.acc.name
    src = lambda node: data[node.span.start:node.span.end].decode()  # noqa: E731
    pre = VectorText(analysis, i, j, nest.acc_read, tile.elem.name, width, taken, row)
    body = VectorText(analysis, i, j, nest.acc_read, tile.elem.name, width, taken, row)
    accs = {(r, q): fresh(f"{s}_{r}", q, taken) for r in range(mr) for q in range(nr)}
    inits = {key: pre.vec(nest.acc.value, *key) for key in accs}
    updates = {key: _update(body, nest, tile, accs[key], *key, fused) for key in accs}
    inner = indent + step
    lines = [f"{indent}{let}\n" for let in pre.lets]
    lines += [f"{indent}let mut {accs[key]}: {pre.vt} = {inits[key]}\n" for key in accs]
    x = nest.store.target
    if kblock:
        kb, ke, first = kblock
        lines.append(f"{indent}if !{first} {{\n")
        lines += [f"{inner}{accs[(r, q)]} = load_{pre.vt}({x.base.name}, {pre.scalar(x.index, r, q)})\n"
                  for r, q in accs]
        lines += [f"{indent}}}\n", f"{indent}let mut {nest.k}: {nest.k_advance.target.ty.name} = {kb}\n",
                  f"{indent}while {nest.k} < {ke} {{\n"]
    else:
        lines += [f"{indent}{src(nest.counter)}\n", f"{indent}while {src(nest.inner.cond)} {{\n"]
    lines += [f"{inner}{let}\n" for let in body.lets]
    lines += [f"{inner}{accs[key]} = {updates[key]}\n" for key in accs]
    lines += [f"{inner}{src(nest.k_advance)}\n", f"{indent}}}\n"]
    lines += [f"{indent}store({x.base.name}, {pre.scalar(x.index, r, q)}, {accs[(r, q)]})\n" for r, q in accs]
    return lines


def _update(vt: VectorText, nest, tile: Tile, acc: str, r: int, q: int, fused: bool) -> str:
    value = A.unparen(nest.update.value)
    e = A.unparen(term(nest))
    if isinstance(value, A.Call):  # fma(x, y, S): already one rounding per term
        return vt.vec(value, r, q, acc)
    if fused:
        return f"fma({vt.vec(e.left, r, q)}, {vt.vec(e.right, r, q)}, {acc})"
    left_is_acc = A.unparen(value.left) is nest.acc_read
    ev = vt.vec(e, r, q)
    return f"{acc} .+ {ev}" if left_is_acc else f"{ev} .+ {acc}"
