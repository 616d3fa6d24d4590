"""How a tuning run reads in the Tune pane: the run's log built from the
engine's events (counts, best so far, the chart's series), attempt table
cells, the progress line, the coloured diff, and the pane's choices turned
into a TuneConfig (with the user-facing reason when they do not make one)."""
from __future__ import annotations


from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual.content import Content

from ea_compiler import Options
from ea_compiler.tooling import (SPACES, STRATEGIES, Attempt, Outcome, TuneConfig, TuneEvent, TuneReason, TuneResult,
                                 backup_path, fmt_us, size_label, tally, unified_diff)

COLUMNS = ("#", "variant", "outcome", "score", "reason")  # the reason last: it is the one cut
EVERY_FUNCTION = "*"  # the function picker's value for "every benched function"
_LABEL_WIDTH = 44
_REASON_WIDTH = 64
OUTCOME_STYLES = {Outcome.ACCEPTED: "bold green", Outcome.SLOWER: "yellow", Outcome.NOISE: "dim",
                  Outcome.WRONG: "bold red", Outcome.COMPILE_ERROR: "red", Outcome.CRASHED: "bold red",
                  Outcome.TIMEOUT: "red", Outcome.ERROR: "red", Outcome.NOT_APPLICABLE: "dim",
                  Outcome.DUPLICATE: "dim"}
Point = tuple[int, float]  # (attempt number, µs)



def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def attempt_cells(a: Attempt) -> list:
    """One table row: number, variant, outcome, score (marked when it came from the cache), reason."""
    score = fmt_us(a.score_us) + (" (cached)" if a.cached and a.score_us is not None else "")
    return [str(a.index), _clip(a.label, _LABEL_WIDTH), Text(a.outcome, style=OUTCOME_STYLES.get(a.outcome, "")),
            score, _clip(a.reason, _REASON_WIDTH) or "-"]


@dataclass
class TuneLog:
    """What the pane knows of a run, built from its events in order. The counts
    are the latest event's; the times and the message the latest given."""
    last: TuneEvent = field(default_factory=lambda: TuneEvent("message"))  # zero counts
    baseline_us: float | None = None
    best_us: float | None = None
    message: str = ""
    best_label: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    best_points: list[Point] = field(default_factory=list)  # best so far after each attempt (0: baseline)
    scores: list[Point] = field(default_factory=list)  # each timed attempt's own score

    evaluated = property(lambda self: self.last.evaluated)
    accepted = property(lambda self: self.last.accepted)
    rejected = property(lambda self: self.last.rejected)
    cache_hits = property(lambda self: self.last.cache_hits)

    def add(self, e: TuneEvent) -> Attempt | None:
        """Take one event; returns the attempt it reports, if any."""
        self.last = e
        if e.baseline_us is not None:
            self.baseline_us = e.baseline_us
        if e.best_us is not None:
            self.best_us = e.best_us
        if e.message:
            self.message = e.message
        if e.kind == "baseline" and self.baseline_us is not None:
            self.best_points = [(0, self.baseline_us)]
        a = e.attempt if e.kind == "attempt" else None
        if a is None:
            return None
        self.attempts.append(a)
        if a.accepted:
            self.best_label = a.label
        if a.score_us is not None:
            self.scores.append((a.index, a.score_us))
        if self.best_us is not None:
            self.best_points.append((a.index, self.best_us))
        return a


def progress_line(log: TuneLog, final: TuneResult | None = None) -> Content:
    """`tried 5  accepted 1  rejected 4  cache hits 2  not applicable 1  best 10.2 µs  baseline 20.4 µs
    2.00×`: the search's numbers while it runs; once it is done, those of `final` (the best and the
    original measured together at every size, as `ea tune` reports them). Both ratios are the same
    measure: the original's time over the best's (the engine's best time is the original's divided
    by the accepted steps' ratios). Not applicable points are no variant: not tried."""
    counts = tally(log.attempts)
    parts: list = [("tried ", "$text-muted"), f"{counts.tried}", ("  accepted ", "$text-muted"),
                   (f"{log.accepted}", "$text-success" if log.accepted else ""), ("  rejected ", "$text-muted"),
                   f"{log.rejected}"]
    if log.cache_hits:
        parts += [("  cache hits ", "$text-muted"), f"{log.cache_hits}"]
    if counts.not_applicable:
        parts += [("  not applicable ", "$text-muted"), f"{counts.not_applicable}"]
    baseline, best = (final.baseline_us, final.best_us) if final is not None else (log.baseline_us, log.best_us)
    if baseline is not None:
        best = best if best is not None else baseline
        parts += [("  best ", "$text-muted"), (fmt_us(best), "bold"), ("  baseline ", "$text-muted"),
                  fmt_us(baseline)]
        if best > 0:
            speedup = baseline / best
            parts.append((f"  {speedup:.2f}×", "$text-success bold" if speedup > 1.0 else ""))
    return Content.assemble(*parts)


