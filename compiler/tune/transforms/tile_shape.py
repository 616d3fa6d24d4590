"""Which row loops the register-tiling transformation (`tile.py`) can
block: a step-1 loop over rows `i` whose body sets `j`, runs an
interchange-able reduction nest over `j` (`nest.py`: one element of X per j,
a scalar sum over k), and advances `i`:

    while i < M {
        let mut j: i32 = START          (or `j = START`)
        while j < N { let mut S = INIT; let mut K = ..; while K < KB { S = S + E; K = K + 1 }; X[IDX] = S; j = j + 1 }
        i = i + 1
    }

Each element keeps its own summation order (INIT, then the terms for k in
order), so blocked rows and vector lanes give the same results bit for bit;
only a fused multiply-add, a choice of its own, rounds differently. What the
tile needs beyond `nest.py`'s conditions (X `restrict`, distinct elements,
reads that cannot see the stores): the j loop's bound and the k loop's
bounds do not depend on `i` (the rows of a tile share them), every read that
depends on `j` is an element `P[Q + j]` of a pointer of the sum's type
(contiguous along j: a vector load), and E and INIT are made of `+ - * /`,
unary `-`, parentheses, `fma` and such reads."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from .base import NotApplicable
from .loopshape import Scope, assigned_in, is_pure, names_in
from .nest import Nest, _step_one, _terms, analyse_nest


@dataclass(frozen=True)
class Tile:
    outer: A.While  # the row loop
    i: str
    rows_bound: A.Expr  # M
    row_advance: A.Assign
    j_start: object  # `let mut j = START` or `j = START`
    nest: Nest
    elem: T.Scalar  # the sum's type (f32 or f64)
    fusable: bool  # the update is `S + x * y` (or an fma already): a fused choice exists


def analyse_tile(analysis: Analysis, scope: Scope, w: A.While) -> Tile:
    """The tile under row loop `w`, or NotApplicable saying why it cannot be blocked."""
    i, bound, advance = _step_one(analysis, w, "row")
    body = w.body.stmts
    if len(body) != 3 or not isinstance(body[1], A.While):
        raise NotApplicable("the row loop body is not `j = START; while j < N { ... }; i = i + 1`")
    nest = analyse_nest(analysis, scope, body[1])
    start = body[0]
    if not (isinstance(start, A.Let) and start.name == nest.j
            or isinstance(start, A.Assign) and isinstance(start.target, A.Name) and start.target.name == nest.j):
        raise NotApplicable(f"'{nest.j}' is not set right before the column loop")
    elem = nest.update.target.ty
    if not (isinstance(elem, T.Scalar) and elem.name in ("f32", "f64")):
        raise NotApplicable(f"the sum '{nest.acc.name}' is not f32 or f64")
    if i in assigned_in(nest.outer.body.stmts):
        raise NotApplicable(f"the column loop assigns '{i}'")
    shared = [nest.outer_bound, nest.inner_bound, nest.counter.value, nest.start]
    if i in {n.name for n in names_in(shared)}:
        raise NotApplicable(f"a bound or start of the inner loops depends on '{i}' (the rows of a tile share them)")
    if not is_pure(bound) or {i, nest.j, nest.k, nest.acc.name} & {n.name for n in names_in([bound])}:
        raise NotApplicable("the row loop's bound changes in the loop")
    target = nest.store.target.base.ty
    if target.pointee != elem:
        raise NotApplicable(f"'{nest.store.target.base.name}' does not hold {elem.name} elements")
    for e in (nest.acc.value, term(nest)):
        check_vectorisable(analysis, e, nest.j, elem)
    value = A.unparen(nest.update.value)
    fusable = isinstance(value, A.Call) or isinstance(A.unparen(term(nest)), A.Binary) \
        and A.unparen(term(nest)).op == "*"
    return Tile(w, i, bound, advance, start, nest, elem, fusable)


def term(nest: Nest):
    """E of `S = S + E` / `S = E + S`, or the call of `S = fma(x, y, S)`."""
    value = A.unparen(nest.update.value)
    if isinstance(value, A.Binary):
        return value.right if A.unparen(value.left) is nest.acc_read else value.left
    return value


def check_vectorisable(analysis: Analysis, e, j: str, elem: T.Scalar) -> None:
    """NotApplicable unless `e`, evaluated for W consecutive j at once, is W lanes of plain arithmetic."""
    e = A.unparen(e)
    if j not in {n.name for n in names_in([e])}:
        return  # the same for every lane: a splat
    if isinstance(e, A.Index):
        base = e.base
        if not (isinstance(base, A.Name) and isinstance(base.ty, T.Pointer) and base.ty.pointee == elem):
            raise NotApplicable(f"a read that depends on '{j}' is not an element of a {elem.name} pointer")
        terms = _terms(e.index)
        if sum(1 for t in terms if isinstance(t, A.Name) and t.name == j) != 1 \
                or [n.name for n in names_in([e.index])].count(j) != 1:
            raise NotApplicable(f"'{base.name}' is not read at `... + {j}` (contiguous along '{j}')")
        return
    if isinstance(e, A.Binary) and e.op in ("+", "-", "*", "/"):
        check_vectorisable(analysis, e.left, j, elem)
        check_vectorisable(analysis, e.right, j, elem)
        return
    if isinstance(e, A.Unary) and e.op == "-":
        check_vectorisable(analysis, e.operand, j, elem)
        return
    if isinstance(e, A.Call) and e.name == "fma" and len(e.args) == 3:
        for a in e.args:
            check_vectorisable(analysis, a, j, elem)
        return
    raise NotApplicable(f"the sum's term uses '{j}' in a way that has no vector form (only `+ - * /`, "
                        f"`fma` and contiguous reads)")
