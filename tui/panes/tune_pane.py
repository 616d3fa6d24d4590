"""Tune pane: `ea tune` on the file shown. Pick a function the suite
benches and the spaces to search (params, transforms, an agent's
proposals), run ea_compiler.tune in a thread worker with live progress (the
attempts table, the best time by attempt), then read the diff of the best
and write it: beside the kernel (<stem>.tuned.ea) or in place with a backup.
`s` tunes, `x` tunes quickly, `c` cancels, `A` applies, `w` writes."""
from __future__ import annotations

import os
import threading
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, DataTable, Input, Select, Static

from ea_compiler.tooling import (Stages, TuneError, TuneEvent, TuneResult, explain_transforms, tune, tune_targets,
                                  unified_diff, write_result)

from ..messages import FilesChanged
from ..target import is_cross
from ..tune_format import (COLUMNS, EVERY_FUNCTION, NEST, SPACES, STRATEGIES, ChoiceError, TuneLog, attempt_cells,
                           backup_path, diff_content, make_config, nest_line, progress_line, summary_content)
from ..widgets.tune_chart import TuneChart
from ..workspace import display_path, errors_note


class TunePane(Vertical, can_focus=True):
    BINDINGS = [
        Binding("s", "start(False)", "Tune"),
        Binding("x", "start(True)", "Quick tune"),
        Binding("c", "cancel", "Cancel"),
        Binding("A", "write(True)", "Apply", key_display="A"),
        Binding("w", "write(False)", "Write .tuned.ea"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.kernel: Path | None = None
        self.functions: tuple[str, ...] = ()  # the functions the suite benches, in the picker
        self.result: TuneResult | None = None
        self.tune_log = TuneLog()
        self.running = False
        self._cancel = threading.Event()
        self._original: tuple[str, str] | None = None  # the tuned file's name and text, for the live diff

    def compose(self) -> ComposeResult:
        yield Static(id="tune-none")
        with Vertical(id="tune-main"):
            with Horizontal(id="tune-setup"):
                with Vertical(id="tune-pick"):
                    yield Select[str]([], id="tune-function", prompt="function", allow_blank=True)
                    yield Select[str]([(f"strategy: {s}", s) for s in STRATEGIES], value="auto", id="tune-strategy",
                                      allow_blank=False)
                with Vertical(id="tune-spaces"):
                    for space in SPACES:
                        yield Checkbox(space, space != "agent", id=f"tune-space-{space}")
                    yield Input(placeholder="proposer command (for agent)", id="tune-propose")
                with Vertical(id="tune-controls"):
                    with Horizontal(id="tune-bounds"):
                        yield Input(placeholder="budget", type="integer", id="tune-budget")
                        yield Input(placeholder="seconds", type="number", id="tune-time")
                    with Horizontal(id="tune-buttons"):
                        yield Button("Tune", variant="primary", id="tune-run")
                        yield Button("Quick", id="tune-quick")
                        yield Button("Cancel", variant="error", id="tune-cancel", disabled=True)
                        yield Button("Apply", id="tune-apply", disabled=True)
                        yield Button("Write", id="tune-write", disabled=True)
            yield Static(id="tune-progress")
            yield Static(id="tune-note")
            with Horizontal(id="tune-middle"):
                yield DataTable(id="tune-attempts", zebra_stripes=True, cursor_type="row")
                yield TuneChart(id="tune-chart")
            with VerticalScroll(id="tune-diff-box"):
                yield Static(id="tune-diff")

    def on_mount(self) -> None:
        self.query_one("#tune-spaces").border_title = "spaces"
        self.query_one("#tune-bounds").border_title = "budget · time (empty: no bound)"
        self.query_one("#tune-diff-box").border_title = "diff of the best"
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.set_class(True, "-no-suite")

    def focus_first(self) -> None:
        (self.query_one("#tune-function") if self.functions else self).focus()

    # ---- the file shown -----------------------------------------------------------

    def show(self, stages: Stages | None, problem: str | None = None) -> None:
        if self.running:
            return
        path = self.app.workspace.current
        if path != self.kernel:
            self.kernel = path
            self._reset()
        functions = tuple(dict.fromkeys(t.function for t in tune_targets(path))) if path is not None else ()
        self.set_class(not functions, "-no-suite")
        self.set_class(bool(functions), "-suite")
        if not functions:
            self.functions = ()
            self.query_one("#tune-none", Static).update(self._no_targets_message(path))
            self.refresh_bindings()
            return
        if functions != self.functions:
            self.functions = functions
            choices = [(f, f) for f in functions]
            if len(functions) > 1:
                choices.append((f"all {len(functions)} functions", EVERY_FUNCTION))
            picker = self.query_one("#tune-function", Select)
            picker.set_options(choices)
            picker.value = functions[0]
        errors = len(stages.analysis.errors) if stages is not None else 0
        if errors:
            self._note(errors_note(path, errors, "tuned"))
        elif self.result is None and not self.tune_log.attempts:
            note = f"{display_path(path)}: press s to tune the function picked, x for a quick run."
            nests = nest_line(explain_transforms(stages.analysis, only=NEST)) if stages is not None else None
            self._note(note if nests is None else f"{note}\n{nests}")
        self.refresh_bindings()

    def _no_targets_message(self, path: Path | None) -> Content:
        if path is None:
            return Content("Open an .ea file to tune it.")
        return Content.assemble(
            (f"Nothing to tune in {path.name}.\n\n", "bold"),
            f"The tuner searches faster variants of the exported functions that {path.stem}.bench.toml "
            "benches\n(its NumPy reference checks every variant). The Bench pane (4) shows how to write one.")

    def _reset(self) -> None:
        self.result, self.tune_log = None, TuneLog()
        self.query_one(DataTable).clear()
        self.query_one(TuneChart).plot([], [], None)
        self.query_one("#tune-diff", Static).update(Content.assemble(
            ("The diff of the best variant against the original shows here once one is accepted.", "$text-muted")))
        self.query_one("#tune-diff-box").border_title = "diff of the best"
        self.query_one("#tune-progress", Static).update("")
        self._set_running(False)

    def _note(self, text: str | Content) -> None:
        self.query_one("#tune-note", Static).update(text if isinstance(text, Content) else Content(text))

    def _refuse(self, text: str, severity: str = "warning") -> None:
        """Why nothing happened: on the note line, and as a notification."""
        self._note(Content.assemble((text, "$text-error" if severity == "error" else "$text-warning")))
        self.app.notify(text, title="Tune", severity=severity)

    # ---- running --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "start":
            return None if self.running or not self.functions else True
        if action == "cancel":
            return True if self.running else None
        if action == "write":
            return True if self._writable() else None
        return True

    def _writable(self) -> bool:
        return not self.running and self.result is not None and self.result.improved()

    def start(self, quick: bool = False) -> None:
        """Start a run with the pane's choices (no-op while one runs)."""
        if self.running:
            return
        if self.app.workspace.current != self.kernel:  # another file was opened during the last run
            self.show(self.app.stages)
        if not self.functions or self.kernel is None:
            return
        if is_cross(self.app.options):
            self._refuse("Tuning runs the variants on this machine; the target is cross-compiled. "
                         "Switch back with T.")
            return
        function = self.query_one("#tune-function", Select).value
        try:
            cfg = make_config(self.kernel, function if isinstance(function, str) else self.functions[0],
                              [s for s in SPACES if self.query_one(f"#tune-space-{s}", Checkbox).value],
                              str(self.query_one("#tune-strategy", Select).value),
                              self.query_one("#tune-budget", Input).value, self.query_one("#tune-time", Input).value,
                              self.query_one("#tune-propose", Input).value, quick, self.app.options)
        except (ChoiceError, TuneError) as err:
            self._refuse(str(err))
            return
        try:
            self._original = (self.kernel.name, self.kernel.read_text())
        except (OSError, UnicodeDecodeError):
            self._original = None
        self._reset()
        self._set_running(True)
        self._note("measuring the baseline…")
        self._cancel = threading.Event()
        self._run(cfg)

    def cancel(self) -> None:
        if self.running:
            self._cancel.set()
            self._note("cancelling…")

    def action_start(self, quick: bool) -> None:
        self.start(quick)

    def action_cancel(self) -> None:
        self.cancel()

    def action_write(self, apply: bool) -> None:
        self.write(apply)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"tune-run": lambda: self.start(False), "tune-quick": lambda: self.start(True), "tune-cancel": self.cancel,
         "tune-apply": lambda: self.write(True), "tune-write": lambda: self.write(False)}[event.button.id]()

    def on_unmount(self) -> None:
        self._cancel.set()

    @work(thread=True, exclusive=True, group="tune", exit_on_error=True)
    def _run(self, cfg) -> None:
        cancel = self._cancel
        result, error = None, None
        try:
            result = tune(cfg, progress=lambda e: self.app.call_from_thread(self._event, e), cancel=cancel)
        except TuneError as err:
            error = str(err)
        except Exception as err:  # a bug must end the run, not the app
            if os.environ.get("EA_DEBUG"):
                raise
            error = f"internal error: {type(err).__name__}: {err}"
        self.app.call_from_thread(self._finished, result, error)

    def _event(self, e: TuneEvent) -> None:
        attempt = self.tune_log.add(e)
        if attempt is not None:
            table = self.query_one(DataTable)
            table.add_row(*attempt_cells(attempt), key=str(len(self.tune_log.attempts)))
            table.move_cursor(row=table.row_count - 1)
            if attempt.accepted:
                self.query_one("#tune-diff-box").border_title = f"best so far: {attempt.label}"
                if e.best_source is not None and self._original is not None:
                    diff = unified_diff(*self._original, e.best_source)
                    self.query_one("#tune-diff", Static).update(diff_content(diff))
        self.query_one(TuneChart).plot(self.tune_log.best_points, self.tune_log.scores, self.tune_log.baseline_us)
        self.query_one("#tune-progress", Static).update(progress_line(self.tune_log))
        if not self._cancel.is_set() and self.tune_log.message:
            self._note(self.tune_log.message)

    def _finished(self, result: TuneResult | None, error: str | None) -> None:
        if error is not None:
            self._set_running(False)
            self._refuse(error, "error")
            return
        self.result = result
        # The chart stays the search as it went; the line above it shows the final measurement.
        self.query_one("#tune-progress", Static).update(progress_line(self.tune_log, final=result))
        diff = result.diff()
        box = self.query_one("#tune-diff-box")
        if diff:
            box.border_title = f"diff of the best: {result.best_label or 'the original'}  ({result.speedup:.2f}×)"
            self.query_one("#tune-diff", Static).update(diff_content(diff))
        else:
            box.border_title = "diff of the best"
            self.query_one("#tune-diff", Static).update(Content.assemble(
                ("No variant beat the original; nothing to write.", "$text-muted")))
        self._note(summary_content(result))
        self._set_running(False)

    # ---- writing the best -------------------------------------------------------------

    def write(self, apply: bool) -> None:
        """Write the best variant: in place (the original kept as <stem>.ea.orig) or beside the kernel."""
        r = self.result
        if r is None or self.running:
            return
        if not r.improved():
            self._refuse("No variant beat the original; there is nothing to write.")
            return
        if apply:
            try:
                current = r.kernel.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                self._refuse(f"cannot read {r.kernel.name}: {err}", "error")
                return
            if current != r.original_source:
                self._refuse(f"{r.kernel.name} is not the source that was tuned (it changed, or the result is "
                             "applied already): tune it again.")
                return
        try:
            path = write_result(r, apply=apply)
        except OSError as err:
            self._refuse(f"cannot write the result: {err}", "error")
            return
        # Names, not paths: both files are beside the kernel, whose path is in the title.
        if apply:
            line = f"Applied to {path.name}; the original is kept as {backup_path(r.kernel).name}."
        else:
            line = f"Wrote {path.name} beside {r.kernel.name}."
            self.post_message(FilesChanged())
        self._note(Content.assemble((line, "$text-success")))
        self.app.notify(line, title="Tune")

    def _set_running(self, running: bool) -> None:
        self.running = running
        self.query_one("#tune-run", Button).disabled = running
        self.query_one("#tune-quick", Button).disabled = running
        self.query_one("#tune-cancel", Button).disabled = not running
        self.query_one("#tune-apply", Button).disabled = not self._writable()
        self.query_one("#tune-write", Button).disabled = not self._writable()
        self.refresh_bindings()
