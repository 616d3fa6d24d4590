"""ea-tui: the terminal workbench for Eä kernels.

    ea-tui [FILE_OR_DIR] [--target CPU] [--avx512] [--target-triple T] [--opt-level N] [--version]

The app owns the state (workspace, target options, the latest compiler
results, the source line under the cursor) and hands results to the panes;
compilation runs in a thread worker (tui/compile_job.py) and results that a
newer request superseded are dropped. The file on disk is polled, so saving
it in an editor recompiles.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Footer, Header, TabbedContent, TabPane
from textual.worker import get_current_worker

from ea_compiler import Options, __version__

from .commands import EaCommands
from .compile_job import CompileResult, compile_file
from .messages import FilesChanged, OpenFile, SourceCursor
from .panes.assembly_pane import AssemblyPane
from .panes.bench_pane import BenchPane
from .panes.source_pane import SourcePane
from .panes.stages_pane import StagesPane
from .panes.tune_pane import TunePane
from .screens.help import HelpScreen
from .screens.open_file import OpenFileScreen
from .screens.target import TargetScreen
from .target import describe, with_avx512, with_cpu, with_opt_level, with_triple
from .widgets.file_list import FileList
from .workspace import Workspace, display_path, stamp

PANES = ("source", "assembly", "stages", "bench", "tune")
_PANE_KEYS = Binding.Group("Panes", compact=True)
POLL_SECONDS = 0.5


class EaApp(App):
    CSS_PATH = ["app.tcss", "panes/tune_pane.tcss"]
    TITLE = "ea-tui"
    COMMANDS = App.COMMANDS | {EaCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        *(Binding(str(n), f"pane('{p}')", p.title(), group=_PANE_KEYS) for n, p in enumerate(PANES, 1)),
        Binding("f", "toggle_files", "Files"),
        Binding("o", "open_file", "Open"),
        Binding("T", "target", "Target", key_display="T"),
        Binding("a", "toggle_avx512", "AVX-512", show=False),
        Binding("t", "toggle_theme", "Theme"),
        Binding("r", "recompile", "Recompile", show=False),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
    ]

    def __init__(self, workspace: Workspace, options: Options | None = None, poll: float = POLL_SECONDS):
        super().__init__()
        self.workspace = workspace
        self.options = options or Options()
        self.stages = None  # ea_compiler.explore.Stages of the file shown, or None
        self.problem: str | None = None  # why there are no stages (unreadable file)
        self.source_line = 1
        self.compiling = False
        self._generation = 0
        self._stamp = stamp(workspace.current)
        self._poll_seconds = poll

    # ---- layout --------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield FileList(self.workspace, id="files", classes="" if self.workspace.from_folder else "-hidden")
            with TabbedContent(initial="source", id="panes"):
                with TabPane("1 Source", id="source"):
                    yield SourcePane(id="source-pane")
                with TabPane("2 Assembly", id="assembly"):
                    yield AssemblyPane(id="assembly-pane")
                with TabPane("3 Stages", id="stages"):
                    yield StagesPane(id="stages-pane")
                with TabPane("4 Bench", id="bench"):
                    yield BenchPane(id="bench-pane")
                with TabPane("5 Tune", id="tune"):
                    yield TunePane(id="tune-pane")
        yield Footer()

    def on_mount(self) -> None:
        self._update_titles()
        self.set_interval(self._poll_seconds, self._poll_file)
        self.request_compile()
        self.call_after_refresh(self._focus_pane, "source")

    @property
    def panes(self) -> list:
        return [self.query_one(f"#{p}-pane") for p in PANES]

    # ---- compilation ---------------------------------------------------------

    def request_compile(self) -> None:
        """Compile the current file with the current options (in a worker)."""
        self._generation += 1
        path = self.workspace.current
        if path is None:
            self._apply(CompileResult(self._generation, Path("."), self.options, None, self._no_file(), 0.0))
            return
        self.compiling = True
        self._update_titles()
        self._compile(path, self.options, self._generation)

    @work(thread=True, exclusive=True, group="compile", exit_on_error=True)
    def _compile(self, path: Path, options: Options, generation: int) -> None:
        worker = get_current_worker()
        result = compile_file(path, options, generation,
                              wanted=lambda: not worker.is_cancelled and generation == self._generation)
        if result is not None and not worker.is_cancelled:
            self.call_from_thread(self._apply, result)

    def _apply(self, result: CompileResult) -> None:
        if result.generation != self._generation:
            return  # superseded
        self.compiling = False
        self.stages, self.problem = result.stages, result.read_error
        for pane in self.panes:
            pane.show(self.stages, self.problem)
        self._sync_line(self.source_line)
        self._update_titles()
        stages = self.stages
        # No machine code although the source has no error diagnostic: the target
        # was refused or the compiler failed, which the source pane cannot show.
        if stages and stages.error and stages.asm is None and not stages.analysis.errors:
            self.notify(stages.error, title="Code generation", severity="error", timeout=8)

    def _no_file(self) -> str:
        folder = display_path(self.workspace.folder)
        return f"No .ea files in {folder}. Open one with o or the command palette (ctrl+p)."

    def _poll_file(self) -> None:
        now = stamp(self.workspace.current)
        if now != self._stamp:
            self._stamp = now
            self.request_compile()

    def _update_titles(self) -> None:
        current = self.workspace.current
        self.title = f"ea-tui · {display_path(current)}" if current else "ea-tui"
        busy = " · compiling…" if self.compiling else ""
        self.sub_title = describe(self.options) + busy

    # ---- the source line shared by the panes -----------------------------------

    def on_source_cursor(self, message: SourceCursor) -> None:
        self._sync_line(message.line)

    def _sync_line(self, line: int) -> None:
        self.source_line = line
        for pane in self.panes:
            if hasattr(pane, "set_line"):
                pane.set_line(line)

    # ---- files ---------------------------------------------------------------

    def open_path(self, target: str | Path) -> None:
        try:
            self.workspace = Workspace.open(target)
        except FileNotFoundError as err:
            self.notify(str(err), severity="error")
            return
        self.query_one(FileList).show_workspace(self.workspace)
        self._stamp = stamp(self.workspace.current)
        self.source_line = 1
        self.request_compile()

    def on_open_file(self, message: OpenFile) -> None:
        self.open_path(message.path)

    def on_files_changed(self, message: FilesChanged) -> None:
        self.workspace.refresh()
        self.query_one(FileList).show_workspace(self.workspace)

    def action_toggle_files(self) -> None:
        files = self.query_one(FileList)
        files.toggle_class("-hidden")
        if not files.has_class("-hidden"):
            files.focus()

    def action_open_file(self) -> None:
        self.push_screen(OpenFileScreen(self.workspace.folder), self._opened)

    def _opened(self, path: str | None) -> None:
        if path:
            self.open_path(path)

    # ---- panes, target, theme, help -------------------------------------------

    def action_pane(self, pane: str) -> None:
        self.query_one("#panes", TabbedContent).active = pane
        self._focus_pane(pane)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_pane(event.pane.id or "source")

    def _focus_pane(self, pane: str) -> None:
        target = {"source": "#source-view", "assembly": "#asm-code", "stages": "#stage-view",
                  "bench": "#bench-pane", "tune": "#tune-pane"}[pane]
        widget = self.query_one(target)
        if pane in ("bench", "tune"):
            widget.focus_first()
        else:
            widget.focus()

    def set_options(self, options: Options) -> None:
        if options != self.options:
            self.options = options
            self.request_compile()

    def action_target(self) -> None:
        self.push_screen(TargetScreen(self.options), lambda o: o and self.set_options(o))

    def action_toggle_avx512(self) -> None:
        if self.options.is_arm:
            self.notify("AVX-512 is an x86 feature; the target is AArch64.", severity="warning")
            return
        self.set_options(with_avx512(self.options, not self.options.avx512))

    def action_set_cpu(self, cpu: str) -> None:
        self.set_options(with_cpu(self.options, cpu))

    def action_set_triple(self, triple: str) -> None:
        self.set_options(with_triple(self.options, triple or None))

    def action_set_opt(self, level: int) -> None:
        self.set_options(with_opt_level(self.options, level))

    def action_recompile(self) -> None:
        self.request_compile()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.current_theme.dark else "textual-dark"

    def show_stage(self, stage: str) -> None:
        self.action_pane("stages")
        self.query_one(StagesPane).stage = stage

    def run_bench(self, quick: bool = False) -> None:
        self.action_pane("bench")
        self.query_one(BenchPane).run(quick=quick)

    def cancel_bench(self) -> None:
        self.query_one(BenchPane).cancel()

    def run_tune(self, quick: bool = False) -> None:
        self.action_pane("tune")
        self.query_one(TunePane).start(quick=quick)

    def cancel_tune(self) -> None:
        self.query_one(TunePane).cancel()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ea-tui", description="Terminal workbench for Eä kernels.")
    parser.add_argument("path", nargs="?", default=".", metavar="FILE_OR_DIR",
                        help="an .ea file, or a folder of them (default: the current folder)")
    parser.add_argument("--target", default="native", metavar="CPU", help="target CPU (default: native)")
    parser.add_argument("--avx512", action="store_true", help="enable AVX-512")
    parser.add_argument("--target-triple", default=None, metavar="TRIPLE",
                        help="cross-compile, e.g. aarch64-unknown-linux-gnu")
    parser.add_argument("--opt-level", type=int, choices=range(4), default=3, metavar="N", help="0-3 (default 3)")
    parser.add_argument("--version", "-V", action="version", version=f"ea-tui {__version__}")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        workspace = Workspace.open(args.path)
    except FileNotFoundError as err:
        print(f"ea-tui: error: {err}", file=sys.stderr)
        return 1
    options = with_triple(Options(target_cpu=args.target, avx512=args.avx512, opt_level=args.opt_level),
                          args.target_triple)
    EaApp(workspace, options).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
