"""What the typed source says about each line, for reading the machine code
the way the user wrote it: which lines compute on vector types (and which
types), the element types of the memory each line reads or writes, and
where `stream_store` is called.

Codegen tags every instruction with the line where the innermost
expression producing it starts, so an instruction on a line with no vector
expression was vectorised by LLVM, not by the user."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..syntax import ast as A
from ..typesys import model as T

_MEMORY_CALLS = ("load", "store", "stream_store", "load_masked", "store_masked", "gather", "scatter")


@dataclass
class SourceFacts:
    vector_types: dict[int, Counter] = field(default_factory=dict)  # line -> Counter of Vector types
    mask_lines: set[int] = field(default_factory=set)  # lines with a vector comparison (a lane mask)
    access_elems: dict[int, set[T.Scalar]] = field(default_factory=dict)  # line -> elements accessed
    stream_stores: dict[int, int] = field(default_factory=dict)  # line -> widest value stored, bytes

    def is_vector_line(self, line: int | None) -> bool:
        return line is not None and (line in self.vector_types or line in self.mask_lines)

    def widest_type(self, lines) -> T.Vector | None:
        """The widest vector type on `lines`, the most used among equals."""
        seen: Counter = Counter()
        for ln in lines:
            seen.update(self.vector_types.get(ln, ()))
        if not seen:
            return None
        return max(seen, key=lambda t: (t.bits, seen[t], t.name))

    def access_elem(self, line: int | None) -> T.Scalar | None:
        """The element type of the memory a line accesses; with several, the
        widest (elements per iteration then errs low, never high)."""
        elems = self.access_elems.get(line) if line is not None else None
        return max(elems, key=lambda t: (t.bits, t.name)) if elems else None


def source_facts(program: A.Program) -> SourceFacts:
    facts = SourceFacts()
    for item in program.items:
        if isinstance(item, A.Func):
            for stmt in _statements(item.body.stmts):
                for e in _roots(stmt):
                    for x in _walk(e):
                        _note(facts, x)
    return facts


def _note(facts: SourceFacts, e: A.Expr) -> None:
    line = e.span.line
    if isinstance(e.ty, T.Vector):
        facts.vector_types.setdefault(line, Counter())[e.ty] += 1
    elif isinstance(e.ty, T.Mask):
        facts.mask_lines.add(line)
    if isinstance(e, A.Call) and e.args:
        vectors = [a.ty for a in e.args if isinstance(a.ty, T.Vector)]
        if vectors:  # store(out, i, v): the store instruction carries the call's line
            facts.vector_types.setdefault(line, Counter()).update(vectors)
        is_memory = e.name in _MEMORY_CALLS or (e.name.startswith("load_") and isinstance(e.ty, T.Vector))
        if is_memory and isinstance(e.args[0].ty, T.Pointer):
            facts.access_elems.setdefault(line, set()).add(e.args[0].ty.pointee)
        if e.name == "stream_store" and len(e.args) == 3:
            value = e.args[2].ty
            size = value.bits // 8 if isinstance(value, (T.Vector, T.Scalar)) else 0
            facts.stream_stores[line] = max(facts.stream_stores.get(line, 0), size)
    elif isinstance(e, A.Index) and isinstance(e.base.ty, T.Pointer):
        facts.access_elems.setdefault(line, set()).add(e.base.ty.pointee)


def _statements(stmts):
    for s in stmts:
        yield s
        if isinstance(s, (A.While, A.ForEach)):
            yield from _statements(s.body.stmts)
        elif isinstance(s, A.Unroll):
            yield from _statements([s.loop])
        elif isinstance(s, A.If):
            yield from _statements(s.then.stmts)
            if isinstance(s.orelse, A.Block):
                yield from _statements(s.orelse.stmts)
            elif s.orelse is not None:
                yield from _statements([s.orelse])


def _roots(stmt):
    """The expressions a statement evaluates itself (not those of nested blocks)."""
    if isinstance(stmt, A.Let):
        yield stmt.value
    elif isinstance(stmt, A.Assign):
        yield stmt.target
        yield stmt.value
    elif isinstance(stmt, A.ExprStmt):
        yield stmt.expr
    elif isinstance(stmt, A.Return) and stmt.value is not None:
        yield stmt.value
    elif isinstance(stmt, (A.If, A.While)):
        yield stmt.cond
    elif isinstance(stmt, A.ForEach):
        yield stmt.start
        yield stmt.end


def _walk(e):
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        if isinstance(x, A.Binary):
            stack += [x.left, x.right]
        elif isinstance(x, A.Paren):
            stack.append(x.inner)
        elif isinstance(x, A.Unary):
            stack.append(x.operand)
        elif isinstance(x, A.Call):
            stack += x.args
        elif isinstance(x, A.Index):
            stack += [x.base, x.index]
        elif isinstance(x, A.Field):
            stack.append(x.base)
        elif isinstance(x, A.StructLit):
            stack += [f.value for f in x.fields]
        elif isinstance(x, A.VectorLit):
            stack += x.elems
