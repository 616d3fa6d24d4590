"""`ea check FILE|DIR...`: every diagnostic of many files, for people and CI."""
from __future__ import annotations

import sys

from ..analysis import analyze
from ..options import Options
from ..render import render_all
from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from .flags import read_sources, unreadable, wants_help

USAGE = "usage: ea check <file.ea|dir>... [--format text|json] [target options]"
HELP = USAGE + """

Reports every diagnostic of each file (a directory means its *.ea files, sorted):
as text on stderr with a summary line, or with --format json as one JSON document
on stdout. Exit 1 if any file has an error or cannot be read.

options:
  --format text|json, -f   output format (default text)
  --opt-level N  --target CPU  --target-triple T  --avx512 --fp16 --dotprod --i8mm  --stream-threshold SIZE
                           the target the checks assume (as for `ea FILE`)
  -h, --help               this help
An option's value may also be written --opt=value.
"""


def run_check(args: list[str]) -> int:
    if wants_help(args):
        sys.stderr.write(HELP)
        return 0
    opts = Options()
    inputs: list[str] = []
    fmt = "text"
    for arg in joined(args, ("--format", "-f", *TARGET_VALUE_OPTIONS)):
        name, eq, value = arg.partition("=")
        if name in ("--format", "-f") and eq:
            fmt = value
        elif arg.startswith("-"):
            new = parse_target_flag(arg, opts)
            if new is None:
                raise UsageError(f"unknown option '{arg}'")
            opts = new
        else:
            inputs.append(arg)
    if fmt not in ("text", "json"):
        raise UsageError(f"unknown format '{fmt}', expected 'text' or 'json'")
    if not inputs:
        print(USAGE, file=sys.stderr)
        return 1
    validate(opts)
    report = []
    errors = warnings = 0
    files = read_sources(inputs)
    for path, data, problem in files:
        if data is None:
            errors += 1
            message = f"cannot read '{path}': {problem}"
            report.append({"path": path, "diagnostics": [unreadable(path, problem)]})
            if fmt == "text":
                print(f"error: {message}", file=sys.stderr)
            continue
        result = analyze(data, path, opts)
        errors += len(result.errors)
        warnings += len(result.diagnostics) - len(result.errors)
        if fmt == "text":
            sys.stderr.write(render_all(result.diagnostics, result.source, path))
        report.append({"path": path, "diagnostics": [d.to_json() for d in result.diagnostics]})
    if fmt == "json":
        import json
        json.dump({"files": report, "errors": errors, "warnings": warnings}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        n = len(files)
        print(f"checked {n} file{'s' if n != 1 else ''}: {errors} error{'s' if errors != 1 else ''}, "
              f"{warnings} warning{'s' if warnings != 1 else ''}", file=sys.stderr)
    return 1 if errors else 0
