"""Open a file or folder: type a path, or pick an .ea file in the tree."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Label


class EaTree(DirectoryTree):
    """Folders (not hidden ones, not caches) and .ea files."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [p for p in paths
                if (p.is_dir() and not p.name.startswith((".", "__"))) or p.suffix == ".ea"]


class OpenFileScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    DEFAULT_CSS = """
    OpenFileScreen {
        align: center middle;
        #open { width: 80; height: 80%; border: round $accent; background: $surface; padding: 0 1; }
        #open-tree { height: 1fr; }
        #open-hint { color: $text-muted; }
    }
    """

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self._folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(id="open") as box:
            box.border_title = "Open file or folder"
            yield Input(placeholder="path to an .ea file or a folder, then Enter", id="open-path")
            yield EaTree(self._folder, id="open-tree")
            yield Label("Enter opens · Escape cancels", id="open-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            return
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = self._folder / path if (self._folder / path).exists() else path
        if not path.exists():
            self.notify(f"no such file or directory: {value}", severity="error")
            return
        self.dismiss(str(path))

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(str(event.path))
