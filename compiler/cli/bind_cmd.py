"""`ea bind <file.ea> --python|--rust|--pytorch|--cpp|--cmake ...`."""
from __future__ import annotations

import sys
from pathlib import Path

from ..bind import GENERATORS, generator
from ..bind.meta import BindError, read_api
from .flags import UsageError


def run_bind(args: list[str]) -> int:
    if not args or args[0].startswith("-"):
        raise UsageError("usage: ea bind <file.ea> --python|--rust|--pytorch|--cpp|--cmake ...")
    source, flags = args[0], []
    for arg in args[1:]:
        if arg not in GENERATORS:
            raise UsageError(f"unknown bind option '{arg}'")
        if arg not in flags:
            flags.append(arg)
    if not flags:
        raise UsageError("ea bind requires at least one of --python, --rust, --pytorch, --cmake, --cpp")
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
            return 1
        for name, text in files.items():
            Path(name).write_text(text)
            print(f"wrote {name}", file=sys.stderr)
        for message in getattr(gen, "warnings", lambda api: [])(api):
            print(f"warning: {message}", file=sys.stderr)
    return 0
