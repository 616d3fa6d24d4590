"""Source pane: the .ea file, coloured by the compiler's tokens, with the
diagnostics under their lines and in a list below; a status line says
what the cursor line compiled to."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ea_compiler.tooling import Stages

from ..functions import function_at, report_for
from ..messages import SourceCursor
from ..rows.source import describe, source_rows
from ..widgets.code_row import make_row
from ..widgets.code_view import CodeView


class SourcePane(Vertical):
    DEFAULT_CSS = """
    SourcePane {
        #source-view { height: 1fr; }
        #source-status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
        #diagnostics { height: auto; max-height: 8; border: none; padding: 0; }
        #diagnostics.-empty { display: none; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._stages: Stages | None = None

    def compose(self) -> ComposeResult:
        yield CodeView(id="source-view")
        yield Static(id="source-status")
        yield OptionList(id="diagnostics", classes="-empty")

    @property
    def view(self) -> CodeView:
        return self.query_one("#source-view", CodeView)

    def show(self, stages: Stages | None, problem: str | None = None) -> None:
        """New results (or why there are none: an unreadable file)."""
        self._stages = stages
        diagnostics = self.query_one("#diagnostics", OptionList)
        diagnostics.clear_options()
        if stages is None:
            self.view.set_rows([make_row(problem or "No file open.", style="note-error")])
            diagnostics.set_class(True, "-empty")
            self._update_status()
            return
        self.view.set_rows(source_rows(stages.analysis))
        found = stages.analysis.diagnostics
        diagnostics.add_options([Option(_diagnostic_prompt(d), id=f"d{i}") for i, d in enumerate(found)])
        diagnostics.set_class(not found, "-empty")
        self._update_status()

    def set_line(self, line: int) -> None:
        """Follow a cursor moved elsewhere (no message back)."""
        self.view.move_to_key(line, notify=False, center=True)
        self._update_status()

    def _update_status(self) -> None:
        status = self.query_one("#source-status", Static)
        stages, line = self._stages, self.view.cursor_key
        if stages is None or line is None:
            status.update("")
            return
        errors = len(stages.analysis.errors)
        warnings = sum(1 for d in stages.analysis.diagnostics if d.severity == "warning")
        parts = [f"Ln {line}"]
        name = function_at(stages.analysis, line)
        if name:
            parts.append(name)
        report = report_for(stages, name)
        if report is not None and line in report.lines:
            parts.append(report.lines[line].summary)
        elif stages.asm is not None and name:
            parts.append("no machine code")
        problems = f"{errors} error{'s' * (errors != 1)}" if errors else "no errors"
        if warnings:
            problems += f", {warnings} warning{'s' * (warnings != 1)}"
        style = "$text-error" if errors else "$text-warning" if warnings else "$text-success"
        status.update(Content.assemble("  ·  ".join(parts), "    ", (problems, style)))

    def on_code_view_cursor_moved(self, event: CodeView.CursorMoved) -> None:
        event.stop()
        self._update_status()
        self.post_message(SourceCursor(event.key))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self._stages is None or event.option_id is None:
            return
        diagnostic = self._stages.analysis.diagnostics[int(event.option_id[1:])]
        if diagnostic.span is not None:
            self.view.move_to_key(diagnostic.span.line, notify=True, center=True)
            self.view.focus()


def _diagnostic_prompt(d) -> Content:
    style = "$text-error" if d.is_error else "$text-warning"
    return Content.assemble((describe(d), style))
