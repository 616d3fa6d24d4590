"""Natural loops of a function's machine code.

Basic blocks from labels and branches, dominators by the iterative data-flow
algorithm (over the blocks reachable from the entry), back edges u -> h where
h dominates u, and each loop's body: h and every block that reaches u without
passing h. (A jump backwards from a block LLVM placed after a loop, e.g. a
preheader, is not a back edge.) An indirect jump through a jump table (a
switch, such as stream_store's test of the address) goes to the table's
targets."""
from __future__ import annotations

from dataclasses import dataclass, field

from .asm import AsmFunction
from .classify import Info

_X86_NO_FALLTHROUGH = ("jmp", "jmpq", "ret", "retq", "ud2")
_ARM_NO_FALLTHROUGH = ("b", "ret", "br", "brk")


@dataclass
class Loop:
    header: int  # index of the header's first instruction
    instrs: list[int]  # indices of every instruction in the loop, sorted
    latch: int  # index of the back-edge branch
    depth: int = 0
    path: list[int] = field(default_factory=list)  # one iteration as LLVM laid it out (likely path)


def _blocks(fn: AsmFunction, infos: list[Info], arm: bool) -> tuple[list[tuple[int, int]], list[list[int]]]:
    starts = {0} | set(fn.labels.values())
    for ins, info in zip(fn.instrs, infos):
        if info.branch_to is not None or ins.mnemonic in (_ARM_NO_FALLTHROUGH if arm else _X86_NO_FALLTHROUGH):
            starts.add(ins.index + 1)
    starts = sorted(s for s in starts if s < len(fn.instrs))
    blocks = [(s, (starts[k + 1] if k + 1 < len(starts) else len(fn.instrs)) - 1) for k, s in enumerate(starts)]
    block_of = {s: k for k, (s, _) in enumerate(blocks)}
    succs: list[list[int]] = []
    for k, (s, e) in enumerate(blocks):
        last, info = fn.instrs[e], infos[e]
        out = []
        if info.branch_to in fn.labels and fn.labels[info.branch_to] in block_of:
            out.append(block_of[fn.labels[info.branch_to]])
        elif _indirect(last, arm):
            out.extend(block_of[fn.labels[t]] for t in _table_targets(fn, e + 1)
                       if t in fn.labels and fn.labels[t] in block_of)
        stops = last.mnemonic in (_ARM_NO_FALLTHROUGH if arm else _X86_NO_FALLTHROUGH)
        if not stops and k + 1 < len(blocks):
            out.append(k + 1)
        succs.append(out)
    return blocks, succs


def _indirect(ins, arm: bool) -> bool:
    if arm:
        return ins.mnemonic == "br"
    return ins.mnemonic in ("jmp", "jmpq") and bool(ins.operands) and ins.operands[0].startswith("*")


def _table_targets(fn: AsmFunction, after: int) -> list[str]:
    """The targets of the jump table an indirect jump at `after - 1` uses: the table one of whose
    targets LLVM placed right after the jump, or every table of the function when none is."""
    here = {name for name, at in fn.labels.items() if at == after}
    for targets in fn.jump_tables.values():
        if here & set(targets):
            return targets
    return [t for targets in fn.jump_tables.values() for t in targets]


def _likely_path(h: int, body: set[int], blocks, succs) -> list[int]:
    """Blocks of one iteration along the layout LLVM chose: from the header,
    the fall-through successor while it stays in the loop, else the branch
    target, until the header comes round again. LLVM places the likely
    successor next, so a cold path (e.g. the misaligned side of a
    stream_store) is left out."""
    path, b, seen = [], h, set()
    while b not in seen:
        seen.add(b)
        path.append(b)
        inside = [s for s in succs[b] if s in body]
        if not inside:
            break
        b = b + 1 if b + 1 in inside else inside[0]
        if b == h:
            break
    return path


def natural_loops(fn: AsmFunction, infos: list[Info], arm: bool) -> list[Loop]:
    if not fn.instrs:
        return []
    blocks, succs = _blocks(fn, infos, arm)
    n = len(blocks)
    preds: list[list[int]] = [[] for _ in range(n)]
    for b, ss in enumerate(succs):
        for s in ss:
            preds[s].append(b)
    reachable, stack = {0}, [0]
    while stack:
        for s in succs[stack.pop()]:
            if s not in reachable:
                reachable.add(s)
                stack.append(s)
    # a block no path reaches (a target of a jump this reader did not follow) dominates nothing
    preds = [[p for p in ps if p in reachable] for ps in preds]
    dom = [reachable.copy() if b in reachable else {b} for b in range(n)]
    dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for b in range(1, n):
            if b not in reachable:
                continue
            new = set.intersection(*(dom[p] for p in preds[b])) if preds[b] else set()
            new = new | {b}
            if new != dom[b]:
                dom[b], changed = new, True
    bodies: dict[int, tuple[set[int], int]] = {}
    for u in range(n):
        for h in succs[u]:
            if h in dom[u]:  # back edge u -> h
                body = {h, u}
                stack = [u] if u != h else []  # never walk past the header
                while stack:
                    x = stack.pop()
                    for p in preds[x]:
                        if p not in body:
                            body.add(p)
                            stack.append(p)
                old = bodies.get(h)
                bodies[h] = ((old[0] | body) if old else body, max(u, old[1]) if old else u)
    loops = []
    for h, (body, latch) in sorted(bodies.items()):
        instrs = sorted(i for b in body for i in range(blocks[b][0], blocks[b][1] + 1))
        path = [i for b in _likely_path(h, body, blocks, succs) for i in range(blocks[b][0], blocks[b][1] + 1)]
        loops.append(Loop(blocks[h][0], instrs, blocks[latch][1], path=path))
    for lp in loops:
        members = set(lp.instrs)
        lp.depth = sum(1 for other in loops if other is not lp and lp.header in set(other.instrs)
                       and members <= set(other.instrs))
    return loops
