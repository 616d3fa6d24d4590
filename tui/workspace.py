"""What ea-tui was opened on: a folder of .ea files and the file shown,
plus how paths are displayed (relative to the working directory when
inside it, so screens do not depend on where the checkout lives)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def ea_files(folder: Path) -> list[Path]:
    try:
        return sorted((p for p in folder.iterdir() if p.suffix == ".ea" and p.is_file()), key=lambda p: p.name)
    except OSError:
        return []


def display_path(path: Path | str) -> str:
    path = Path(path)
    try:
        return os.path.relpath(path) if Path(os.path.abspath(path)).is_relative_to(Path.cwd()) else str(path)
    except (OSError, ValueError):
        return str(path)


@dataclass
class Workspace:
    folder: Path
    files: list[Path] = field(default_factory=list)
    current: Path | None = None
    from_folder: bool = False  # opened on a folder: the file list starts visible

    @classmethod
    def open(cls, target: str | Path) -> "Workspace":
        """Raises FileNotFoundError when `target` does not exist."""
        path = Path(target)
        if path.is_dir():
            files = ea_files(path)
            return cls(path, files, files[0] if files else None, from_folder=True)
        if not path.exists():
            raise FileNotFoundError(f"no such file or directory: {target}")
        folder = path.parent
        return cls(folder, ea_files(folder), path)

    def refresh(self) -> None:
        self.files = ea_files(self.folder)


def stamp(path: Path | None) -> tuple | None:
    """What changes when the file is rewritten (None when it is missing)."""
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def errors_note(path: Path | None, errors: int, done: str) -> str:
    """What the Bench and Tune panes say of a file with errors: a run compiles it, so it cannot run yet."""
    name = display_path(path) if path is not None else "the file"
    plural = "s" if errors != 1 else ""
    return f"{name} has {errors} error{plural} (Source pane, 1): it can be {done} once it compiles."
