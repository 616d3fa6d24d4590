"""One function's machine code to a FunctionReport: totals, loops (from
back edges), per-line attribution and per-iteration figures."""
from __future__ import annotations

import re
from collections import Counter

from ..typesys import model as T
from .asm import AsmFunction, Instr
from .cfg import Loop
from .classify import Info
from .latency import carried_chain
from .machine import Machine
from .model import AutoVector, Bottleneck, Counts, FunctionReport, LineReport, LoopReport
from .source import SourceFacts

_ELEM_BYTES = {"f16": 2, "f32": 4, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2,
               "u32": 4, "u64": 8}


def add(c: Counts, info: Info) -> None:
    c.instructions += 1
    if info.vector:
        c.vector += 1
    else:
        c.scalar += 1
    c.loads += info.loads
    c.stores += info.stores
    c.fma += int(info.fma)
    c.bytes_loaded += info.load_bytes
    c.bytes_stored += info.store_bytes
    c.flops += info.flops


_NONTEMPORAL = ("movnt", "vmovnt", "stnp")
_MOVES = ("mov", "vmov", "ldr", "str", "ldp", "stp", "ldur", "stur", "ld1", "st1")


def mix_key(ins: Instr, info: Info) -> str:
    """How a line's instructions are named: data moves by what they do
    (`vector load`), everything else by mnemonic and register class."""
    kind = "vector" if info.vector else "scalar"
    if ins.mnemonic.startswith(_MOVES) and (info.loads or info.stores):
        return f"{kind} {'load' if info.loads else 'store'}"
    if info.vector and info.width:
        return f"{ins.mnemonic} {_reg_class(info)}"
    return ins.mnemonic


def _reg_class(info: Info) -> str:
    if any(r.startswith(("v", "q")) for r in info.regs):
        return "q" if info.width >= 128 else "d"
    return {128: "xmm", 256: "ymm", 512: "zmm"}.get(info.width, "xmm")


def analyse(fn: AsmFunction, infos: list[Info], machine: Machine, loops_found: list[Loop],
            body_lines: range | None = None, facts: SourceFacts | None = None, arm: bool = False,
            versioned: str | None = None) -> FunctionReport:
    """`body_lines`: for a kernel, the lines of its body, which identify the main loop.
    `facts`: the source's vector lines and element types; the vector width
    reported is that of the code written with vector types, and what LLVM
    made of scalar code is reported per loop (`auto_vectorised`).
    `versioned`: code generation made copies of the main loop: per
    alignment of its streaming stores ("nontemporal", compiler/codegen/ntloop.py),
    or also one as written for calls that fit the cache ("plain", ntauto.py)."""
    facts = facts or SourceFacts()
    total = Counts()
    regs: set[str] = set()
    width, user_lines, mnemonic_elems = 0, set(), Counter()
    lines: dict[int, tuple[Counts, Counter]] = {}
    for ins, info in zip(fn.instrs, infos):
        add(total, info)
        regs |= info.regs
        if info.vector and facts.is_vector_line(ins.line):
            written = facts.widest_type([ins.line])
            width = max(width, min(info.width, written.bits) if written else info.width)
            user_lines.add(ins.line)
            if info.elem:
                mnemonic_elems[info.elem] += 1
    written = facts.widest_type(user_lines)
    elem = written.elem.name if written else (mnemonic_elems.most_common(1)[0][0] if mnemonic_elems else None)
    loops, user_vector, all_nontemporal = [], [], []
    for lp in loops_found:
        report, count = _loop(fn, infos, lp, machine, elem, facts, arm)
        loops.append(report)
        user_vector.append(count)
        stores = [fn.instrs[i].mnemonic for i in lp.path if infos[i].stores]
        all_nontemporal.append(bool(stores) and all(m.startswith(_NONTEMPORAL) for m in stores))
    _assign_roles(loops, body_lines, user_vector, all_nontemporal if versioned else None, versioned == "plain")
    for report, nt, lp in zip(loops, all_nontemporal, loops_found):
        report.nontemporal = nt
        report.asm_line = fn.instrs[min(lp.instrs)].asm_line if lp.instrs else None
    # A line's counts are those of the code as one call runs it: not again for each copy of the main loop.
    copied = {i for lp, report in zip(loops_found, loops) if report.role == "copy" for i in lp.instrs}
    for ins, info in zip(fn.instrs, infos):
        line = ins.line if ins.line is not None else _enclosing_header(ins.index, loops_found, fn)
        if line is None or ins.index in copied:
            continue
        counts, mix = lines.setdefault(line, (Counts(), Counter()))
        add(counts, info)
        mix[mix_key(ins, info)] += 1
    auto = [AutoVector(lp.role, lp.first_line, lp.last_line, lp.llvm_vector_bits,
                       _auto_type(fn, infos, found, lp.llvm_vector_bits, facts))
            for lp, found in zip(loops, loops_found) if lp.llvm_vector_bits]
    return FunctionReport(
        name=fn.name, exported=fn.exported, counts=total, width_bits=width,
        width_type=written.name if written else None, loops=loops, registers=sorted(regs), hints=[],
        lines={ln: LineReport(ln, c, dict(m), summarise(c, m)) for ln, (c, m) in sorted(lines.items())},
        auto_vectorised=auto)


