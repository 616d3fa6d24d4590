"""The installed distribution has every package and data file the source tree has: an
editable install hides a package missing from pyproject.toml, a wheel does not."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
FOLDERS = {"ea": "ea", "eals": "eals", "ea_compiler": "compiler", "ea_tui": "tui"}


def test_every_package_folder_is_listed():
    found = set()
    for name, folder in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join((name, *rel.parts)))
    assert sorted(found - set(CONFIG["packages"])) == []


def test_every_stylesheet_is_package_data():
    patterns = CONFIG["package-data"]["ea_tui"]
    sheets = [p.relative_to(ROOT / "tui").as_posix() for p in (ROOT / "tui").rglob("*.tcss")]
    assert sheets and [s for s in sheets if not any(fnmatch.fnmatch(s, p) and
                                                    s.count("/") == p.count("/") for p in patterns)] == []
