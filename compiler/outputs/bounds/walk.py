"""The walk over one exported function's desugared, checked body (and the
bodies of the functions it calls, inlined at each call) that finds, for each
pointer parameter, every element index the code may touch.

Values are tracked per program point: an integer local is a polynomial over
the parameters and atoms (`facts.py`), or unknown. A loop makes each counter
it advances a fresh atom at the top of an iteration, no smaller than the
counter's value before the loop — a counter is a variable every assignment
of which in the loop adds a positive constant to it — and every other
variable it writes unknown; its condition then narrows the
atoms (`i + 32 <= n`: the atom is at most n - 32), as an `if` narrows them
in its branches (and the opposite in `else`). Each access is bounded where
it happens: its lowest index must be provably >= 0 and its highest index +
lanes gives a polynomial in the parameters; else the pointer is unchecked,
with the reason. That proof holds only while the code's integer arithmetic
stays in its types: what each access needs for it is `wraps.py`'s."""
from __future__ import annotations

from ...intrinsics.table import Intrinsic
from ...symbols import Symbol
from ...syntax import ast as A
from ...typesys import model as T
from .facts import Facts
from .poly import Poly
from .reasons import BUDGET, DATA, ESCAPE, NEGATIVE, REBOUND, RECURSION, SHAPE, UNBOUNDED, UNITS, VECTOR
from .limits import IndexLimit, needed, poly_range
from .values import FROM_DATA, Ref, Values, fits_i32, int_range, integer, lanes_of, wrapped
from .wraps import CARRY, Wraps

BUDGET_NODES = 200_000  # statements and expressions visited, inlined bodies included


class TooLarge(Exception):
    pass


