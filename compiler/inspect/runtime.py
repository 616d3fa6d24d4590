"""Run-time paths (compiler/runtime_paths.py) for `ea inspect`: the ones code
generation recorded (a stream_store testing its address, a loop versioned by
it), and the ones LLVM made, found where they are visible:
- in the optimised module, the checks its loop vectoriser puts before a
  vector loop, taking the scalar loop when they fail: `vector.memcheck`
  (the arrays overlap within a vector step) and `vector.scevcheck` (the
  index arithmetic could wrap);
- in the machine code, a masked load or store the target has no instruction
  for, which LLVM expands into a test and a branch per lane."""
from __future__ import annotations

import re
from dataclasses import replace

from ..runtime_paths import RuntimePath
from .asm import AsmFunction
from .classify import Info
from .source import SourceFacts

_DEFINE = re.compile(r"^define\b[^@]*@\"?([^\"(]+)\"?\(", re.M)
_CHECK = re.compile(r"^(vector\.(memcheck|scevcheck)[\w.]*):", re.M)
_DBG = re.compile(r"!dbg !(\d+)")
_LOCATION = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)", re.M)
_DISTANCE = re.compile(r"%\S+ = sub i64 %([A-Za-z_]\w*?)\d*, %([A-Za-z_]\w*?)\d*\b.*\n.*icmp ult i64 %\S+, (\d+)")


def module_paths(module, analysis) -> dict[str, list[RuntimePath]]:
    """Per function: code generation's paths, then LLVM's vectoriser checks."""
    out = {name: list(paths) for name, paths in getattr(module, "runtime_paths", {}).items()}
    params = {f.name: {p.name for p in f.params} for f in analysis.live_functions}  # of a #[cfg] pair, the target's
    for name, paths in vectoriser_checks(module.ir(), params).items():
        out.setdefault(name, []).extend(paths)
    return out


def vectoriser_checks(ir_text: str, params: dict[str, set[str]]) -> dict[str, list[RuntimePath]]:
    lines = {int(k): int(v) for k, v in _LOCATION.findall(ir_text)}
    defines = list(_DEFINE.finditer(ir_text))
    out: dict[str, list[RuntimePath]] = {}
    for k, d in enumerate(defines):
        body = ir_text[d.end():defines[k + 1].start() if k + 1 < len(defines) else len(ir_text)]
        for m in _CHECK.finditer(body):
            block = body[m.end():body.find("\n\n", m.end()) if "\n\n" in body[m.end():] else len(body)]
            dbg = _DBG.findall(block)
            line = lines.get(int(dbg[0])) if dbg else None
            out.setdefault(d.group(1), []).append(_check(m.group(2), block, line, params.get(d.group(1), set())))
    return out


def _check(kind: str, block: str, line: int | None, names: set[str]) -> RuntimePath:
    where = f"the loop at line {line}" if line else "a loop"
    decided = "once each time the loop is entered"
    if kind == "memcheck":
        pairs = [(a, b, int(n)) for a, b, n in _DISTANCE.findall(block)]
        known = [(a, b, n) for a, b, n in pairs if a in names and b in names]
        if known:
            test = ", ".join(f"{a} - {b} < {n} bytes" for a, b, n in known)
            condition = f"whether the arrays overlap within one vector step ({test})"
        else:
            condition = "whether the arrays overlap within one vector step"
        return RuntimePath(line, f"{where} (vectorised by LLVM)", condition,
                           (("no overlap", "the vector loop"),
                            ("overlap", "the scalar loop (mark the pointers *restrict to drop the test)")),
                           decided, "llvm")
    return RuntimePath(line, f"{where} (vectorised by LLVM)", "whether the index arithmetic could wrap",
                       (("it cannot", "the vector loop"), ("it could", "the scalar loop")), decided, "llvm")


def masked_expansions(fn: AsmFunction, infos: list[Info], facts: SourceFacts) -> list[RuntimePath]:
    """load_masked/store_masked lines whose machine code branches: no masked
    instruction for that element size on this target (AVX2 has them for 32-
    and 64-bit lanes only; AVX-512BW adds 8 and 16)."""
    out = []
    for line, names in sorted(facts.masked_calls.items()):
        branches = sum(1 for ins, info in zip(fn.instrs, infos)
                       if ins.line == line and info.branch_to is not None and ins.mnemonic not in ("jmp", "b"))
        if branches:
            access = " or ".join(n.split("_")[0] for n in sorted(names))
            out.append(RuntimePath(line, " and ".join(sorted(names)), "each lane's mask bit",
                                   (("lane on", f"the lane's scalar {access}"), ("lane off", "nothing")),
                                   f"at each lane: {branches} conditional branches in the machine code, "
                                   "no masked instruction for this element size on this target", "llvm"))
    return out


def relocated(paths: list[RuntimePath], moves: list[tuple[int, int, int]]) -> list[RuntimePath]:
    """`paths` with the lines of each (first, last, by) range moved by `by`."""
    out = []
    for p in paths:
        by = next((d for first, last, d in moves if p.line is not None and first <= p.line <= last), 0)
        out.append(replace(p, line=p.line + by) if by else p)
    return out
