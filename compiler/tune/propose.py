"""Agent proposals: run any command (an LLM CLI, a script) with a prompt on
stdin and read a complete kernel back from its stdout. The command is never
trusted: what it returns goes through the same gate as every other variant."""
from __future__ import annotations

import re
from dataclasses import dataclass

from . import procs
from .outcome import Outcome

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n(.*?)```", re.DOTALL)
STDOUT_LIMIT = 1 << 20


@dataclass
class Proposal:
    text: str | None  # the kernel, or None when the command failed
    problem: Outcome | None = None  # why there is no kernel: TIMEOUT or ERROR
    reason: str = ""


def prompt(kernel_name: str, source: str, inspect_text: str, results: list[str], attempts: list[str]) -> str:
    lines = [
        f"You are improving the speed of an Eä SIMD kernel ({kernel_name}). Reply with the complete",
        "modified kernel source only (optionally in one ```ea fenced block). Keep every exported",
        "function's name and signature; results must stay equal to the reference. Proposals are",
        "compiled, verified at every size and at edge lengths, and timed at the largest size.",
        "",
        "## Current best kernel",
        "```ea", source.rstrip(), "```",
        "",
        "## ea inspect (bottleneck class per loop, hints)",
        inspect_text.rstrip() or "(not available)",
        "",
        "## Benchmark of the current best, per size",
        *(results or ["(not measured)"]),
        "",
        "## Last attempts and their outcome",
        *(attempts or ["(none yet)"]),
        "",
    ]
    return "\n".join(lines)


def run_proposer(command: str, text: str, timeout_s: float, cwd, cancel=None) -> Proposal:
    """Raises bench.timing.Cancelled when `cancel` is set while the command runs."""
    try:
        code, out, err = procs.run(command, shell=True, stdin=text.encode(), timeout_s=timeout_s, cancel=cancel,
                                   cwd=cwd)
    except procs.TimedOut:
        return Proposal(None, Outcome.TIMEOUT, f"the proposer gave no answer within {timeout_s:g} s")
    except OSError as err:
        return Proposal(None, Outcome.ERROR, f"cannot run the proposer: {err.strerror or err}")
    if code != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        return Proposal(None, Outcome.ERROR, f"the proposer exited with status {code}: {tail[0]}")
    reply = out[:STDOUT_LIMIT].decode("utf-8", "replace")
    if not reply.strip():
        return Proposal(None, Outcome.ERROR, "the proposer printed nothing")
    return Proposal(extract(reply))


def extract(stdout: str) -> str:
    """The kernel in a reply: the first fenced block, else the whole reply."""
    m = _FENCE.search(stdout)
    return (m.group(1) if m else stdout).strip("\n") + "\n"
