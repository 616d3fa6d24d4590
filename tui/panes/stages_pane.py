"""Stages pane: what each compiler stage made of the file (tokens, AST,
desugared AST, LLVM IR before and after optimisation, assembly), one at a
time; `]`/`s` and `[`/`S` cycle through them. Each stage keeps its cursor."""
from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from ea_compiler.tooling import Stages

from ..rows.stages import STAGES, TITLES, stage_rows, stage_text
from ..widgets.code_row import make_row
from ..widgets.code_view import CodeView

STAGE_NAMES = [name for name, _ in STAGES]
_STEP = Binding.Group("Stage", compact=True)


class StagesPane(Vertical):
    BINDINGS = [
        Binding("left_square_bracket", "stage(-1)", "Prev stage", group=_STEP, key_display="["),
        Binding("right_square_bracket", "stage(1)", "Next stage", group=_STEP, key_display="]"),
        Binding("S", "stage(-1)", "Prev stage", show=False),
        Binding("s", "stage(1)", "Next stage", show=False),
    ]

    DEFAULT_CSS = """
    StagesPane {
        #stage-bar { height: 1; padding: 0 1; background: $panel; }
        #stage-view { height: 1fr; }
    }
    """

    stage: reactive[str] = reactive("tokens", init=False)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._stages: Stages | None = None
        self._cursors: dict[str, int | None] = {}
        self._problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="stage-bar")
        yield CodeView(id="stage-view")

    def on_mount(self) -> None:
        self._render_stage(scroll_home=True)

    @property
    def view(self) -> CodeView:
        return self.query_one("#stage-view", CodeView)

    def show(self, stages: Stages | None, problem: str | None = None) -> None:
        self._stages = stages
        self._problem = problem
        self._render_stage()

    def text(self) -> str | None:
        """The current stage's text (None when it is missing)."""
        return stage_text(self._stages, self.stage) if self._stages else None

    def action_stage(self, step: int) -> None:
        at = STAGE_NAMES.index(self.stage)
        self.stage = STAGE_NAMES[(at + step) % len(STAGE_NAMES)]

    def watch_stage(self, old: str, new: str) -> None:
        self._cursors[old] = self.view.cursor_key
        self._render_stage(scroll_home=True)
        self.view.move_to_key(self._cursors.get(new), center=True)

    def _render_stage(self, scroll_home: bool = False) -> None:
        parts: list = []
        for name, title in STAGES:
            style = "reverse bold" if name == self.stage else "$text-muted"
            parts += [(f" {title} ", style), " "]
        parts.append(("  [ ] or s/S to switch", "$text-muted"))
        self.query_one("#stage-bar", Static).update(Content.assemble(*parts))
        if self._stages is None:
            problem = self._problem or "No file open."
            self.view.set_rows([make_row(problem, style="note-error")])
            return
        self.view.set_rows(stage_rows(self._stages, self.stage), keep_cursor=not scroll_home,
                           scroll_home=scroll_home)
        self.view.border_title = TITLES[self.stage]
