"""Both builds of one kernel as shared libraries, and one way to call them.

`build` compiles a copy of the source with a compiler's command line (ours:
`ea`, the reference's: fetch.Reference.command), flags `--lib --opt-level=3`
and the native target (the default of both), in a folder of its own, and
reads the `.ea.json` it writes. Both libraries are then called the same way:
through ctypes, with the argument list built once (array addresses, lengths
and scalars), so a comparison measures the two compilers' code and not two
calling paths. The suite's keyword arguments map to C arguments as our
binding maps them (bind/meta.py: a length argument the suite does not give is
the element count of the array it collapses from), read from our metadata;
the reference's own metadata gives its signature, which must be the same.
"""
from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ea_compiler.bench.c_args import c_arguments
from ea_compiler.bind.meta import Api, BindError, Export, parse_api

FLAGS = ("--lib", "--opt-level=3")
_CTYPES = {"i8": ctypes.c_int8, "u8": ctypes.c_uint8, "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
           "i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
           "f32": ctypes.c_float, "f64": ctypes.c_double, "bool": ctypes.c_bool}


def our_command() -> tuple[str, ...]:
    """Our `ea`, from the interpreter's environment (the venv's script)."""
    script = Path(sys.executable).parent / "ea"
    return (str(script),) if script.exists() else (sys.executable, "-m", "ea_compiler.cli.main")


@dataclass
class Built:
    """A kernel compiled by one compiler: the library and its metadata, or the error."""
    library: Path | None
    api: Api | None
    error: str = ""


def first_error(text: str) -> str:
    """The line of a compiler's output that says what failed."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower():
            return ln
    return lines[0] if lines else "failed without a message"


def build(command: tuple[str, ...], source: Path, folder: Path) -> Built:
    """Compile `source` (copied into `folder`) to `folder/<stem>.so` with `command`."""
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / source.name
    shutil.copyfile(source, copy)
    for stale in (folder / f"{source.stem}.so", folder / f"{source.name}.json"):
        stale.unlink(missing_ok=True)
    try:
        proc = subprocess.run([*command, copy.name, *FLAGS], cwd=folder, capture_output=True, text=True,
                              timeout=300)
    except (OSError, subprocess.SubprocessError) as err:
        return Built(None, None, f"could not run the compiler: {err}")
    library, meta = folder / f"{source.stem}.so", folder / f"{source.name}.json"
    if proc.returncode != 0 or not library.exists() or not meta.exists():
        return Built(None, None, first_error(proc.stderr + "\n" + proc.stdout))
    try:
        api = parse_api(meta.read_text(), source.stem)
    except BindError as err:
        return Built(None, None, f"{meta.name}: {err}")
    return Built(library, api, "")


def export(api: Api, name: str) -> Export | None:
    return next((e for e in api.exports if e.name == name), None)


def signature(e: Export) -> list[tuple[str, str]]:
    return [(a.name, a.type) for a in e.args]


def c_function(library: Path, e: Export):
    """The ctypes function `e` of `library`, typed from its metadata."""
    fn = getattr(ctypes.CDLL(str(library)), e.name)
    fn.argtypes = [ctypes.c_void_p if a.is_pointer else _CTYPES[a.type] for a in e.args]
    fn.restype = None if e.ret in (None, "void") else _CTYPES[e.ret]
    return fn


@dataclass
class Pair:
    """One export in both builds, callable with the same C arguments."""
    name: str
    ours: object
    ref: object
    mapping: Export  # our metadata: how the suite's arguments become C arguments

    def arguments(self, kwargs: dict) -> tuple:
        return c_arguments(self.mapping, kwargs)


def pair(ours: Built, ref: Built, name: str) -> Pair | str:
    """The export `name` of both builds, or why they cannot be compared."""
    mine, theirs = export(ours.api, name), export(ref.api, name)
    if mine is None:
        return f"our build exports no '{name}'"
    if theirs is None:
        return f"the reference's build exports no '{name}'"
    if signature(mine) != signature(theirs) or (mine.ret or None) != (theirs.ret or None):
        return f"signatures differ: ours {mine.signature()}, reference {theirs.signature()}"
    return Pair(name, c_function(ours.library, mine), c_function(ref.library, theirs), mine)
