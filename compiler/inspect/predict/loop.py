"""One loop's prediction from its body's timing (llvm-mca, or the rough
estimate), its memory traffic per cache level, and its calls.

Per iteration, with the data in level L:
    core    = the model's simulated cycles (ports and carried dependencies), at
              least the front end's: op-cache fetches x cycles per fetch (frontend.py)
    memory  = kernel bytes moved at L / bytes per cycle L sustains for the
              loop's access pattern (reads only, or reads and a write stream)
    cycles  = max(core, memory) + calls × cycles per call
              (from DRAM the two overlap less the closer they are: overlapped)
Spills and reloads (moves to and from the stack frame) are not kernel
traffic: they stay in the core term (they use load/store ports, in L1) and
are counted apart; with the data in L2 or the L3 they add their L1 time to
the memory term (stack_cycles). Beyond L1 loads count per stream
(traffic.py); what a store costs beyond its bytes (write-allocate) is in the
calibrated bandwidth of the pattern. The L3's figure at a working set lies
between its near and far calibrations (MemoryModel.l3_far_weight)."""
from __future__ import annotations

from ..asm import AsmFunction
from ..cfg import Loop
from ..classify import Info
from ..model import LoopReport
from .mca import BlockTiming
from .memory import NEAR_L3, NUMPY_ALIGNMENT, MemoryModel, line_offset
from .carried import MOVE_CYCLES
from .model import LEVELS, Limit, LoopPrediction, SizeRange
from .pipes import corrected, is_fma, is_move_to_integer
from .rename import renamed
from .traffic import Traffic, inner_working_set, loop_traffic

SPLIT_RATE = 0.5  # of the calibration's accesses that cross a line (split_ratio's measurement)
LATENCY_MARGIN = 1.1  # the simulation above the port bound by this much: a carried chain binds
DRAM_SAMPLE = 4  # a nested loop's DRAM figure: at this many times the L3's size
DRAM_OVERLAP = 3  # core and DRAM time combine as this norm (overlapped): 1 would add them, infinity is max


def body_for_model(fn: AsmFunction, infos: list[Info], lp: Loop, arm: bool = False) -> list[str]:
    """The likely path of one iteration as llvm-mca input, calls left out; on x86 the moves
    to integer registers renamed apart (rename.py)."""
    body = [fn.instrs[i] for i in lp.path if not infos[i].call]
    if arm:
        return [ins.text for ins in body]
    return renamed([(ins.mnemonic, ins.operands) for ins in body],
                   [is_move_to_integer(ins.mnemonic, ins.operands, infos[ins.index].loads) for ins in body])


