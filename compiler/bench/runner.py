"""Running a NumPy suite: load the kernel through the loader, measure the
bandwidth (and, for benches that count their flops, take the machine's FMA
peak), then for every benchmark and size: verify against the reference, and
only if it matches, time kernel and reference in turns."""
from __future__ import annotations

import ctypes
import platform
import threading
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from ..options import Options
from .check import judge
from .history import previous_medians, read_history
from .inputs import bench_namespace, copy_args, evaluate, make_args
from .suite import BenchError, BenchSpec, Size, Suite, as_size, size_label
from .timing import Budget, Cancelled, measure


@dataclass
class Result:
    bench: str
    function: str
    size: Size
    status: str  # "ok", "wrong" (did not match the reference: not timed) or "error"
    median_ns: float | None = None
    p10_ns: float | None = None
    p90_ns: float | None = None
    ref_median_ns: float | None = None
    ref_p10_ns: float | None = None
    gbps: float | None = None
    ref_gbps: float | None = None
    gflops: float | None = None  # with `flops` / `flops_per_element` in the suite
    ref_gflops: float | None = None
    speedup: float | None = None  # reference time / kernel time
    bandwidth_fraction: float | None = None  # of the triad bandwidth measured in the run
    peak_fraction: float | None = None  # of the FMA peak (peak.py)
    bottleneck: str | None = None  # inspect's class of the function's main loop
    message: str = ""
    change: float | None = None  # vs the previous comparable run: +0.05 = 5 % slower
    n_inner: int = 0
    n_runs: int = 0

    @property
    def key(self) -> str:
        return f"{self.bench}[{size_label(self.size)}]"

    def measurement(self) -> dict:
        data = {"kernel": self.key}
        data.update({k: (round(v) if k.endswith("_ns") and v is not None else v) for k, v in asdict(self).items()})
        data["size"] = as_size(self.size).to_json()
        return data


@dataclass
class Progress:
    done: int
    total: int
    message: str
    result: Result | None = None


@dataclass
class RunReport:
    suite: Suite
    options: Options
    results: list[Result] = field(default_factory=list)
    bandwidth_gbs: float | None = None
    peak_gflops: float | None = None  # the FMA peak, when a bench counts its flops
    pinned: bool = False
    quick: bool = False  # --quick: short measurements, comparable only with other quick runs

    @property
    def failed(self) -> bool:
        return any(r.status != "ok" for r in self.results)

    def document(self) -> dict:
        from .envinfo import environment, result_document
        doc = result_document(self.suite.name, self.environment(),
                              [r.measurement() for r in self.results], self.suite.path.parent)
        doc["kind"] = "numpy"
        doc["bandwidth"] = None if self.bandwidth_gbs is None else {
            "kernel": "triad", "gbps": self.bandwidth_gbs}
        doc["peak"] = None if self.peak_gflops is None else {"kernel": "fma_peak", "gflops": self.peak_gflops}
        return doc

    def environment(self) -> dict:
        from .envinfo import environment
        return dict(environment(self.options, self.pinned), quick=self.quick)


def run_suite(suite: Suite, options: Options, *, benches: list[str] | None = None, sizes: list[int] | None = None,
              quick: bool = False, bandwidth: bool = True, reps: int | None = None,
              progress: Callable[[Progress], None] | None = None,
              cancel: threading.Event | None = None, bandwidth_gbs: float | None = None,
              budget: Budget | None = None, peak: bool = True) -> RunReport:
    """Run the suite; `bandwidth_gbs` reuses a measurement taken earlier in the same run;
    `budget` measures longer or shorter than the default (or `quick`); `sizes` (counts or
    Size) replace the suite's, for the benches whose sizes have the same parameters.
    Raises BenchError for problems with the suite as a whole, Cancelled when cancelled."""
    _runnable(options)
    chosen = _choose(suite, benches)
    plan = [(b, n) for b in chosen for n in sizes_for(b, sizes)]
    if not plan:
        raise BenchError(f"{suite.path}: none of the sizes asked for has the parameters of a chosen bench "
                         f"({'; '.join(', '.join(b.sizes[0].names) for b in chosen)}); --sizes gives one-n sizes")
    measure_bw = bandwidth and bandwidth_gbs is None
    total = 1 + int(measure_bw) + len(plan)
    done = 0

    def tell(message: str, result: Result | None = None, step: bool = True) -> None:
        nonlocal done
        done += int(step)
        if progress is not None:
            progress(Progress(done, total, message, result))

    tell(f"compiling {suite.kernel.name}", step=False)
    kernel = _load(suite, options)
    tell(f"compiled {suite.kernel.name}")
    report = RunReport(suite, options, quick=quick)
    if measure_bw:
        from .bandwidth import measure_bandwidth
        tell("measuring memory bandwidth (triad)", step=False)
        bandwidth_gbs = measure_bandwidth(options, quick, cancel)
        tell(f"memory bandwidth: {bandwidth_gbs:.1f} GB/s")
    report.bandwidth_gbs = bandwidth_gbs if bandwidth else None
    if peak and any(b.flops or b.flops_per_element for b in chosen):
        from .peak import peak_gflops
        tell("taking the FMA peak", step=False)
        report.peak_gflops = peak_gflops(options, cancel)
    bottlenecks = _bottlenecks(suite, options, report.bandwidth_gbs)
    budget = budget or (Budget.quick() if quick else Budget())
    budget.fixed_samples = reps
    for spec, n in plan:
        tell(f"{spec.name} at {size_label(n)}", step=False)
        result = _run_one(kernel, spec, n, budget, cancel)
        result.bottleneck = bottlenecks.get(spec.function)
        if result.gbps and report.bandwidth_gbs:
            result.bandwidth_fraction = result.gbps / report.bandwidth_gbs
        if result.gflops and report.peak_gflops:
            result.peak_fraction = result.gflops / report.peak_gflops
        report.results.append(result)
        tell(f"{spec.name} at {size_label(n)}: {result.status}", result)
    _changes(report)
    return report


