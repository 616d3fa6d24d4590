"""One loop body as llvm-mca input, with the destination of each move from a
vector register to an integer one renamed to a register the body does not use.

llvm-mca 16's Zen models (znver3, znver4) make the next write of that integer
register wait for the move, as if the write depended on it. LLVM reuses the
register at once: stream_store's 4-byte piece at 4 mod 16 is `vextractps $3,
%xmm1, %r10d; movntil %r10d, ...` and the loop's `leaq 4(%r9), %r10` follows.
blur3 with that store: the simulation said 19.1 cycles an iteration (the
chain through the loads and adds of the next iteration), 3.9 with the move
renamed, measured 3.8. Renaming a value's live range does not change what the
code computes, so it is done for every x86 model; a value still live at the
top of the next iteration (read there before a write) is left as it is."""
from __future__ import annotations

import re

from ..asm import split_instruction

_GPRS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
_LEGACY = {"rax": ("eax", "ax", "al"), "rbx": ("ebx", "bx", "bl"), "rcx": ("ecx", "cx", "cl"),
           "rdx": ("edx", "dx", "dl"), "rsi": ("esi", "si", "sil"), "rdi": ("edi", "di", "dil"),
           "rbp": ("ebp", "bp", "bpl")}


def _aliases(reg: str) -> tuple[str, str, str, str]:
    """(64, 32, 16, 8-bit) names of one general-purpose register."""
    return (reg, *_LEGACY[reg]) if reg in _LEGACY else (reg, f"{reg}d", f"{reg}w", f"{reg}b")


GPR_OF = {name: reg for reg in _GPRS for name in _aliases(reg)}
_REG = re.compile(r"%([a-z0-9]+)\b")
PURE_WRITE = ("mov", "lea", "vmov", "vpextr", "vextract", "cvt", "vcvt", "pop")  # mnemonics that only write their destination
_WHOLE = {name for reg in _GPRS for name in _aliases(reg)[:2]}  # a 32-bit write clears the upper half; 8/16 merge


def _regs(text: str) -> set[str]:
    return {GPR_OF[m] for m in _REG.findall(text) if m in GPR_OF}


def _swap(text: str, old: str, new: str) -> str:
    table = dict(zip(_aliases(old), _aliases(new)))
    return _REG.sub(lambda m: f"%{table.get(m.group(1), m.group(1))}", text)


def renamed(body: list[tuple[str, list[str]]], moves: list[bool]) -> list[str]:
    """The texts of `body` ((mnemonic, operands) in AT&T order, destination last) with each
    move's destination (`moves[k]`) renamed up to the next write of that register."""
    texts = [f"{m} {', '.join(ops)}".strip() for m, ops in body]
    used = set().union(*map(_regs, texts)) if texts else set()
    free = [r for r in _GPRS if r not in used]
    for k, (mnemonic, operands) in enumerate(body):
        dest = _REG.fullmatch(operands[-1]) if moves[k] and operands else None
        reg = GPR_OF.get(dest.group(1)) if dest else None
        if reg is None or not free:
            continue
        end = next((j for j in range(k + 1, len(body)) if _pure_write(*split_instruction(texts[j]), reg)), None)
        if end is None and _live_at_top(body, reg, k):
            continue  # the move's value comes round the back edge
        new = free.pop(0)
        for j in range(k, len(body) if end is None else end):
            texts[j] = _swap(texts[j], reg, new)  # the move, then reads (or reads and writes: addq %r8, %r10)
        if end is not None:  # a new value: its sources may still read the move's
            m, ops = split_instruction(texts[end])
            if len(ops) > 1:
                texts[end] = f"{m} {_swap(', '.join(ops[:-1]), reg, new)}, {ops[-1]}"
    return texts


def _live_at_top(body: list[tuple[str, list[str]]], reg: str, until: int) -> bool:
    """Whether the iteration reads `reg` before writing it (its value comes round the back edge)."""
    for m, ops in body[:until]:
        text = ", ".join(ops)
        if reg not in _regs(text):
            continue
        return reg in _regs(", ".join(ops[:-1])) or not _pure_write(m, ops, reg)
    return False


def _pure_write(mnemonic: str, operands: list[str], reg: str) -> bool:
    """Whether the instruction gives `reg` a value that does not depend on its old one (bar its sources)."""
    dest = operands[-1].lstrip("%") if operands else ""
    return dest in _WHOLE and GPR_OF[dest] == reg and mnemonic.startswith(PURE_WRITE)
