"""Running NumPy suites from the command line: a progress bar on a terminal,
the table (or JSON) on stdout, the baseline diff on stderr, the history file."""
from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..bench import BenchError, Suite, append_history, find_suite, load_suite, run_suite
from ..bench.baseline import REGRESSION_EXIT, diff_against, write_baseline
from ..bench.table import failure_lines, results_table
from ..options import Options
from ..target_flags import UsageError


@dataclass
class BenchArgs:
    """What `ea bench` was asked to run (bench_cmd parses the command line into it)."""
    path: str
    options: Options = field(default_factory=Options)
    benches: list[str] = field(default_factory=list)
    sizes: list[int] | None = None
    quick: bool = False
    reps: int | None = None
    bandwidth: bool = True
    json: bool = False
    out: str | None = None
    baseline: str | None = None
    update_baseline: bool = False
    diff: bool = True
    fail_threshold: float | None = None
    history: bool = True
    cycles: bool = False  # --cycles: cycles per iteration, predicted vs measured (bench_cycles.py)


def suites_for(path: str) -> list[Suite]:
    p = Path(path)
    if p.is_dir():
        files = sorted(p.glob("*.bench.toml"))
        if not files:
            raise UsageError(f"no *.bench.toml suites in '{path}'")
    else:
        if not p.exists():
            raise UsageError(f"cannot read '{path}': No such file or directory")
        found = find_suite(p)
        if found is None:
            raise UsageError(f"no benchmark suite for '{path}': create {p.with_name(p.stem + '.bench.toml')} "
                             "(see `ea bench --help` and examples/*.bench.toml)")
        files = [found]
    try:
        return [load_suite(f) for f in files]
    except BenchError as err:
        raise UsageError(str(err)) from None


def run(args: BenchArgs) -> int:
    suites = suites_for(args.path)
    if args.cycles:
        from .bench_cycles import run_cycle_suites
        return run_cycle_suites(args, suites)
    err = Console(stderr=True)
    out = Console(soft_wrap=False, width=max(Console().width, 150)) if not args.json else None
    docs, code, bandwidth = [], 0, None
    for suite in suites:
        try:
            with _progress(err) as tell:
                report = run_suite(suite, args.options, benches=args.benches or None, sizes=args.sizes,
                                   quick=args.quick, bandwidth=args.bandwidth, reps=args.reps,
                                   progress=tell, bandwidth_gbs=bandwidth)
        except BenchError as e:
            print(f"error: {e}", file=sys.stderr)
            code = 1
            continue
        bandwidth = report.bandwidth_gbs
        doc = report.document()
        docs.append(doc)
        if out is not None:
            out.print(results_table(report))
        for line in failure_lines(report):
            print(f"error: {line}", file=sys.stderr)
        if report.failed:
            code = 1
        code = max(code, _baseline(args, suite, doc))
        if args.history:
            append_history(suite, doc)
    if args.json:
        sys.stdout.write(dump_json(docs))
    if args.out and docs:
        Path(args.out).write_text(dump_json(docs), encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return code


def _baseline(args: BenchArgs, suite: Suite, doc: dict) -> int:
    """Diff against and/or update the baseline; REGRESSION_EXIT when asked to fail on regressions."""
    path = Path(args.baseline) if args.baseline else suite.baseline
    if path is None:
        if args.update_baseline or args.fail_threshold is not None:
            raise UsageError(f"{suite.path}: no baseline file: set `baseline = \"...\"` in the suite "
                             "or pass --baseline PATH")
        return 0
    timed = dict(doc, measurements=[m for m in doc["measurements"] if m["status"] == "ok"])
    code = 0
    if args.diff and not args.update_baseline:
        threshold = args.fail_threshold if args.fail_threshold is not None else 0.10
        diff = diff_against(timed, path, threshold, warn_only=args.fail_threshold is None)
        for line in diff.lines:
            print(line, file=sys.stderr)
        if diff.regressions and args.fail_threshold is not None:
            code = REGRESSION_EXIT
    if args.update_baseline:
        print(write_baseline(timed, path), file=sys.stderr)
    return code


@contextlib.contextmanager
def _progress(console: Console):
    """A live progress bar on a terminal; silence otherwise (logs get the table)."""
    if not console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def tell(p) -> None:
            bar.update(task, total=p.total, completed=p.done, description=p.message)
        yield tell


def dump_json(docs: list[dict]) -> str:
    return json.dumps(docs[0] if len(docs) == 1 else docs, indent=2) + "\n"
