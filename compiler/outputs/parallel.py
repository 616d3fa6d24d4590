"""Whether an export may run as chunks on threads (the bindings'
`<name>_parallel`), decided once, here, and written to `.ea.json` as the
extension field `"parallel"`: `{"length": "n", "granule": 8, "combine":
"none"|"sum"|"max"|"min", "split": ["x", "y"]}`, or absent.

A split call runs the export on chunks [start, start + count) of [0, n):
every array in `split` starts `start` of its own elements in, the length
is `count`, every other argument (a lookup table included) is unchanged.
Chunks start at multiples of `granule` (the first loop's step), so every
chunk but the last runs whole iterations of the first loop only, the same
iterations the whole call runs there, and the last chunk runs exactly the
rest of the whole call. That is the same computation when:

- the body is `let`s, then a first loop over a variable from 0 whose
  condition ends it at a chunk's end (`i + c <= n`, 1 <= c <= step), then
  loops and `if`s continuing from that variable (scalar and masked tails,
  a `for j in i..n`) that cannot run in any chunk but the last, then
  `return`; `kernel`, `for`, `foreach` and `while` all come to this;
- every array is indexed by the loop variable times one (in its own
  elements; `ptr_as_*` views are scaled) plus a constant, or only at
  invariant indices (a table, which is never written);
- an array that is written is accessed, in each iteration of the first
  loop, only within that iteration's `step` elements and, after it, only at
  or after the loop variable: no iteration reads what another writes;
- no variable carries a value from one iteration to the next except
  accumulators updated by `+`, `max` or `min` of themselves (`acc = acc + e`,
  `acc = fma(a, b, acc)`, `acc = max(acc, e)`, vectors too) and the returned
  value is such accumulators combined by that same operation (`.+`,
  `reduce_add`, `reduce_max`, ...) and nothing else (`sqrt(sum)`, `sum / n`
  are not splittable). A sum starts from zero; a maximum or minimum from
  anything invariant or from an element each chunk takes in anyway
  (`splat(x[0])` before `max(best, load(x, i))`).

Chunked float sums are reassociated (as the reference compiler does);
integer sums, maxima and minima are exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..syntax import ast as A
from ..typesys import model as T
from .parallel_body import Body, Frame, Scope, Var
from .parallel_values import DEAD, SAME, ZERO, Acc, Elem, Lin, NotSplittable, const

COMBINE = {"+": "sum", "max": "max", "min": "min"}


@dataclass(frozen=True)
class Plan:
    length: str
    granule: int
    combine: str  # "none", "sum", "max" or "min"
    split: tuple[str, ...]

    def as_json(self) -> dict:
        return {"length": self.length, "granule": self.granule, "combine": self.combine, "split": list(self.split)}


def decide(func: A.Func, program: A.Program, decisions) -> tuple[Plan | None, str]:
    """The plan for splitting `func`, or None and the reason it is not splittable."""
    try:
        return _Decider(func, program, decisions).plan(), ""
    except NotSplittable as why:
        return None, str(why)
    except RecursionError:
        return None, "nested too deeply to follow"


def parallel_plan(func: A.Func, program: A.Program, decisions) -> dict | None:
    """The `"parallel"` metadata field of an export, or None."""
    plan, _ = decide(func, program, decisions)
    return plan.as_json() if plan is not None else None


class _Decider:
    def __init__(self, func: A.Func, program: A.Program, decisions):
        functions = {f.name_span.start: f for f in program.items if isinstance(f, A.Func)}
        consts: dict[str, object] = {}
        for c in program.items:
            if isinstance(c, A.ConstDecl) and isinstance(c.value, (A.IntLit, A.FloatLit)):
                consts[c.name] = c.value.value if consts.get(c.name, c.value.value) == c.value.value else None
        self.func = func
        self.body = Body(func, decisions, functions, {k: v for k, v in consts.items() if v is not None})
        self.top = Scope()
        self.chain: str | None = None  # the variable the loops advance
        self.finished = False  # a tail that ends the chain ran (foreach, an if that does not advance)
        self.granule = 0
        self.updated: set[str] = set()  # names assigned inside the top-level loops and ifs

    def plan(self) -> Plan:
        f = self.func
        if not any(isinstance(p.ty, T.Pointer) for p in f.params):
            raise NotSplittable("no array parameter")
        stmts = f.body.stmts
        first = next((k for k, s in enumerate(stmts) if isinstance(s, (A.While, A.ForEach, A.Unroll))), None)
        if first is None:
            raise NotSplittable("no loop")
        self.updated = {x.target.name for s in stmts if isinstance(s, (A.While, A.ForEach, A.Unroll, A.If))
                        for x in A.statements([s]) if isinstance(x, A.Assign) and isinstance(x.target, A.Name)}
        loop = _unroll(stmts[first])
        if isinstance(loop, A.While) and loop.body.stmts:
            last = loop.body.stmts[-1]
            if isinstance(last, A.Assign) and isinstance(A.unparen(last.target), A.Name):
                self.chain = A.unparen(last.target).name
        for s in stmts[:first]:
            if not isinstance(s, A.Let):
                raise NotSplittable("a statement other than `let` before the first loop")
            self._let(s)
        self._first(loop)
        returned = None
        for k, s in enumerate(stmts[first + 1:], first + 1):
            if isinstance(s, A.Return) and k == len(stmts) - 1:
                returned = s
            else:
                self._after(s)
        combine = self._combine(returned)
        return Plan(self.body.length, self.granule, combine, self._split())

    # ---- the chain of loops ----
    def _let(self, s: A.Let) -> None:
        """A `let` outside the loops: the loop variable, a rename of it (`for j in i..n`),
        an accumulator, or a value every chunk computes alike."""
        self.body.stage = "top"
        value = self.body.expr(s.value, self.top)
        if s.name == self.chain and self.granule == 0:
            if not (s.mutable and value == const(0)):
                raise NotSplittable(f"the loop variable '{s.name}' does not start at 0")
            self.top.names[s.name] = Var(value, True, top=True)
            return
        if s.name == self.chain:
            raise NotSplittable(f"a second loop over '{s.name}' from its start")
        if _is(s.value, self.chain) and self.granule:  # `for j in i..n`: j continues the chain
            self.top.names[self.chain].value = DEAD
            self.chain = s.name
            self.top.names[s.name] = Var(Lin(1, 0, 0), True, top=True)
            return
        if isinstance(value, Lin) and not value.invariant:
            raise NotSplittable(f"'{s.name}' is computed from the loop variable or the length outside the loops")
        acc = s.mutable and s.name in self.updated
        shown = Acc(frozenset([s.name]), frozenset()) if acc else value
        self.top.names[s.name] = Var(shown, s.mutable, top=True, acc=acc, init=value)

    def _first(self, loop) -> None:
        if isinstance(loop, A.ForEach):
            start, end = A.unparen(loop.start), A.unparen(loop.end)
            if not (isinstance(start, A.IntLit) and start.value == 0):
                raise NotSplittable("the first loop does not start at 0")
            self._length(end)
            self.body.stage = "top"
            if self.body.expr(end, self.top) != Lin(0, 1, 0):
                raise NotSplittable("the first loop does not run to the length")
            self.granule = 1
            self._run(loop.body, "first", loop.var)
            self.finished = True
            return
        var = self.top.lookup(self.chain)
        if var is None or not var.top:
            raise NotSplittable("the first loop's variable is not declared before it")
        self._length(loop.cond)
        var.value = Lin(1, 0, 0)
        step, body = self._increment(loop)[1:]
        reach = self._reach(loop.cond)
        if not 1 <= reach <= step:
            raise NotSplittable(f"the first loop's condition does not stop it at a multiple of its step {step}")
        self.granule = step
        self._run(body, "first")

    def _after(self, s) -> None:
        """A statement after the first loop: a loop or `if` continuing the chain, or a `let`."""
        if isinstance(s, A.Let):
            self._let(s)
            return
        if self.finished and isinstance(s, (A.While, A.ForEach, A.Unroll, A.If)):
            raise NotSplittable("a loop after a tail that ends the loop variable's range")
        s = _unroll(s)
        if isinstance(s, A.While):
            step, body = self._increment(s)[1:]
            self._later(s.cond)
            self._run(body, "post")
        elif isinstance(s, A.ForEach):
            self.body.stage = "top"
            if self.body.expr(s.start, self.top) != Lin(1, 0, 0) or self.body.expr(s.end, self.top) != Lin(0, 1, 0):
                raise NotSplittable("a foreach after the first loop that does not run from its variable to the length")
            self._run(s.body, "post", s.var)
            self.finished = True
        elif isinstance(s, A.If) and s.orelse is None:
            self._later(s.cond)
            stmts = s.then.stmts
            if stmts and self._advance(stmts[-1]) is not None:
                stmts = stmts[:-1]
            else:
                self.finished = True
            self._run(A.Block(stmts, s.then.span), "post")
        else:
            raise NotSplittable("a statement other than a loop, an `if` or a `let` after the first loop")

    def _later(self, cond) -> None:
        if self._reach(cond) < 1:
            raise NotSplittable("a loop after the first one could run in a chunk that is not the last")

    def _run(self, block: A.Block, stage: str, var: str | None = None) -> None:
        self.body.stage = stage
        scope = Scope(self.top)
        if var is not None:
            scope.names[var] = Var(Lin(1, 0, 0), False)
        self.body.run(block, scope, Frame())
        self.body.stage = "top"

    def _length(self, e) -> None:
        """The length parameter: the one integer parameter the first loop's bound names."""
        names = {x.name for x in A.walk([e]) if isinstance(x, A.Name)}
        found = [p.name for p in self.func.params if p.name in names and T.is_int(p.ty)
                 and not isinstance(p.ty, T.Pointer) and self.top.lookup(p.name) is None]
        if len(found) != 1:
            raise NotSplittable("the first loop is not bounded by one integer parameter")
        if str(next(p.ty for p in self.func.params if p.name == found[0])) not in ("i32", "i64", "u32", "u64"):
            raise NotSplittable("the first loop's bound is narrower than 32 bits")  # bind/meta.LENGTH_TYPES
        self.body.length = found[0]

    def _increment(self, loop: A.While) -> tuple[str, int, A.Block]:
        """(variable, step, body without the step) of `while ... { ...; i = i + S }`."""
        stmts = loop.body.stmts
        found = self._advance(stmts[-1]) if stmts else None
        if found is None:
            raise NotSplittable("a loop that does not end by advancing its variable by a constant")
        name, step = found
        if any(isinstance(x, A.Assign) and _is(x.target, name) for x in A.statements(stmts[:-1])):
            raise NotSplittable(f"'{name}' is assigned inside its loop besides its step")
        return name, step, A.Block(stmts[:-1], loop.body.span)

    def _advance(self, s) -> tuple[str, int] | None:
        """`i = i + S` (S a positive constant) as (i, S)."""
        if not (isinstance(s, A.Assign) and isinstance(A.unparen(s.target), A.Name)):
            return None
        name = A.unparen(s.target).name
        v = A.unparen(s.value)
        if not (isinstance(v, A.Binary) and v.op == "+") or (self.chain is not None and name != self.chain):
            return None
        step = v.right if _is(v.left, name) else v.left if _is(v.right, name) else None
        if step is None:
            return None
        self.body.stage = "top"
        value = self.body.expr(step, self.top)
        if not (isinstance(value, Lin) and value.invariant and value.off is not None and value.off > 0):
            return None
        return name, value.off

    def _reach(self, cond) -> int:
        """c for a condition that means `i + c <= n`."""
        cond = A.unparen(cond)
        if not (isinstance(cond, A.Binary) and cond.op in ("<", "<=", ">", ">=")):
            raise NotSplittable("a loop condition other than a comparison of the loop variable with the length")
        self.body.stage = "top"
        left, right = self.body.expr(cond.left, self.top), self.body.expr(cond.right, self.top)
        if cond.op in (">", ">="):
            left, right = right, left
        if not (isinstance(left, Lin) and isinstance(right, Lin)):
            raise NotSplittable("a loop condition other than a comparison of the loop variable with the length")
        gap = Lin(right.ci - left.ci, right.cn - left.cn,
                  None if left.off is None or right.off is None else right.off - left.off)
        if (gap.ci, gap.cn) != (-1, 1) or gap.off is None:
            raise NotSplittable("a loop condition other than a comparison of the loop variable with the length")
        return -gap.off + (1 if cond.op in ("<", ">") else 0)

    # ---- the result ----
    def _combine(self, returned: A.Return | None) -> str:
        if self.func.ret is None:
            return "none"
        if returned is None or returned.value is None:
            raise NotSplittable("no return at the end")
        self.body.stage = "top"
        value = self.body.expr(returned.value, self.top)
        if not isinstance(value, Acc):
            raise NotSplittable("the returned value is not an accumulator of the loops, or is transformed after them")
        names, ops = set(value.vars), set(value.ops)
        pending = list(names)
        while pending:
            var = self.top.names[pending.pop()]
            if var.op:
                ops.add(var.op)
            if isinstance(var.init, Acc):
                ops |= var.init.ops
                pending += [n for n in var.init.vars if n not in names]
                names |= var.init.vars
        if len(ops) != 1:
            raise NotSplittable("the returned value is not accumulated by the loops" if not ops else
                                f"the returned value combines {' and '.join(sorted(ops))}")
        op = ops.pop()
        for name in sorted(names):
            self._start(name, self.top.names[name].init, op, names)
        return COMBINE[op]

    def _start(self, name: str, init, op: str, names: set[str]) -> None:
        """A sum starts from zero; a maximum or minimum from an invariant value or
        from an element every chunk's first loop takes into one of the accumulators."""
        if isinstance(init, Acc):
            return
        if op == "+":
            if not (init is ZERO or init == const(0)):
                raise NotSplittable(f"'{name}' is a sum that does not start at 0")
            return
        if isinstance(init, Elem) and self._is_split(init.param):
            if not any(acc in names and p == init.param and lo <= init.lo and init.hi <= hi
                       for acc, p, lo, hi in self.body.direct):
                raise NotSplittable(f"'{name}' starts from an element of '{init.param}' that the first loop "
                                    "does not take in every iteration")
        elif not (init in (SAME, ZERO) or isinstance(init, Elem) or isinstance(init, Lin) and init.invariant):
            raise NotSplittable(f"'{name}' does not start from a value every chunk shares")

    def _is_split(self, param: str) -> bool:
        return any(a.param == param and a.ci for a in self.body.accesses)

    def _split(self) -> tuple[str, ...]:
        """The arrays offset in each chunk; checks every array's accesses."""
        split = []
        for p in self.func.params:
            accesses = [a for a in self.body.accesses if a.param == p.name]
            written = any(a.write for a in accesses)
            if not self._is_split(p.name):
                if written:
                    raise NotSplittable(f"'{p.name}' is written at an index that is not the loop variable")
                continue
            for a in accesses:
                if a.stage == "top":
                    if written:
                        raise NotSplittable(f"'{p.name}' is written in the loops and read before them")
                    continue
                if a.ci == 0:
                    raise NotSplittable(f"'{p.name}' is indexed both by the loop variable and at a fixed index")
                if a.ci != a.scale:
                    raise NotSplittable(f"'{p.name}' is indexed by {a.ci / a.scale} times the loop variable")
                if written:
                    self._own(p.name, a)
            if p.name in self.body.elem_data:
                raise NotSplittable(f"an element of '{p.name}' read before the loop is used in it")
            split.append(p.name)
        return tuple(split)

    def _own(self, name: str, a) -> None:
        """An access to a written array stays within its iteration's elements."""
        if a.off is None:
            raise NotSplittable(f"'{name}' is written, and accessed at the loop variable plus a varying amount")
        lo, hi = a.off / a.scale, (a.off + a.width) / a.scale
        if lo < 0:
            raise NotSplittable(f"'{name}' is written, and accessed before the loop variable")
        if a.stage == "first" and hi > self.granule:
            raise NotSplittable(f"'{name}' is written, and an iteration of the first loop reaches past its "
                                f"{self.granule} elements")


def _unroll(s):
    return s.loop if isinstance(s, A.Unroll) else s


def _is(e, name: str | None) -> bool:
    e = A.unparen(e)
    return name is not None and isinstance(e, A.Name) and e.name == name
