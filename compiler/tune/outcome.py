"""What became of one variant: the tuner's one vocabulary of outcomes.

A `StrEnum`, so the JSON of a result and the cache (`__eatune__/`) keep the
plain strings; code names the members, so a misspelt outcome fails at
import instead of never matching."""
from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    # the gate's evaluation of a variant (worker.py, gate.py)
    OK = "ok"  # compiled, verified and timed: the decision follows
    WRONG = "wrong"  # did not match the reference (or lacks an export)
    COMPILE_ERROR = "compile-error"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    ERROR = "error"
    # the decision on a timed variant (gate.decide)
    ACCEPTED = "accepted"
    SLOWER = "slower"
    NOISE = "noise"
    # not evaluated (engine.py)
    NOT_APPLICABLE = "not-applicable"
    DUPLICATE = "duplicate"


# A timeout or a failed evaluation can be the machine's doing: those are measured again next time.
REJECTED_FOR_GOOD = frozenset({Outcome.WRONG, Outcome.COMPILE_ERROR, Outcome.CRASHED})
