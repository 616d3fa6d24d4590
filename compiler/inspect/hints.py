"""Hints a kernel author can act on, each with the line it concerns. Some
come from the machine code (gathers, spills, load ports, widths), some
from source patterns confirmed by the machine code (a*b+c without fma, a
reduction with a single accumulator)."""
from __future__ import annotations

from ..check.accumulators import Accumulator, accumulators, in_remainder
from ..syntax import ast as A
from ..typesys import model as T
from .classify import Info
from .cfg import Loop
from .machine import Machine
from .model import Bottleneck, FunctionReport, Hint
from .source import SourceFacts

_WIDER = {128: ("f32x8/i32x8", "AVX2"), 256: ("f32x16/i32x16", "AVX-512")}
_MOVES = ("mov", "vmov", "vbroadcast", "vpbroadcast", "ld", "st", "dup")
_CONTROL = ("cmp", "test", "inc", "dec", "lea", "add", "sub", "nop")


def hints_for(fr: FunctionReport, func: A.Func | None, fn_asm, infos: list[Info], loops: list[Loop],
              machine: Machine, arm: bool, decisions, facts: SourceFacts | None = None) -> list[Hint]:
    """`decisions`: the checker's record (which call is `fma`, `max`, `min`)."""
    out: list[Hint] = []
    line = func.name_span.line if func is not None else None
    c = fr.counts
    if fr.exported and c.vector == 0 and (fr.loops or func is not None and func.origin is not None):
        out.append(Hint("no-vector", "no vector instructions \u2014 consider using SIMD types (f32x4, f32x8)", line))
    main = next((lp for lp in fr.loops if lp.role == "main"), None)
    width = fr.width_bits  # what the user wrote; LLVM's vectorised tails do not count
    if c.vector and not arm and width and width < machine.vector_bits and width in _WIDER:
        types, isa = _WIDER[width]
        if fr.width_type and fr.width_type.split("x")[0] not in ("f32", "i32"):
            elem, lanes = fr.width_type.split("x")  # the type written, twice as wide: u8x16 -> u8x32
            types = f"{elem}x{2 * int(lanes) * width // _type_bits(fr.width_type)}"
        out.append(Hint("narrow-vectors", f"using {width}-bit vectors \u2014 {types} may double throughput on {isa}",
                        main.first_line if main else line))
    if func is not None and func.origin is not None and func.origin.step <= 2 and machine.vector_bits >= 128:
        k = func.origin
        out.append(Hint("small-step", f"kernel '{k.name}' advances {k.step} element(s) per iteration: loop "
                        "overhead and the scalar tail do most of the work \u2014 use a vector step "
                        "(e.g. step 8 with f32x8)", k.step_span.line))
    out += _gathers(func, fn_asm, infos)
    for lp, found in zip(fr.loops, loops):
        body = [(fn_asm.instrs[i], infos[i]) for i in found.instrs]
        spills = sum(1 for _, info in body if info.spill)
        if lp.calls:
            out.append(Hint("calls", f"the loop at lines {lp.first_line}-{lp.last_line} calls {_calls_text(lp.calls)} "
                            "per iteration: the calls, not memory, bound it"
                            + (f"; its {spills} spill/reload instruction(s) keep values across the calls "
                               "(a call clobbers every vector register)" if spills else ""), lp.header_line))
        elif spills:
            out.append(Hint("spills", f"{spills} register spill/reload instruction(s) inside the loop at lines "
                            f"{lp.first_line}-{lp.last_line}: fewer live vectors (accumulators, unrolling) "
                            "would keep it in registers", lp.header_line))
        per = lp.per_iteration
        compute = sum(1 for i in found.path if _computes(fn_asm.instrs[i], infos[i]))
        loads = per.loads - lp.reloads  # the kernel's loads: reloads of spills are counted apart
        if lp.role == "main" and not lp.calls and loads > machine.load_ports \
                and loads / machine.load_ports > max(compute, 1) / 2:
            out.append(Hint("load-ports", f"the loop at lines {lp.first_line}-{lp.last_line} issues {loads} "
                            f"loads per iteration; the core starts about {machine.load_ports} per cycle, so loads, "
                            "not arithmetic, bound it", lp.header_line))
    if func is not None:
        out += _source_hints(func, fr, decisions)
    main_loop = next((lp for lp in fr.loops if lp.role == "main"), None)
    if main_loop is not None:
        found = loops[fr.loops.index(main_loop)]
        body = [(fn_asm.instrs[i], infos[i]) for i in found.path]
        mem = sum(1 for _, info in body if (info.loads or info.stores) and not info.spill)
        work = sum(1 for ins, info in body if _computes(ins, info))
        if mem > work and not main_loop.calls:
            out.append(Hint("memory-heavy", f"memory-heavy: {mem} memory ops vs {work} compute ops "
                            "\u2014 kernel may be bandwidth-bound", main_loop.header_line))
        if main_loop.bottleneck == Bottleneck.LATENCY and main_loop.chain:
            cyc = main_loop.cycles
            out.append(Hint("latency-chain", f"the loop at lines {main_loop.first_line}-{main_loop.last_line} "
                            f"waits on a chain through {main_loop.chain} (about {cyc['latency']:g} cycles per "
                            f"iteration; its memory traffic needs about {cyc['memory']:g}): independent "
                            "accumulators would overlap the chains", main_loop.header_line))
    if facts is not None:
        out += _stream_stores(fn_asm, infos, facts, fr.runtime_paths)
    return out


