"""Cache blocking of the reduction axis on top of `panels` (`tile_panels.py`):
within each column panel, the k loop runs in blocks of kc, every row tile
of the panel going through one block before the next, so the block of the
right-hand array (kc rows of the panel) stays in L1/L2 while all the rows
stream past it instead of the whole panel (n rows: 2 KB apart at n = 512,
which no cache level holds once the rows alias).

    while j + 16 <= n {
        let mut k_0: i32 = 0                     (KSTART)
        let mut k_first: bool = true
        while k_first || k_0 < n {               one block of k (at least one)
            let mut k_128: i32 = k_0 + 128
            if k_128 > n { k_128 = n }
            (the row tiles of `panels`, their k loop from k_0 to k_128, their sums
             started, unless k_first, from what the previous block stored in c)
            k_0 = k_128
            k_first = false
        }
        j = j + 16
    }

The per-element summation order is kept: each element starts from INIT and
adds its terms for k in order; between blocks its partial sum is stored in
its own element of c and loaded back, which is exact. So without `fma`
the results equal the original bit for bit, and with it they equal `panels`
with fma bit for bit. The conditions are `panels`'s (c is `restrict` and
read nowhere in the nest, so nothing sees the partial sums). Choices are
(mr, nr, W, fused, kc) with kc among KCS."""
from __future__ import annotations

from dataclasses import replace

from ...analysis import Analysis
from . import tile_panels
from .base import Edit, Site

NAME = "kblock"
HINTS = ()
KCS = (64, 128, 256)


def sites(analysis: Analysis, function: str | None = None) -> list[Site]:
    return [replace(s, choices=tuple((*c, kc) for c in s.choices for kc in KCS))
            for s in tile_panels.sites(analysis, function, NAME)]


def why_not(analysis: Analysis, item) -> str:
    return tile_panels.why_not(analysis, item)


def title(site: Site, choice) -> str:
    mr, nr, width, fused, kc = choice
    return (f"Cache-block: panels of {nr * width} columns, k in blocks of {kc}, register tiles {mr}×{nr}"
            f"{' with fma' if fused else ''}")


def edits(analysis: Analysis, site: Site, choice) -> list[Edit]:
    return tile_panels.edits(analysis, site, choice)
