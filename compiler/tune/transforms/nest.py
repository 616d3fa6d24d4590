"""Which loop nests the interchange transformation can reorder: a step-1
loop over `j` whose body computes one array element as a sum over an inner
step-1 loop over `k`, and stores it.

    let mut j = START                   (or `j = START`, right before the loop)
    while j < N {                       (or `j + 1 <= N`)
        let mut S = INIT                (these two lets in either order)
        let mut K = KSTART
        while K < M {                   (or `K + 1 <= M`)
            S = S + E                   (or `E + S`, `fma(a, b, S)`)
            K = K + 1
        }
        X[IDX] = S
        j = j + 1
    }

Reordered (k outside j, the sum kept in X's element), each element still
starts from INIT and adds the same terms in the same order, so the results
are the same bit for bit. That holds when nothing the nest reads can see the
stores early: X is a `restrict` parameter read nowhere in the nest, every
pointer read is a parameter, no call can write memory; when the stores go to
distinct elements (IDX is `... + j` with the rest free of j and K); and when
the k loop runs the same iterations for every j (M and KSTART do not depend
on j), START can be evaluated again (it does not read j) and N and M do not
change in the nest (free of side effects and of j, K and S). S and K are
not read after the nest (locals are function-scoped: they would be)."""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis import Analysis
from ...check.accumulators import reduction
from ...syntax import ast as A
from ...typesys import model as T
from .base import NotApplicable
from .loopshape import Scope, const_value, is_pure, names_in

SHAPE = ("the loop body is not `let mut s = ...; let mut k = ...; while k < n { s = s + ...; k = k + 1 }; "
         "x[...] = s; j = j + 1`")


@dataclass(frozen=True)
class Nest:
    outer: A.While
    inner: A.While
    j: str
    k: str
    start: A.Expr  # j's start value (START)
    outer_bound: A.Expr  # N
    inner_bound: A.Expr  # M
    acc: A.Let  # let mut S = INIT
    counter: A.Let  # let mut K = KSTART
    update: A.Assign  # S = S + E
    store: A.Assign  # X[IDX] = S
    advance: A.Assign  # j = j + 1
    k_advance: A.Assign  # K = K + 1

    @property
    def acc_read(self) -> A.Name:
        """The one read of S in the update (`S` of `S + E`)."""
        return next(n for n in names_in([self.update.value]) if n.name == self.acc.name)


def analyse_nest(analysis: Analysis, scope: Scope, w: A.While) -> Nest:
    """The nest under `w`, or NotApplicable saying why it cannot be interchanged."""
    j, outer_bound, advance = _step_one(analysis, w, "outer")
    body = w.body.stmts
    if len(body) != 5 or not all(isinstance(s, A.Let) and s.mutable for s in body[:2]) \
            or not isinstance(body[2], A.While) or not isinstance(body[3], A.Assign):
        raise NotApplicable(SHAPE)
    inner = body[2]
    k, inner_bound, k_advance = _step_one(analysis, inner, "inner")
    lets = {s.name: s for s in body[:2]}
    if k not in lets or len(lets) != 2:
        raise NotApplicable(SHAPE)
    counter = lets.pop(k)
    acc = lets.popitem()[1]
    s = acc.name
    if len(inner.body.stmts) != 2:
        raise NotApplicable(f"the inner loop does more than add to '{s}'")
    update = inner.body.stmts[0]
    if not (isinstance(update, A.Assign) and isinstance(update.target, A.Name) and update.target.name == s
            and isinstance(update.target.ty, T.Scalar) and reduction(analysis.decisions, update, s) == ("sum", "+")):
        raise NotApplicable(f"the inner loop does not only add to '{s}' (`{s} = {s} + ...`)")
    store = body[3]
    target, value = store.target, A.unparen(store.value)
    if not (isinstance(target, A.Index) and isinstance(target.base, A.Name)
            and isinstance(value, A.Name) and value.name == s):
        raise NotApplicable(f"the loop does not store '{s}' to an array element after the inner loop")
    for let in (acc, counter):  # locals are function-scoped (LANGUAGE.md §4): the rewrite drops `let mut S`
        sym = analysis.symbol_at(let.name_span.start)
        if sym is not None and any(not w.span.start <= r.start < w.span.end for r in sym.references):
            raise NotApplicable(f"'{let.name}', declared in the loop, is used after it")
    nest = Nest(w, inner, j, k, _start_value(scope, w, j), outer_bound, inner_bound, acc, counter,
                update, store, advance, k_advance)
    _check_stores(analysis, nest)
    _check_reads(analysis, nest)
    return nest


