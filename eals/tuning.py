"""`ea.tune` from the editor: the tuner on one function of the file on disk,
in the background (eals/jobs.py), the best variant written beside the file.

The options object the command may carry sets the run's `quick` (short
measurements), `budget` (variants evaluated at most), `time` (seconds) and
`spaces` (e.g. ["params"]); without it the run is the tuner's default (its
`background` is run_commands.py's). Progress reports one line per
attempt (its label, outcome and the best time so far); a cancel ends the
search early and keeps the best found so far (a shutdown keeps nothing). A better variant is written to
`<stem>.tuned.ea` (`write_result`, never in place); hover then shows
baseline -> best, the speedup, the file and accepted/evaluated."""
from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ea_compiler.tooling import TuneConfig, TuneError, tune, write_result

from . import jobs
from .runs import fmt_us, tune_markdown, tune_summary, unsaved_note
from .support import request_failed

TUNE = "ea.tune"
OPTIONS = ("quick", "budget", "time", "spaces")


def config(path: Path, function: str, extra: dict, options) -> TuneConfig:
    """The run's TuneConfig; InvalidParams for options of the wrong type,
    RequestFailed for values the tuner refuses."""
    quick, budget, time_s = extra.get("quick", False), extra.get("budget"), extra.get("time")
    if not isinstance(quick, bool):
        raise JsonRpcInvalidParams(message=f"{TUNE}: 'quick' must be true or false, got {quick!r}")
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool)):
        raise JsonRpcInvalidParams(message=f"{TUNE}: 'budget' must be a whole number of variants, got {budget!r}")
    if time_s is not None and (not isinstance(time_s, (int, float)) or isinstance(time_s, bool)):
        raise JsonRpcInvalidParams(message=f"{TUNE}: 'time' must be a number of seconds, got {time_s!r}")
    spaces = extra.get("spaces", ("params", "transforms"))
    if not isinstance(spaces, (list, tuple)) or not all(isinstance(x, str) for x in spaces):
        raise JsonRpcInvalidParams(message=f"{TUNE}: 'spaces' must be a list of names, got {spaces!r}")
    try:
        return TuneConfig(kernel=path, functions=[function], quick=quick, budget=budget, time_s=time_s,
                          spaces=tuple(spaces), options=options)
    except TuneError as err:
        raise request_failed(f"{TUNE}: {err}") from None


def event_text(event) -> str:
    """One progress line: `unroll max_f32#0 x4: slower · best 12.1 µs (3 evaluated)`."""
    if event.kind == "attempt" and event.attempt is not None:
        head = f"{event.attempt.label}: {event.attempt.outcome}"
    else:
        head = event.message or event.kind
    return f"{head} · best {fmt_us(event.best_us)} ({event.evaluated} evaluated)"


async def run_tune(ls, uri: str, path: Path, function: str, extra: dict, doc_text: str | None,
                   wait: bool = True) -> dict | None:
    cfg = config(path, function, extra, ls.config.options())
    job = jobs.start(ls, TUNE, uri, function, f"ea tune {function}")
    return await jobs.answer(ls, job, tune_job(ls, job, cfg, uri, path, function, doc_text), wait)


async def tune_job(ls, job, cfg: TuneConfig, uri: str, path: Path, function: str, doc_text: str | None) -> dict:

    def on_event(event) -> None:
        fraction = event.evaluated / cfg.budget if cfg.budget else None
        job.report(event_text(event), fraction)

    def work():
        result = tune(cfg, progress=on_event, cancel=job.cancel)
        if result.improved() and not job.abandoned:  # a cancelled run keeps its best so far, unless the server stops
            write_result(result)  # <stem>.tuned.ea beside the file: the user's file stays as it is
        return result
    try:
        result = await job.run(work)
    except TuneError as err:  # a cancel before the search began ends here too: the user's doing, no error
        kind = lsp.MessageType.Info if job.cancel.is_set() else lsp.MessageType.Error
        job.finish(kind, f"{TUNE} {function}: {err}")
        raise request_failed(f"{TUNE}: {err}") from None
    except OSError as err:  # writing <stem>.tuned.ea failed (a read-only folder, a full disk)
        message = f"{TUNE} {function}: cannot write the tuned kernel: {err.strerror or err}"
        job.finish(lsp.MessageType.Error, message)
        raise request_failed(message) from None
    ls.run_results.record(uri, function, "tune", tune_markdown(result))
    note = " (interrupted: the best found so far)" if result.interrupted else ""
    job.finish(lsp.MessageType.Info, tune_summary(function, result) + note + unsaved_note(doc_text, path))
    return result.to_json()
