"""Names of LLVM local values (parameters, stack slots, loads) taken from identifiers.

LLVM cuts a local value's name to 1024 bytes (its NonGlobalValueMaxNameSize),
so the IR text llvmlite prints for a longer identifier, or for a 1,023-byte one
that gets a `.1` suffix when it repeats, no longer parses ("multiple definition
of local value named ..."). Local names only label the printed IR, so they
keep a prefix of the identifier; llvmlite's `.N` suffixes keep them distinct.
Global names (function symbols) have no such limit and are never shortened.
"""
from __future__ import annotations

MAX_LOCAL_NAME = 200


def local_name(identifier: str) -> str:
    return identifier[:MAX_LOCAL_NAME]