def predict_loop(fn: AsmFunction, infos: list[Info], lp: Loop, index: int, report: LoopReport,
                 timing: BlockTiming | None, rough_core: tuple[float, float] | None, memory: MemoryModel,
                 working_set_bytes: int | None, model: str, arm: bool = False,
                 alignment: int = NUMPY_ALIGNMENT, advancing: frozenset[str] = frozenset(),
                 fetches: int | None = None, chain: tuple[BlockTiming, int] | None = None) -> LoopPrediction:
    """`timing`: llvm-mca's figures for `body_for_model`; else `rough_core`
    (ports, latency) from the fallback estimate. `alignment`: the arrays start at a multiple of
    this many bytes and no larger one (NumPy: 16; 64 or more: on a cache line). `advancing`:
    the registers the enclosing loop moves on (origin.advanced_by_parent). `fetches`: op-cache
    fetches per iteration (frontend.py), None where the loop's placement is not known. `chain`:
    llvm-mca's figures for carried.chain_body of the loop's body and the moves it replaced, where
    there is one."""
    traffic = loop_traffic(fn, infos, lp, arm, line_offset(alignment), advancing)
    calls = report.calls
    if timing is not None:
        ports, core = timing.rthroughput, max(timing.simulated, timing.rthroughput)
        body = [i for i in lp.path if not infos[i].call]  # body_for_model's instructions
        fixed = corrected(timing, [is_move_to_integer(fn.instrs[i].mnemonic, fn.instrs[i].operands,
                                                      infos[i].loads) for i in body],
                          [is_fma(fn.instrs[i].mnemonic) for i in body])
        split = fixed.ports
        if split < ports:  # the simulation ran into the pipes the model shares: what it added beyond them stays
            ports, core = split, max(split, core - (ports - split))
        elif split > ports:  # a pipe the model leaves idle binds (pipes.py); a longer chain still does
            ports, core = split, max(split, core)
        if chain is not None:  # a carried move: the simulation as written lost its chain (carried.py)
            timed, moves = chain
            if timed.simulated > timed.rthroughput * LATENCY_MARGIN:  # the chain binds there
                core = max(core, timed.simulated - moves * MOVE_CYCLES)
    else:
        ports, latency = rough_core
        core = max(ports, latency)
    front = round(fetches * memory.fetch_cycles, 2) if fetches else 0.0
    core_limit = Limit.FRONT_END if front > core else Limit.LATENCY if core > ports * LATENCY_MARGIN else Limit.PORTS
    core = max(core, front)
    call_cycles = round(sum(calls.values()) * memory.call_cycles, 2)
    in_l1 = memory_cycles(traffic, "L1", memory)
    stack = stack_cycles(traffic, memory)

    def at(level: str, limit: Limit) -> tuple[float, Limit]:
        mem = memory_cycles(traffic, level, memory)
        if level != "L1" and level != "DRAM":
            mem += stack
        mem = max(in_l1, mem)  # every load still passes L1's ports
        bound = Limit.CALLS if call_cycles > max(core, mem) else limit if mem > core else core_limit
        return round(overlapped(core, mem, level, core_limit) + call_cycles, 2), bound

    by_level, limits = {}, {}
    for level in LEVELS:
        by_level[level.value], limits[level] = at(level.value, level)
    near = at(NEAR_L3, Limit.L3) if memory.l3_near_bytes else None

    def figure(working_set: int | None, blend: bool = True) -> tuple[float, Limit, Limit]:
        return _at_size(traffic, by_level, limits, memory, report.depth, call_cycles, working_set, blend, near)

    cycles, limit, level = figure(working_set_bytes)
    ranges = _ranges(limits, by_level, memory)
    if report.depth >= 2:  # its rows' level, not the whole set's: the ranges say what the figure at a size says
        ranges = _nested_ranges(figure, memory)
    at_header = sorted((not name.startswith((".LBB", "LBB")), name) for name, at in fn.labels.items() if at == lp.header)
    label = at_header[0][1] if at_header else None  # the block label, not a debug-info .Ltmp
    return LoopPrediction(
        function=fn.name, index=index, label=label, role=report.role, first_line=report.first_line,
        last_line=report.last_line, header_line=report.header_line,
        elements_per_iter=report.elements_any, cycles_per_iter=cycles,
        limit=limit, level=level, ports_cycles=round(ports, 2), latency_cycles=round(core, 2),
        call_cycles=call_cycles, bytes_per_iter=report.kernel_bytes, by_level=by_level,
        ranges=ranges, calls=dict(calls), spills=report.spills, reloads=report.reloads,
        ports=fixed.usage if timing else {}, chain=report.chain, model=model,
        rough=timing is None, store_data_fmas=fixed.fmas_binding if timing else 0,
        fetches=fetches, front_end_cycles=front, prefetch_ahead=[ahead for ahead, _, _ in traffic.prefetched],
        prefetch_slowdown={level: round(f, 2) for level in (NEAR_L3, "L3", "DRAM")
                           if (f := _prefetch_factor(traffic, level, memory)) != 1.0
                           and (level != NEAR_L3 or memory.l3_near_bytes)})


def overlapped(core: float, memory: float, level: str, core_limit: Limit = Limit.PORTS) -> float:
    """The time of an iteration whose core needs `core` cycles (bound by `core_limit`) and whose
    bytes need `memory` with the data in `level`: the larger of the two, except where they overlap
    less the closer they are (their DRAM_OVERLAP-norm: 1.26 times either when they are equal, 1.01
    times the larger when the other is a third of it):
    * from DRAM. A core that is slow to issue a stream's loads keeps fewer of them in flight:
      dot_f32 with one accumulator (4 cycles of fma latency to the 9 of DRAM an iteration) took
      1,313 us at 4M elements against 1,266 unrolled on AMD EPYC Zen 3, +3.7 % (this rule: +3 %);
      over predict_bench's DRAM rows MAPE 16.6 -> 14.8 %.
    * from the L3, where the core is bound by the rate it issues at (its ports: the loads, stores
      and store data that move the bytes; or its front end), not by a carried chain, whose loads
      run ahead of it: y = x * a + b in 128-bit vectors with `fma` (store data 1.5 cycles an
      iteration, pipes.py) took 1.9 cycles an iteration with 2 MiB in the L3 where the loop with
      a multiply and an add took 1.48, as the 256-bit ones did (this rule: 1.87 and 1.55), while
      dot_f32 unrolled x2 (an fma chain) ran as fast as x4 and x8 there. bench/predict_rank.py,
      tau over all pairs / resolved pairs replayed with and without the pipe and this rule: run
      17 +0.44 / +0.72 -> +0.49 / +0.82 (the norm for every core: dot_f32 at 2 MiB +0.49 -> +0.33),
      run 19 +0.45 / +0.70 -> +0.47 / +0.75; run 20, measured with both, +0.50 / +0.76 (replayed
      without them +0.46 / +0.67)."""
    if not memory or (level != "DRAM" and (level not in ("L3", NEAR_L3) or core_limit == Limit.LATENCY)):
        return max(core, memory)
    return (core ** DRAM_OVERLAP + memory ** DRAM_OVERLAP) ** (1 / DRAM_OVERLAP)


