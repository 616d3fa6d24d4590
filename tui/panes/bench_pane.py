"""Bench pane: run the file's NumPy benchmark suite (`<stem>.bench.toml`)
through ea_compiler.bench in a thread worker, with live progress, a results
table, a GB/s-by-size chart against the measured memory bandwidth, and the
history of earlier runs. `b` runs, `x` runs quick, `c` cancels."""
from __future__ import annotations

import os
import threading

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, DataTable, ProgressBar, SelectionList, Static

from ea_compiler.tooling import (BenchError, Cancelled, Progress, RunReport, Stages, Suite, append_history, find_suite,
                                 functions, latest_measured, load_suite, pair_label, read_history, run_suite,
                                 size_label)

from ..bench_format import COLUMNS, chart_series, history_lines, row_cells, suite_template
from ..target import is_cross
from ..widgets.chart import BandwidthChart
from ..workspace import display_path, errors_note


class BenchPane(Vertical, can_focus=True):
    BINDINGS = [
        Binding("b", "run(False)", "Run bench"),
        Binding("x", "run(True)", "Quick run"),
        Binding("c", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    BenchPane {
        #bench-setup { height: 8; }
        #bench-benches { width: 1fr; } #bench-sizes { width: 22; }
        #bench-setup SelectionList { border: round $panel-lighten-2; height: 8; }
        #bench-controls { width: 40; padding: 0 1; }
        #bench-controls Checkbox { border: none; padding: 0; height: 1; }
        #bench-buttons { height: 3; } #bench-buttons Button { min-width: 10; margin-right: 1; }
        #bench-status-row { height: 1; padding: 0 1; }
        #bench-progress { width: auto; margin-right: 2; }  /* the bar and its percentage, then a gap */
        #bench-status { width: 1fr; color: $text-muted; }
        #bench-results { height: auto; max-height: 10; }
        #bench-lower { height: 1fr; }
        #bench-chart { width: 2fr; padding: 0 1; }
        #bench-history-box { width: 1fr; border-left: vkey $panel-lighten-2; padding: 0 1; }
        #bench-none { padding: 1 2; }
        &.-no-suite #bench-main { display: none; }
        &.-suite #bench-none { display: none; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.suite: Suite | None = None
        self.report: RunReport | None = None
        self.running = False
        self._cancel = threading.Event()
        self._shape: tuple | None = None  # (bench names, sizes) shown in the selection lists

    def compose(self) -> ComposeResult:
        yield Static(id="bench-none")
        with Vertical(id="bench-main"):
            with Horizontal(id="bench-setup"):
                yield SelectionList[str](id="bench-benches")
                yield SelectionList[int](id="bench-sizes")
                with Vertical(id="bench-controls"):
                    yield Checkbox("measure memory bandwidth", True, id="bench-bandwidth")
                    yield Checkbox("save the run to the history", True, id="bench-save")
                    with Horizontal(id="bench-buttons"):
                        yield Button("Run", variant="primary", id="bench-run")
                        yield Button("Quick", id="bench-quick")
                        yield Button("Cancel", variant="error", id="bench-cancel", disabled=True)
            with Horizontal(id="bench-status-row"):
                yield ProgressBar(total=1, id="bench-progress", show_eta=False)
                yield Static("", id="bench-status")
            yield DataTable(id="bench-results", zebra_stripes=True, cursor_type="row")
            with Horizontal(id="bench-lower"):
                yield BandwidthChart(id="bench-chart")
                with VerticalScroll(id="bench-history-box"):
                    yield Static(id="bench-history")

    def on_mount(self) -> None:
        self.query_one("#bench-benches").border_title = "benches"
        self.query_one("#bench-sizes").border_title = "sizes"
        self.query_one("#bench-history-box").border_title = "earlier runs"
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.set_class(True, "-no-suite")

    def focus_first(self) -> None:
        target = "#bench-benches" if self.suite is not None else None
        (self.query_one(target) if target else self).focus()

    # ---- the suite of the file shown -------------------------------------------

    def show(self, stages: Stages | None, problem: str | None = None) -> None:
        path = self.app.workspace.current
        if self.running:
            return
        suite_path = find_suite(path) if path is not None else None
        message = None
        self.suite = None
        if path is None:
            message = Content("Open an .ea file to benchmark it.")
        elif suite_path is None:
            message = self._no_suite_message(path, stages)
        else:
            try:
                self.suite = load_suite(suite_path)
            except BenchError as err:
                message = Content.assemble(("The benchmark suite has a problem:\n", "bold $text-error"), str(err))
        self.set_class(self.suite is None, "-no-suite")
        self.set_class(self.suite is not None, "-suite")
        if message is not None:
            self.query_one("#bench-none", Static).update(message)
            return
        self._show_selection(self.suite)
        self._show_history()
        errors = len(stages.analysis.errors) if stages is not None else 0
        if is_cross(self.app.options):
            self._status("Benchmarks run on this machine; the target is cross-compiled. Switch back with T.")
        elif errors:
            self._status(errors_note(path, errors, "benchmarked"))
        elif not self.report:
            self._status(f"{display_path(suite_path)}: press b to run, x for a quick run.")
        self.refresh_bindings()

    def _no_suite_message(self, path, stages: Stages | None) -> Content:
        exported = [f.name for f in functions(stages.analysis) if f.live and f.exported] if stages else []
        stem = path.stem
        return Content.assemble(
            (f"No benchmark suite for {path.name}.\n\n", "bold"),
            f"Create {stem}.bench.toml beside it: one [[bench]] table per benchmark, with the function,\n"
            "the sizes to sweep, the bytes moved per element, a NumPy reference and the arguments.\n\n",
            (suite_template(stem, exported[0] if exported else None), "$text-accent"),
            ("\nThe examples folder has one for every example (e.g. examples/saxpy.bench.toml).", "$text-muted"))

    def _show_selection(self, suite: Suite) -> None:
        sizes = sorted({n for b in suite.benches for n in b.sizes})
        shape = (tuple(b.name for b in suite.benches), tuple(sizes))
        if shape == self._shape:
            return
        self._shape = shape
        benches = self.query_one("#bench-benches", SelectionList)
        benches.clear_options()
        benches.add_options([(f"{b.name}  ({b.function})", b.name, True) for b in suite.benches])
        sizes_list = self.query_one("#bench-sizes", SelectionList)
        sizes_list.clear_options()
        sizes_list.add_options([(size_label(n), n, True) for n in sizes])

    def _show_history(self) -> None:
        lines = history_lines(read_history(self.suite)) if self.suite else []
        if self.suite:  # each function's main loop, from the last `ea bench --cycles`
            lines = [f"{b.function} main loop: {label}" for b in self.suite.benches
                     if (label := pair_label(latest_measured(self.suite.kernel, b.function)))] + lines
        self.query_one("#bench-history", Static).update(
            Content("\n".join(lines)) if lines else Content.assemble(("no earlier runs", "$text-muted")))

    def _status(self, text: str) -> None:
        self.query_one("#bench-status", Static).update(Content(text))

    # ---- running ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "run":
            return None if self.running or self.suite is None else True
        if action == "cancel":
            return True if self.running else None
        return True

    def run(self, quick: bool = False) -> None:
        """Start a run of the checked benches and sizes (no-op while one runs)."""
        if self.running or self.suite is None:
            return
        if is_cross(self.app.options):
            self.app.notify("Benchmarks cannot run code cross-compiled for another architecture.",
                            severity="warning")
            return
        benches = list(self.query_one("#bench-benches", SelectionList).selected)
        sizes = list(self.query_one("#bench-sizes", SelectionList).selected)
        if not benches or not sizes:
            self.app.notify("Check at least one bench and one size.", severity="warning")
            return
        all_sizes = set(self._shape[1]) if self._shape else set()
        self._set_running(True)
        self.query_one(DataTable).clear()
        self._cancel = threading.Event()
        self._run(self.suite, self.app.options, benches, None if set(sizes) == all_sizes else sorted(sizes), quick,
                  self.query_one("#bench-bandwidth", Checkbox).value, self.query_one("#bench-save", Checkbox).value)

    def cancel(self) -> None:
        if self.running:
            self._cancel.set()
            self._status("cancelling…")

    def action_run(self, quick: bool) -> None:
        self.run(quick)

    def action_cancel(self) -> None:
        self.cancel()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"bench-run": lambda: self.run(False), "bench-quick": lambda: self.run(True),
         "bench-cancel": self.cancel}[event.button.id]()

    def on_unmount(self) -> None:
        self._cancel.set()

    @work(thread=True, exclusive=True, group="bench", exit_on_error=True)
    def _run(self, suite: Suite, options, benches, sizes, quick: bool, bandwidth: bool, save: bool) -> None:
        cancel = self._cancel
        report, error = None, None
        try:
            report = run_suite(suite, options, benches=benches, sizes=sizes, quick=quick, bandwidth=bandwidth,
                               progress=lambda p: self.app.call_from_thread(self._progress, p), cancel=cancel)
        except Cancelled:
            error = "cancelled"
        except BenchError as err:
            error = str(err)
        except Exception as err:  # a bug must end the run, not the app
            if os.environ.get("EA_DEBUG"):
                raise
            error = f"internal error: {type(err).__name__}: {err}"
        if report is not None and save:
            append_history(suite, report.document())
        self.app.call_from_thread(self._finished, report, error)

    def _progress(self, p: Progress) -> None:
        self.query_one(ProgressBar).update(total=p.total, progress=p.done)
        self._status(p.message)
        if p.result is not None:
            self.query_one(DataTable).add_row(*row_cells(p.result), key=p.result.key)

    def _finished(self, report: RunReport | None, error: str | None) -> None:
        self._set_running(False)
        if error is not None:
            self._status(error)
            self.app.notify(error, title="Benchmark", severity="warning" if error == "cancelled" else "error")
            return
        self.report = report
        table = self.query_one(DataTable)
        table.clear()
        for r in report.results:
            table.add_row(*row_cells(r), key=r.key)
        self.query_one(BandwidthChart).plot(chart_series(report.results), report.bandwidth_gbs)
        wrong = sum(1 for r in report.results if r.status != "ok")
        bw = f" · bandwidth {report.bandwidth_gbs:.1f} GB/s" if report.bandwidth_gbs else ""
        self._status(f"done: {len(report.results)} results{bw}" + (f" · {wrong} not ok" if wrong else ""))
        self._show_history()

    def _set_running(self, running: bool) -> None:
        self.running = running
        self.query_one("#bench-run", Button).disabled = running
        self.query_one("#bench-quick", Button).disabled = running
        self.query_one("#bench-cancel", Button).disabled = not running
        self.refresh_bindings()
