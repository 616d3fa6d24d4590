"""`ea bind <file.ea|dir>... --python|--rust|--pytorch|--cpp|--cmake ...` (TOOLCHAIN.md §4).
With several sources each one's output is headed `==> path <==`; a source that
fails does not stop the others (exit 1)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..bind import GENERATORS, generator
from ..bind.meta import BindError, read_api
from ..target_flags import UsageError
from .flags import expand_sources, wants_help

USAGE = "usage: ea bind <file.ea|dir>... --python|--rust|--pytorch|--cpp|--cmake ..."
HELP = USAGE + """

Bindings for the exported functions of each source, from its <file>.ea.json
(written by `ea <file>.ea --lib`), into the current directory:
  --python    <stem>.py (NumPy)          --rust      <stem>.rs
  --pytorch   <stem>_torch.py            --cpp       <stem>.hpp
  --cmake     CMakeLists.txt + EaCompiler.cmake (one source only)
A directory means its *.ea files, sorted. -h, --help: this help.
"""


def run_bind(args: list[str]) -> int:
    if wants_help(args):
        sys.stderr.write(HELP)
        return 0
    inputs, flags = [], []
    for arg in args:
        if not arg.startswith("-"):
            inputs.append(arg)
        elif arg not in GENERATORS:
            raise UsageError(f"unknown bind option '{arg}'")
        elif arg not in flags:
            flags.append(arg)
    if not inputs:
        print(USAGE, file=sys.stderr)
        return 1
    if not flags:
        raise UsageError("ea bind requires at least one of --python, --rust, --pytorch, --cmake, --cpp")
    sources = expand_sources(inputs)
    if "--cmake" in flags and len(sources) > 1:
        raise UsageError("--cmake writes one CMakeLists.txt: give it one source file")
    code = 0
    for k, (source, problem) in enumerate(sources):
        if len(sources) > 1:
            print(f"{chr(10) if k else ''}==> {source} <==", file=sys.stderr)
        if problem is not None:
            print(f"error: cannot read '{source}': {problem}", file=sys.stderr)
            code = 1
        elif not _bind_one(source, flags):
            code = 1
    return code


def _bind_one(source: str, flags: list[str]) -> bool:
    api = None
    for flag in flags:
        gen = generator(flag)
        try:
            needs = getattr(gen, "NEEDS_METADATA", True)  # --cmake works from the source alone
            if needs and api is None:
                api = read_api(source)
            extra = {"cpp": "--cpp" in flags} if flag == "--cmake" else {}  # a C++ CMake project
            files = gen.generate(api if needs else None, source, **extra)
        except BindError as err:
            lines = str(err).splitlines()
            if lines[0].startswith(("cannot read", "'")):
                print(f"error: {lines[0]}", file=sys.stderr)
            else:
                print(f"error: failed to generate {gen.LANGUAGE} bindings: {lines[0]}", file=sys.stderr)
            for extra in lines[1:]:
                print(extra, file=sys.stderr)
            return False
        for name, text in files.items():
            Path(name).write_text(text)
            print(f"wrote {name}", file=sys.stderr)
    for e in api.exports if api is not None else []:  # once per source, whatever the languages
        for name, why in e.unchecked.items():
            print(f"warning: {name} of {e.name} ({Path(source).name}): length not checked ({why})", file=sys.stderr)
    return True
