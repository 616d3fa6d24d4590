"""The evaluation worker: `python -m ea_compiler.tune.worker REQUEST.json`.

Loads one variant (and the current best), verifies and times it
(`evaluate.py`), and writes the outcome as JSON to the request's `result`
path. It runs in its own process so that a variant that crashes or hangs
costs one evaluation, not the tuning run."""
from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

from .outcome import Outcome


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    pinned = pin(request.get("cpu"))
    out = evaluate_request(request)
    out["cpu"] = pinned
    Path(request["result"]).write_text(json.dumps(out))
    return 0


def pin(cpu: int | None) -> int | None:
    """Keep this process on one core where the OS allows (Linux): a timed loop that migrates
    between cores mid-measurement pays for cold caches. The CPU pinned to, or None."""
    if cpu is None or not hasattr(os, "sched_setaffinity"):
        return None
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return None
    return cpu


def pin_cpu() -> int | None:
    """The core tuning workers are pinned to: the last one this process may use (CPU 0 takes
    most interrupts), None where affinity cannot be set."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    return allowed[-1] if allowed else None


def evaluate_request(req: dict) -> dict:
    from ..bench.suite import BenchError, load_suite
    from ..loader import CompileError, HostCPUError, load
    from ..options import Options
    from .evaluate import Wrong, edge_sizes, time_sizes, verify
    from .samecode import same_machine_code
    opts = Options(**req["options"])
    suite = load_suite(req["suite"])
    tuned = [b for b in suite.benches if b.name in req["tuned"]]
    others = [b for b in suite.benches if b.name not in req["tuned"]]
    kw = dict(target=opts.target_cpu, opt_level=opts.opt_level, avx512=opts.avx512)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            kernel = load(req["candidate"], **kw)
        except CompileError as err:
            return {"outcome": Outcome.COMPILE_ERROR, "reason": str(err).strip()}
        except HostCPUError as err:
            return {"outcome": Outcome.ERROR, "reason": str(err)}
        incumbent = load(req["incumbent"], **kw) if req.get("incumbent") else None
    if incumbent is not None and req.get("same_code", True) and same_machine_code(req["candidate"], req["incumbent"], opts):
        return {"outcome": Outcome.DUPLICATE, "reason": "the same machine code as the current best: "
                                                  "timing them could only measure noise"}
    facts = _loop_facts(req["candidate"], opts)
    marker = Path(req["result"]).with_suffix(".checking")

    def checking(function: str, n, guarded: bool) -> None:
        where = f"{function} at n={n}" if n.single else f"{function} at {n}"
        marker.write_text(json.dumps({"where": where, "guarded": guarded}))

    def edges(spec) -> set:
        step = facts.get(spec.function, {}).get("step") or 8
        return set(edge_sizes(spec, step)) if req.get("edges", True) else set()
    try:
        for spec in tuned:
            verify(kernel, spec, sorted(set(spec.sizes) | edges(spec)), set(spec.sizes), incumbent, checking)
        for spec in others:
            smallest = min(spec.sizes)
            verify(kernel, spec, sorted({smallest} | edges(spec)), {smallest}, incumbent, checking)
    except Wrong as err:
        return {"outcome": Outcome.WRONG, "reason": str(err), "facts": facts}
    except BenchError as err:
        return {"outcome": Outcome.ERROR, "reason": str(err)}
    marker.unlink(missing_ok=True)
    benches = {spec.name: time_sizes(kernel, spec, spec.sizes, req["quick"], incumbent, req.get("reference", False))
               for spec in tuned}
    return {"outcome": Outcome.OK, "benches": benches, "facts": facts}


def _loop_facts(path: str, opts) -> dict:
    """Per function: the main loop's elements per iteration and inspect's bottleneck class."""
    from ..inspect import InspectError, inspect
    try:
        report = inspect(Path(path).read_bytes(), path, opts)
    except (InspectError, OSError):
        return {}
    return {fn.name: {"step": fn.main_loop.elements_per_iteration, "bottleneck": fn.main_loop.bottleneck,
                      "hints": sorted({h.code for h in fn.hints})}
            for fn in report.functions if fn.main_loop is not None}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
