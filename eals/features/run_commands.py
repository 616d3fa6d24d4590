"""workspace/executeCommand: `ea.bench` and `ea.tune`, with the arguments
[uri, function] the code lenses send (lenses.py).

`ea.bench` runs the function's benches of the suite beside the file, quick
(`run_suite(..., benches=[...], quick=True)`); `ea.tune` runs the tuner on
the function (`tune(TuneConfig(...))`) and writes the best variant beside the
file (`<stem>.tuned.ea`): the user's file is never rewritten behind their
back. A third argument, an object, sets the tuner's `quick`, `budget` (variants),
`time` (seconds) and `spaces`; for both commands `"background": true` (what
the lenses send) answers null at once, the run going on (eals/jobs.py
`answer`); without it the answer waits for the run. Both run the file on disk, in the background
(eals/jobs.py) with `$/progress` for clients that support it; the answer is the
run's JSON once it is done. Afterwards hover over the function's name shows the
results (eals/runs.py) and a `window/showMessage` says the run finished.
Arguments that do not fit are answered InvalidParams; a run that cannot start
(no suite, no bench for the function, one already running) RequestFailed."""
from __future__ import annotations

import asyncio

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ea_compiler.tooling import BenchError, Cancelled, find_suite, load_suite, run_suite

from .. import jobs
from ..runs import bench_markdown, bench_summary, file_path, unsaved_note
from ..support import guarded, request_failed
from ..tuning import OPTIONS as TUNE_OPTIONS
from ..tuning import TUNE, run_tune

BENCH = "ea.bench"
# An option of both commands: true answers at once, the run going on. A flag
# that is true when set, because lsp-mode reads a JSON false in a lens's
# arguments as nil and sends it back as null.
BACKGROUND = "background"


def invalid(message: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(message=message)


def arguments(command: str, args: tuple, options: tuple = ()) -> tuple[str, str, dict, bool]:
    """[uri, function] and optionally an object of `options` and `background`:
    (uri, function, the options given but `background`, whether to wait for the run)."""
    options = (*options, BACKGROUND)
    usage = f"{command} takes [uri, function] and optionally an object of options"
    if len(args) not in (2, 3):
        raise invalid(f"{usage}; got {len(args)} argument(s)")
    uri, function, *rest = args
    if not isinstance(uri, str) or not isinstance(function, str) or not function:
        raise invalid(f"{usage}; got {list(args)!r}")
    extra = rest[0] if rest else {}
    if not isinstance(extra, dict):
        raise invalid(f"{usage}; the options must be an object, got {extra!r}")
    unknown = sorted(set(extra) - set(options))
    if unknown:
        raise invalid(f"{command}: unknown option(s) {', '.join(unknown)} (known: {', '.join(options)})")
    extra = dict(extra)
    background = extra.pop(BACKGROUND, False)
    if not isinstance(background, bool):
        raise invalid(f"{command}: '{BACKGROUND}' must be true or false, got {background!r}")
    return uri, function, extra, not background


def suite_for(command: str, uri: str, function: str):
    """The suite beside the file of `uri` and the names of `function`'s benches in it."""
    path = file_path(uri)
    if path is None or not path.is_file():
        raise request_failed(f"{command}: {uri} is not a file on disk")
    suite_path = find_suite(path)
    if suite_path is None:
        raise request_failed(f"{command}: no bench suite beside {path.name} ({path.stem}.bench.toml)")
    try:
        suite = load_suite(suite_path)
    except BenchError as err:
        raise request_failed(f"{command}: {err}") from None
    names = [spec.name for spec in suite.benches if spec.function == function]
    if not names:
        raise request_failed(f"{command}: {suite_path.name} has no bench of '{function}'")
    return path, suite, names


def doc_text(ls, uri: str) -> str | None:
    doc = ls.docs.get(uri)
    return None if doc is None else doc.text


async def bench(ls, uri: str, function: str, wait: bool = True) -> dict | None:
    loop = asyncio.get_running_loop()
    path, suite, names = await loop.run_in_executor(ls.analysis_pool, suite_for, BENCH, uri, function)
    job = jobs.start(ls, BENCH, uri, function, f"ea bench {function}")
    return await jobs.answer(ls, job, run_bench(ls, job, uri, function, path, suite, names), wait)


async def run_bench(ls, job, uri: str, function: str, path, suite, names: list[str]) -> dict | None:
    options = ls.config.options()

    def work():
        return run_suite(suite, options, benches=names, quick=True, cancel=job.cancel,
                         progress=lambda p: job.report(p.message, p.done / p.total if p.total else None))
    try:
        report = await job.run(work)
    except Cancelled:
        job.finish(lsp.MessageType.Info, f"{BENCH} {function}: cancelled")
        return None
    except BenchError as err:
        job.finish(lsp.MessageType.Error, f"{BENCH} {function}: {err}")
        raise request_failed(f"{BENCH}: {err}") from None
    results = [r for r in report.results if r.function == function]
    ls.run_results.record(uri, function, "bench", bench_markdown(results))
    kind = lsp.MessageType.Warning if any(r.status != "ok" for r in results) else lsp.MessageType.Info
    job.finish(kind, bench_summary(function, results) + unsaved_note(doc_text(ls, uri), path))
    return report.document()


def register(server) -> None:
    @server.feature(lsp.SHUTDOWN)
    def stop_runs(ls, *args):
        """Running benches and tunes stop at their next check: exit does not wait for them."""
        for job in list(ls.jobs.values()):
            job.abandon()

    @server.command(BENCH)
    async def bench_command(ls, *args):
        return await _bench(ls, args)

    @guarded(BENCH)
    async def _bench(ls, args):
        uri, function, _, wait = arguments(BENCH, args)
        return await bench(ls, uri, function, wait)

    @server.command(TUNE)
    async def tune_command(ls, *args):
        return await _tune(ls, args)

    @guarded(TUNE)
    async def _tune(ls, args):
        uri, function, extra, wait = arguments(TUNE, args, TUNE_OPTIONS)
        loop = asyncio.get_running_loop()
        path, _, _ = await loop.run_in_executor(ls.analysis_pool, suite_for, TUNE, uri, function)
        return await run_tune(ls, uri, path, function, extra, doc_text(ls, uri), wait)
