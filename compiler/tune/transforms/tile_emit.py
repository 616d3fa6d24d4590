"""The vector form of a tile's expressions (`tile.py`): for row r of the
tile and column block q, each part of the sum's term that depends on `j`
becomes a W-lane load at `j + q*W`, each part that does not becomes a
splat, with `i` read as `(i + r)`. Reads are hoisted into typed `let`s (one
per row for what depends on `i` only, one per column block for what depends
on `j` only), which also gives every intrinsic argument its width."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from .loopshape import names_in
from .text import copy_range, fresh


class VectorText:
    def __init__(self, analysis: Analysis, i: str, j: str, acc_read, elem: str, width: int, taken: set[str],
                 row: str | None = None):
        self.data = analysis.source.data
        self.i, self.j, self.acc_read = i, j, acc_read
        self.row = row or i  # what `i` is read as (a row counter of its own in `tile_panels.py`)
        self.width = width
        self.vt = f"{elem}x{width}"
        self.taken = taken
        self.names: dict[str, str] = {}  # the text of a hoisted value -> its let's name
        self.lets: list[str] = []  # `let NAME: VT = TEXT`, in the order first needed

    def scalar(self, node, r: int, q: int = 0) -> str:
        """The node's text for row r (and column block q): `i` read as `(i + r)`, `j` as `j + q*W`."""
        subs = []
        for n in names_in([node]):
            if n.name == self.i and (r or self.row != self.i):
                subs.append((n.span.start, n.span.end, f"({self.row} + {r})" if r else self.row))
            elif n.name == self.j and q:
                subs.append((n.span.start, n.span.end, f"{self.j} + {q * self.width}"))
        return copy_range(self.data, node.span.start, node.span.end, subs)

    def _hoist(self, text: str, base: str, n: int) -> str:
        if text not in self.names:
            self.names[text] = fresh(base, n, self.taken)
            self.lets.append(f"let {self.names[text]}: {self.vt} = {text}")
        return self.names[text]

    def vec(self, e, r: int, q: int, acc: str | None = None) -> str:
        """The W lanes of `e` for row r, column block q (`acc` stands for the scalar sum)."""
        e = A.unparen(e)
        if acc is not None and e is self.acc_read:
            return acc
        used = {n.name for n in names_in([e])}
        if self.j not in used and not (acc is not None and any(n is self.acc_read for n in A.walk([e]))):
            base = _base_name(e)
            return self._hoist(f"splat({self.scalar(e, r)})", base, r if self.i in used else 0)
        if isinstance(e, A.Index):
            load = f"load_{self.vt}({e.base.name}, {self.scalar(e.index, r, q)})"
            return load if self.i in used else self._hoist(load, e.base.name, q)
        if isinstance(e, A.Binary):
            return f"({self.vec(e.left, r, q, acc)} .{e.op} {self.vec(e.right, r, q, acc)})"
        if isinstance(e, A.Unary):
            return f"-({self.vec(e.operand, r, q, acc)})"
        if isinstance(e, A.Call):
            return f"fma({', '.join(self.vec(a, r, q, acc) for a in e.args)})"
        raise AssertionError(f"not vectorisable: {type(e).__name__}")  # tile_shape refused it


def _base_name(e) -> str:
    first = next((n for n in A.walk([e]) if isinstance(n, A.Index) and isinstance(n.base, A.Name)), None)
    if first is not None:
        return first.base.name
    name = next((n.name for n in A.walk([e]) if isinstance(n, A.Name)), None)
    return name or "v"
