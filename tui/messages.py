"""Messages the panes post to the app (what the user did)."""
from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class SourceCursor(Message):
    """The user moved a source cursor to `line` (1-based)."""
    line: int


@dataclass
class OpenFile(Message):
    """The user chose a file to open."""
    path: str


class FilesChanged(Message):
    """A pane wrote a file into the workspace folder (the file list shows it)."""
