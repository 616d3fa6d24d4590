"""The judgements `ea tune` states at the end, as pure functions of what was
measured: whether the final side-by-side measurement lets the best be written,
whether its gain is beyond the machine's noise, at which sizes it loses, how
many variants were tried (and how), and how loaded the machine was."""
from __future__ import annotations

import os
from dataclasses import dataclass

from .outcome import Outcome
from .ratio import combined

# Outcomes of attempts that never reached a measurement, counted apart from "tried".
NOT_APPLICABLE = Outcome.NOT_APPLICABLE


@dataclass
class FinalVerdict:
    ratio: float  # the original's median over the best's at the largest sizes
    lo: float
    hi: float

    @property
    def slower(self) -> bool:
        """Slower than the original in the point estimate: never written."""
        return self.ratio < 1.0

    @property
    def within_noise(self) -> bool:
        """Faster in the point estimate, but the interval reaches 1: the gain is not beyond the noise."""
        return not self.slower and self.lo < 1.0


def final_verdict(rows: list[dict]) -> FinalVerdict:
    """The verdict on the best against the original from the final measurement's rows at the
    largest size of every tuned bench (evaluate.time_sizes rows, with the original as incumbent)."""
    return FinalVerdict(combined(rows), min(r["ratio_lo"] for r in rows), max(r["ratio_hi"] for r in rows))


def losing_sizes(rows) -> list:
    """The sizes below the largest where the tuned kernel is slower than the original in the
    median (SizeRow: speedup below 1), in order."""
    return [r for r in rows if not r.largest and r.speedup < 1.0]


@dataclass
class Tally:
    """What happened to the points of a run. tried = evaluated + cached + rejected before a
    measurement (did not compile, the same program again); not applicable apart."""
    evaluated: int = 0  # measured by a worker in this run
    twice: int = 0  # of those, measured a second time (a marginal gain, gate.confirmed)
    cached: int = 0  # the outcome replayed from the cache
    unmeasured: int = 0  # rejected before the worker: did not compile, or a duplicate source
    not_applicable: int = 0  # the transformation did not apply: no variant, not tried

    @property
    def tried(self) -> int:
        return self.evaluated + self.cached + self.unmeasured

    def text(self) -> str:
        twice = f" ({self.twice} of them twice)" if self.twice else ""
        parts = [f"{self.evaluated} evaluated{twice}", f"{self.cached} from the cache"]
        if self.unmeasured:
            parts.append(f"{self.unmeasured} rejected unmeasured")
        text = f"{self.tried} tried ({', '.join(parts)})"
        if self.not_applicable:
            text += f"; {self.not_applicable} not applicable"
        return text


def tally(history) -> Tally:
    """The tally of a run's attempts (result.Attempt): an attempt reached a worker when it has
    the variant's file (`variant`), and came from the cache when `cached`."""
    out = Tally()
    for a in history:
        if a.outcome == NOT_APPLICABLE:
            out.not_applicable += 1
        elif a.cached:
            out.cached += 1
        elif a.variant:
            out.evaluated += 1
            out.twice += a.measurements > 1
        else:
            out.unmeasured += 1
    return out


@dataclass
class Load:
    """The machine's load average (1 minute) and how many CPUs this process may use."""
    average: float | None
    cpus: int

    def text(self) -> str:
        cpus = f"{self.cpus} CPU{'s' if self.cpus != 1 else ''}"
        return f"{cpus}, load unknown" if self.average is None else f"load {self.average:.2f} on {cpus}"

    @property
    def busy(self) -> bool:
        """More runnable processes than CPUs: timings are shared with others."""
        return self.average is not None and self.average > self.cpus

    def to_json(self) -> dict:
        return {"load_average": self.average, "cpus": self.cpus}


def machine_load() -> Load:
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        average = os.getloadavg()[0]
    except (AttributeError, OSError):
        average = None
    return Load(average, cpus)