def sizes_for(spec: BenchSpec, sizes) -> list[Size]:
    """The sizes to run `spec` at: the suite's, or those of `sizes` with its parameters (none
    when no size asked for has them: a suite may mix benches of one n and of named sizes)."""
    if not sizes:
        return spec.sizes
    return [s for s in map(as_size, sizes) if s.names == spec.sizes[0].names]


def _runnable(options: Options) -> None:
    host = "aarch64" if platform.machine().lower() in ("aarch64", "arm64") else "x86_64"
    if options.target_triple and not options.target_triple.startswith(host):
        raise BenchError(f"benchmarks run on this machine ({host}); "
                         f"code for --target-triple={options.target_triple} cannot run here")


def _choose(suite: Suite, names: list[str] | None) -> list[BenchSpec]:
    if not names:
        return suite.benches
    known = {b.name: b for b in suite.benches}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise BenchError(f"{suite.path}: no benchmark named {', '.join(unknown)} "
                         f"(the suite has {', '.join(known)})")
    return [known[n] for n in names]


def _load(suite: Suite, options: Options):
    from ..loader import CompileError, load
    try:
        return load(suite.kernel, target=options.target_cpu, opt_level=options.opt_level, avx512=options.avx512)
    except CompileError as err:
        raise BenchError(f"{err}\n{err.stderr}".rstrip()) from None


def _bottlenecks(suite: Suite, options: Options, bandwidth_gbs: float | None) -> dict[str, str]:
    from ..inspect import InspectError, inspect
    try:
        report = inspect(suite.kernel.read_bytes(), str(suite.kernel), options, bandwidth_gbs)
    except (InspectError, OSError):
        return {}
    return {fn.name: fn.main_loop.bottleneck for fn in report.functions if fn.main_loop is not None}


def work(spec: BenchSpec, size: Size, env: dict) -> tuple[float | None, float | None]:
    """(bytes, flops) of one call at `size`, from the suite's per-element counts or
    expressions (evaluated in the bench's namespace `env`); None where not given."""
    out = []
    for per, expr in ((spec.bytes_per_element, spec.bytes), (spec.flops_per_element, spec.flops)):
        if per is not None:
            out.append(per * size.env()["n"])
        elif expr:
            value = evaluate(expr, env, f"[[bench]] {spec.name} at {size.label}")
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or value <= 0:
                raise BenchError(f"[[bench]] {spec.name} at {size.label}: {expr!r} gave {value!r}, "
                                 "not a positive number")
            out.append(float(value))
        else:
            out.append(None)
    return out[0], out[1]


def _run_one(kernel, spec: BenchSpec, n: Size, budget: Budget, cancel) -> Result:
    result = Result(spec.name, spec.function, n, "error")
    fn = getattr(kernel, spec.function, None)
    if fn is None or spec.function.startswith("_"):
        result.message = f"the kernel has no exported function '{spec.function}'"
        return result
    structs = {name: np.dtype(value) for name, value in vars(kernel).items()
               if isinstance(value, type) and issubclass(value, ctypes.Structure)}
    try:
        env = bench_namespace(spec, n)
        args = make_args(spec, n, structs, env)
    except BenchError as err:
        result.message = str(err)
        return result
    before = copy_args(args)
    env.update(before)
    try:
        ref_code = compile(spec.reference, f"[[bench]] {spec.name}: reference", "eval")
        expected = eval(ref_code, env)  # noqa: S307 - suites are trusted code
    except Exception as err:  # noqa: BLE001 - the user's expression
        result.message = f"the reference {spec.reference!r} failed: {type(err).__name__}: {err}"
        return result
    try:
        returned = fn(**args)
    except Exception as err:  # noqa: BLE001 - the binding's argument checks, named per parameter
        result.message = f"{spec.function}(...) raised {type(err).__name__}: {err}"
        return result
    got = returned if spec.check == "return" else args[spec.check]
    why = judge(spec, got, expected, {**env, **args})
    if why:
        result.status, result.message = "wrong", why
        return result
    try:
        nbytes, flops = work(spec, n, {**env, **before})
    except BenchError as err:
        result.message = str(err)
        return result
    stats = measure({"kernel": lambda: fn(**args), "reference": lambda: eval(ref_code, env)}, budget, cancel)
    k, r = stats["kernel"], stats["reference"]
    result.status = "ok"
    result.median_ns, result.p10_ns, result.p90_ns = k.median_ns, k.p10_ns, k.p90_ns
    result.n_inner, result.n_runs = k.n_inner, k.n_runs
    result.ref_median_ns, result.ref_p10_ns = r.median_ns, r.p10_ns
    if nbytes is not None:
        result.gbps, result.ref_gbps = nbytes / k.median_ns, nbytes / r.median_ns
    if flops is not None:
        result.gflops, result.ref_gflops = flops / k.median_ns, flops / r.median_ns
    result.speedup = r.median_ns / k.median_ns
    return result


def _changes(report: RunReport) -> None:
    before = previous_medians(read_history(report.suite), report.environment())
    for r in report.results:
        if r.status == "ok" and r.key in before and before[r.key] > 0:
            r.change = r.median_ns / before[r.key] - 1.0


__all__ = ["Cancelled", "Progress", "Result", "RunReport", "run_suite"]
