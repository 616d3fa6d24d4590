"""Conventions every `ea` subcommand follows: `-h`/`--help` anywhere prints
its usage (stderr, exit 0), an option with a value is written `--opt=value`
or `--opt value`, and a directory among the inputs means its `*.ea` files.
Target flags are parsed by compiler/target_flags.py."""
from __future__ import annotations

from pathlib import Path

HELP_FLAGS = ("-h", "--help")


def wants_help(args: list[str]) -> bool:
    return any(arg in HELP_FLAGS for arg in args)


def expand_sources(paths: list[str]) -> list[tuple[str, str | None]]:
    """Each input as (path, problem): a directory becomes its `*.ea` files, sorted
    (problem "no .ea files in this directory" when it has none); files stay as given."""
    out: list[tuple[str, str | None]] = []
    for path in paths:
        folder = Path(path)
        if not folder.is_dir():
            out.append((path, None))
            continue
        files = sorted(p for p in folder.glob("*.ea") if p.is_file())
        if not files:
            out.append((path, "no .ea files in this directory"))
        out.extend((str(p), None) for p in files)
    return out


def read_sources(paths: list[str]) -> list[tuple[str, bytes | None, str | None]]:
    """`expand_sources`, then each file read: (path, bytes, None), or
    (path, None, why it cannot be read)."""
    out: list[tuple[str, bytes | None, str | None]] = []
    for path, problem in expand_sources(paths):
        data = None
        if problem is None:
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as err:
                problem = err.strerror or str(err)
        out.append((path, data, problem))
    return out


def unreadable(path: str, problem: str) -> dict:
    """The JSON diagnostic of an input that cannot be read (`ea check`/`ea inspect --json`)."""
    from ..diagnostics import Diagnostic
    return Diagnostic("error", "io", "io", f"cannot read '{path}': {problem}", None).to_json()