def _calls_text(calls: dict[str, int]) -> str:
    """`expf 8 times`, `expf 8 times and logf once`."""
    parts = [f"{name} {'once' if n == 1 else f'{n} times'}" for name, n in calls.items()]
    return " and ".join(parts)


def _type_bits(name: str) -> int:
    elem, lanes = name.split("x")
    return int(elem[1:]) * int(lanes)


def _computes(ins, info: Info) -> bool:
    """Arithmetic, scalar or vector, with or without a memory operand: an FMA
    with a folded load is both a load and a compute op. Data moves, loop
    control and branches are not."""
    if info.branch_to is not None or info.call:
        return False
    if info.flops or info.fma:
        return True
    m = ins.mnemonic
    if m.startswith(_MOVES) or m.startswith(("prefetch", "prfm", "push", "pop", "ret", "vzeroupper")):
        return False
    return info.vector or not m.startswith(_CONTROL)


_NONTEMPORAL = ("movnt", "vmovnt", "stnp")


def _stream_stores(fn_asm, infos: list[Info], facts: SourceFacts, paths) -> list[Hint]:
    """Which stores each stream_store line compiled to, read from the machine
    code, and how code generation chose among them (its run-time path for
    the line: compiler/codegen/ntloop.py, lower/ntstore.py)."""
    out = []
    chosen = {p.line: p for p in paths if p.source == "codegen" and p.what.startswith("stream_store")}
    for line, size in sorted(facts.stream_stores.items()):
        stores = [ins for ins, info in zip(fn_asm.instrs, infos) if ins.line == line and info.stores]
        if not stores:
            continue
        nt = sorted({ins.mnemonic for ins in stores if ins.mnemonic.startswith(_NONTEMPORAL)})
        plain = sorted({ins.mnemonic for ins in stores if not ins.mnemonic.startswith(_NONTEMPORAL)})
        path = chosen.get(line)
        if path is not None and nt:
            how = (f"once, before the loop ({path.loop_versions} versions of the main loop)" if path.loop_versions
                   else "at each store")
            text = (f"stream_store: {path.summary} ({', '.join(nt)}" + (f"; plain: {', '.join(plain)}" if plain else "")
                    + f"); the alignment is tested {how}")
        elif nt and plain:
            text = (f"stream_store: non-temporal ({', '.join(nt)}) when the address is {size}-byte aligned, "
                    f"plain store ({', '.join(plain)}) otherwise")
        elif nt:
            text = f"stream_store: non-temporal ({', '.join(nt)}) at any address"
        else:
            text = (f"stream_store: plain store ({', '.join(plain)}) \u2014 LLVM emitted no non-temporal "
                    "store for this address form on this target")
        out.append(Hint("stream-store", text, line))
    return out


