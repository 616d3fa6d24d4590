"""DWARF line tables: a compile unit, one subprogram per function and a
location per instruction, so tools can map machine code to source lines.
Line tables only: they do not change the generated code."""
from __future__ import annotations

import os

from llvmlite import ir

_MAX_COLUMN = 1 << 16


class DebugInfo:
    def __init__(self, module: ir.Module, path: str):
        self.module = module
        directory, name = os.path.split(os.path.abspath(path))
        self.file = module.add_debug_info("DIFile", {"filename": name, "directory": directory})
        self.cu = module.add_debug_info("DICompileUnit", {
            "language": ir.DIToken("DW_LANG_C99"), "file": self.file, "producer": "ea",
            "isOptimized": True, "runtimeVersion": 0, "emissionKind": ir.DIToken("LineTablesOnly"),
        }, is_distinct=True)
        module.add_named_metadata("llvm.dbg.cu", self.cu)
        i32 = ir.IntType(32)
        module.add_named_metadata("llvm.module.flags",
                                  module.add_metadata([i32(2), "Dwarf Version", i32(4)]))
        module.add_named_metadata("llvm.module.flags",
                                  module.add_metadata([i32(2), "Debug Info Version", i32(3)]))
        self.subroutine = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})
        self._locations: dict[tuple[int, int, int], ir.DIValue] = {}

    def subprogram(self, fn: ir.Function, name: str, line: int) -> ir.DIValue:
        sp = self.module.add_debug_info("DISubprogram", {
            "name": name, "scope": self.file, "file": self.file, "line": line, "type": self.subroutine,
            "scopeLine": line, "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": self.cu,
        }, is_distinct=True)
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, line: int, col: int, scope: ir.DIValue) -> ir.DIValue:
        # DWARF columns are 16-bit in LLVM, whose IR parser rejects larger ones;
        # 0 means "unknown column", what LLVM itself records past the limit.
        col = col if col < _MAX_COLUMN else 0
        key = (line, col, id(scope))
        loc = self._locations.get(key)
        if loc is None:
            loc = self._locations[key] = self.module.add_debug_info(
                "DILocation", {"line": line, "column": col, "scope": scope})
        return loc
