"""The call fuzzer's worker: `python -m fuzz_support.worker CONFIG.json`.

Loads every source of the configuration with `ea.load` (default target:
this CPU, never `avx512`), then for every function of every loaded kernel
forks a child that makes that function's calls one after another. The child
writes a line before each call and one after, to a pipe; when it dies of a
signal, the call it had started is the one that crashed, and a new child
goes on from the next call. A child silent for HANG_S seconds is killed (a
hang). A parallel variant's call that returns is made again with the
export itself on copies of the arguments: results and arrays must be equal
(a float sum to a tolerance). The report (JSON, per function: calls,
returns, clean errors, calls with an unclear error, parallel calls that
differ from the export, signals, hangs, with the calls' descriptions) goes
to the configuration's "report" path."""
from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import sys
import time
import zlib
from pathlib import Path

import numpy as np

from ea_compiler.tune.guard import guarded

from .calls import make_call  # imported here, once, not in every child

HANG_S = 10.0
MAX_FAULTS = 4  # signals and hangs per function before its remaining calls are given up


def main(config_path: str) -> None:
    config = json.loads(Path(config_path).read_text())
    import ea
    from ea_compiler import analyze
    from ea_compiler.bind.meta import parse_api
    from ea_compiler.bind.python import py
    from ea_compiler.build import metadata

    from .corpus import live_exports

    folder = Path(config["folder"])
    report: dict = {"functions": {}, "not_loaded": {}}
    for src in config["sources"]:
        path = folder / f"{src['stem']}.ea"
        try:
            kernel = ea.load(path)  # target="native", avx512=False: nothing this CPU lacks
            a = analyze(path.read_bytes(), str(path))
            api = parse_api(metadata(a, f"{src['stem']}.so", live_exports(a)), src["stem"])
        except Exception as err:  # noqa: BLE001 - a source that does not load is reported, not fatal
            report["not_loaded"][src["key"]] = f"{type(err).__name__}: {str(err).splitlines()[0]}"
            continue
        structs = {s.name: getattr(kernel, s.name) for s in api.structs if hasattr(kernel, s.name)}
        exports = {py(e.name): e for e in api.exports} | {f"{e.name}_parallel": e for e in api.exports}
        for fn in kernel._names:
            export = exports[fn]
            key = f"{src['key']}::{fn}"
            if export.name in src["skip"]:
                continue
            seed = [config["seed"], zlib.crc32(key.encode())]
            began = time.monotonic()
            report["functions"][key] = fuzz(kernel, fn, export, structs, config["calls"], seed)
            report["functions"][key]["seconds"] = round(time.monotonic() - began, 3)
    Path(config["report"]).write_text(json.dumps(report, indent=1))


def fuzz(kernel, fn: str, export, structs: dict, calls: int, seed: list) -> dict:
    result = {"calls": 0, "returned": 0, "clean": 0, "unclear": [], "differs": [], "signals": [], "hangs": []}
    start = 0
    while start < calls:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: make the calls, report each, never return into the parent's code
            os.close(read_fd)
            try:
                _child(kernel, fn, export, structs, range(start, calls), seed, os.fdopen(write_fd, "w", 1))
            finally:
                os._exit(0)
        os.close(write_fd)
        started, hung = _follow(read_fd, result)
        if hung:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if hung or os.WIFSIGNALED(status):
            fault = {"call": started[1] if started else "(before the first call)"}
            if hung:
                result["hangs"].append(fault)
            else:
                fault["signal"] = signal.Signals(os.WTERMSIG(status)).name
                result["signals"].append(fault)
            result["calls"] += 1
            start = (started[0] if started else start) + 1
            if len(result["signals"]) + len(result["hangs"]) >= MAX_FAULTS:
                result["given_up"] = calls - start
                break
        else:
            if os.WEXITSTATUS(status) != 0:
                result["unclear"].append({"call": "(the worker's child)", "error": f"exit {os.WEXITSTATUS(status)}"})
            break
    return result


