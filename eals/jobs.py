"""Long runs (a bench, a tune) in the background, with their progress in the
client.

A job's work runs in `server.run_pool` (one thread: two measurements at once
would disturb each other), never on the event loop. A client that declared
`window.workDoneProgress` is asked to create a progress token
(`window/workDoneProgress/create`), then sent `$/progress` begin, report and
end; the progress is cancellable: `window/workDoneProgress/cancel`, like a
`$/cancelRequest` of the command itself, sets the job's `cancel` event, which
the bench runner and the tuner poll. Reports come from the worker thread and
are passed to the event loop's thread before anything is sent. One job per
(command, uri, function) at a time (`server.jobs`); when it is done,
`finish` says so with a `window/showMessage`.

A command answers when its run is done, or, asked to run in the background
(`answer` with `wait=False`, what the code lenses ask), at once while the run goes on:
Emacs's clients (lsp-mode, eglot) wait for a command's answer with the editor
blocked, 10 s at most, and lsp-mode then cancels the request."""
from __future__ import annotations

import asyncio
import itertools
import threading

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from .support import request_failed

_ids = itertools.count(1)
_detached: set = set()  # the runs whose command has answered already (kept referenced until done)


def start(ls, command: str, uri: str, function: str, title: str) -> "Job":
    """A new job, or RequestFailed while the same one runs."""
    key = (command, uri, function)
    if key in ls.jobs:
        raise request_failed(f"{command} {function} is already running")
    job = ls.jobs[key] = Job(ls, key, title)
    return job


async def answer(ls, job: "Job", run, wait: bool):
    """The answer of the command running `run` (the job's coroutine): its result
    when `wait`, else None at once, the run going on by itself (a
    $/cancelRequest of the answered command no longer reaches it)."""
    if wait:
        return await run
    task = asyncio.ensure_future(_on_its_own(ls, job, run))
    _detached.add(task)
    task.add_done_callback(_detached.discard)
    return None


async def _on_its_own(ls, job: "Job", run) -> None:
    try:
        await run
    except JsonRpcException:
        pass  # its closing message said why
    except Exception:
        ls.report_crash(job.title)
        job.finish(lsp.MessageType.Error, f"{job.title}: internal error; see the server log")


class Job:
    def __init__(self, ls, key: tuple, title: str):
        self.ls = ls
        self.key = key
        self.title = title
        self.cancel = threading.Event()
        self.abandoned = False  # the server is shutting down: nothing is to be kept
        self.token: str | None = None
        self.loop = asyncio.get_running_loop()

    async def run(self, work):
        """`work()` in the run pool, between progress begin and end; its result."""
        outcome = "cancelled"
        try:
            await self._begin()
            result = await self.loop.run_in_executor(self.ls.run_pool, work)
            outcome = "cancelled" if self.cancel.is_set() else "done"
            return result
        except asyncio.CancelledError:
            self.cancel.set()  # the request was cancelled: the worker stops at its next check
            raise
        except Exception:
            outcome = "cancelled" if self.cancel.is_set() else "failed"  # e.g. the runner's Cancelled
            raise
        finally:
            self.ls.jobs.pop(self.key, None)
            self._end(outcome)

    def abandon(self) -> None:
        self.abandoned = True
        self.cancel.set()

    def finish(self, kind: lsp.MessageType, message: str) -> None:
        if not self.abandoned:  # the server is going away: nobody to tell (a run in the background ends after exit)
            self.ls.window_show_message(lsp.ShowMessageParams(type=kind, message=message))

    async def _begin(self) -> None:
        if not self.ls.client.work_done_progress:
            return
        token = f"eals-run-{next(_ids)}"
        try:
            await self.ls.work_done_progress.create_async(token)
        except Exception as err:  # the client refused the token: run without progress
            self.ls.log(f"eals: no progress for {self.title}: {err}")
            return
        self.token = token
        cancelled = self.ls.work_done_progress.tokens.get(token)
        if cancelled is not None:
            cancelled.add_done_callback(lambda _f: self.cancel.set())
        self.ls.work_done_progress.begin(token, lsp.WorkDoneProgressBegin(
            title=self.title, cancellable=True, percentage=0))

    def report(self, message: str, fraction: float | None = None) -> None:
        """From any thread: the progress message (and how much is done, 0..1)."""
        if self.token is None:
            return
        percentage = None if fraction is None else max(0, min(100, round(100 * fraction)))
        self.loop.call_soon_threadsafe(self._report, message, percentage)

    def _report(self, message: str, percentage: int | None) -> None:
        if self.token is not None and not self.abandoned:
            self.ls.work_done_progress.report(self.token, lsp.WorkDoneProgressReport(
                message=message, percentage=percentage, cancellable=True))

    def _end(self, outcome: str) -> None:
        if self.token is None:
            return
        token, self.token = self.token, None
        if not self.abandoned:
            self.ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=outcome))
        self.ls.work_done_progress.tokens.pop(token, None)
