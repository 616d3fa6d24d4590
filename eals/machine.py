"""The machine code of single functions, for hover and inlay hints.

Compiled per function (`ea_compiler.tooling.inspect_function`): a function
whose own code and callees check clean gets its report while others in the
file have errors, and the compiler keeps each function's report until its
text, its callees' text or the options change. The work runs in
`server.codegen_pool` (one thread, LLVM is single-threaded here), never on
the event loop, and only for the analysis of the document's current version.

A request waits only for the functions it names. With a time budget (inlay
hints over a large range, for a client that supports
`workspace/inlayHint/refresh`), the functions not done in time are compiled
in the background one per pool job, so a hover arriving meanwhile waits for
at most one function; when they are done the client is asked to refresh."""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from ea_compiler.tooling import Diagnostic, FunctionReport, InspectError, inspect_function, target_description

BUDGET_S = 0.04  # compile time an inlay request may spend before the rest goes to the background


@dataclass
class MachineCode:
    """One function's machine code, or why there is none."""
    target: str
    report: FunctionReport | None  # None: no code for this target, or blocked
    blocked: list[Diagnostic] = field(default_factory=list)  # errors in it or its callees


def _compile(analysis, names, deadline: float | None) -> dict[str, MachineCode]:
    done: dict[str, MachineCode] = {}
    target = target_description(analysis)
    for name in names:
        if deadline is not None and done and time.perf_counter() > deadline:
            break
        try:
            done[name] = MachineCode(target, inspect_function(analysis, name))
        except InspectError as err:
            done[name] = MachineCode(target, None, err.diagnostics)
    return done


def _current(server, uri: str, analysis) -> bool:
    doc = server.docs.get(uri)
    return doc is not None and doc.analysis is analysis and doc.analysed_version == doc.version


async def machine_code(server, uri: str, analysis, names: list[str],
                       budget: float | None = None) -> dict[str, MachineCode] | None:
    """Machine code of `names` in `analysis` (the document's current one), or
    None when the document changed meanwhile (the client asks again). With a
    `budget` in seconds, what is not done by then is left out of the answer
    and compiled in the background, then the client's inlay hints refreshed."""
    if not names:
        return {}

    deadline = None if budget is None else time.perf_counter() + budget  # counted from the request: queueing too

    def work():
        with server.reading(uri, analysis) as newest:
            if not newest or not _current(server, uri, analysis):
                return None  # superseded while queued
            return _compile(analysis, names, deadline)

    done = await asyncio.get_running_loop().run_in_executor(server.codegen_pool, work)
    if done is None or not _current(server, uri, analysis):
        return None
    rest = [n for n in names if n not in done]
    if rest:
        _in_background(server, uri, analysis, rest)
    return done


@dataclass
class _Backlog:
    """The functions of one analysis left for the background: one task per
    document drains it, so overlapping requests (scrolling, typing) share it and
    the client is asked to refresh once, when it is empty."""
    analysis: object
    names: list[str]
    task: asyncio.Future | None = None


def _in_background(server, uri: str, analysis, names: list[str]) -> None:
    backlog = server.inlay_backlogs.get(uri)
    if backlog is not None and backlog.analysis is analysis and backlog.task is not None and not backlog.task.done():
        backlog.names.extend(n for n in names if n not in backlog.names)
        return
    backlog = _Backlog(analysis, list(names))
    backlog.task = asyncio.ensure_future(_drain(server, uri, backlog))
    server.inlay_backlogs[uri] = backlog


async def _drain(server, uri: str, backlog: _Backlog) -> None:
    loop = asyncio.get_running_loop()
    analysis = backlog.analysis
    while backlog.names:  # one job per function: a hover waits behind at most one
        name = backlog.names.pop(0)

        def work(name=name):
            with server.reading(uri, analysis) as newest:
                return _compile(analysis, [name], None) if newest and _current(server, uri, analysis) else None
        if await loop.run_in_executor(server.codegen_pool, work) is None:
            return
    if server.client.inlay_refresh and _current(server, uri, analysis):
        server.workspace_inlay_hint_refresh(None)
