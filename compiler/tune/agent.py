"""The agent phase: ask the proposer command for a whole kernel, again and
again, each time showing it the current best, what `inspect` says about it,
its benchmark per size and the last attempts; gate every answer."""
from __future__ import annotations

from ..bench.suite import Size
from .propose import prompt, run_proposer

DEFAULT_ROUNDS = 10
SHOWN_ATTEMPTS = 10


def agent_rounds(run) -> None:
    from .result import Attempt
    cfg = run.cfg
    timeout = cfg.propose_timeout_s or run.settings.propose_timeout_s
    rounds = DEFAULT_ROUNDS if cfg.budget is None else cfg.budget
    fn = ", ".join(dict.fromkeys(run._function_of(b) for b in run.benches))
    for i in range(1, rounds + 1):
        if run._stop():
            return
        run.tell("message", f"asking the proposer (round {i})")
        text = prompt(cfg.kernel.name, run.best.text, _inspect_text(run), _results(run), _attempts(run))
        proposal = run_proposer(cfg.propose_cmd, text, timeout, cfg.kernel.parent, run.cancel)
        label = f"agent proposal {i}"
        if proposal.text is None:
            run._record(Attempt(len(run.history) + 1, label, proposal.problem, proposal.reason, function=fn))
            continue
        run.try_text(proposal.text, label, fn, run.benches)


def _inspect_text(run) -> str:
    from ..inspect import InspectError, inspect
    from ..inspect.render import render_text
    try:
        report = inspect(run.best.text.encode(), str(run.cfg.kernel), run.cfg.options)
    except InspectError as err:
        return f"(inspect failed: {err})"
    return render_text(report)


def _results(run) -> list[str]:
    ev = run.last_eval
    lines = []
    for bench in run.benches:
        for n, row in sorted(ev.benches.get(bench, {}).items(), key=lambda kv: Size.from_key(kv[0])):
            numpy = run.baseline_eval.benches.get(bench, {}).get(n, {}).get("numpy_us")
            vs = f" (NumPy {numpy:.2f} µs)" if numpy else ""
            size = Size.from_key(n)
            at = f"n={size.label}" if size.single else size.label
            lines.append(f"- {bench} at {at}: {row['us']:.2f} µs{vs}")
    return lines


def _attempts(run) -> list[str]:
    return [f"- {a.label}: {a.outcome}{': ' + a.reason if a.reason else ''}"
            for a in run.history[-SHOWN_ATTEMPTS:]]
