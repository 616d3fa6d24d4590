"""Which pointer argument each base register of a loop's addresses comes
from (x86-64 System V): a forward data flow over the function's blocks from
the arguments, following copies (`mov`), address arithmetic (`lea` keeps its
base's argument), pointer increments (`add`/`sub`) and the stack slots a
register is kept in. Any other write, or paths that disagree, make a
register's origin unknown.

Traffic (traffic.py) uses it to see a 2-D stencil's rows: loads through
`img + (y-1)*w`, `img + y*w`, `img + (y+1)*w` are three streams of one
array, and beyond L1 only the leading row is new (the others were read by
the previous rows and are still in cache)."""
from __future__ import annotations

import re

from ..asm import AsmFunction
from ..classify import Info

ARGUMENTS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
_KEEPS = ("add", "sub")  # pointer + offset: the same array
_STACK = re.compile(r"^-?\w*\(%rsp\)$")
_LEGACY = {"ax": "rax", "bx": "rbx", "cx": "rcx", "dx": "rdx", "si": "rsi", "di": "rdi", "bp": "rbp", "sp": "rsp"}


def _gpr(op: str) -> tuple[str, bool] | None:
    """(64-bit name, whether `op` is that 64-bit register) of a general register operand:
    `%rdi` -> ("rdi", True), `%edx` -> ("rdx", False), `%r8d` -> ("r8", False)."""
    m = re.fullmatch(r"%(\w+)", op.strip())
    if not m:
        return None
    name = m.group(1)
    if re.fullmatch(r"r\d+", name) or name[1:] in _LEGACY and name[0] == "r":
        return name, True
    if re.fullmatch(r"r\d+[dwb]", name):
        return name[:-1], False
    for short, full in _LEGACY.items():
        if name in (f"e{short}", short, f"{short[0]}l" if short[1] == "x" else f"{short}l"):
            return full, False
    return None


def _reg64(op: str) -> str | None:
    found = _gpr(op)
    return found[0] if found and found[1] else None


def _lea_base(op: str) -> str | None:
    m = re.match(r"^[^(]*\((%\w+)", op.strip())
    return _reg64(m.group(1)) if m else None


def origins(fn: AsmFunction, infos: list[Info], header: int) -> dict[str, str]:
    """Register -> the argument register it points into, on entry to the block starting at
    instruction `header` (a loop's header), for the registers whose origin every path agrees on."""
    from ..cfg import _blocks
    blocks, succs = _blocks(fn, infos, False)
    entry: dict[int, dict] = {0: {a: a for a in ARGUMENTS}}
    work = [0]
    while work:
        k = work.pop()
        state = _through(fn, blocks[k], entry[k])
        for nxt in succs[k]:
            before = entry.get(nxt)
            merged = state if before is None else {r: a for r, a in before.items() if state.get(r) == a}
            if merged != before:
                entry[nxt] = merged
                work.append(nxt)
    at = next((k for k, (s, _) in enumerate(blocks) if s == header), None)
    return dict(entry.get(at, {})) if at is not None else {}


def _through(fn: AsmFunction, block: tuple[int, int], state: dict) -> dict:
    """The origins after the block's instructions, from those on entry (stack slots by name)."""
    where = dict(state)
    for ins in fn.instrs[block[0]: block[1] + 1]:
        m, ops = ins.mnemonic, ins.operands
        if not ops or m.startswith(("cmp", "test", "push", "j", "inc", "dec")):
            continue  # no register written, or a pointer stepped
        src, dst = ops[0].strip(), ops[-1].strip()
        written = _gpr(dst)
        reg = written[0] if written and written[1] else None
        if m == "movq" and reg and _STACK.match(src):
            where[reg] = where.get(src)
        elif m == "movq" and _STACK.match(dst):
            where[dst] = where.get(_reg64(src) or "")
        elif written and not reg:
            where[written[0]] = None  # a 32-bit or narrower write: a count, not a pointer
        elif reg is None:
            continue
        elif len(ops) != 2:
            where[reg] = None
        elif m == "movq":
            where[reg] = where.get(_reg64(src) or "")
        elif m == "leaq":
            where[reg] = where.get(_lea_base(src) or "")
        elif not m.startswith(_KEEPS) or not m.endswith("q"):
            where[reg] = None
    return {r: a for r, a in where.items() if a}


def advanced_by_parent(fn: AsmFunction, lp, loops: list) -> frozenset[str]:
    """The 64-bit registers the loop enclosing `lp` writes in its own body (not in the loops
    nested in it): a stream based on one walks to new data every iteration of that loop (matmul
    ikj's row of B, k by k), one based on another register is reused (the row of C)."""
    inside = set(lp.instrs)
    parents = [o for o in loops if o is not lp and inside < set(o.instrs)]
    if not parents:
        return frozenset()
    parent = min(parents, key=lambda o: len(o.instrs))
    nested = set().union(*(o.instrs for o in loops if o is not parent and set(o.instrs) < set(parent.instrs)))
    out = set()
    for i in parent.instrs:
        ins = fn.instrs[i]
        if i in nested or not ins.operands or ins.mnemonic.startswith(("cmp", "test", "j", "push")):
            continue
        reg = _reg64(ins.operands[-1])
        if reg:
            out.add(reg)
    return frozenset(out)
