"""`ea inspect FILE|DIR... [target options] [--json]` (TOOLCHAIN.md §6): the
report on stdout, diagnostics on stderr. With several files each report is
headed `==> path <==` (JSON: {"files": [{"path": ..., report or "diagnostics"}]})."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..inspect import InspectError, inspect, render_text
from ..options import Options
from ..render import render_all
from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from .flags import read_sources, unreadable, wants_help

USAGE = "usage: ea inspect <file.ea> [--opt-level=N] [--target=CPU] [--target-triple=T] [--avx512] " \
        "[--dotprod] [--i8mm] [--fp16] [--bandwidth=GBS] [--working-set=SIZE] [--alignment=N] [--no-predict] [--measure] [--json]"
HELP = USAGE + """
       ea inspect <file.ea|dir>... [options]

What the optimised machine code of every function does: instruction mix, vector
width, loops, registers, bottleneck, hints, and each loop's predicted cycles per
iteration (llvm-mca's model of the target CPU and the memory bandwidths
`ea bench --calibrate` measured; "(rough)" without a model). Several files or directories (their
*.ea files, sorted) give one report each, headed `==> path <==`; exit 1 if any fails.

options:
  --json             the report as JSON on stdout
  --bandwidth GBS    memory bandwidth for the bottleneck estimate, in GB/s
  --working-set SIZE the bytes the kernel touches (e.g. 16K, 64M): the prediction at that size
  --alignment N      the arrays start at a multiple of N bytes (a power of two) and no larger one:
                     16 (default) as NumPy's arrays, whose 32-byte accesses then cross cache lines
                     half the time; 64 on a cache line (ea_compiler.bench.inputs.place)
  --no-predict       leave the predicted cycles out
  --measure          also run each function of the file's bench suite (<stem>.bench.toml) at an
                     L1-resident and a DRAM size: cycles per main-loop iteration, predicted vs
                     measured (kept in the suite's history for the editor)
  --opt-level N  --target CPU  --target-triple T  --avx512 --fp16 --dotprod --i8mm  --stream-threshold SIZE
                     the build to inspect (as for `ea FILE`)
  -h, --help         this help
An option's value may also be written --opt=value.
"""


def run_inspect(args: list[str]) -> int:
    if wants_help(args):
        sys.stderr.write(HELP)
        return 0
    if not args or args[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 1
    inputs, opts, as_json, bandwidth, measure = [], Options(), False, None, False
    predict: dict = {"predict": True, "working_set_bytes": None}
    for arg in joined(args, ("--bandwidth", "--working-set", "--alignment", *TARGET_VALUE_OPTIONS)):
        if arg == "--json":
            as_json = True
        elif arg == "--measure":
            measure = True
        elif arg == "--no-predict":
            predict["predict"] = False
        elif arg.startswith("--working-set="):
            from ..bench import parse_size
            try:
                predict["working_set_bytes"] = parse_size(arg.split("=", 1)[1])
            except ValueError:
                raise UsageError("--working-set takes a size in bytes, e.g. --working-set=16M") from None
        elif arg.startswith("--alignment="):
            predict["alignment"] = _alignment(arg.split("=", 1)[1])
        elif arg.startswith("--bandwidth="):
            try:
                bandwidth = float(arg.split("=", 1)[1])
            except ValueError:
                raise UsageError("--bandwidth takes GB/s, e.g. --bandwidth=25") from None
        elif not arg.startswith("-"):
            inputs.append(arg)
        else:
            new = parse_target_flag(arg, opts)
            if new is None:
                raise UsageError(f"unknown inspect option '{arg}'")
            opts = new
    validate(opts)
    files = read_sources(inputs)
    if len(files) == 1:
        path, data, problem = files[0]
        report = _inspect_one(path, data, problem, opts, bandwidth, predict=predict)
        if report is None:
            return 1
        if measure:
            return _measured(path, report, opts, as_json)
        sys.stdout.write(json.dumps(report.to_json(), indent=2) + "\n" if as_json else render_text(report))
        return 0
    if measure:
        raise UsageError("--measure takes one file")
    code, docs = 0, []
    for k, (path, data, problem) in enumerate(files):
        if not as_json:
            sys.stdout.write(f"{chr(10) if k else ''}==> {path} <==\n")
            sys.stdout.flush()
        report = _inspect_one(path, data, problem, opts, bandwidth, docs if as_json else None, predict)
        if report is None:
            code = 1
        elif as_json:
            docs.append({"path": path, **report.to_json()})
        else:
            sys.stdout.write(render_text(report))
    if as_json:
        json.dump({"files": docs}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return code


def _alignment(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or value & (value - 1):
        raise UsageError(f"--alignment takes a power of two in bytes, e.g. --alignment=64 (got '{text}')")
    return value


def _inspect_one(path: str, data: bytes | None, problem: str | None, opts: Options,
                 bandwidth: float | None, docs: list | None = None, predict: dict | None = None):
    """The report of one file, or None after printing why there is none (and
    recording it in `docs` for JSON)."""
    if data is None:
        message = f"cannot read '{path}': {problem}"
        print(f"error: {message}", file=sys.stderr)
        if docs is not None:
            docs.append({"path": path, "diagnostics": [unreadable(path, problem)]})
        return None
    try:
        return inspect(data, path, opts, bandwidth, **(predict or {}))
    except InspectError as err:
        analysis = err.analysis
        sys.stderr.write(render_all(err.diagnostics, analysis.source if analysis else None, path))
        if docs is not None:
            docs.append({"path": path, "diagnostics": [d.to_json() for d in err.diagnostics]})
        return None


def _measured(path: str, report, opts: Options, as_json: bool) -> int:
    """The report, then the cycles measured by the file's bench suite."""
    from ..bench import BenchError, find_suite, load_suite
    from .bench_cycles import measure_suites
    found = find_suite(path)
    if found is None:
        raise UsageError(f"--measure needs a bench suite for '{path}' (the arguments to call it with): "
                         f"create {Path(path).with_name(Path(path).stem + '.bench.toml')}")
    try:
        suite = load_suite(found)
    except BenchError as err:
        raise UsageError(str(err)) from None
    if not as_json:
        sys.stdout.write(render_text(report) + "\n")
        sys.stdout.flush()
    code, docs = measure_suites([suite], opts, out=None if as_json else sys.stdout)
    if as_json:
        sys.stdout.write(json.dumps({**report.to_json(), "measured": docs[0] if docs else None}, indent=2) + "\n")
    return code
