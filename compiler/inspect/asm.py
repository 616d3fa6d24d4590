"""Parsing the assembly LLVM emits (x86 AT&T syntax and AArch64) into
functions of instructions, each tagged with the source line of the `.loc`
directive before it (DWARF line info from codegen)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_LOC = re.compile(r"\s*\.loc\s+\d+\s+(\d+)\s+(\d+)")
_LABEL = re.compile(r"^([A-Za-z_.$][\w.$]*):")


@dataclass
class Instr:
    index: int
    mnemonic: str
    operands: list[str]
    line: int | None  # source line; None for compiler-made code (line 0)
    comment: str = ""
    asm_line: int | None = None  # 0-based line of the assembly text (the index of listing()'s AsmLine)

    @property
    def text(self) -> str:
        return f"{self.mnemonic} {', '.join(self.operands)}".strip()


@dataclass
class AsmFunction:
    name: str
    exported: bool
    instrs: list[Instr] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> index of the next instruction
    jump_tables: dict[str, list[str]] = field(default_factory=dict)  # table label -> its target labels


_TABLE_ENTRY = re.compile(r"\.(?:long|quad|word|hword|short|byte|4byte|8byte)\s+\(?\s*([A-Za-z_.$][\w.$]*)")


def split_operands(text: str) -> list[str]:
    """Split on commas outside parentheses/brackets/braces."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def split_instruction(code: str) -> tuple[str, list[str]]:
    """(mnemonic, operands) of one instruction's text. An encoding pseudo-prefix
    (`{vex} vpdpbusd ...`, how LLVM spells the AVX-VNNI form) is dropped: the
    mnemonic is what the instruction does."""
    parts = code.split(None, 1)
    if len(parts) > 1 and parts[0] in ("{vex}", "{vex2}", "{vex3}", "{evex}"):
        parts = parts[1].split(None, 1)
    if not parts:
        return "", []
    return parts[0], split_operands(parts[1] if len(parts) > 1 else "")


def parse(asm: str, arm: bool) -> list[AsmFunction]:
    comment_mark = "//" if arm else "#"
    functions: list[AsmFunction] = []
    exported: set[str] = set()
    typed_functions: set[str] = set()
    current: AsmFunction | None = None
    line: int | None = None
    tables: dict[str, list[str]] = {}  # a switch's jump table (.LJTI*), in a data section after its function
    table: list[str] | None = None
    for number, raw in enumerate(asm.splitlines()):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith(".globl") or stripped.startswith(".global"):
            exported.add(stripped.split()[1])
            continue
        if stripped.startswith(".type") and "function" in stripped:
            typed_functions.add(stripped.split()[1].split(",")[0])
            continue
        m = _LOC.match(raw)
        if m:
            line = int(m.group(1)) or None
            continue
        label = _LABEL.match(stripped)
        if label:
            table = tables.setdefault(label.group(1), []) if "JTI" in label.group(1) else None
        elif table is not None:
            entry = _TABLE_ENTRY.match(stripped)
            if entry:
                table.append(entry.group(1))
                continue
            table = None
        if label:
            name = label.group(1)
            if name in typed_functions:
                current = AsmFunction(name, name in exported)
                functions.append(current)
                line = None
            elif current is not None:
                if name.startswith(".Lfunc_end"):
                    current = None
                else:
                    current.labels[name] = len(current.instrs)
            continue
        if current is None or stripped.startswith("."):
            continue
        code, _, comment = stripped.partition(comment_mark)
        code = code.strip()
        if not code:
            continue
        mnemonic, operands = split_instruction(code)
        current.instrs.append(Instr(len(current.instrs), mnemonic, operands, line, comment.strip(), number))
    for name, targets in tables.items():
        owner = next((fn for fn in functions if targets and targets[0] in fn.labels), None)
        if owner is not None:
            owner.jump_tables[name] = targets
    return functions
