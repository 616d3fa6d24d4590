"""`ea bind`: bindings generated from `.ea.json` metadata (TOOLCHAIN.md §4).

Each generator is a module with `LANGUAGE` (the name used in error
messages) and `generate(api, source) -> {file name: text}` (`NEEDS_METADATA = False`
for generators that work from the source path alone); `meta` holds the shared
rules (pointer detection, length collapsing, auto-allocated outputs)."""
from __future__ import annotations

import importlib

# flag -> generator module (imported when used)
GENERATORS = {"--python": "python", "--rust": "rust", "--pytorch": "torch", "--cpp": "cpp", "--cmake": "cmake"}


def generator(flag: str):
    return importlib.import_module(f".{GENERATORS[flag]}", __name__)