def summary_content(r: TuneResult) -> Content:
    """The line under a finished run: counts, then one verdict, with "faster" only for a best that is
    faster side by side (the same ratio `ea tune` prints), and the reasons nothing was written."""
    head = "cancelled; best so far: " if r.interrupted else "done: "
    counts = tally(r.history)
    parts: list = [(head, "bold"), f"{counts.tried} tried ({counts.evaluated} evaluated"]
    if counts.cached:
        parts.append(f", {counts.cached} from the cache")
    parts.append(f"), {r.accepted} accepted")
    if r.slower_at_end:
        parts += [", ", ("the best found was slower than the original side by side: nothing to write",
                         "$text-warning bold")]
    elif r.improved():
        interval = r.speedup_interval
        noisy = interval is not None and interval[0] < 1.0
        parts += [", ", (f"{r.speedup:.2f}× faster", "$text-success bold")]
        if noisy:
            parts.append((f" (within the noise: {interval[0]:.2f}–{interval[1]:.2f})", "$text-warning"))
        losing = r.losing_sizes()
        if losing:
            parts.append((" · slower at " + ", ".join(f"{size_label(x.size)} ({x.speedup:.2f}×)" for x in losing),
                          "$text-warning"))
        parts += [("  ·  A: apply (backup ", "$text-muted"), backup_path(r.kernel).name,
                  (")  ·  w: write ", "$text-muted"), f"{r.kernel.stem}.tuned.ea"]
    else:
        parts += [", ", ("no faster variant", "$text-muted")]
    return Content.assemble(*parts)


def diff_content(diff: str) -> Content:
    """A unified diff with added, removed and hunk lines coloured."""
    parts: list = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "$text-accent"
        elif line.startswith("+"):
            style = "$text-success"
        elif line.startswith("-"):
            style = "$text-error"
        else:
            style = ""
        parts += [(line, style) if style else line, "\n"]
    return Content.assemble(*parts[:-1])


class ChoiceError(ValueError):
    """The pane's choices do not make a run; str() says what to change."""


def _number(text: str, what: str, kind: type) -> int | float | None:
    text = text.strip()
    if not text:
        return None
    try:
        return kind(text)
    except ValueError:
        raise ChoiceError(f"{what} must be a {'whole ' if kind is int else ''}number, not {text!r}.") from None


def make_config(kernel: Path, function: str, spaces: list[str], strategy: str, budget: str, time_s: str,
                propose_cmd: str, quick: bool, options: Options) -> TuneConfig:
    """The run the pane's choices describe. Raises ChoiceError for what the pane checks
    (a space chosen, numbers that parse) and TuneError for what the engine's config
    refuses (an agent without a command, bounds that are not positive)."""
    if not spaces:
        raise ChoiceError("Check at least one space to search: params, transforms or agent.")
    return TuneConfig(kernel=kernel, functions=None if function == EVERY_FUNCTION else [function],
                      spaces=tuple(s for s in SPACES if s in spaces), strategy=strategy,
                      budget=_number(budget, "The budget", int), time_s=_number(time_s, "The time bound", float),
                      propose_cmd=(propose_cmd.strip() or None) if "agent" in spaces else None, quick=quick,
                      options=options)


NEST = ("tile", "vectorise", "interchange", "vectorise_sum")


def nest_line(reasons: dict[str, list[TuneReason]]) -> str | None:
    """What the loop-nest transformations can do for the tuned functions, one line: those that
    apply, and the ones only aliasing keeps out (with --assume-noalias's hint); None when there
    is nothing to say (no nest in sight)."""
    parts = []
    for function, rows in reasons.items():
        nest = [r for r in rows if r.transform in NEST]
        applies = [f"{r.transform} (line {r.line})" for r in nest if r.applies]
        aliased = [r for r in nest if not r.applies and "may alias" in r.reason]
        if applies:
            parts.append(f"{function}: {', '.join(applies)} apply")
        if aliased:
            names = ", ".join(r.transform for r in aliased)
            parts.append(f"{function}: {names} would apply but {aliased[0].reason}")
    return "Loop nests: " + "; ".join(parts) if parts else None
