"""One loop's prediction from its body's timing (llvm-mca, or the rough
estimate), its memory traffic per cache level, and its calls.

Per iteration, with the data in level L:
    core    = the model's simulated cycles (ports and carried dependencies)
    memory  = kernel bytes moved at L / bytes per cycle L sustains
    cycles  = max(core, memory) + calls × cycles per call
Spills and reloads (moves to and from the stack frame) are not kernel
traffic: they stay in the core term (they use load/store ports, in L1) and
are counted apart. Beyond L1 a store that is not non-temporal moves its line
twice (read for ownership, write back)."""
from __future__ import annotations

from ..asm import AsmFunction
from ..cfg import Loop
from ..classify import Info
from ..model import LoopReport
from .mca import BlockTiming
from .memory import MemoryModel
from .model import LEVELS, Limit, LoopPrediction, SizeRange

_NONTEMPORAL = ("movnt", "vmovnt", "stnp")
LATENCY_MARGIN = 1.1  # the simulation above the port bound by this much: a carried chain binds


def body_for_model(fn: AsmFunction, infos: list[Info], lp: Loop) -> list[str]:
    """The likely path of one iteration as llvm-mca input, calls left out."""
    return [fn.instrs[i].text for i in lp.path if not infos[i].call]


def predict_loop(fn: AsmFunction, infos: list[Info], lp: Loop, index: int, report: LoopReport,
                 timing: BlockTiming | None, rough_core: tuple[float, float] | None, memory: MemoryModel,
                 working_set_bytes: int | None, model: str) -> LoopPrediction:
    """`timing`: llvm-mca's figures for `body_for_model`; else `rough_core`
    (ports, latency) from the fallback estimate."""
    stored = stored_nt = 0
    for i in lp.path:  # the kernel's stores (spills are the stack's): non-temporal ones move their line once
        ins, info = fn.instrs[i], infos[i]
        if info.stores and not info.spill and not info.call:
            if ins.mnemonic.startswith(_NONTEMPORAL):
                stored_nt += info.store_bytes
            else:
                stored += info.store_bytes
    loaded = report.kernel_bytes - stored - stored_nt
    calls = report.calls
    if timing is not None:
        ports, core = timing.rthroughput, max(timing.simulated, timing.rthroughput)
    else:
        ports, latency = rough_core
        core = max(ports, latency)
    call_cycles = round(sum(calls.values()) * memory.call_cycles, 2)
    by_level, limits = {}, {}
    for level in LEVELS:
        traffic = loaded + stored_nt + stored * (1 if level is Limit.L1 else 2)
        mem = traffic / memory.bytes_per_cycle[level.value]
        cycles = max(core, mem) + call_cycles
        by_level[level.value] = round(cycles, 2)
        if call_cycles > max(core, mem):
            limits[level] = Limit.CALLS
        elif mem > core:
            limits[level] = level
        elif core > ports * LATENCY_MARGIN:
            limits[level] = Limit.LATENCY
        else:
            limits[level] = Limit.PORTS
    level = memory.level(working_set_bytes)
    at_header = sorted((not name.startswith((".LBB", "LBB")), name) for name, at in fn.labels.items() if at == lp.header)
    label = at_header[0][1] if at_header else None  # the block label, not a debug-info .Ltmp
    return LoopPrediction(
        function=fn.name, index=index, label=label, role=report.role, first_line=report.first_line,
        last_line=report.last_line, header_line=report.header_line,
        elements_per_iter=report.elements_any, cycles_per_iter=by_level[level.value],
        limit=limits[level], level=level, ports_cycles=round(ports, 2), latency_cycles=round(core, 2),
        call_cycles=call_cycles, bytes_per_iter=report.kernel_bytes, by_level=by_level,
        ranges=_ranges(limits, by_level, memory), calls=dict(calls), spills=report.spills, reloads=report.reloads,
        ports=dict(timing.ports) if timing else {}, chain=report.chain, model=model, rough=timing is None)


def _ranges(limits: dict[Limit, Limit], by_level: dict[str, float], memory: MemoryModel) -> list[SizeRange]:
    """Consecutive levels with the same limit merged: where each limit binds."""
    out: list[SizeRange] = []
    for level in LEVELS:
        low, high = memory.bounds(level)
        if out and out[-1].limit is limits[level]:
            out[-1] = SizeRange(out[-1].limit, out[-1].low, high, out[-1].cycles_per_iter)
        else:
            out.append(SizeRange(limits[level], low, high, by_level[level.value]))
    return out