class Walk(Wraps, Values):
    def __init__(self, program: A.Program, decisions):
        super().__init__(program, decisions)
        self.written_in: dict[int, tuple] = {}

    # ---- one exported function ----
    def run(self, func: A.Func) -> tuple[dict[str, list[tuple[Poly, dict]]], dict[str, str],
                                         dict[str, list[IndexLimit]]]:
        """({pointer: [(extent of one access, the parameter minimums known there)]}, {pointer: reason},
        {pointer: the index limits its accesses need (limits.py)})."""
        self.found: dict[str, list[tuple[Poly, dict]]] = {}
        self.unchecked: dict[str, str] = {}
        self.reset_wraps()
        resolved: dict[str, list[IndexLimit]] = {}
        self.stack = [func.name]
        self.visited = 0
        ints = {p.name for p in func.params if integer(p.ty)}
        ranges = {p.name: int_range(p.ty) for p in func.params if p.name in ints}
        self.ranges = ranges
        env: dict = {}
        for p in func.params:
            env[p.name] = Ref(p.name) if isinstance(p.ty, T.Pointer) else Poly.name(p.name) if p.name in ints else None
        try:
            facts = Facts(ints)
            facts.param_lo = {name: 0 for name, (lo, _) in ranges.items() if lo == 0}  # unsigned: never below 0
            self.block(func.body.stmts, env, facts)
            resolved = self.resolve()
        except (TooLarge, RecursionError):  # calls inlined deeper than Python's stack: nothing is claimed
            self.unchecked = {p.name: BUDGET for p in func.params if isinstance(p.ty, T.Pointer)}
        limits = {p.name: needed(resolved[p.name], ranges) for p in func.params  # in parameter order
                  if p.name in resolved and p.name not in self.unchecked}
        return self.found, self.unchecked, {name: found for name, found in limits.items() if found}

    def fail(self, ref: Ref, reason: str) -> None:
        self.unchecked.setdefault(ref.param, reason)

    def tick(self) -> None:
        self.visited += 1
        if self.visited > BUDGET_NODES:
            raise TooLarge

    # ---- statements ----
    def block(self, stmts, env: dict, facts: Facts) -> None:
        for s in stmts:
            self.stmt(s, env, facts)

    def stmt(self, s, env: dict, facts: Facts) -> None:
        self.tick()
        if isinstance(s, A.Let):
            state = self.bind(s.value, s.ty, env, facts)
            needs = self.arithmetic(s.value, env, facts) if integer(s.ty) else []
            env[s.name] = state
            self.carry(env, s.name, needs)
        elif isinstance(s, A.Assign):
            if isinstance(s.target, A.Name):
                state = self.bind(s.value, s.target.ty, env, facts)
                needs = self.arithmetic(s.value, env, facts) if integer(s.target.ty) else []
                if isinstance(state, Ref):  # a pointer variable that changes: not followed
                    self.fail(state, REBOUND)
                    state = None
                env[s.target.name] = state
                self.carry(env, s.target.name, needs)
                self.stepped(s.target.name, needs, state, facts)
            else:
                self.visit(s.target, env, facts)
                self.visit(s.value, env, facts)
        elif isinstance(s, A.ExprStmt):
            self.visit(s.expr, env, facts)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.visit(s.value, env, facts)
        elif isinstance(s, A.If):
            self.branch(s, env, facts)
        elif isinstance(s, A.While):
            self.loop(s, env, facts)
        elif isinstance(s, A.ForEach):
            self.foreach(s, env, facts)
        elif isinstance(s, A.Unroll):
            self.stmt(s.loop, env, facts)

    def bind(self, value: A.Expr, ty, env: dict, facts: Facts):
        """The state of a variable given `value`: a Ref, a polynomial or None (unknown)."""
        if isinstance(ty, T.Pointer):
            ref = self.pointer(value, env)
            if ref is None:
                self.visit(value, env, facts)
            return ref
        self.visit(value, env, facts)
        if not integer(ty):
            return None
        found = self.value(value, env)
        if found is not None and found.is_const:  # a literal as the variable's type holds it
            found = Poly.const(wrapped(found.value, ty))
        return found if found is not None else FROM_DATA if self.reads(value, env) else None

    def branch(self, s: A.If, env: dict, facts: Facts) -> None:
        self.visit(s.cond, env, facts)
        ends = []
        for positive, body in ((True, s.then), (False, s.orelse)):
            inner, branch_env = facts.child(), dict(env)
            undo, needs = self.guard(s.cond, positive, branch_env, inner)
            self.regions.append(needs)
            if isinstance(body, A.Block):
                self.block(body.stmts, branch_env, inner)
            elif body is not None:
                self.branch(body, branch_env, inner)
            self.regions.pop()
            for name, state in branch_env.items():
                if isinstance(state, Poly):
                    branch_env[name] = state.rename(undo)
            ends.append(branch_env)
        counters = self.written(s)[2]
        then_env, else_env = ends
        carries = (then_env.pop(CARRY, {}), else_env.pop(CARRY, {}))
        carry = {name: tuple(dict.fromkeys(carries[0].get(name, ()) + carries[1].get(name, ())))
                 for name in carries[0].keys() | carries[1].keys()}
        for name in then_env.keys() | else_env.keys():
            a, b = then_env.get(name, _MISSING), else_env.get(name, _MISSING)
            if a == b and a is not _MISSING:
                env[name] = a
                continue
            if {type(a), type(b)} == {Ref, object}:  # a pointer declared on one side only
                env[name] = a if isinstance(a, Ref) else b
                continue
            for state in (a, b):  # a pointer that differs between the branches is not followed
                if isinstance(state, Ref):
                    self.fail(state, REBOUND)
            if name in counters and isinstance(a, Poly) and isinstance(b, Poly) and isinstance(env.get(name), Poly):
                atom = facts.fresh(lo=[env[name]])  # no smaller than before
                env[name] = Poly.name(atom)
                self.merged(atom, (a, b), (carries[0].get(name, ()), carries[1].get(name, ())))
                carry[name] = ()
            else:
                env[name] = None
        env[CARRY] = carry

    def loop(self, s: A.While, env: dict, facts: Facts) -> None:
        inner = facts.child()
        head, counters = self.havoc(s.body, env, dict(env), inner)
        at_head = dict(head)
        self.visit(s.cond, head, inner)
        sides = self.guard(s.cond, True, head, inner, deferred=True)[1]
        region: list = []  # filled below: the counters' steps bound the condition's arithmetic
        self.walk_body(s.body, head, inner, counters, region)
        named = {x.name for side in sides for x in A.walk([side]) if isinstance(x, A.Name)}
        if sides:
            self.loop_condition(sides, region, {n: a for n, a in counters.items() if n in named}, env, at_head, facts)
        self.after_loop(s.body, env, env, facts, counters)

    def walk_body(self, body: A.Block, env: dict, facts: Facts, counters: dict[str, str], region: list) -> None:
        self.heads.append(counters)
        self.regions.append(region)
        self.block(body.stmts, env, facts)
        self.regions.pop()
        self.heads.pop()

    def after_loop(self, body: A.Block, before: dict, env: dict, facts: Facts, counters: dict[str, str]) -> None:
        """`env` after a loop: a counter is its value before or one its steps made (wraps.py)."""
        entry = {name: before.get(name) for name in counters}
        for name, atom in self.havoc(body, before, env, facts)[1].items():
            if name in counters:
                self.exited(atom, counters[name], entry[name])

    def foreach(self, s: A.ForEach, env: dict, facts: Facts) -> None:
        self.visit(s.start, env, facts)
        self.visit(s.end, env, facts)
        start = self.value(s.start, env) if fits_i32(s.start.ty) else None
        end = self.value(s.end, env) if fits_i32(s.end.ty) else None  # evaluated once, before the loop
        ends = self.arithmetic(s.start, env, facts) + self.arithmetic(s.end, env, facts)  # computed once, here
        entry = dict(env)
        inner = facts.child()
        head, counters = self.havoc(s.body, env, dict(env), inner)
        lo, hi = [start] if start is not None else [], [end - Poly.const(1)] if end is not None else []
        atom = inner.fresh(lo, hi)
        if lo and hi:
            inner.assume(hi[0] - lo[0])
        head[s.var] = Poly.name(atom)
        self.carry(head, s.var, ())
        self.walk_body(s.body, head, inner, counters, ends)
        assigned, declared, _ = self.written(s.body)
        self.after_loop(s.body, entry, env, facts, counters)
        for name in declared | {s.var}:  # the loop's names go out of scope: the outer ones are back
            if name not in assigned:
                if name in entry:
                    env[name] = entry[name]
                else:
                    env.pop(name, None)

    def havoc(self, body: A.Block, before: dict, env: dict, facts: Facts) -> tuple[dict, dict[str, str]]:
        """`env` where `body` may have run any number of times: a counter is
        a fresh atom no smaller than its value in `before`, anything else
        the body writes or declares unknown; and {counter: its atom}."""
        assigned, declared, counters = self.written(body)
        atoms: dict[str, str] = {}
        carry = dict(env.get(CARRY, {}))
        for name in assigned | declared:
            state = before.get(name)
            carry.pop(name, None)  # a counter's atom needs what its steps do (wraps.py)
            if isinstance(state, Ref):  # a pointer the loop may rebind is not followed
                self.fail(state, REBOUND)
            if name in counters and isinstance(state, Poly):
                atoms[name] = facts.fresh(lo=[state])
                env[name] = Poly.name(atoms[name])
            else:
                env[name] = None
        env[CARRY] = carry
        return env, atoms

    def guard(self, cond: A.Expr, positive: bool, env: dict, facts: Facts, deferred: bool = False) -> tuple:
        """Learn that `cond` is `positive` here: parameter minimums, narrower
        atoms (substituted in `env`). Returns ({narrow atom: the atom it
        narrows}, what the comparisons learnt from need); a comparison whose
        arithmetic may wrap teaches nothing. `deferred` (a loop's condition,
        wraps.py): every comparison is learnt from, and their sides returned."""
        undo: dict[str, str] = {}
        learnt, needs = [], []
        for q, sides in self.conditions(cond, positive, env):
            found = [] if deferred else self.trusted(sides, env, facts)
            if found is None:
                continue
            learnt.append((q, sides))
            needs += found
        for q, sides in learnt:
            facts.assume(q)
            movable = [n for n in q.names() if n in facts.atoms and q.degree_in(n) == 1
                       and q.by_power(n)[1].is_const and abs(q.by_power(n)[1].value) == 1]
            if not movable:
                continue
            name = max(movable, key=lambda n: facts.atoms[n].order)
            parts = q.by_power(name)
            rest, sign = parts.get(0, Poly()), parts[1].value
            atom = facts.atoms[name]
            if sign < 0:  # name <= rest
                narrow = facts.fresh(atom.lo, (rest,) + atom.hi, origin=name)
            else:  # name >= -rest
                narrow = facts.fresh((-rest,) + atom.lo, atom.hi, origin=name)
            for key, state in env.items():
                if isinstance(state, Poly) and name in state.names():
                    env[key] = state.substitute(name, Poly.name(narrow))
            undo[narrow] = undo.get(name, name)
        return undo, [side for _, sides in learnt for side in sides] if deferred else needs

    def conditions(self, cond: A.Expr, positive: bool, env: dict) -> list[tuple[Poly, tuple]]:
        """`cond` (or its negation) as polynomials that are >= 0, where it says so, each with
        the two sides of the comparison it comes from."""
        cond = A.unparen(cond)
        if isinstance(cond, A.Unary) and cond.op == "!":
            return self.conditions(cond.operand, not positive, env)
        if not isinstance(cond, A.Binary):
            return []
        both = "&&" if positive else "||"  # each side holds (or fails) on its own
        if cond.op == both:
            rights, node = [], cond
            while isinstance(node, A.Binary) and node.op == both:  # a long chain is walked, not recursed
                rights.append(node.right)
                node = A.unparen(node.left)
            found = self.conditions(node, positive, env)
            for right in reversed(rights):
                found += self.conditions(right, positive, env)
            return found
        op = cond.op if positive else _NEGATED.get(cond.op)
        if op not in ("<", "<=", ">", ">=", "=="):
            return []
        if _unsigned_difference(cond.left) or _unsigned_difference(cond.right):
            return []  # `i - k >= 0` in u32 always holds: it says nothing of i and k
        left, right = self.value(cond.left, env), self.value(cond.right, env)
        if left is None or right is None:
            return []
        one, sides = Poly.const(1), (cond.left, cond.right)
        found = {"<": [right - left - one], "<=": [right - left], ">": [left - right - one],
                 ">=": [left - right], "==": [right - left, left - right]}[op]
        return [(q, sides) for q in found]

    # ---- what a stretch of code writes ----
    def written(self, block: A.Block | A.If) -> tuple[set[str], set[str], set[str]]:
        """(names assigned, names declared, counters: names every assignment
        of which adds a positive constant) anywhere in `block`."""
        key = id(block)
        if key not in self.written_in:
            steps: dict[str, bool] = {}
            declared = set()
            roots = block.stmts if isinstance(block, A.Block) else [block]
            for s in A.statements(roots):
                if isinstance(s, A.Assign) and isinstance(s.target, A.Name):
                    steps[s.target.name] = steps.get(s.target.name, True) and self.is_step(s)
                elif isinstance(s, A.Let):
                    declared.add(s.name)
            counters = {n for n, ok in steps.items() if ok and n not in declared}
            self.written_in[key] = (set(steps), declared, counters, block)  # the block kept: its id stays its own
        return self.written_in[key][:3]

    def is_step(self, s: A.Assign) -> bool:
        """`v = v + c` (or `c + v`) with c a positive constant."""
        v = A.unparen(s.value)
        if not (isinstance(v, A.Binary) and v.op == "+"):
            return False
        for var, step in ((v.left, v.right), (v.right, v.left)):
            if isinstance(A.unparen(var), A.Name) and A.unparen(var).name == s.target.name:
                c = self.operand(step, v.ty, {})  # `i + 200` in i8 adds -56
                return c is not None and c.is_const and c.value > 0
        return False

    # ---- expressions ----
    def visit(self, e: A.Expr, env: dict, facts: Facts) -> None:
        """Record every access in `e`; a pointer used any other way is unchecked."""
        stack = [e]
        while stack:
            x = stack.pop()
            self.tick()
            if isinstance(x, A.Index):
                ref = self.pointer(x.base, env)
                if ref is not None:
                    self.access(ref, x.index, 1, None, env, facts)
                    stack.append(x.index)
                else:
                    stack += [x.index, x.base]
            elif isinstance(x, A.Field) and isinstance(x.base.ty, T.Pointer):
                ref = self.pointer(x.base, env)
                if ref is not None:
                    self.access(ref, A.IntLit(x.span, 0, "0"), 1, None, env, facts)
                else:
                    stack.append(x.base)
            elif isinstance(x, A.Call):
                stack += self.call(x, env, facts)
            elif isinstance(x, A.Name):
                ref = env.get(x.name)
                if isinstance(ref, Ref):
                    self.fail(ref, ESCAPE)
            else:
                stack += reversed(A.children(x))

    def call(self, call: A.Call, env: dict, facts: Facts) -> list:
        """Record what `call` touches; returns the arguments still to visit."""
        callee = self.callee(call)
        args = call.args
        if isinstance(callee, Intrinsic) and callee.memory is not None and args:
            m = callee.memory
            ref = self.pointer(args[0], env)
            if ref is None:
                return list(reversed(args))
            if m.kind == "touch" and m.index is not None and m.index < len(args):
                lanes = lanes_of(call.ty if m.lanes is None else args[m.lanes].ty if m.lanes < len(args) else None)
                count = args[m.count] if m.count is not None and m.count < len(args) else None
                if lanes is None:
                    self.fail(ref, SHAPE)
                else:
                    self.access(ref, args[m.index], lanes, count, env, facts)
            elif m.kind == "indices":
                self.fail(ref, VECTOR)
            elif m.kind == "view":
                self.fail(ref, ESCAPE)  # a view used other than as a pointer argument or a local
            return list(reversed(args[1:]))
        if isinstance(callee, Symbol):
            self.inline(call, callee.name, env, facts)
            return []
        if callee is None and call.name in self.funcs:
            self.inline(call, call.name, env, facts)
            return []
        return list(reversed(args))

    def inline(self, call: A.Call, name: str, env: dict, facts: Facts) -> None:
        """Walk the callee's body with its parameters bound to the arguments' states."""
        targets = self.funcs.get(name, [])
        states, carries = [], []
        for k, arg in enumerate(call.args):
            pointer = any(k < len(f.params) and isinstance(f.params[k].ty, T.Pointer) for f in targets)
            ref = self.pointer(arg, env) if pointer else None
            if ref is None:
                self.visit(arg, env, facts)
                states.append(self.value(arg, env) if integer(arg.ty) else None)
                carries.append(tuple(self.arithmetic(arg, env, facts)) if integer(arg.ty) else ())
            else:
                states.append(ref)
                carries.append(())
            if isinstance(ref, Ref) and (name in self.stack or not targets):
                self.fail(ref, RECURSION if targets else ESCAPE)
        if name in self.stack:
            return
        self.stack.append(name)
        outer, self.heads = self.heads, []  # the callee's names are not the caller's counters
        for f in targets:
            callee_env = {p.name: (s if not isinstance(s, Poly) or integer(p.ty) else None)
                          for p, s in zip(f.params, states)}
            callee_env[CARRY] = {p.name: c for p, c in zip(f.params, carries) if c}
            self.block(f.body.stmts, callee_env, facts.child())
        self.heads = outer
        self.stack.pop()

    # ---- one access ----
    def access(self, ref: Ref, index: A.Expr, lanes: int, count: A.Expr | None, env: dict, facts: Facts) -> None:
        """Elements [index, index + lanes) of `ref` (only the first `count` of them, if given)."""
        at = self.value(index, env)
        if at is None:
            self.fail(ref, DATA if self.reads(index, env) else SHAPE)
            return
        if not facts.nonneg(at):
            self.fail(ref, NEGATIVE)
            return
        reach = at + Poly.const(lanes)
        n = self.value(count, env) if count is not None else None
        # A count is compared unsigned (INTRINSICS.md §11): a negative one enables every lane.
        if n is not None and n.is_const:
            if n.value == 0:
                return  # touches nothing
            if n.value > 0:
                reach = at + Poly.const(min(lanes, n.value))
        elif n is not None and n.names() & facts.atoms.keys() and facts.nonneg(n):
            reach = at + n  # `bound - i` lanes at i < bound: up to the bound
        high = facts.upper(reach)
        if high is None:
            self.fail(ref, UNBOUNDED)
            return
        if ref.num != ref.den:  # elements of a view: whole elements of the parameter, rounded up
            high = high.scale(ref.num)
            rest = Poly({m: c for m, c in high.terms.items() if m})
            if any(c % ref.den for c in rest.terms.values()):
                self.fail(ref, UNITS)
                return
            high = Poly({m: c // ref.den for m, c in rest.terms.items()}) + Poly.const(-(-high.value // ref.den))
        self.found.setdefault(ref.param, []).append((high, dict(facts.param_lo)))
        self.note_access(ref, index, at, env, facts)

    def stays_above(self, value: Poly, least: int, facts: Facts) -> bool:
        """`value` >= `least` is proved: one of its lower bounds, over the parameters' ranges
        (their types, narrowed by the minimums known here), is at least `least`."""
        if least <= -(1 << 63):  # an i64 value: its arithmetic is taken as exact
            return True
        ranges = {name: (max(lo, facts.param_lo.get(name, lo)), hi) for name, (lo, hi) in self.ranges.items()}
        for low in facts.bounds(value, up=False):
            found = poly_range(low, ranges)
            if found is not None and found[0] >= least:
                return True
        return False


def _unsigned_difference(e: A.Expr) -> bool:
    """`e` subtracts (or negates) in an unsigned type, where the result wraps instead of going below 0."""
    return any(isinstance(x, (A.Binary, A.Unary)) and x.op == "-" and isinstance(getattr(x, "ty", None), T.Scalar)
               and x.ty.is_integer and x.ty.is_unsigned for x in A.walk([e]))


_MISSING = object()
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
