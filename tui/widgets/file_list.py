"""The file list on the left: the workspace folder's .ea files; choosing
one opens it (posts OpenFile). Toggled with `f`."""
from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ..messages import OpenFile
from ..workspace import Workspace, display_path


class FileList(OptionList):
    DEFAULT_CSS = """
    FileList {
        width: 26;
        height: 1fr;
        border: none;
        border-right: vkey $panel-lighten-2;
        padding: 0;
        &.-hidden { display: none; }
    }
    """

    def __init__(self, workspace: Workspace, **kwargs) -> None:
        super().__init__(**kwargs)
        self._paths: list[str] = []
        self.show_workspace(workspace)

    def show_workspace(self, workspace: Workspace) -> None:
        self.clear_options()
        self._paths = [str(p) for p in workspace.files]
        self.add_options([Option(p.name, id=str(i)) for i, p in enumerate(workspace.files)])
        self.border_title = display_path(workspace.folder)
        if workspace.current in workspace.files:
            self.highlighted = workspace.files.index(workspace.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_id is not None:
            self.post_message(OpenFile(self._paths[int(event.option_id)]))
