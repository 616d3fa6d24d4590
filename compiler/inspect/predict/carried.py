"""Register-to-register moves that carry a value round a loop's back edge,
made visible to llvm-mca.

llvm-mca's Zen 3 and Zen 4 models (LLVM 14 and 16) eliminate such a move at
rename and then let the next iteration read its destination at once, without
waiting for the instruction that wrote the move's source:
`vmovups (%rdi), %ymm2; vaddps %ymm1, %ymm2, %ymm2; vmovaps %ymm2, %ymm1`
simulates at 1.0 cycle an iteration, not the addition's 3 (general-purpose
moves lose it the same way; the other x86 models and the AArch64 ones,
neoverse-n1/v1/v2, keep it). LLVM
writes such a move where an accumulator is not its instruction's destination:
a dot product with one accumulator and four fmas an iteration (the first a
`vfmadd132ps` that adds it) simulated at 4.3 cycles, measured 13.3 (Zen 3,
2026-11-27; 16.1 with the chain kept). None of the examples, the predict
kernels or `ea tune`'s variants of them has such a loop.

A loop with such a move is simulated a second time for its chains
(`chain_body`; its ports still come from the body as written): each such move
becomes an op no model eliminates (`vorps %s, %s, %d`, `leaq (%s), %d`), one
cycle long, taken off the simulated time again (`MOVE_CYCLES`: a move the
hardware eliminates costs the chain nothing). A move is carried when its
source is written earlier in the iteration and its destination is read before
it is written (its value is the next iteration's)."""
from __future__ import annotations

import re

from ..asm import split_instruction
from .rename import GPR_OF, PURE_WRITE

MOVE_CYCLES = 1.0  # the replacement's latency in every x86 model

_VECTOR_MOVES = {"vmovaps", "vmovapd", "vmovups", "vmovupd", "vmovdqa", "vmovdqu", "vmovdqa32", "vmovdqa64",
                 "vmovdqu8", "vmovdqu16", "vmovdqu32", "vmovdqu64", "movaps", "movapd", "movups", "movupd",
                 "movdqa", "movdqu"}
