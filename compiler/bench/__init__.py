"""`ea bench`: how fast a kernel is, compared with what, and why.

Two kinds of benchmark file, told apart by their keys:

* a **NumPy suite** (`<stem>.bench.toml` beside the kernel, a `[[bench]]`
  table per benchmark): the kernel is loaded through the loader, checked
  against a NumPy reference expression at every size, then timed against it;
  memory bandwidth is measured in the same run with an Eä triad kernel;
* an **upstream C-harness manifest** (flat keys, `harness = "..."`,
  TOOLCHAIN.md §7): the kernel is built with `ea --lib`, linked with a C
  harness, and the harness's JSONL becomes the result JSON.

Public API (the CLI and the TUI use only this):

    suite = load_suite(path)                 # Suite; raises BenchError
    report = run_suite(suite, Options(), sizes=None, benches=None, quick=False,
                       bandwidth=True, progress=callback, cancel=threading.Event())
    report.results                           # list[Result], one per (bench, size)
    report.bandwidth_gbs                     # triad GB/s measured in this run (or None)
    report.document()                        # the result JSON (same schema as §7)
    read_history(suite)                      # earlier runs, oldest first
"""
from __future__ import annotations

from .history import append_history, read_history
from .runner import Progress, Result, RunReport, run_suite
from .suite import BenchError, BenchSpec, Suite, find_suite, load_suite, parse_size, size_label
from .timing import Cancelled

__all__ = ["BenchError", "BenchSpec", "Cancelled", "Progress", "Result", "RunReport", "Suite", "append_history",
           "find_suite", "load_suite", "parse_size", "read_history", "run_suite", "size_label"]
