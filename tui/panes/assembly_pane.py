"""Assembly pane, like a compiler explorer: the source on the left, the
machine code of the function under the source cursor on the right, the
inspect summary of that function below.

Cross-highlighting goes both ways: the source cursor's line highlights its
instructions (and scrolls them into view); the assembly cursor highlights
the source line its instruction came from.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ea_compiler.tooling import Stages, latest_measured, pair_label

from ..functions import code_owner, function_at, report_for
from ..messages import SourceCursor
from ..rows.assembly import asm_rows, functions, line_kinds
from ..rows.source import source_rows
from ..widgets.code_row import make_row
from ..widgets.code_view import CodeView
from ..widgets.inspect_summary import InspectSummary

_FUNCTION_KEYS = Binding.Group("Function", compact=True)
_KIND_MARK = {"fma": ("▌", "fma"), "vector": ("▌", "vector"), "memory": ("▌", "memory"),
              "scalar": ("▏", "muted"), "branch": ("▏", "muted")}


class AssemblyPane(Vertical):
    BINDINGS = [
        Binding("n", "function(1)", "Next function", group=_FUNCTION_KEYS),
        Binding("p", "function(-1)", "Previous function", group=_FUNCTION_KEYS),
        Binding("d", "toggle_directives", "Directives"),
    ]

    DEFAULT_CSS = """
    AssemblyPane {
        #asm-title { height: 1; padding: 0 1; background: $panel; }
        #asm-split { height: 1fr; }
        #asm-source { width: 2fr; border-right: vkey $panel-lighten-2; }
        #asm-code { width: 3fr; }
        #asm-summary-scroll { height: 11; border-top: hkey $panel-lighten-2; padding: 0 1; }
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._stages: Stages | None = None
        self._function: str | None = None  # the assembly function shown
        self._opened: set[str] = set()  # functions shown before: a recompile keeps their cursor
        self._directives = False

    def compose(self) -> ComposeResult:
        yield Static(id="asm-title")
        with Horizontal(id="asm-split"):
            yield CodeView(id="asm-source")
            yield CodeView(id="asm-code")
        with VerticalScroll(id="asm-summary-scroll"):
            yield InspectSummary(id="asm-summary")

    @property
    def source_view(self) -> CodeView:
        return self.query_one("#asm-source", CodeView)

    @property
    def asm_view(self) -> CodeView:
        return self.query_one("#asm-code", CodeView)

    @property
    def function(self) -> str | None:
        return self._function

    # ---- from the app --------------------------------------------------------

    def show(self, stages: Stages | None, problem: str | None = None) -> None:
        self._stages = stages
        if stages is None:
            self.source_view.set_rows([make_row(problem or "No file open.", style="note-error")])
            self._show_function(None)
            return
        names = functions(stages.listing)
        if self._function not in names:
            self._function = names[0] if names else None
        self.source_view.set_rows(source_rows(stages.analysis, notes=False,
                                              marks=self._marks(stages)))
        self._show_function(self._function, keep_cursor=True)

    def set_line(self, line: int) -> None:
        """The source cursor moved (here or in the source pane)."""
        self.source_view.move_to_key(line, notify=False, center=True)
        self._follow_source(line)

    # ---- internals -----------------------------------------------------------

    def _marks(self, stages: Stages) -> dict:
        return {ln: _KIND_MARK[k] for ln, k in line_kinds(stages.listing).items()}

    def _show_function(self, name: str | None, keep_cursor: bool = False) -> None:
        self._function = name
        stages = self._stages
        title = self.query_one("#asm-title", Static)
        summary = self.query_one("#asm-summary", InspectSummary)
        if stages is None or stages.asm is None:
            why = (stages.error if stages else None) or "no assembly"
            self.asm_view.set_rows([make_row(f"No assembly: {why}.", style="note-error")])
            title.update(Content.assemble(("no assembly", "$text-error")))
            summary.show(None, "The inspect summary appears once the file compiles.")
            return
        if name is None:
            self.asm_view.set_rows([make_row("This file has no functions with machine code.", style="muted")])
            title.update(Content.assemble(("no functions", "$text-muted")))
            summary.show(None)
            return
        self.asm_view.set_rows(asm_rows(stages.listing, name, directives=self._directives),
                               keep_cursor=keep_cursor, scroll_home=not keep_cursor)
        names = functions(stages.listing)
        position = f"  ({names.index(name) + 1}/{len(names)}, n/p to switch)" if len(names) > 1 else ""
        title.update(Content.assemble(("function ", "$text-muted"), (name, "bold"), (position, "$text-muted"),
                                      ("   directives shown" if self._directives else "", "$text-muted")))
        report = report_for(stages, name)
        summary.show(report, measured=pair_label(latest_measured(stages.analysis.path, name, stages.analysis.source.data)))
        main = report.main_loop if report is not None else None
        first = name not in self._opened
        self._opened.add(name)
        if (first or not keep_cursor) and main is not None and main.asm_line is not None:
            # a function opens at its main loop: a kernel's first instructions are tests, peels and set-up
            self.asm_view.move_to_key(main.asm_line, center=True)
        line = self.source_view.cursor_key
        if line is not None:
            self.asm_view.highlight(line)

    def _follow_source(self, line: int) -> None:
        stages = self._stages
        if stages is None or stages.asm is None:
            return
        owner = code_owner(stages, function_at(stages.analysis, line))
        if owner is not None and owner != self._function:
            self._show_function(owner)
        self.source_view.highlight(None)
        self.asm_view.highlight(line)

    def on_code_view_cursor_moved(self, event: CodeView.CursorMoved) -> None:
        event.stop()
        if event.view is self.source_view:
            self.post_message(SourceCursor(event.key))
        elif event.view is self.asm_view:
            self.asm_view.highlight(event.tag, scroll=False)
            self.source_view.highlight(event.tag)

    def action_function(self, step: int) -> None:
        names = functions(self._stages.listing) if self._stages else []
        if names:
            at = names.index(self._function) if self._function in names else 0
            self._show_function(names[(at + step) % len(names)])

    def action_toggle_directives(self) -> None:
        self._directives = not self._directives
        self._show_function(self._function, keep_cursor=True)
