"""Predicted cycles per iteration of each loop (issue 23 §1).

    from ea_compiler.inspect import predict_function
    from ea_compiler.inspect.predict import Limit
    fp = predict_function(analysis, module, "dot", working_set_bytes=16 << 20)
    lp = fp.main                  # LoopPrediction of the main loop
    lp.cycles_per_iter, lp.limit  # 8.1, Limit.DRAM
    lp.by_level["L1"], lp.ranges  # cycles if L1-resident; where each limit binds

The core side (ports, carried dependencies) comes from llvm-mca's model of
the target CPU (mca.py); without one, from the rough estimate of machine.py
(`rough` is True, the text says "(rough)"). The memory side comes from
bandwidths measured on this machine per cache level (memory.py,
`ea bench --calibrate`), the level chosen by the working set. Loops are
those of `ea inspect` (same order, same roles)."""
from __future__ import annotations

import dataclasses

from ...codegen.target import cpu_and_features, flag_features, host_cpu_name
from ...options import Options
from ..asm import AsmFunction
from ..cfg import Loop
from ..classify import Info
from ..machine import Machine
from ..model import FunctionReport
from . import mca
from .frontend import Layout, fetches, module_layout, wide_fields
from .carried import chain_body
from .loop import body_for_model, predict_loop
from .origin import advanced_by_parent
from .memory import DEFAULT, NUMPY_ALIGNMENT, MemoryModel, line_offset, load_calibration
from .model import LEVELS, FunctionPrediction, Limit, LoopPrediction, SizeRange


def memory_for(options: Options, bandwidth_gbs: float | None = None) -> MemoryModel:
    """The host's calibration when the code is for the host CPU, else DEFAULT;
    `bandwidth_gbs` (inspect's --bandwidth) overrides the DRAM figure."""
    cpu = cpu_and_features(options)[0]
    for_host = cpu == host_cpu_name() and options.is_arm != _host_is_x86()
    memory = (load_calibration() if for_host else None) or DEFAULT
    if bandwidth_gbs:
        # The other DRAM patterns follow the given figure (memory.RATIOS), not the calibrated ones.
        patterns = {name: {lv: v for lv, v in by_level.items() if lv != "DRAM"}
                    for name, by_level in memory.patterns.items()}
        memory = dataclasses.replace(memory,
                                     bytes_per_cycle={**memory.bytes_per_cycle, "DRAM": bandwidth_gbs / memory.ghz},
                                     source=memory.source + f", DRAM {bandwidth_gbs:g} GB/s given", patterns=patterns)
    return memory


def _host_is_x86() -> bool:
    import platform
    return platform.machine().lower() in ("x86_64", "amd64")


def layout_for(functions: list[AsmFunction], module, options: Options) -> Layout:
    """Where each instruction of `functions` sits in `module`'s object code (frontend.py), for
    the CPUs whose front end the rule describes (AMD Zen: 64-byte op-cache windows, measured on
    Zen 3); empty for others and without a module."""
    if module is None or options.is_arm or not cpu_and_features(options)[0].startswith("znver"):
        return {}
    return module_layout({fn.name: [ins.mnemonic for ins in fn.instrs] for fn in functions}, module.object())


def predict_loops(fn: AsmFunction, infos: list[Info], loops: list[Loop], report: FunctionReport,
                  options: Options, machine: Machine, memory: MemoryModel,
                  working_set_bytes: int | None = None, alignment: int = NUMPY_ALIGNMENT,
                  placed: list[tuple[int, int]] | None = None) -> FunctionPrediction:
    """Predictions for the loops `analyse` reported on (report.loops, same order as `loops`), the
    arrays aligned to `alignment` bytes (memory.line_offset); `placed`: (offset, size) of each
    instruction in the object code (layout_for), for the front end's share."""
    arm = options.is_arm
    cpu = cpu_and_features(options)[0]
    timings, why, model = None, None, ""
    chains: list = [None] * len(loops)
    if loops:
        bodies = [body_for_model(fn, infos, lp, arm) for lp in loops]
        extra = [None if arm else chain_body(body) for body in bodies]  # carried moves: carried.py
        try:
            timings, model = mca.run(bodies + [body for body, _ in filter(None, extra)],
                                     "aarch64" if arm else "x86_64", cpu, flag_features(options))
        except mca.NoModel as e:
            why = str(e)
            model = f"machine.py estimate, {why}"
        if timings:
            rest = iter(timings[len(loops):])
            chains = [None if e is None else (next(rest), e[1]) for e in extra]
    out = [predict_loop(fn, infos, lp, k + 1, rep, timings[k] if timings else None,
                        None if timings else _rough_core(rep, machine), memory, working_set_bytes, model, arm,
                        alignment, advanced_by_parent(fn, lp, loops) if not arm else frozenset(),
                        fetches(placed, [ins.mnemonic for ins in fn.instrs], lp.path,
                                [wide_fields(ins.operands, ins.mnemonic) for ins in fn.instrs]) if placed else None,
                        chains[k])
           for k, (lp, rep) in enumerate(zip(loops, report.loops))]
    return FunctionPrediction(fn.name, working_set_bytes, out, model, bool(loops) and timings is None,
                              memory.source, alignment)


def _rough_core(rep, machine: Machine) -> tuple[float, float]:
    """(ports, latency) cycles/iteration by machine.py's figures: FMA pipes, two
    loads a cycle, four instructions issued a cycle; today's chain latency."""
    p = rep.per_iteration
    ports = max(p.flops / machine.peak_flops_per_cycle, p.loads / machine.load_ports, p.instructions / 4)
    return round(ports, 2), float(rep.cycles.get("latency", 0.0))


__all__ = ["DEFAULT", "FunctionPrediction", "LEVELS", "Limit", "LoopPrediction", "MemoryModel", "NUMPY_ALIGNMENT",
           "SizeRange", "layout_for", "line_offset", "load_calibration", "memory_for", "predict_loops"]
