"""The index arithmetic of a widened function's vector loops: what counts
vectors scales by the width ratio, what counts elements stays, anything else
that may count lanes is refused.

A vector loop is an indexed loop (`loopscan.Loop`) whose own body loads or
stores vectors. In it, each index is read as a sum of terms:
- the loop variable, names the loop does not change, and immutable `let`s of
  the body (read through to their values);
- constants (literals, `const` items, products of them): an offset that is a
  whole number of vectors scales (`i + 4` -> `i + 8`), any other stays (`i + 1`
  is a neighbour). The step must be whole vectors; the loop bound's offsets
  must be whole vectors or one lane short of them (`i < n - 3` -> `i < n - 7`).
A step of several vectors must start a vector at each of them (what a step
skips would move), and every vector access must move with the loop variable.
A `const` scales where it is declared, so it must belong to this function
alone and be used only in that arithmetic."""
from __future__ import annotations

from ...analysis import Analysis
from ...syntax import ast as A
from ...typesys import model as T
from . import loopscan as L
from .base import Edit, NotApplicable, bodies, functions
from .text import text_of


class Scaler:
    def __init__(self, analysis: Analysis, item, lanes: int, ratio: int):
        self.a, self.item, self.lanes, self.ratio = analysis, item, lanes, ratio
        self.consts = {it.name: it for it in analysis.ast.items if isinstance(it, A.ConstDecl)}
        self.understood: set[int] = set()  # literals read as index arithmetic
        self.scaled_consts: dict[str, set[int]] = {}  # const -> its Name nodes that scale
        self.out: dict[tuple[int, int], Edit] = {}
        self.let_sums: dict[int, tuple[bool, int]] = {}  # a body `let` read as an index

    # ---- the whole function ----
    def edits(self) -> list[Edit]:
        item = self.item
        tails = item.tail_body.stmts if isinstance(item, A.Kernel) and item.tail_body else []
        owner = {}
        loops = L.index_loops(item)
        for lp in loops:
            for n in L.own_nodes(lp.body):
                owner[id(n)] = lp
        mask_tail = {id(n) for n in A.walk(tails)} if isinstance(item, A.Kernel) and item.tail == "mask" else set()
        vector_loops: list[L.Loop] = []
        for n in A.walk(bodies(item)):
            if isinstance(n, A.Call) and L.is_access(self.a.decisions.intrinsic_of(n)) and _vector_call(n):
                lp = owner.get(id(n))
                if lp is None and id(n) not in mask_tail:
                    raise NotApplicable(f"the vector {n.name} at line {n.span.line} is outside an indexed loop")
                if lp is not None and lp not in vector_loops:
                    vector_loops.append(lp)
        for lp in sorted(vector_loops, key=lambda lp: lp.node.span.start):
            self._loop(lp)
        self._const_uses(bodies(item))
        self._stray_literals(bodies(item), mask_tail)
        return list(self.out.values())

    # ---- one vector loop ----
    def _loop(self, lp: L.Loop) -> None:
        node = lp.node
        if isinstance(node, (A.Kernel, A.For)):
            if node.step % self.lanes:
                raise NotApplicable(f"the loop at line {lp.line} steps {node.step} elements, not whole "
                                    f"{self.lanes}-lane vectors")
            span = node.step_span if isinstance(node, A.Kernel) else self._for_step(node)
            self._edit(span, str(node.step * self.ratio))
            if isinstance(node, A.For):
                self._bound(node.end, lp)
            step = node.step
        else:
            if self._sum(lp.step, "step", lp)[0] == 0 or not self._constant(lp.step):
                raise NotApplicable(f"the loop at line {lp.line} steps by {text_of(self.a, lp.step)}, "
                                    "not by whole vectors")
            step = self._value(lp.step)
            cond = A.unparen(node.cond)
            if not (isinstance(cond, A.Binary) and cond.op in ("<", "<=", ">", ">=")):
                raise NotApplicable(f"the condition of the loop at line {lp.line} is not one comparison")
            self._bound(cond, lp)
        covered = set()  # the vectors of a step the accesses reach, as element offsets
        for n in L.own_nodes(lp.body):
            intr = self.a.decisions.intrinsic_of(n) if isinstance(n, A.Call) else None
            if L.is_access(intr) and len(n.args) >= 2 and _vector_call(n):
                _, has_var, offset = self._sum(n.args[1], "offset", lp)
                if not has_var:
                    raise NotApplicable(f"the {n.name} at line {n.span.line} does not move with {lp.var}")
                covered.add(offset if offset % self.lanes == 0 else 0)
            elif L.is_hint(intr) and len(n.args) >= 2:
                self.understood |= {id(x) for x in A.walk([n.args[1]])}  # a distance, not lanes
            elif isinstance(n, A.Index) and isinstance(n.base.ty, T.Pointer) and \
                    self._mentions_var(n.index, lp):
                raise NotApplicable(f"the scalar access {text_of(self.a, n)} at line {n.span.line} "
                                    "touches one element per step")
        # A step of several vectors must use each of them: what it skips would move.
        missing = [k for k in range(0, step, self.lanes) if k not in covered]
        if missing:
            raise NotApplicable(f"the loop at line {lp.line} steps {step} elements but no vector starts "
                                f"at offset {missing[0]}")

    def _bound(self, e, lp: L.Loop) -> None:
        sides = [e.left, e.right] if isinstance(e, A.Binary) and e.op in ("<", "<=", ">", ">=") else [e]
        if sum(self._sum(side, "bound", lp)[0] for side in sides) == 0:
            raise NotApplicable(f"the loop at line {lp.line} runs while {text_of(self.a, e)}: its last step "
                                "reads past the bound, further with a wider step")

    def _for_step(self, node: A.For):
        toks = [t for t in self.a.tokens if node.end.span.end <= t.start < node.body.span.start]
        for before, tok in zip(toks, toks[1:]):
            if before.text == "step" and tok.text == str(node.step):
                return tok
        raise NotApplicable(f"the step of the loop at line {node.span.line} was not found")

    # ---- sums of terms ----
    def _sum(self, e, mode: str, lp: L.Loop) -> tuple[int, bool, int]:
        """(how many constant terms scaled, whether the loop variable is in
        it, the signed sum of its constant terms before scaling)."""
        scaled, has_var, offset = 0, False, 0
        for sign, term in _terms(e):
            if self._constant(term):
                offset += sign * self._value(term)
                scaled += self._constant_term(term, mode, lp)
            elif isinstance(term, A.Name):
                var, more = self._name_term(term, lp)
                has_var, offset = has_var or var, offset + sign * more
            elif self._mentions_var(term, lp):
                raise NotApplicable(f"the index {text_of(self.a, e)} at line {e.span.line} is not "
                                    f"{lp.var} plus offsets")
            else:  # loop-invariant: a row start, a stride
                self.understood |= {id(x) for x in A.walk([term])}
        return scaled, has_var, offset

    def _constant_term(self, term, mode: str, lp: L.Loop) -> int:
        v = abs(self._value(term))
        whole = v != 0 and v % self.lanes == 0
        if mode == "offset" and not whole:
            self.understood |= {id(x) for x in A.walk([term])}  # an element offset: stays
            return 0
        if mode == "bound" and not whole and isinstance(A.unparen(term), A.IntLit) and (v + 1) % self.lanes == 0:
            self.understood.add(id(A.unparen(term)))
            self._edit(A.unparen(term).span, str((v + 1) * self.ratio - 1))
            return 1
        if not whole:
            raise NotApplicable(f"the offset {text_of(self.a, term)} at line {term.span.line} is not a whole "
                                f"number of {self.lanes}-lane vectors")
        self._scale(term)
        return 1

    def _name_term(self, term: A.Name, lp: L.Loop) -> tuple[bool, int]:
        """(whether the name is or holds the loop variable, its constant offset)."""
        if term.name == lp.var:
            return True, 0
        for s in A.statements(lp.body.stmts):
            if isinstance(s, A.Let) and s.name == term.name:
                if s.mutable:
                    break
                if id(s) not in self.let_sums:
                    self.let_sums[id(s)] = self._sum(s.value, "offset", lp)[1:]
                return self.let_sums[id(s)]
            if isinstance(s, A.Assign) and isinstance(s.target, A.Name) and s.target.name == term.name:
                break
        else:
            return False, 0
        raise NotApplicable(f"the index at line {term.span.line} uses {term.name}, which the loop changes")

    def _mentions_var(self, e, lp: L.Loop) -> bool:
        names = L.names_in(e)
        if lp.var in names:
            return True
        local = {s.name: s for s in A.statements(lp.body.stmts) if isinstance(s, A.Let)}
        return any(self._mentions_var(local[n].value, lp) for n in names if n in local and n != lp.var)

    # ---- constants ----
    def _constant(self, e) -> bool:
        e = A.unparen(e)
        if isinstance(e, A.IntLit):
            return True
        if isinstance(e, A.Name):
            return e.name in self.consts and isinstance(self.consts[e.name].value, A.IntLit)
        return isinstance(e, A.Binary) and e.op in ("+", "-", "*") and self._constant(e.left) \
            and self._constant(e.right)

    def _value(self, e) -> int:
        e = A.unparen(e)
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.Name):
            return self.consts[e.name].value.value
        a, b = self._value(e.left), self._value(e.right)
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b

    def _scale(self, term) -> None:
        e = A.unparen(term)
        if isinstance(e, A.IntLit):
            self.understood.add(id(e))
            self._edit(e.span, str(e.value * self.ratio))
        elif isinstance(e, A.Name):
            self._scale_const(e)
        elif isinstance(e, A.Binary) and e.op == "*":
            sides = [s for s in (e.right, e.left) if self._value(s) % self.lanes == 0 and self._value(s)]
            if not sides:
                raise NotApplicable(f"cannot widen the offset {text_of(self.a, e)} at line {e.span.line}")
            other = e.left if sides[0] is e.right else e.right
            self.understood |= {id(x) for x in A.walk([other])}
            self._scale(sides[0])
        else:
            raise NotApplicable(f"cannot widen the offset {text_of(self.a, e)} at line {e.span.line}")

    def _scale_const(self, use: A.Name) -> None:
        decl = self.consts[use.name]
        users = [f.name for f in functions(self.a) if f is not self.item and
                 any(n.name == use.name for n in A.walk(bodies(f)) if isinstance(n, A.Name))]
        if users:
            raise NotApplicable(f"the step uses const {use.name}, which {', '.join(users)} also "
                                f"use{'s' if len(users) == 1 else ''}")
        self.scaled_consts.setdefault(use.name, set()).add(id(use))
        self._edit(decl.value.span, str(decl.value.value * self.ratio))

    def _const_uses(self, stmts) -> None:
        for n in A.walk(stmts):
            if isinstance(n, A.Name) and n.name in self.scaled_consts and id(n) not in self.scaled_consts[n.name]:
                raise NotApplicable(f"const {n.name} is also used at line {n.span.line}, outside the "
                                    "loops' index arithmetic")

    def _stray_literals(self, stmts, mask_tail: set[int]) -> None:
        """Refuse a literal that may count lanes where nothing scales it: in
        scalar arithmetic, or anywhere in a `tail mask`."""
        parent = {}
        for n in A.walk(stmts):
            for c in A.children(n):
                parent[id(c)] = n
        scaled = set().union(*self.scaled_consts.values())
        for n in A.walk(stmts):
            if isinstance(n, A.Name) and self._constant(n) and id(n) not in scaled | self.understood:
                what, v = f"const {n.name}", abs(self._value(n))
            elif isinstance(n, (A.IntLit, A.FloatLit)) and id(n) not in self.understood and n.value == int(n.value):
                what, v = f"the literal {n.value}", abs(int(n.value))
            else:
                continue
            up = parent.get(id(n))
            lane_like = v >= self.lanes and v % self.lanes == 0
            if id(n) in mask_tail:
                if lane_like or v >= self.lanes - 1 > 0 and (v + 1) % self.lanes == 0:
                    raise NotApplicable(f"the tail mask depends on the step ({what} at line {n.span.line})")
            elif lane_like and (isinstance(up, A.Binary) and not isinstance(up.ty, (T.Vector, T.Mask))
                                or isinstance(up, (A.Let, A.Assign)) and not isinstance(up.value.ty, T.Vector)):
                raise NotApplicable(f"{what} at line {n.span.line} may count lanes")

    def _edit(self, span, text: str) -> None:
        self.out[(span.start, span.end)] = Edit(span.start, span.end, text)


def _terms(e) -> list[tuple[int, object]]:
    """The operands of a `+`/`-` chain with their signs (parentheses looked through)."""
    out, stack = [], [(1, e)]
    while stack:
        sign, x = stack.pop()
        x = A.unparen(x)
        if isinstance(x, A.Binary) and x.op in ("+", "-"):
            stack += [(-sign if x.op == "-" else sign, x.right), (sign, x.left)]
        else:
            out.append((sign, x))
    return out


def _vector_call(call: A.Call) -> bool:
    return any(isinstance(x.ty, T.Vector) for x in [call] + call.args)