def _follow(fd: int, result: dict) -> tuple[tuple[int, str] | None, bool]:
    """Read the child's lines until it ends: (the last call started and not
    finished, whether the child went silent)."""
    started = None
    buffer = b""
    while True:
        ready, _, _ = select.select([fd], [], [], HANG_S)
        if not ready:
            os.close(fd)
            return started, True
        chunk = os.read(fd, 65536)
        if not chunk:
            os.close(fd)
            return started, False
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            event = json.loads(line)
            if "start" in event:
                started = (event["start"], event["call"])
                continue
            started = None
            result["calls"] += 1
            if event["outcome"] == "returned":
                result["returned"] += 1
            elif event["outcome"] == "clean":
                result["clean"] += 1
            else:
                result[event["outcome"]].append({"call": event["call"], "error": event["detail"]})


def _child(kernel, fn, export, structs, indices, seed, out) -> None:
    from ea_compiler.bind.python import py
    names = [a.name for a in export.visible] + [a.name for a in export.args if a.collapsed_from] + ["threads"]
    whole = getattr(kernel, py(export.name)) if fn != py(export.name) else None  # what a parallel variant must equal
    for i in indices:
        call = make_call(export, fn, structs, np.random.default_rng([*seed, i]))
        text = call.describe()
        out.write(json.dumps({"start": i, "call": text}) + "\n")
        reference = _copies(call) if whole is not None else None
        outcome, detail, result = _run(getattr(kernel, fn), call, names)
        if outcome == "returned" and reference is not None:
            detail = _differs(whole, reference, call, result, export.parallel.combine)
            outcome = "differs" if detail else outcome
        out.write(json.dumps({"done": i, "call": text, "outcome": outcome, "detail": detail}) + "\n")
    out.close()


def _run(function, call, names: list[str]) -> tuple[str, str, object]:
    """"returned", "clean" (a TypeError or ValueError naming a parameter) or "unclear"."""
    try:
        return "returned", "", function(*call.args, **call.kwargs)
    except (TypeError, ValueError) as err:
        message = str(err)
        if any(re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", message) for n in names):
            return "clean", "", None
        return "unclear", f"{type(err).__name__}: {message}", None
    except Exception as err:  # noqa: BLE001 - any other exception is what the fuzzer reports
        return "unclear", f"{type(err).__name__}: {err}", None


def _copies(call):
    """The call's arguments for the export itself (guarded copies of the arrays,
    no `threads`), or None when an argument is not a plain 1-D array."""
    if any(isinstance(a, np.ndarray) and not (a.ndim == 1 and a.flags.c_contiguous) for a in call.args):
        return None
    args = [guarded(a.copy()) if isinstance(a, np.ndarray) else a for a in call.args]
    return args, {k: v for k, v in call.kwargs.items() if k != "threads"}


def _differs(whole, reference, call, got, combine: str) -> str:
    """How a parallel variant's call differs from the export's on the same arguments ("" if not)."""
    args, kwargs = reference
    try:
        want = whole(*args, **kwargs)
    except Exception as err:  # noqa: BLE001
        return f"the export raised {type(err).__name__}: {err}"
    if not _equal(got, want, combine):
        return f"returned {got!r}, the export {want!r}"
    for k, (a, b) in enumerate(zip(call.args, args)):
        if isinstance(a, np.ndarray) and a.tobytes() != b.tobytes():
            return f"argument {k + 1} differs from the export's"
    return ""


def _equal(got, want, combine: str) -> bool:
    if isinstance(want, tuple):
        return (isinstance(got, tuple) and len(got) == len(want)
                and all(_equal(g, w, combine) for g, w in zip(got, want)))
    if isinstance(want, np.ndarray):
        return isinstance(got, np.ndarray) and got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if type(got) is not type(want):
        return False
    if combine == "sum" and isinstance(want, float):  # chunks add their sums in another order
        return math.isclose(got, want, rel_tol=1e-3, abs_tol=1.0)
    return got == want or (got != got and want != want)


if __name__ == "__main__":
    started_at = time.monotonic()
    main(sys.argv[1])
    print(f"worker: {time.monotonic() - started_at:.1f} s", file=sys.stderr)
