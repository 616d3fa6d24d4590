"""The memory a kernel's main loop touches per trip: for each pointer
parameter, the lowest and highest element it reads or writes, counted from
the loop variable, and which ones it writes.

Codegen needs it where it changes the order of memory writes: a realigned
run of streaming stores keeps part of each vector for the next trip, and a
peeled prologue runs some elements first (compiler/codegen/ntloop.py,
ntpeel.py). Both are the kernel as written only when what is written is
apart from everything else the loop touches, which is tested at run time
from these ranges. Every access must be through a pointer parameter at
`var + constant` (an intrinsic's place in memory comes from its `Memory`
entry in the intrinsics table); a gather, a view (`ptr_as_*`), an index
with anything else in it makes the ranges unknown (`known` False)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..syntax import ast as A
from ..typesys import model as T


@dataclass(frozen=True)
class Accesses:
    known: bool
    why: str = ""
    reads: dict[str, tuple[int, int]] = field(default_factory=dict)  # pointer -> (lowest, highest) element
    writes: dict[str, tuple[int, int]] = field(default_factory=dict)
    read_after_write: frozenset[str] = frozenset()  # written, then read later in the same trip

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        return merge(self.reads, self.writes)

    def reads_behind(self) -> frozenset[str]:
        """Arrays written in the loop and read below their lowest element written:
        what an earlier trip wrote (a delayed store would not be there yet)."""
        return frozenset(n for n, (lo, _) in self.reads.items() if n in self.writes and lo < self.writes[n][0])


def merge(*parts: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for part in parts:
        for name, (lo, hi) in part.items():
            a, b = out.get(name, (lo, hi))
            out[name] = (min(a, lo), max(b, hi))
    return out


class _Unknown(Exception):
    pass


def of_loop(stmts, var: str, params: dict[str, A.Param], decisions, const_values: dict) -> Accesses:
    """The accesses of `stmts` (a main loop's body), in program order."""
    lets = {s.name for s in A.statements(stmts) if isinstance(s, A.Let)}
    consts = {k: v for k, v in const_values.items() if k not in lets}  # a local hides a constant
    walker = _Walker(var, params, decisions, consts)
    try:
        for node in A.walk(stmts):
            walker.visit(node)
    except _Unknown as e:
        return Accesses(False, str(e))
    return Accesses(True, reads=walker.reads, writes=walker.writes, read_after_write=frozenset(walker.late_reads))


class _Walker:
    def __init__(self, var: str, params: dict, decisions, const_values: dict):
        self.var, self.params, self.decisions, self.consts = var, params, decisions, const_values
        self.reads: dict[str, tuple[int, int]] = {}
        self.writes: dict[str, tuple[int, int]] = {}
        self.late_reads: set[str] = set()
        self.targets: set[int] = set()  # Index nodes that are assignment targets

    def visit(self, node) -> None:
        if isinstance(node, A.Assign) and isinstance(node.target, A.Index):
            self.targets.add(id(node.target))
        elif isinstance(node, A.Assign) and isinstance(node.target, A.Name) and node.target.name == self.var:
            raise _Unknown("the loop variable is assigned in the loop")
        elif isinstance(node, A.Index):
            base = A.unparen(node.base)
            if isinstance(base, A.Name) and isinstance(base.ty, T.Pointer):
                self.touch(base, node.index, 1, id(node) in self.targets)
        elif isinstance(node, A.Call):
            intr = self.decisions.intrinsic_of(node)
            memory = None if intr is None else intr.memory
            if memory is None or memory.kind == "hint":
                return
            if memory.kind != "touch":
                raise _Unknown(f"`{node.name}` reaches memory other than at the loop variable plus a constant")
            sized = node.args[memory.lanes].ty if memory.lanes is not None else node.ty
            lanes = sized.lanes if isinstance(sized, (T.Vector, T.Mask)) else 1
            self.touch(node.args[0], node.args[memory.index], lanes, memory.stores)

    def touch(self, ptr: A.Expr, index: A.Expr, lanes: int, write: bool) -> None:
        ptr = A.unparen(ptr)
        if not (isinstance(ptr, A.Name) and ptr.name in self.params):
            raise _Unknown("memory is reached through a pointer that is not a parameter")
        at = self.offset(index)
        name = ptr.name
        ranges = self.writes if write else self.reads
        ranges.update(merge({name: ranges.get(name, (at, at))}, {name: (at, at + lanes - 1)}))
        if not write and name in self.writes:
            self.late_reads.add(name)

    def offset(self, e: A.Expr) -> int:
        at = index_offset(e, self.var, self.consts)
        if at is None:
            raise _Unknown("an index is not the loop variable plus a constant")
        return at


def index_offset(e: A.Expr, var: str, consts: dict) -> int | None:
    """c for an index `var + c`, `var - c`, `c + var` or `var` (c a literal or
    an integer constant), else None."""
    e = A.unparen(e)
    if isinstance(e, A.Name) and e.name == var:
        return 0
    if isinstance(e, A.Binary) and e.op in ("+", "-"):
        left, right = A.unparen(e.left), A.unparen(e.right)
        if isinstance(left, A.Name) and left.name == var and _integer(right, consts) is not None:
            return _integer(right, consts) * (1 if e.op == "+" else -1)
        if e.op == "+" and isinstance(right, A.Name) and right.name == var and _integer(left, consts) is not None:
            return _integer(left, consts)
    return None


def _integer(e: A.Expr, consts: dict) -> int | None:
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Name) and isinstance(consts.get(e.name), int):
        return consts[e.name]
    return None
