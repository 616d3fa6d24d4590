"""`ea inspect FILE.ea [target options] [--json]` (TOOLCHAIN.md §6): the
report on stdout, diagnostics on stderr."""
from __future__ import annotations

import json
import sys

from ..inspect import InspectError, inspect, render_text
from ..options import Options
from ..render import render_all
from .flags import UsageError, parse_target_flag, validate

USAGE = "usage: ea inspect <file.ea> [--opt-level=N] [--target=CPU] [--target-triple=T] [--avx512] " \
        "[--dotprod] [--i8mm] [--fp16] [--bandwidth=GBS] [--json]"


def run_inspect(args: list[str]) -> int:
    if not args or args[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 1
    path, opts, as_json, bandwidth = args[0], Options(), False, None
    for arg in args[1:]:
        if arg == "--json":
            as_json = True
        elif arg.startswith("--bandwidth="):
            try:
                bandwidth = float(arg.split("=", 1)[1])
            except ValueError:
                raise UsageError("--bandwidth takes GB/s, e.g. --bandwidth=25") from None
        else:
            new = parse_target_flag(arg, opts)
            if new is None:
                raise UsageError(f"unknown inspect option '{arg}'")
            opts = new
    validate(opts)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise UsageError(f"cannot read '{path}': {err.strerror or err}") from None
    try:
        report = inspect(data, path, opts, bandwidth)
    except InspectError as err:
        analysis = err.analysis
        sys.stderr.write(render_all(err.diagnostics, analysis.source if analysis else None, path))
        return 1
    if as_json:
        json.dump(report.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(report))
    return 0
