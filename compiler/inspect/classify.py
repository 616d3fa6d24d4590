"""What each machine instruction does: vector or scalar, loads and stores
(with their sizes), FMA, vector width and element type, registers,
branches. One classifier per instruction-set syntax."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .asm import Instr


@dataclass
class Info:
    vector: bool = False
    width: int = 0  # widest vector register operand, bits
    elem: str | None = None  # element type guessed from the mnemonic
    fma: bool = False
    loads: int = 0
    stores: int = 0
    load_bytes: int = 0
    store_bytes: int = 0
    flops: int = 0  # arithmetic operations: floating point (an FMA lane counts 2) and VNNI multiply-adds
    regs: set[str] = field(default_factory=set)
    branch_to: str | None = None
    gather: bool = False
    scatter: bool = False
    spill: bool = False
    call: str | None = None  # the function a call instruction calls (`expf`), else None


# ---- x86 (AT&T: the destination is the last operand) ------------------------

_X86_VREG = re.compile(r"%([xyz]mm\d+)")
_X86_WIDTH = {"x": 128, "y": 256, "z": 512}
_X86_SCALAR_FP = re.compile(r"(ss|sd|sh)$")
_X86_ARITH_FP = re.compile(r"^v?(add|sub|mul|div|min|max|sqrt|fmadd|fmsub|fnmadd|fnmsub)\w*(ps|pd|ss|sd)$")
_X86_INT_SIZE = {"b": 1, "w": 2, "l": 4, "q": 8}
X86_ZERO_IDIOMS = ("vxorps", "vxorpd", "vpxor", "vpxord", "vpxorq", "xorps", "xorpd", "pxor")
_X86_WIDENING = re.compile(r"^v?pmov[sz]x([bwd][wdq])$")
_X86_LANE_BYTES = {"b": 1, "w": 2, "d": 4, "q": 8}
_X86_COMPARES = ("cmp", "test", "vcmp", "vptest", "vucomi", "ucomi", "vcomi", "comi", "bt")
# VNNI dot products: multiply-adds per i32 lane (vpdpbusd: 4 u8*i8, vpdpwssd:
# 2 i16*i16; the saturating `s` forms alike), each counted like an FMA lane.
_X86_VNNI_MACS = {"vpdpbusd": 4, "vpdpbusds": 4, "vpdpwssd": 2, "vpdpwssds": 2}
# Integer multiply-adds without an accumulator: (lane bits of the result, multiply-adds per lane).
# pmaddubsw: u8*i8 pairs into i16; pmaddwd: i16*i16 pairs into i32; vpmadd52: one 52-bit product per i64.
_X86_INT_MADDS = {"pmaddubsw": (16, 2), "vpmaddubsw": (16, 2), "pmaddwd": (32, 2), "vpmaddwd": (32, 2),
                  "vpmadd52luq": (64, 1), "vpmadd52huq": (64, 1)}
_X86_MOVES = ("mov", "vmov", "movnt", "vmovnt", "vextract", "vpextr", "pextr", "vcvtps2ph", "vpmov",
              "vscatter", "vpscatter", "push")


def _x86_elem(m: str) -> str | None:
    if m.endswith(("ps", "ss")) or "ps" in m[-4:]:
        return "f32"
    if m.endswith(("pd", "sd")):
        return "f64"
    if m.startswith("vp") or m.startswith("p"):
        tail = m[-1]
        return {"b": "i8", "w": "i16", "d": "i32", "q": "i64"}.get(tail, "i32")
    if "dq" in m:
        return "i32"
    return None


def classify_x86(ins: Instr) -> Info:
    m = ins.mnemonic
    info = Info()
    vregs = [r for op in ins.operands for r in _X86_VREG.findall(op)]
    info.regs = set(vregs)
    if m.startswith("j"):
        info.branch_to = ins.operands[0] if ins.operands else None
        return info
    if m.startswith("call"):
        info.call = callee_name(ins.operands[0] if ins.operands else "?")
        return info
    macs = _X86_VNNI_MACS.get(m, 0)
    # vpdpbusd, vpdpwssd end in `sd` but are vector integer instructions
    scalar_fp = bool(_X86_SCALAR_FP.search(m)) and not m.startswith("vbroadcast") and not macs
    zeroing = m in X86_ZERO_IDIOMS and len(set(ins.operands)) == 1  # vxorps %x, %x, %x clears a register
    if vregs and not scalar_fp and not zeroing and m not in ("vmovd", "vmovq", "movd", "movq"):
        info.vector = True
        info.width = max(_X86_WIDTH[r[0]] for r in vregs)
        info.elem = _x86_elem(m)
    info.fma = macs > 0 or m.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub"))
    info.gather = "gather" in m
    info.scatter = "scatter" in m
    # A vector register stored to or loaded from the stack frame is a spill.
    info.spill = bool(vregs) and any("(%rsp)" in op or "(%rbp)" in op for op in ins.operands)
    mems = [k for k, op in enumerate(ins.operands) if "(" in op and not op.startswith("$")]
    if mems and not m.startswith(("lea", "nop", "prefetch")):
        size = _x86_access_size(m, ins, info)
        last = len(ins.operands) - 1
        compare = m.startswith(_X86_COMPARES)
        # AT&T: a memory destination is written; moves only write it, other
        # instructions (add $1, (mem)) read it too; any other memory operand is read.
        writes = last in mems and not compare
        reads = compare or any(k != last for k in mems) or (writes and not m.startswith(_X86_MOVES))
        if writes or info.scatter:
            info.stores, info.store_bytes = 1, size
        if reads:
            info.loads, info.load_bytes = 1, size
    if info.gather:
        info.loads, info.load_bytes = 1, info.width // 8
    fp = _X86_ARITH_FP.match(m)
    if macs:
        info.flops = max(info.width, 128) // 32 * macs * 2
    elif m in _X86_INT_MADDS:
        bits, per_lane = _X86_INT_MADDS[m]
        info.flops = max(info.width, 128) // bits * per_lane * 2
    elif fp:
        lanes = max(info.width, 128) // (32 if fp.group(2) in ("ps", "ss") else 64) if info.vector else 1
        info.flops = lanes * (2 if info.fma else 1)
    return info


def _x86_access_size(m: str, ins: Instr, info: Info) -> int:
    if info.vector:
        if m.startswith(("vbroadcast", "vpbroadcast")):
            return {"b": 1, "w": 2, "d": 4, "q": 8, "s": 4}.get(m[-1], 4) if not m.endswith("sd") else 8
        widen = _X86_WIDENING.match(m)
        if widen:  # vpmovzxbd: reads a quarter of the destination's bytes
            src, dst = (_X86_LANE_BYTES[c] for c in widen.group(1))
            return max(info.width, 128) // 8 * src // dst
        if m.startswith(("vinsertps", "insertps")):
            return 4
        if m.startswith("vcvtph2ps"):
            return max(info.width, 128) // 16
        return max(info.width, 128) // 8
    if _X86_SCALAR_FP.search(m):
        return 8 if m.endswith("sd") else 4
    if m.startswith("movz") or m.startswith("movs"):
        return _X86_INT_SIZE.get(m[4:5], 4)
    return _X86_INT_SIZE.get(m[-1], 8)


# ---- AArch64 ----------------------------------------------------------------

_ARM_VEC = re.compile(r"\bv(\d+)\.(\d*)([bhsd])\b")
_ARM_QREG = re.compile(r"\bq(\d+)\b")
_ARM_DREG = re.compile(r"\bd(\d+)\b")
_ARM_ELEM_BITS = {"b": 8, "h": 16, "s": 32, "d": 64}
_ARM_SIZE = {"q": 16, "d": 8, "s": 4, "h": 2, "b": 1, "x": 8, "w": 4}
# Integer multiply-adds: products accumulated per result lane (sdot: four u8/i8 products per i32 lane).
_ARM_INT_MADDS = {"sdot": 4, "udot": 4, "usdot": 4, "sudot": 4, "smmla": 8, "ummla": 8, "usmmla": 8, "mla": 1,
                  "mls": 1, "smlal": 1, "umlal": 1, "smlal2": 1, "umlal2": 1, "smlsl": 1, "umlsl": 1}
_ARM_FLOAT_OPS = ("fadd", "fsub", "fmul", "fdiv", "fmax", "fmin", "fsqrt", "fmla", "fmls", "fmadd",
                  "fmsub", "fnmadd", "fnmsub", "faddp", "fmaxnm", "fminnm")


def classify_arm(ins: Instr) -> Info:
    m = ins.mnemonic
    info = Info()
    ops = ", ".join(ins.operands)
    if m == "b" or m.startswith("b.") or m in ("cbz", "cbnz", "tbz", "tbnz"):
        info.branch_to = ins.operands[-1] if ins.operands else None
        return info
    if m in ("bl", "blr"):
        info.call = callee_name(ins.operands[0] if ins.operands else "?")
        return info
    lanes = _ARM_VEC.findall(ops)
    qregs = _ARM_QREG.findall(ops)
    info.regs = {f"v{n}" for n, _, _ in lanes} | {f"q{n}" for n in qregs}
    if lanes or qregs:
        info.vector = True
        width = 0
        for _, count, kind in lanes:
            if count:
                width = max(width, int(count) * _ARM_ELEM_BITS[kind])
        info.width = width or 128
        if lanes and lanes[0][1]:
            bits = _ARM_ELEM_BITS[lanes[0][2]]
            info.elem = (f"f{bits}" if m.startswith("f") else f"i{bits}")
    info.fma = m in ("fmla", "fmls", "fmadd", "fmsub", "fnmadd", "fnmsub")
    info.spill = bool(info.regs) and "[sp" in ops
    if "[" in ops:
        size = _arm_size(ins)
        pair = 2 if m in ("ldp", "stp", "ldnp", "stnp") else 1
        if m.startswith(("ld", "prfm")) and not m.startswith("prfm"):
            info.loads, info.load_bytes = 1, size * pair
        elif m.startswith("st"):
            info.stores, info.store_bytes = 1, size * pair
    if m in _ARM_FLOAT_OPS:
        count = (info.width // int(_ARM_ELEM_BITS[lanes[0][2]])) if lanes and lanes[0][1] else 1
        info.flops = count * (2 if info.fma else 1)
    elif m in _ARM_INT_MADDS and lanes and lanes[0][1]:
        info.flops = int(lanes[0][1]) * _ARM_INT_MADDS[m] * 2  # per result lane, like an FMA lane
    return info


def _arm_size(ins: Instr) -> int:
    first = ins.operands[0] if ins.operands else ""
    if first.startswith("{"):  # ld1 {v0.4s, ...}
        regs = _ARM_VEC.findall(first)
        return sum(int(c or 1) * _ARM_ELEM_BITS[k] // 8 for _, c, k in regs) or 16
    return _ARM_SIZE.get(first[:1], 8)


def callee_name(operand: str) -> str:
    """`expf` of `expf@PLT`, `*%rax` of an indirect call."""
    return operand.split("@")[0]


def classifier(arm: bool):
    return classify_arm if arm else classify_x86
