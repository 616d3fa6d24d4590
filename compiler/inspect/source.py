"""What the typed source says about each line, for reading the machine code
the way the user wrote it: which lines compute on vector types (and which
types), the element types of the memory each line reads or writes, and
where `stream_store` and the masked loads and stores are called.

Codegen tags every instruction with the line where the innermost
expression producing it starts, so an instruction on a line with no vector
expression was vectorised by LLVM, not by the user."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..intrinsics import entry
from ..syntax import ast as A
from ..typesys import model as T

_MEMORY_CALLS = ("load", "store", "stream_store", "load_masked", "store_masked", "gather", "scatter")


@dataclass
class SourceFacts:
    vector_types: dict[int, Counter] = field(default_factory=dict)  # line -> Counter of Vector types
    mask_lines: set[int] = field(default_factory=set)  # lines with a vector comparison (a lane mask)
    access_elems: dict[int, set[T.Scalar]] = field(default_factory=dict)  # line -> elements accessed
    stream_stores: dict[int, int] = field(default_factory=dict)  # line -> widest value stored, bytes
    masked_calls: dict[int, set[str]] = field(default_factory=dict)  # line -> {load_masked, store_masked}

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


def source_facts(analysis, funcs: list[A.Func] | None = None) -> SourceFacts:
    """What the checked program (or just `funcs` of it) says per source line.
    Which calls access memory comes from the checker's recorded callees, not
    from their names."""
    facts = SourceFacts()
    if funcs is None:
        funcs = analysis.live_functions
    bodies = [f.body for f in funcs]
    for x in A.walk(bodies):
        if isinstance(x, A.Expr):
            _note(facts, x, analysis)
    return facts


def _note(facts: SourceFacts, e: A.Expr, analysis) -> None:
    line = e.span.line
    if isinstance(e.ty, T.Vector):
        facts.vector_types.setdefault(line, Counter())[e.ty] += 1
    elif isinstance(e.ty, T.Mask):
        facts.mask_lines.add(line)
    if isinstance(e, A.Call) and e.args:
        vectors = [a.ty for a in e.args if isinstance(a.ty, T.Vector)]
        if vectors:  # store(out, i, v): the store instruction carries the call's line
            facts.vector_types.setdefault(line, Counter()).update(vectors)
        intr = analysis.decisions.intrinsic_of(e)
        name = entry(intr).name if intr is not None else None
        if name in _MEMORY_CALLS and isinstance(e.args[0].ty, T.Pointer) and isinstance(e.args[0].ty.pointee, T.Scalar):
            facts.access_elems.setdefault(line, set()).add(e.args[0].ty.pointee)
        if name in ("load_masked", "store_masked"):
            facts.masked_calls.setdefault(line, set()).add(name)
        if name == "stream_store" and len(e.args) == 3:
            value = e.args[2].ty
            size = value.bits // 8 if isinstance(value, (T.Vector, T.Scalar)) else 0
            facts.stream_stores[line] = max(facts.stream_stores.get(line, 0), size)
    elif isinstance(e, A.Index) and isinstance(e.base.ty, T.Pointer) and isinstance(e.base.ty.pointee, T.Scalar):
        # an element of an array of structs is no element of a vector: it does not count lanes
        facts.access_elems.setdefault(line, set()).add(e.base.ty.pointee)
