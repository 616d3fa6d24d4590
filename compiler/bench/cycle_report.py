"""Cycles per main-loop iteration, predicted and measured, for every bench
of a suite (`ea bench --cycles`, `ea inspect --measure`): the run, its
result document (kept in the suite's history file, where the language
server and the TUI read the latest, compiler/inspect/measured.py) and its
text table."""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field

from ..options import Options
from .counters import clock_source
from .cycles import CycleMeasurement
from .suite import BenchError, Suite
from .timing import Budget

KIND = "cycles"


@dataclass
class CycleReport:
    suite: Suite
    options: Options
    ghz: float
    clock: str  # how cycles were obtained (counters.clock_source)
    source_hash: str  # of the kernel's text measured: a later edit makes the figures stale
    rows: list[CycleMeasurement] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # benches that could not be measured, and why
    notes: list[str] = field(default_factory=list)  # what the reader should know, e.g. the core's state (core_state.py)
    fetch_probes: list[float | None] = field(default_factory=list)  # cycles per op-cache fetch before and after

    def document(self) -> dict:
        from .envinfo import environment, result_document
        doc = result_document(self.suite.name, environment(self.options, False), [], self.suite.path.parent)
        doc.update(kind=KIND, ghz=round(self.ghz, 4), clock=self.clock, source_hash=self.source_hash,
                   cycles=[r.to_json() for r in self.rows], problems=self.problems,
                   notes=self.notes, fetch_probes=self.fetch_probes)
        return doc


def source_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def run_cycles(suite: Suite, options: Options, benches: list[str] | None = None, quick: bool = False,
               cancel: threading.Event | None = None, alignment: int = 64) -> CycleReport:
    """Measure each chosen bench's function at its L1 and DRAM sizes and pair the figures with the
    prediction, the arrays aligned to `alignment` bytes (64: on a cache line; 16: where NumPy's
    large arrays start). Raises BenchError when the kernel does not compile or cannot run here."""
    from ..inspect.predict import line_offset
    from ..inspect import InspectError, inspect
    from ..loader import CompileError, load
    from .predicted_side import fill_prediction
    from .runner import _choose, _runnable
    _runnable(options)
    data = suite.kernel.read_bytes()
    from ..build import compile_source
    try:
        kernel = load(suite.kernel, target=options.target_cpu, opt_level=options.opt_level, avx512=options.avx512)
        inspected = inspect(data, str(suite.kernel), options)
    except (CompileError, InspectError) as err:
        raise BenchError(f"{suite.kernel} does not compile: {err}") from None
    analysis, module = compile_source(data, str(suite.kernel), options)
    functions = {fn.name: fn for fn in inspected.functions}
    ghz, clock = clock_ghz()
    report = CycleReport(suite, options, ghz, clock, source_hash(data))
    budget = Budget.quick() if quick else Budget(seconds=0.3)
    budget.cpu_time = True  # the thread's CPU time: moments another process has the core do not count
    from .cycle_run import measure_cycles
    from .core_state import FetchProbe, drift_note
    probe = FetchProbe(options, ghz)
    probes = report.fetch_probes
    probes.append(probe.cycles(cancel=cancel))
    for spec in _choose(suite, benches):
        fn = functions.get(spec.function)
        index = hot_loop(fn) if fn is not None else None
        step = spec.loop_step or (fn.loops[index].elements_per_iteration if index is not None else None)
        if index is None or not step:
            report.problems.append(f"{spec.name}: {spec.function} has no loop with a known step "
                                   "(set `loop_step` in the suite)")
            continue
        try:
            rows = measure_cycles(kernel, spec, step, report.ghz, budget, cancel, line_offset(alignment))
            for row in rows:
                row.alignment = alignment
        except BenchError as err:
            report.problems.append(f"{spec.name}: {err}")
            continue
        fill_prediction(rows, analysis, module, spec.function, index, fn)
        report.rows.extend(rows)
    probes.append(probe.cycles(cancel=cancel))
    from ..inspect.predict import memory_for
    note = drift_note(probes, memory_for(options).fetch_cycles)
    if note:
        report.notes.append(note)
    return report


def hot_loop(fn) -> int | None:
    """The index of the loop measured: the main loop, or in a nest the innermost loop with a known
    step (the widest such, LLVM's unrolled copy before its remainder loop)."""
    if not fn.loops:
        return None
    main = fn.loops.index(fn.main_loop)
    deepest = max(lp.depth for lp in fn.loops)
    if deepest == 0:
        return main
    inner = [k for k, lp in enumerate(fn.loops) if lp.depth == deepest and lp.elements_per_iteration]
    return max(inner, key=lambda k: fn.loops[k].elements_per_iteration) if inner else main


def clock_ghz() -> tuple[float, str]:
    """The core clock to convert time to cycles, and how it was obtained: the one the model's
    calibration measured (so measured and predicted cycles are the same cycles), else our own chain."""
    from ..inspect.predict import load_calibration
    from .frequency import core_ghz
    calibrated = load_calibration()
    if calibrated is not None and calibrated.ghz > 0:
        return calibrated.ghz, clock_source(f"of the calibration ({calibrated.source})")
    return core_ghz(), clock_source()


def _num(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def table_lines(report: CycleReport) -> list[str]:
    """The text table: one row per function and size class."""
    head = f"{'function':<20} {'size':<5} {'n':>10} {'predicted':>10} {'measured':>9} {'error':>7}  limit"
    out = [f"cycles per main-loop iteration at {report.ghz:.2f} GHz ({report.clock})", head]
    for r in report.rows:
        err = "-" if r.error is None else f"{r.error:+.0f}%"
        pred = _num(r.predicted) + (" ~" if r.predicted_by == "rough" else "")
        out.append(f"{r.function:<20} {r.size_class:<5} {r.n:>10} {pred:>10} {_num(r.cycles_per_iter):>9} "
                   f"{err:>7}  {r.limit or '-'}{'  (' + r.note + ')' if r.note else ''}")
    models = sorted({r.predicted_by for r in report.rows if r.predicted_by and r.predicted_by != "rough"})
    if models:
        out.append(f"predicted by {', '.join(models)}")
    if any(r.predicted_by == "rough" for r in report.rows):
        out.append("~ rough: the fallback estimate (no machine model for this CPU)")
    out += [f"not measured: {p}" for p in report.problems]
    out += [f"note: {n}" for n in report.notes]
    return out
