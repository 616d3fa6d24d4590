"""Loop-carried dependency chains through vector registers.

A loop that folds every element into one accumulator (`best = max(best, v)`)
cannot start an iteration's max before the previous one has finished: it
runs at one chain latency per iteration however fast memory is. For each
vector (or mask) register the loop writes, follow its value from the top of
the iteration through the instructions that consume it, in program order,
adding each instruction's latency; if the path comes back to the same
register, that is a carried chain and its length bounds the iteration from
below. General-purpose registers (counters, pointers: one-cycle adds) are
left out.

Latencies are round figures for current x86 and Arm cores (cycles): FP add,
multiply, FMA, min/max, compare and convert 4; divide and square root 12;
integer multiply and dot products 5; cross-lane shuffles 3; other vector
integer, logic, blend and masked moves 1 (2 on AArch64); register moves 0.
"""
from __future__ import annotations

import re

from .asm import Instr
from .classify import X86_ZERO_IDIOMS

_X86_REG = re.compile(r"%(?:([xyz])mm(\d+)|k(\d))")
_X86_FP = re.compile(r"^v?(add|sub|mul|min|max|fmadd|fmsub|fnmadd|fnmsub|cmp|hadd|hsub|dp|round|rcp|rsqrt|cvt)")
_X86_SLOW = re.compile(r"^v?(div|sqrt)")
_X86_IMUL = re.compile(r"^v?(pmul|pmadd|pdp)")
_X86_CROSS = re.compile(r"^v?(perm|extract|insert|broadcast|pbroadcast|shuf[if]|compress|expand|gather|pack)")
_X86_READS_DEST = re.compile(r"^v?(fn?madd|fn?msub|pdpb|pdpw|pternlog|pmadd52)")
_X86_NO_DEST = ("cmp", "test", "ucomi", "comi", "ptest", "vptest", "vucomi", "vcomi", "j", "prefetch")

_ARM_REG = re.compile(r"\b[vqdsh](\d+)\b")
_ARM_FP = ("fadd", "fsub", "fmul", "fmla", "fmls", "fmax", "fmin", "fmaxnm", "fminnm", "fmadd", "fmsub",
           "fnmadd", "fnmsub", "faddp", "fcmeq", "fcmgt", "fcmge", "fcvt", "scvtf", "ucvtf", "fcvtzs", "fcvtzu")
_ARM_SLOW = ("fdiv", "fsqrt")
_ARM_IMUL = ("mul", "mla", "mls", "sdot", "udot", "smull", "umull", "smlal", "umlal", "smmla", "ummla")
_ARM_READS_DEST = ("fmla", "fmls", "mla", "mls", "sdot", "udot", "smlal", "umlal", "smmla", "ummla", "usmmla",
                   "bsl", "bit", "bif", "ins", "sadalp", "uadalp")


def _x86_operands(ins: Instr) -> tuple[list[str], str | None]:
    """(source registers, destination register); registers named v<N> / k<N>."""
    m = ins.mnemonic
    ops = ins.operands
    regs = []
    for op in ops:
        if "(" in op:  # a memory operand: its registers form an address, not data
            regs.append([])
            continue
        regs.append([f"v{num}" if num else f"k{k}" for _, num, k in _X86_REG.findall(op)])
    if not ops or m.startswith(_X86_NO_DEST) or "(" in ops[-1] or not regs[-1]:
        return [r for rs in regs for r in rs], None
    dest = regs[-1][0]
    srcs = [r for rs in regs[:-1] for r in rs] + regs[-1][1:]  # {%k1} on the destination is read
    if m in X86_ZERO_IDIOMS and len(set(ops)) == 1:
        return [], dest  # zeroing idiom: no input
    merges = "{%k" in ops[-1] and "{z}" not in ops[-1]
    two_operand = not m.startswith("v") and len(ops) == 2 and not m.startswith("mov")
    if merges or two_operand or _X86_READS_DEST.match(m):
        srcs.append(dest)
    return srcs, dest


def _x86_latency(ins: Instr, srcs: list[str]) -> int:
    m = ins.mnemonic
    if _X86_SLOW.match(m):
        return 12
    if _X86_FP.match(m) and not m.startswith(("vpcmp", "pcmp")):
        return 4
    if _X86_IMUL.match(m):
        return 5
    if _X86_CROSS.match(m):
        return 3
    if m.startswith(("vmov", "mov")) and len(srcs) <= 1 and "{%k" not in ins.operands[-1]:
        return 0
    return 1


def _arm_operands(ins: Instr) -> tuple[list[str], str | None]:
    m = ins.mnemonic
    ops = ins.operands
    if not ops or m.startswith(("st", "cmp", "fcmp", "b", "prfm", "tst")):
        return [], None
    first = _ARM_REG.findall(ops[0])
    if not first:
        return [], None
    dest = f"v{first[0]}"
    if m.startswith("ld"):  # a value from memory: depends on no register
        return [], dest
    srcs = [f"v{n}" for op in ops[1:] if "[" not in op for n in _ARM_REG.findall(op)]
    if m in _ARM_READS_DEST:
        srcs.append(dest)
    return srcs, dest


def _arm_latency(ins: Instr, srcs: list[str]) -> int:
    m = ins.mnemonic
    if m in _ARM_SLOW:
        return 12
    if m in _ARM_FP:
        return 4
    if m in _ARM_IMUL:
        return 5
    if m == "mov" and len(srcs) <= 1:
        return 0
    return 2


def carried_chain(body: list[Instr], arm: bool) -> tuple[int, str | None]:
    """The longest chain (cycles per iteration) and a description such as
    `ymm0: vmaxps -> vmovaps`, or (0, None) when no vector value is carried."""
    operands = _arm_operands if arm else _x86_operands
    latency = _arm_latency if arm else _x86_latency
    steps = []
    for ins in body:
        srcs, dest = operands(ins)
        if dest is not None:
            steps.append((ins, srcs, dest, latency(ins, srcs)))
    best, where = 0, None
    for reg in dict.fromkeys(dest for _, _, dest, _ in steps):  # program order: the same report every run
        dist: dict[str, tuple[int, list[str]]] = {reg: (0, [])}
        for ins, srcs, dest, lat in steps:
            feeding = [dist[s] for s in srcs if s in dist]
            if feeding:
                # among equals, the register's own value (appended last) names the chain
                cycles, path = max(reversed(feeding), key=lambda d: d[0])
                dist[dest] = (cycles + lat, path + [ins.mnemonic] if lat else path)
            else:
                dist.pop(dest, None)  # overwritten by a value that does not depend on reg
        cycles, path = dist.get(reg, (0, []))
        if cycles > best:
            best, where = cycles, f"{_name(reg, body, arm)}: {' -> '.join(path)}"
    return best, where


def _name(reg: str, body: list[Instr], arm: bool) -> str:
    """The register as the listing spells it (widest use in the loop)."""
    if arm or reg.startswith("k"):
        return reg if not reg.startswith("k") else f"k{reg[1:]}"
    n = reg[1:]
    for cls in "zyx":
        if any(f"%{cls}mm{n}" in op for ins in body for op in ins.operands):
            return f"{cls}mm{n}"
    return f"xmm{n}"
