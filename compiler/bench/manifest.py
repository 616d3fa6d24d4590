"""The upstream C-harness manifest (TOOLCHAIN.md §7): flat `key = value`
TOML with string and string-array values, paths relative to its folder."""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ARCHES = ("x86_64", "aarch64")
_STRINGS = ("name", "kernel", "harness", "baseline")
_ARRAYS = ("arch", "ea_flags", "cc_flags")
_REQUIRED = (*_STRINGS, "arch")
_DEFAULT_CC_FLAGS = ("-O2",)
# The name becomes part of file names and of the `-l<name>_bench` linker flag.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class ManifestError(Exception):
    """A manifest that cannot be read or breaks the rules; the message names
    the file (and the key, when one is at fault)."""


@dataclass(frozen=True)
class Manifest:
    path: Path
    name: str
    kernel: Path
    harness: Path
    baseline: Path
    arch: tuple[str, ...]
    ea_flags: tuple[str, ...]
    cc_flags: tuple[str, ...]


def load_manifest(path: str | Path) -> Manifest:
    """Read and validate a manifest; paths come back absolute (and resolved, so
    that `..` means what it does to the file system)."""
    path = Path(path).resolve()
    where = f"manifest {path}"
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as err:
        raise ManifestError(f"cannot read '{path}': {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ManifestError(f"{where}: not UTF-8 text") from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ManifestError(f"{where}: invalid TOML: {err}") from None
    for key, value in table.items():
        if key in _STRINGS:
            if not isinstance(value, str):
                raise ManifestError(f"{where}: '{key}' must be a string")
        elif key in _ARRAYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ManifestError(f"{where}: '{key}' must be an array of strings")
        else:
            # Tables (`[x]`) land here too: the format is flat.
            raise ManifestError(f"{where}: unknown key '{key}'")
    for key in _REQUIRED:
        if key not in table:
            raise ManifestError(f"{where}: missing required key '{key}'")
    if not _NAME.fullmatch(table["name"]):
        raise ManifestError(f"{where}: 'name' must be letters, digits, '_', '-' or '.'"
                            f" (got '{table['name']}')")
    if not table["arch"]:
        raise ManifestError(f"{where}: 'arch' must not be empty")
    for arch in table["arch"]:
        if arch not in ARCHES:
            raise ManifestError(f"{where}: unknown arch '{arch}' in 'arch'"
                                " (expected \"x86_64\" or \"aarch64\")")
    folder = path.parent
    return Manifest(
        path=path, name=table["name"],
        kernel=(folder / table["kernel"]).resolve(),
        harness=(folder / table["harness"]).resolve(),
        baseline=(folder / table["baseline"]).resolve(), arch=tuple(table["arch"]),
        ea_flags=tuple(table.get("ea_flags", ())),
        cc_flags=tuple(table.get("cc_flags", _DEFAULT_CC_FLAGS)))
