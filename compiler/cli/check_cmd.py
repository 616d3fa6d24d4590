"""`ea check FILE...`: every diagnostic of many files, for people and CI."""
from __future__ import annotations

import json
import sys

from ..analysis import analyze
from ..options import Options
from ..render import render_all
from .flags import UsageError, parse_target_flag, validate

USAGE = "usage: ea check <file.ea>... [--format text|json] [target options]"


def run_check(args: list[str]) -> int:
    opts = Options()
    files: list[str] = []
    fmt = "text"
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("--format", "-f") and i + 1 < len(args):
            fmt = args[i + 1]
            i += 2
            continue
        if arg.startswith("--format="):
            fmt = arg.split("=", 1)[1]
        elif arg.startswith("-"):
            new = parse_target_flag(arg, opts)
            if new is None:
                raise UsageError(f"unknown option '{arg}'")
            opts = new
        else:
            files.append(arg)
        i += 1
    if fmt not in ("text", "json"):
        raise UsageError(f"unknown format '{fmt}', expected 'text' or 'json'")
    if not files:
        print(USAGE, file=sys.stderr)
        return 1
    validate(opts)
    report = []
    errors = warnings = 0
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as err:
            errors += 1
            message = f"cannot read '{path}': {err.strerror or err}"
            report.append({"path": path, "diagnostics": [{"severity": "error", "kind": "io", "code": "io",
                                                           "message": message, "span": None, "labels": [],
                                                           "notes": [], "suggestions": []}]})
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
        json.dump({"files": report, "errors": errors, "warnings": warnings}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        n = len(files)
        print(f"checked {n} file{'s' if n != 1 else ''}: {errors} error{'s' if errors != 1 else ''}, "
              f"{warnings} warning{'s' if warnings != 1 else ''}", file=sys.stderr)
    return 1 if errors else 0
