"""One suite's kernel, our build against the reference's: for every bench and
size, the suite's arguments (compiler/bench/inputs.py, arrays
`line_offset` bytes past a cache line: 16 is where NumPy puts large arrays),
both builds called on copies and checked against the suite's NumPy
reference and against each other (the suite's tolerances), then timed in
alternating turns on the same arrays (compiler/bench/timing.py, the thread's
CPU time)."""
from __future__ import annotations

import faulthandler
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

from ea_compiler.bench.check import judge
from ea_compiler.bench.inputs import bench_namespace, copy_args, make_args
from ea_compiler.bench.suite import BenchError, Suite, size_label
from ea_compiler.bench.timing import Budget, measure
from ea_compiler.bind.meta import BindError

from .libs import Pair, build, pair


@dataclass
class Row:
    kernel: str  # the label of the source (a suite's kernel, or another kernel run with its suite)
    bench: str
    function: str
    size: str
    status: str  # "ok", or what went wrong (not timed)
    ours_ns: float | None = None
    ref_ns: float | None = None
    ours_p10_ns: float | None = None
    ref_p10_ns: float | None = None
    runs: int = 0
    message: str = ""

    @property
    def ratio(self) -> float | None:
        return self.ours_ns / self.ref_ns if self.ours_ns and self.ref_ns else None

    def to_json(self) -> dict:
        return {**self.__dict__, "ratio": self.ratio}


@dataclass
class KernelResult:
    kernel: str
    source: Path
    rows: list[Row] = field(default_factory=list)
    skipped: str = ""  # why the kernel was not compared (the reference's error line, say)


def compare_kernel(label: str, suite: Suite, source: Path, ref_command: tuple[str, ...],
                   our_command: tuple[str, ...], folder: Path, budget: Budget, *, sizes=None,
                   line_offset: int = 16, progress=print) -> KernelResult:
    result = KernelResult(label, source)
    ours = build(our_command, source, folder / "ours")
    if ours.error:
        result.skipped = f"our compiler: {ours.error}"
        return result
    ref = build(ref_command, source, folder / "reference")
    if ref.error:
        result.skipped = f"reference: {ref.error}"
        return result
    for spec in suite.benches:
        both = pair(ours, ref, spec.function)
        chosen = [s for s in spec.sizes if sizes is None or size_label(s) in sizes]
        for n in chosen:
            if isinstance(both, str):
                result.rows.append(Row(label, spec.name, spec.function, size_label(n), "not compared", message=both))
                continue
            progress(f"  {label}: {spec.name} at {size_label(n)}")
            result.rows.append(compare_one(label, both, spec, n, budget, line_offset))
    return result


def survives(fn, cargs: tuple) -> str | None:
    """None when `fn(*cargs)` returns in a forked child (its writes stay there),
    else how the child died: a build that faults (a reference's aligned store on
    NumPy's 16-byte-aligned arrays, say) is reported, not the end of the run."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        faulthandler.disable()  # its death is the answer, not a traceback on stderr
        try:
            fn(*cargs)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return None


def compare_one(label: str, both: Pair, spec, n, budget: Budget, line_offset: int) -> Row:
    row, args = check_one(label, both, spec, n, line_offset)
    if row.status != "checked":
        return row
    cargs = both.arguments(args)  # addresses: `args` keeps the arrays alive while timing
    ours_fn, ref_fn = both.ours, both.ref
    stats = measure({"ours": lambda: ours_fn(*cargs), "reference": lambda: ref_fn(*cargs)}, budget)
    row.status = "ok"
    row.ours_ns, row.ours_p10_ns = stats["ours"].median_ns, stats["ours"].p10_ns
    row.ref_ns, row.ref_p10_ns = stats["reference"].median_ns, stats["reference"].p10_ns
    row.runs = stats["ours"].n_runs
    return row


def check_one(label: str, both: Pair, spec, n, line_offset: int) -> tuple[Row, dict | None]:
    """The row, status "checked" when both builds match the suite's reference and each
    other, with fresh arguments to time them on; else what is wrong (and None). Every
    call gets arguments placed as make_args places them (the same seed, so the same
    values and alignments), first in a forked child."""
    row = Row(label, spec.name, spec.function, size_label(n), "error")
    try:
        env = bench_namespace(spec, n)
        args = make_args(spec, n, {}, env, line_offset)
        expected = eval(compile(spec.reference, f"[[bench]] {spec.name}: reference", "eval"),  # noqa: S307
                        {**env, **copy_args(args)})
        got, after = {}, {}
        for which, fn in (("ours", both.ours), ("reference", both.ref)):
            mine = make_args(spec, n, {}, env, line_offset)
            cargs = both.arguments(mine)
            died = survives(fn, cargs)
            if died:
                row.status, row.message = f"{which} crashed", died
                return row, None
            returned = fn(*cargs)
            got[which] = returned if spec.check == "return" else mine[spec.check]
            after[which] = mine
            why = judge(spec, got[which], expected, {**env, **mine})
            if why:
                row.status, row.message = f"{which} wrong", why
                return row, None
        why = judge(spec, got["ours"], got["reference"], {**env, **after["ours"]})
        if why:
            row.status, row.message = "builds disagree", why
            return row, None
        row.status = "checked"
        return row, args
    except (BenchError, BindError) as err:
        row.message = str(err)
    except Exception as err:  # noqa: BLE001 - the suite's expressions are user code
        row.message = f"{type(err).__name__}: {err}"
    return row, None