_GPR_MOVES = {"movq": "leaq", "movl": "leal"}
_VREG = re.compile(r"%[xyz]mm(\d+)$")
_REG = re.compile(r"%([a-z0-9]+)")
_LOADS = ("vmov", "vbroadcast", "vpbroadcast", "vpmovzx", "vpmovsx", "vgather", "vpgather", "vinsert", "vperm2")
_TIED = ("vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "vpdpbusd", "vpdpwssd", "vpmadd52")


def _name(operand: str) -> str | None:
    """The register an operand names, one name per register (ymm3 and xmm3 are `v3`, eax is rax)."""
    m = _VREG.fullmatch(operand)
    if m:
        return f"v{m.group(1)}"
    plain = operand.lstrip("%")
    return GPR_OF.get(plain) if operand.startswith("%") else None


def _mentioned(operands: list[str]) -> set[str]:
    out = set()
    for op in operands:
        for reg in _REG.findall(op):
            name = _name(f"%{reg}")
            if name:
                out.add(name)
    return out


def _reads_and_writes(mnemonic: str, operands: list[str]) -> tuple[set[str], str | None]:
    """(registers read, register written) by one instruction (AT&T: the destination last). A
    destination is also read by two-operand forms, fmas and dot products, and masked merges."""
    if not operands:
        return set(), None
    dest = _name(operands[-1])
    reads = _mentioned(operands[:-1]) | (_mentioned([operands[-1]]) if dest is None else set())
    if dest is not None:
        pure = (mnemonic.startswith("v") and len(operands) >= 3 and not mnemonic.startswith(_TIED)) or \
            mnemonic.startswith(PURE_WRITE + ("vbroadcast", "vpbroadcast"))
        masked = "{%k" in operands[-1] and "{z}" not in operands[-1]
        if not pure or masked:
            reads.add(dest)
    return reads, dest


def carried_moves(texts: list[str]) -> list[int]:
    """The positions of the moves in one iteration's instructions that carry a value round the back edge."""
    parsed = [split_instruction(t) for t in texts]
    effects = [_reads_and_writes(m, ops) for m, ops in parsed]
    out = []
    for k, (mnemonic, operands) in enumerate(parsed):
        if mnemonic not in _VECTOR_MOVES and mnemonic not in _GPR_MOVES or len(operands) != 2:
            continue
        src, dest = _name(operands[0]), _name(operands[1])
        vector = mnemonic in _VECTOR_MOVES
        if src is None or dest is None or src == dest or vector != src.startswith("v") or vector != dest.startswith("v"):
            continue  # not a move between two registers of one file (movq %xmm0, %rax is a transfer)
        if not any(written == src for _, written in effects[:k]):
            continue  # a copy of a value from outside the iteration: no chain through it
        if _read_before_written(effects, dest, k):
            out.append(k)
    return out


def _read_before_written(effects: list[tuple[set[str], str | None]], reg: str, until: int) -> bool:
    for reads, written in effects[:until]:
        if reg in reads:
            return True
        if written == reg:
            return False
    return False


def chain_body(texts: list[str]) -> tuple[list[str], int] | None:
    """The body to time the carried chains by, and how many moves it replaced; None when the
    body has no carried move (llvm-mca's simulation of it stands as it is). Each carried move
    becomes a one-cycle op the models do not eliminate, and each folded load of an instruction
    that also reads a vector register is unfolded into a load of its own: the models read such
    an instruction's register operands only from when it issues, so a chain from an op without
    a load into it paid the load's latency too (`vaddps (%rsi), %ymm1, %ymm0` fed by `vaddps
    %ymm0, %ymm6, %ymm1`: 10 cycles a trip in znver3's simulation, 6 in the hardware's way of
    issuing the load on its own)."""
    moves = carried_moves(texts)
    if not moves:
        return None
    spare = _spare(texts)
    out = []
    for k, text in enumerate(texts):
        mnemonic, operands = split_instruction(text)
        if k in moves:
            src, dest = operands
            out.append(f"{_GPR_MOVES[mnemonic]} (%{GPR_OF[src.lstrip('%')]}), {dest}" if mnemonic in _GPR_MOVES
                       else f"vorps {src}, {src}, {dest}")
            continue
        load = _unfolded(mnemonic, operands, spare)
        if load is None:
            out.append(text)
        else:
            out.extend(load)
    return out, len(moves)


def _spare(texts: list[str]) -> int | None:
    """A vector register number the body does not mention (the unfolded loads' destination)."""
    used = {int(n) for t in texts for n in re.findall(r"%[xyz]mm(\d+)", t)}
    top = 31 if any("%zmm" in t or re.search(r"%[xy]mm(1[6-9]|2\d|3[01])", t) for t in texts) else 15
    return next((r for r in range(top, -1, -1) if r not in used), None)


def _unfolded(mnemonic: str, operands: list[str], spare: int | None) -> list[str] | None:
    """[load, op] for an instruction with a folded load that also reads a vector register."""
    if spare is None or not mnemonic.startswith("v") or mnemonic.startswith(_LOADS) or len(operands) < 3:
        return None
    mem = [k for k, op in enumerate(operands[:-1]) if "(" in op]
    regs = [op for op in operands[:-1] if _VREG.fullmatch(op)]
    if len(mem) != 1 or not regs or "{1to" in operands[mem[0]]:
        return None
    width = regs[0][1]  # x, y or z: the operation's width
    if mnemonic.endswith(("ss", "sd")) and width == "x" and not mnemonic.startswith(("vcvt", "vpack")):
        move = "vmovss" if mnemonic.endswith("ss") else "vmovsd"
    else:
        move = "vmovups"
    reg = f"%{width}mm{spare}"
    ops = list(operands)
    ops[mem[0]] = reg
    return [f"{move} {operands[mem[0]]}, {reg}", f"{mnemonic} {', '.join(ops)}"]