def _step_one(analysis: Analysis, w: A.While, which: str) -> tuple[str, A.Expr, A.Assign]:
    """(index, bound, advance) of `while I < N { ...; I = I + 1 }` or `while I + 1 <= N`."""
    cond = A.unparen(w.cond)
    var = None
    if isinstance(cond, A.Binary) and cond.op == "<" and isinstance(A.unparen(cond.left), A.Name):
        var = A.unparen(cond.left)
    elif isinstance(cond, A.Binary) and cond.op == "<=":
        head = A.unparen(cond.left)
        if isinstance(head, A.Binary) and head.op == "+" and isinstance(A.unparen(head.left), A.Name) \
                and const_value(analysis, head.right) == 1:
            var = A.unparen(head.left)
    last = w.body.stmts[-1] if w.body.stmts else None
    inc = A.unparen(last.value) if isinstance(last, A.Assign) else None
    if var is None or not (isinstance(inc, A.Binary) and inc.op == "+"
                           and isinstance(last.target, A.Name) and last.target.name == var.name
                           and isinstance(A.unparen(inc.left), A.Name) and A.unparen(inc.left).name == var.name
                           and const_value(analysis, inc.right) == 1):
        raise NotApplicable(f"the {which} loop is not a step-1 loop `while i < n {{ ...; i = i + 1 }}`")
    sym = analysis.symbol_at(var.span.start)
    if not (isinstance(var.ty, T.Scalar) and var.ty.is_integer and sym is not None and sym.kind == "local"):
        raise NotApplicable(f"'{var.name}' is not a mutable integer local")
    if not is_pure(cond.right):
        raise NotApplicable(f"the bound of the {which} loop has side effects")
    return var.name, cond.right, last


def _start_value(scope: Scope, w: A.While, j: str) -> A.Expr:
    """START: the value `j` is given right before the loop (set again before each pass over j)."""
    stmts = scope.block_of(w)
    at = next(n for n, s in enumerate(stmts) if s is w or isinstance(s, A.Unroll) and s.loop is w)
    if stmts[at] is not w:
        raise NotApplicable("the loop carries an `unroll(N)` hint")
    prev = stmts[at - 1] if at else None
    if isinstance(prev, A.Let) and prev.name == j:
        start = prev.value
    elif isinstance(prev, A.Assign) and isinstance(prev.target, A.Name) and prev.target.name == j:
        start = prev.value
    else:
        raise NotApplicable(f"'{j}' is not set right before the loop (each pass over '{j}' starts there again)")
    if not is_pure(start) or j in {n.name for n in names_in([start])}:
        raise NotApplicable(f"the start value of '{j}' reads '{j}' or has side effects")
    return start


def _terms(e) -> list:
    e = A.unparen(e)
    if isinstance(e, A.Binary) and e.op == "+":
        return _terms(e.left) + _terms(e.right)
    return [e]


def _check_stores(analysis: Analysis, nest: Nest) -> None:
    """X is a `restrict` parameter and each j stores to an element of its own."""
    target = nest.store.target
    x = target.base.name
    sym = analysis.symbol_at(target.base.span.start)
    if not (sym is not None and sym.kind == "param" and isinstance(target.base.ty, T.Pointer)
            and target.base.ty.restrict):
        raise NotApplicable(f"'{x}' is not a `restrict` pointer parameter: what the loop reads could overlap it")
    index = target.index
    if not is_pure(index):
        raise NotApplicable(f"the index of '{x}' has side effects or reads memory")
    names = [n.name for n in names_in([index])]
    for name in (nest.k, nest.acc.name):
        if name in names:
            raise NotApplicable(f"the element of '{x}' stored depends on '{name}'")
    terms = _terms(index)
    mine = [t for t in terms if isinstance(t, A.Name) and t.name == nest.j]
    if len(mine) != 1 or names.count(nest.j) != 1:
        raise NotApplicable(f"the element of '{x}' stored is not at `... + {nest.j}` "
                            f"(each '{nest.j}' must store to an element of its own)")


def _check_reads(analysis: Analysis, nest: Nest) -> None:
    x, s, j, k = nest.store.target.base.name, nest.acc.name, nest.j, nest.k
    init, kstart, update = nest.acc.value, nest.counter.value, nest.update.value
    read = [init, kstart, nest.outer_bound, nest.inner_bound, nest.start, nest.store.target.index, update]
    for n in names_in(read):
        if n.name == x:
            raise NotApplicable(f"the loop reads '{x}', the array it stores to")
        if n.name == s and n is not nest.acc_read:
            raise NotApplicable(f"'{s}' is read besides being added to and stored")
    if j in {n.name for n in names_in([nest.outer_bound, nest.inner_bound])}:
        raise NotApplicable(f"a loop bound depends on '{j}'")
    if k in {n.name for n in names_in([nest.inner_bound])}:
        raise NotApplicable(f"the bound of the inner loop depends on '{k}'")
    if not is_pure(kstart) or j in {n.name for n in names_in([kstart])}:
        raise NotApplicable(f"'{k}' starts at a value that depends on '{j}' or has side effects")
    if nest.counter.span.start < nest.acc.span.start and k in {n.name for n in names_in([init])}:
        raise NotApplicable(f"'{s}' starts at a value that reads '{k}'")
    for node in A.walk([init, update]):
        if isinstance(node, A.Call) and analysis.decisions.intrinsic_of(node) is None:
            raise NotApplicable(f"the loop calls '{node.name}', which may write to '{x}'")
        if isinstance(node, A.Name) and isinstance(node.ty, T.Pointer):
            sym = analysis.symbol_at(node.span.start)
            if sym is None or sym.kind != "param":
                raise NotApplicable(f"the loop reads through '{node.name}', a local pointer that may point "
                                    f"into '{x}'")