def _gathers(func, fn_asm, infos) -> list[Hint]:
    """In the machine code, or in the source: LLVM expands gather() into one
    scalar load per lane on CPUs where vgather is slow."""
    for ins, info in zip(fn_asm.instrs, infos):
        if info.gather or info.scatter:
            what = "gather" if info.gather else "scatter"
            return [Hint(what, f"{what} emitted ({ins.mnemonic}): one memory access per lane; contiguous "
                         "loads/stores are much faster when the data allows", ins.line)]
    if func is not None:
        for stmt, _ in _walk(func.body.stmts, None):
            for e in _exprs(stmt):
                if isinstance(e, A.Call) and e.name in ("gather", "scatter"):
                    return [Hint(e.name, f"{e.name} compiles to one memory access per lane on this CPU; "
                                 "contiguous loads/stores are much faster when the data allows", e.span.line)]
    return []


def _source_hints(func: A.Func, fr: FunctionReport, decisions) -> list[Hint]:
    out: list[Hint] = []
    seen_lines: set[int] = set()
    for stmt, loop in _walk(func.body.stmts, None):
        for e in _exprs(stmt):
            if _is_mul_add(e):
                ln = e.span.line
                mix = fr.lines.get(ln)
                if ln not in seen_lines and mix is not None and mix.counts.fma == 0:
                    seen_lines.add(ln)
                    out.append(Hint("mul-add", "a * b + c compiles to a separate multiply and add; fma(a, b, c) "
                                    "fuses them (one rounding, one instruction)", ln))
    found = _accumulators(func, decisions)
    every = [a for accs in found for a in accs]
    for accs in found:
        if len(accs) == 1 and not in_remainder(accs[0], every):
            acc = accs[0]
            out.append(Hint("one-accumulator", f"the loop accumulates into one register ('{acc.name}'): each "
                            "update waits for the previous one (latency-bound); use 2-4 independent accumulators "
                            "and combine them after the loop", acc.assign.span.line))
    return out


def _walk(stmts, loop):
    for s in stmts:
        yield s, loop
        if isinstance(s, (A.While, A.ForEach)):
            yield from _walk(s.body.stmts, s)
        elif isinstance(s, A.Unroll):
            yield from _walk([s.loop], loop)
        elif isinstance(s, A.If):
            yield from _walk(s.then.stmts, loop)
            if isinstance(s.orelse, A.Block):
                yield from _walk(s.orelse.stmts, loop)
            elif s.orelse is not None:
                yield from _walk([s.orelse], loop)


def _exprs(stmt):
    if isinstance(stmt, (A.Let, A.Assign)):
        yield from _sub(stmt.value)
    elif isinstance(stmt, A.ExprStmt):
        yield from _sub(stmt.expr)
    elif isinstance(stmt, A.Return) and stmt.value is not None:
        yield from _sub(stmt.value)


def _sub(e):
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, A.Binary):
            stack += [x.left, x.right]
        elif isinstance(x, (A.Paren,)):
            stack.append(x.inner)
        elif isinstance(x, A.Call):
            stack += x.args
        elif isinstance(x, A.Unary):
            stack.append(x.operand)


def _is_float(t) -> bool:
    return (isinstance(t, T.Scalar) and t.is_float) or (isinstance(t, T.Vector) and t.elem.is_float)


def _is_mul_add(e) -> bool:
    if not (isinstance(e, A.Binary) and e.op in ("+", "-", ".+", ".-") and _is_float(e.ty)):
        return False
    return any(isinstance(A.unparen(x), A.Binary) and A.unparen(x).op in ("*", ".*") for x in (e.left, e.right))


def _accumulators(func: A.Func, decisions) -> list[list[Accumulator]]:
    """Per innermost loop (the loops a transformation can split), its float
    accumulators (check/accumulators.py: the definition the unroll
    transformation reads; integer chains cost a cycle per step, no hint)."""
    loops = [s for s in A.statements(func.body.stmts) if isinstance(s, (A.While, A.ForEach))]
    innermost = [lp for lp in loops
                 if not any(isinstance(s, (A.While, A.ForEach, A.For)) for s in A.statements(lp.body.stmts))]
    found = [[a for a in accumulators(decisions, lp.body.stmts) if a.is_float]
             for lp in sorted(innermost, key=lambda lp: lp.span.start)]
    return [accs for accs in found if accs]
