"""`ea tune`: make a kernel faster by itself, verified.

A search over variants of one Eä source: the values of its `const` items
(the suite's `[tune.params]`), source-to-source transformations
(`transforms/`: unroll with independent accumulators, wider vectors, fma,
stream stores, prefetch, restrict) and, with a proposer command, whole
kernels written by an agent. Every variant goes through one gate: compile,
verify against the suite's NumPy reference at every size and at edge
lengths, time it against the current best in alternating turns, score at
the largest size, and keep it only when the gain is beyond the noise.
Evaluations are cached per project; every attempt is recorded.

Public API (the CLI, the TUI and the language server use only this):

    targets = tune_targets(kernel_path)        # list[Target]: exported functions with a bench
    cfg = TuneConfig(kernel=Path("reductions.ea"), functions=["max_f32"])
    result = tune(cfg, progress=on_event, cancel=threading.Event())
    result.to_json()                           # baseline_us, best_us, speedup, best_file, ...
    tally(result.history)                      # tried = evaluated + cached + unmeasured; not applicable apart
    path = write_result(result, apply=False)   # <stem>.tuned.ea, or in place (backup <stem>.ea.orig)
"""
from __future__ import annotations

from .config import TuneConfig, TuneError
from .engine import Target, TuneEvent, tune, tune_targets
from .judgement import Tally, tally
from .outcome import Outcome
from .result import Attempt, SizeRow, TuneResult, backup_path, unified_diff, write_result

__all__ = ["Attempt", "Outcome", "SizeRow", "Tally", "Target", "TuneConfig", "TuneError", "TuneEvent", "TuneResult",
           "tune", "backup_path", "tally", "tune_targets", "unified_diff", "write_result"]