def _vectorised(ins: Instr, info: Info) -> bool:
    """A vector load or store on a source line: vectorised code always moves
    data in vectors (register moves and blends of scalars in xmm do not count,
    nor broadcasts of one element, nor spills and reloads through the stack)."""
    return (info.vector and ins.line is not None and bool(info.loads or info.stores) and not info.spill
            and not ins.mnemonic.startswith(("vbroadcast", "vpbroadcast", "ld1r")))


def _auto_type(fn, infos, lp: Loop, bits: int, facts: SourceFacts) -> str | None:
    """`f32x16` for a 512-bit loop LLVM made of scalar f32 code: the element
    type of the memory the widest instructions access, else the mnemonic's."""
    for i in lp.instrs:
        ins, info = fn.instrs[i], infos[i]
        if info.width == bits and _vectorised(ins, info) and not facts.is_vector_line(ins.line):
            elem = facts.access_elem(ins.line)
            name, size = (elem.name, elem.bits // 8) if isinstance(elem, T.Scalar) and elem.bits >= 8 else \
                (info.elem, _ELEM_BYTES.get(info.elem or "", 0))
            if name and size:
                return f"{name}x{bits // (size * 8)}"
    return None


def _enclosing_header(index: int, loops: list[Loop], fn: AsmFunction) -> int | None:
    """Compiler-made code (line 0) belongs to the innermost loop around it."""
    inner = [lp for lp in loops if index in lp.instrs]
    if not inner:
        return None
    return header_line(fn, max(inner, key=lambda lp: lp.depth))


def header_line(fn: AsmFunction, lp: Loop) -> int | None:
    """The loop's header line: where its back edge (loop control) comes from."""
    return next((fn.instrs[i].line for i in reversed(lp.instrs) if fn.instrs[i].line is not None), None)


def _loop(fn, infos, lp: Loop, machine, elem, facts: SourceFacts, arm: bool) -> tuple[LoopReport, int]:
    """The loop's report and how many of its instructions are vector code the
    user wrote. Per-iteration figures follow the likely path (cfg.py); the
    lines span every block of the loop."""
    body = [(fn.instrs[i], infos[i]) for i in lp.instrs]
    hot = [(fn.instrs[i], infos[i]) for i in lp.path]
    per = Counts()
    mix = Counter()
    for ins, info in hot:
        add(per, info)
        mix[mix_key(ins, info)] += 1
    user_vector, llvm_bits = 0, 0
    for ins, info in body:
        if info.vector and facts.is_vector_line(ins.line):
            user_vector += 1
        elif _vectorised(ins, info):
            llvm_bits = max(llvm_bits, info.width)
    src = [ins.line for ins, _ in body if ins.line is not None]
    chain, chain_text = carried_chain([ins for ins, _ in hot], arm)
    calls = Counter(info.call for _, info in hot if info.call)
    spills = sum(info.stores for _, info in hot if info.spill)
    reloads = sum(info.loads for _, info in hot if info.spill)
    # Spills and reloads are stack traffic around calls or register pressure, not the kernel's data.
    moved = sum(info.load_bytes + info.store_bytes for _, info in hot if not info.spill)
    bottleneck = Bottleneck.CALL if calls else machine.classify(per.flops, moved, chain)
    elements = _elements(hot, elem, facts)
    report = LoopReport(role="loop", first_line=min(src, default=None), last_line=max(src, default=None),
                        header_line=header_line(fn, lp), depth=lp.depth, per_iteration=per,
                        elements_per_iteration=elements,
                        bottleneck=bottleneck, mix=dict(mix),
                        cycles=machine.cycles(per.flops, moved, chain), chain=chain_text,
                        llvm_vector_bits=llvm_bits, calls=dict(calls), spills=spills, reloads=reloads,
                        kernel_bytes=moved, elements_any=elements or _elements(hot, elem, facts, scalar=True))
    return report, user_vector


_X86_MEM = re.compile(r"\(%(\w+)(?:,%(\w+)(?:,(\d))?)?\)")
_ARM_POST = re.compile(r"\[(\w+)\],\s*#(\d+)")
_ARM_BASE = re.compile(r"\[(\w+)(?:,[^\]]*)?\]")
_ARM_INDEX = re.compile(r"\[\w+,\s*(x\d+)(?:,\s*lsl #(\d+))?\]")


def _elements(body, fallback_elem: str | None, facts: SourceFacts, scalar: bool = False) -> int | None:
    """Elements per iteration, from the step of the registers that address
    vector memory operands (index register x scale, or pointer bump), in
    elements of the array the source line accesses (`vmovdqu` of a u8 array
    moves 16 elements, not 4); without one, the mnemonic's element type, else
    the function's (plain register loads like `ldr q1` have none). With
    `scalar`, scalar loads and stores count too (not those of the stack frame)."""
    steps = register_steps(body)
    best = None
    for ins, info in body:
        if not (info.vector or scalar) or not (info.loads or info.stores) or info.spill:
            continue
        accessed = facts.access_elem(ins.line)
        if isinstance(accessed, T.Scalar) and accessed.bits >= 8:
            size = accessed.bits // 8
        elif info.elem or fallback_elem:
            size = _ELEM_BYTES[info.elem or fallback_elem]
        else:
            continue
        text = ", ".join(ins.operands)
        for base, index, scale in _X86_MEM.findall(text):
            if index and index in steps:
                bytes_ = steps[index] * int(scale or 1)
            elif base in steps:
                bytes_ = steps[base]
            else:
                continue
            best = max(best or 0, abs(bytes_) // size)
        for reg in _ARM_BASE.findall(text):
            if reg in steps:
                best = max(best or 0, abs(steps[reg]) // size)
        for reg, shift in _ARM_INDEX.findall(text):  # [x0, x9] or [x0, x9, lsl #2]
            if reg in steps:
                best = max(best or 0, abs(steps[reg]) * (1 << int(shift or 0)) // size)
    return best


_GPR32 = {"eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx", "esi": "rsi", "edi": "rdi", "ebp": "rbp"}
_X86_LEA = re.compile(r"^(-?\d*)\(%(\w+)\)$")
_X86_NO_WRITE = ("cmp", "test", "bt", "j", "push", "prefetch", "nop")


def _gpr(op: str) -> str | None:
    """A general-purpose register by its 64-bit name (%r9d -> r9, w8 -> x8), else None."""
    name = op.lstrip("%")
    if name in _GPR32:
        return _GPR32[name]
    if re.fullmatch(r"r(ax|bx|cx|dx|si|di|bp|\d+)", name):
        return name
    if re.fullmatch(r"r\d+[dwb]", name):
        return name[:-1]
    if re.fullmatch(r"[xw]\d+", name):
        return "x" + name[1:]
    return None


def register_steps(body) -> dict[str, int]:
    """How far each register advances per iteration: its value at the back
    edge as (its value at the top + a constant), followed through additions
    of immediates, inc/dec, lea, register moves and AArch64 post-indexed
    addressing (LLVM often counts with a copy: `leaq 16(%r9), %r10; addq $32,
    %r9; ...; movq %r10, %r9` advances r9 by 16)."""
    val: dict[str, tuple[str, int] | None] = {}

    def get(r):
        return val.get(r, (r, 0))

    def shift(dst, src, by):
        o = get(src)
        val[dst] = (o[0], o[1] + by) if o else None

    for ins, _ in body:
        m, ops = ins.mnemonic, ins.operands
        try:
            if m[:3] in ("add", "sub") and len(ops) == 2 and ops[0].startswith("$") and _gpr(ops[1]):
                shift(_gpr(ops[1]), _gpr(ops[1]), int(ops[0][1:], 0) * (-1 if m.startswith("sub") else 1))
            elif m[:3] in ("inc", "dec") and len(ops) == 1 and _gpr(ops[0]):
                shift(_gpr(ops[0]), _gpr(ops[0]), -1 if m.startswith("dec") else 1)
            elif m in ("leaq", "leal") and len(ops) == 2 and _X86_LEA.match(ops[0]) and _gpr(ops[1]):
                imm, src = _X86_LEA.match(ops[0]).groups()
                shift(_gpr(ops[1]), _gpr(src), int(imm or 0))
            elif m in ("movq", "movl", "mov") and len(ops) == 2 and _gpr(ops[0]) and _gpr(ops[1]):
                dst, src = (ops[1], ops[0]) if ops[0].startswith("%") else (ops[0], ops[1])
                val[_gpr(dst)] = get(_gpr(src))
            elif m in ("add", "sub", "adds", "subs") and len(ops) == 3 and ops[2].startswith("#") and _gpr(ops[0]):
                shift(_gpr(ops[0]), _gpr(ops[1]), int(ops[2][1:], 0) * (-1 if m.startswith("sub") else 1))
            elif _ARM_POST.search(", ".join(ops)):  # ldr q1, [x11], #16
                base, bump = _ARM_POST.search(", ".join(ops)).groups()
                shift(base, base, int(bump))
            elif ops and not m.startswith(_X86_NO_WRITE + ("st", "cb", "tb", "b")):
                x86 = any(op.startswith(("%", "$")) or "(%" in op for op in ops)
                dst = _gpr(ops[-1]) if x86 else _gpr(ops[0])  # AT&T writes the last operand, AArch64 the first
                if dst:
                    val[dst] = None  # written some other way: its step is unknown
        except ValueError:
            continue
    return {r: o[1] for r, o in val.items() if o and o[0] == r and o[1]}


def _assign_roles(loops: list[LoopReport], body_lines: range | None, user_vector: list[int],
                  all_nontemporal: list[bool] | None = None, plain_main: bool = False) -> None:
    """A kernel's main loop is the one running its body's lines; elsewhere
    the loop running the most vector code the user wrote (not what LLVM
    vectorised of a scalar remainder loop), then the most vector work.
    With `all_nontemporal` (per loop: its stores are all non-temporal) the
    main loop has copies, one per alignment of its streaming stores: the
    main one is the aligned copy (all stores non-temporal, the fewest
    instructions), the others are its copies; with `plain_main` the main one
    is the copy as written (not all non-temporal, the fewest instructions).
    Other outermost loops are tails."""
    top = [lp for lp in loops if lp.depth == 0]
    if len(top) < 2:
        for lp in top:
            lp.role = "main"
        return

    def runs_body(lp: LoopReport) -> bool:
        return body_lines is not None and lp.first_line is not None and any(
            ln in body_lines for ln in range(lp.first_line, (lp.last_line or lp.first_line) + 1))

    written = {id(lp): n for lp, n in zip(loops, user_vector)}
    if all_nontemporal is not None:
        nontemporal = {id(lp): nt for lp, nt in zip(loops, all_nontemporal)}
        main = max(top, key=lambda lp: (runs_body(lp), nontemporal[id(lp)] != plain_main,
                                        -lp.per_iteration.instructions))
    else:
        main = max(top, key=lambda lp: (runs_body(lp), written[id(lp)], lp.per_iteration.vector,
                                        lp.per_iteration.instructions))
    for lp in top:
        copy = all_nontemporal is not None and runs_body(lp)
        lp.role = "main" if lp is main else "copy" if copy else "tail"


def summarise(c: Counts, mix: Counter) -> str:
    """`2 vector loads, 1 vfmadd231ps ymm, 1 vector store`."""
    parts = []
    for key, n in sorted(mix.items(), key=lambda kv: -kv[1]):
        plural = "s" if n > 1 and key.endswith(("load", "store")) else ""
        parts.append(f"{n} {key}{plural}")
    return ", ".join(parts[:6]) + (f", +{len(parts) - 6} more" if len(parts) > 6 else "")