def _at_size(traffic: Traffic, by_level: dict[str, float], limits: dict[Limit, Limit], memory: MemoryModel,
             depth: int, call_cycles: float, working_set_bytes: int | None,
             blend: bool = True, near: tuple[float, Limit] | None = None) -> tuple[float, Limit, Limit]:
    """(cycles, limit, level) at a working set of the whole kernel. `blend`: near the L3's size,
    part of the bytes from DRAM (MemoryModel.last_level_share); without it, each level's own figure.
    `near`: (cycles, limit) with the L3's near calibration, weighed against its far one by the
    working set (MemoryModel.l3_far_weight)."""
    # A loop two levels deep (matmul's j in i, k) goes over 2-D data n^3 times: its rows are reused
    # and are what it needs close; a loop one level deep (rows, columns) streams the whole set.
    # But a row the enclosing loop moves on (ikj's row of B, a new one every k) is reused only
    # after the whole array: its bytes come from the level of the whole working set.
    whole = working_set_bytes
    if working_set_bytes and depth >= 2:
        working_set_bytes = inner_working_set(traffic, working_set_bytes)
    level = memory.level(working_set_bytes)
    l3, l3_limit = by_level[Limit.L3.value], limits[Limit.L3]
    if near is not None:  # a small set in the L3 comes faster than the far calibration's
        weight = memory.l3_far_weight(working_set_bytes)
        l3, l3_limit = round(near[0] + (l3 - near[0]) * weight, 2), l3_limit if weight >= 0.5 else near[1]
    cycles, limit = (l3, l3_limit) if level is Limit.L3 else (by_level[level.value], limits[level])
    share = memory.last_level_share(working_set_bytes)
    if blend and level in (Limit.L3, Limit.DRAM) and 0.0 < share < 1.0:  # near the L3's size: part from DRAM
        cycles = round(share * l3 + (1.0 - share) * by_level[Limit.DRAM.value], 2)
        limit = l3_limit if share >= 0.5 else limits[Limit.DRAM]  # what binds most of the bytes
    if traffic.walking and whole and depth >= 2 and memory.level(whole) is not level:
        far = memory.level(whole)
        walk = traffic.walking / memory.bandwidth("read", far.value) + call_cycles
        if walk > cycles:
            cycles, limit, level = round(walk, 2), far, far
    return cycles, limit, level


def _nested_ranges(figure, memory: MemoryModel) -> list[SizeRange]:
    """A nested loop's ranges over the whole kernel's working set, each level's figure taken at
    its largest working set (DRAM: DRAM_SAMPLE times the L3), consecutive equal limits merged."""
    out: list[SizeRange] = []
    for level in LEVELS:
        low, high = memory.bounds(level)
        cycles, limit, _ = figure(high if high is not None else DRAM_SAMPLE * low, blend=False)
        if out and out[-1].limit is limit:
            out[-1] = SizeRange(limit, out[-1].low, high, out[-1].cycles_per_iter)
        else:
            out.append(SizeRange(limit, low, high, cycles))
    return out


def memory_cycles(t: Traffic, level: str, memory: MemoryModel) -> float:
    """Cycles per iteration the traffic takes with the data in `level`: the read and written
    bytes at the bandwidth of the loop's access pattern (L1: every load; beyond: each stream's
    unique bytes), in L1 at least the stores at the store half of a copy's bandwidth (a loop
    that writes more than it reads, like a u8 -> f32 widening, is bound by its stores there;
    beyond L1 its time follows the bytes it moves, measured); each stretched by the accesses that
    cross a line (_split) and by software prefetches as far ahead as the loop's (_prefetch_factor,
    beyond L2 where calibrated); plus gathers from the closest cache and non-temporal stores at the
    DRAM bandwidth; from DRAM, a loop whose only stores are non-temporal moves its bytes at the
    measured rate of a streaming copy (`copy_nt`)."""
    reads = t.loaded if level == "L1" else t.unique_loaded
    if t.stored:
        pattern = "copy" if t.read_streams <= 1 else "read2_write"
        split = _split(memory, pattern, level, t.split_loaded + t.split_stored, t.loaded + t.stored)
        cycles = (reads + t.stored) / memory.bandwidth(pattern, level) * split
        if level != "L1" and t.stored_in_place:
            cycles *= _without_ownership_reads(reads, t.stored, t.stored_in_place)
        if level == "L1":  # the store port: a copy's stores are half its bytes
            split = _split(memory, "copy", level, t.split_stored, t.stored)
            cycles = max(cycles, 2 * t.stored / memory.bandwidth("copy", level) * split)
    else:
        pattern = "read" if t.read_streams <= 1 else "read2"
        cycles = reads / memory.bandwidth(pattern, level) * _split(memory, pattern, level, t.split_loaded, t.loaded)
    cycles *= _prefetch_factor(t, level, memory)
    if t.gathered:
        cycles += t.gathered / memory.bandwidth("read", "L1" if level == "L1" else "L2")
    if t.stored_nt and level == "DRAM" and not t.stored and not t.gathered:
        # reads and non-temporal writes share the memory bus: a streaming copy's measured rate
        return (reads + t.stored_nt) / memory.bandwidth("copy_nt", "DRAM")
    if t.stored_nt:
        cycles += t.stored_nt / memory.bandwidth("read", "DRAM")
    return cycles


def _prefetch_factor(t: Traffic, level: str, memory: MemoryModel) -> float:
    """How much longer the streams take with their software prefetches than without: each
    prefetched stream's measured ratio at its distance and spacing (MemoryModel.prefetch_ratio),
    weighed by its share of the bytes read (AMD EPYC Zen 3, dot_f32 from DRAM, 4M elements: 1.31 ms
    not prefetched, 1.66-1.70 prefetched 1024 bytes ahead once per 128 bytes of each array)."""
    if not t.prefetched or not t.unique_loaded or level == "L1":
        return 1.0
    return 1.0 + sum((memory.prefetch_ratio(level, ahead, spacing) - 1.0) * min(1.0, covered / t.unique_loaded)
                     for ahead, spacing, covered in t.prefetched)


def stack_cycles(t: Traffic, memory: MemoryModel) -> float:
    """Cycles a loop's spills and reloads add to its time with the data in L2 or the L3: their
    bytes at L1's bandwidth, L1 work the cache's fills do not overlap with (dot_u8i8's variants
    on AMD EPYC Zen 3, 64K elements in L2, cycles per 1024 elements: 8 accumulators 82; 32 with
    20 spills and 20 reloads 116; 64 with 52 and 52, 94; the L2's bandwidth alone gives 67 for
    each). From DRAM the core's waits leave room for them: there they stay in the core term."""
    return t.stack / memory.bandwidth("copy", "L1")


def _without_ownership_reads(reads: float, stored: float, in_place: float) -> float:
    """The share of a pattern's time left when `in_place` of the `stored` bytes go to lines the
    loop has just read. The calibrated patterns write arrays of their own, and each line written
    beyond L1 is first read for ownership and later written back. So `reads + stored` bytes cost
    `reads + 2 * stored` transfers. A store into a line the loop read itself needs no read for
    ownership (saxpy's `y`: 13.1 cycles predicted at DRAM, 9.0 measured, 9.8 with this)."""
    return (reads + 2 * stored - in_place) / (reads + 2 * stored)


def _split(memory: MemoryModel, pattern: str, level: str, split_bytes: float, total_bytes: float) -> float:
    """How much longer traffic takes whose accesses cross lines `split_bytes / total_bytes` of the
    time, from the pattern's measured ratio at a crossing rate of one half (arrays SPLIT_OFFSET past
    a line, 32-byte accesses): linear in the crossing rate, 1 when nothing crosses."""
    if not total_bytes or not split_bytes:
        return 1.0
    rate = split_bytes / total_bytes
    return 1.0 + (memory.split_ratio(pattern, level) - 1.0) * rate / SPLIT_RATE


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
