"""The assembly as a listing: one `AsmLine` per line of the text LLVM
emits, tagged with its function, its source line and what kind of line it is.

    from ea_compiler.inspect import listing
    for row in listing(module.asm(), arm=False):
        row.text, row.function, row.source_line, row.kind

Kinds, one per line:

* instructions: `fma`, `vector`, `memory`, `scalar`, `branch`. The first
  that applies wins, in that order: an FMA is `fma` even with a memory
  operand, any other instruction on vector registers is `vector` (so a vector
  load or store is `vector`: the register width is what the listing shows),
  `memory` is a scalar load or store, `branch` a jump, call or return;
  everything else is `scalar`.
* `label` (`.LBB0_2:`, `fma_kernel:`), `directive` (`.loc`, `.p2align`,
  sections and data), `comment` (whole-line comments), `blank`.

Instructions are split and classified by the parser and classifier `ea
inspect` uses (compiler/inspect/asm.py, classify.py), so a line counted as
a vector load by the report is the same line here. `source_line` follows the
`.loc` directives as the parser does: an instruction's source line is the
line of the last `.loc` before it, `None` for code the compiler made
(`.loc ... 0`); labels, directives and lines outside functions have none. `function` is set from the function's label up to its
`.Lfunc_end` label.
"""
from __future__ import annotations

from dataclasses import dataclass

from .asm import _LABEL, _LOC, Instr, parse, split_instruction
from .classify import classifier

KINDS = ("vector", "fma", "memory", "scalar", "branch", "label", "directive", "comment", "blank")

INSTRUCTION_KINDS = ("fma", "vector", "memory", "scalar", "branch")  # in the order the first that applies wins
_X86_CONTROL = ("call", "ret", "jmp")
_ARM_CONTROL = ("bl", "blr", "br", "ret")


@dataclass
class AsmLine:
    text: str
    function: str | None
    source_line: int | None
    kind: str


def listing(asm: str, arm: bool) -> list[AsmLine]:
    """Every line of `asm`, in order, with its function, source line and kind."""
    functions = {fn.name for fn in parse(asm, arm)}
    classify = classifier(arm)
    comment_mark = "//" if arm else "#"
    out: list[AsmLine] = []
    current: str | None = None
    line: int | None = None
    for raw in asm.splitlines():
        stripped = raw.strip()
        loc = _LOC.match(raw)
        if loc:
            line = int(loc.group(1)) or None
        label = _LABEL.match(stripped)
        if label:
            name = label.group(1)
            if name in functions:
                current, line = name, None
            elif name.startswith(".Lfunc_end"):
                current = None
        if not stripped:
            kind = "blank"
        elif label:
            kind = "label"
        elif stripped.startswith(comment_mark):
            kind = "comment"
        elif stripped.startswith("."):
            kind = "directive"
        else:
            kind = _instruction_kind(stripped, comment_mark, classify, arm)
        instruction = kind in INSTRUCTION_KINDS and current is not None
        out.append(AsmLine(raw, current, line if instruction else None, kind))
    return out


def _instruction_kind(stripped: str, comment_mark: str, classify, arm: bool) -> str:
    code = stripped.partition(comment_mark)[0].strip()
    if not code:
        return "comment"
    mnemonic, operands = split_instruction(code)
    info = classify(Instr(0, mnemonic, operands, None))
    if info.fma:
        return "fma"
    if info.vector:
        return "vector"
    if info.loads or info.stores:
        return "memory"
    if info.branch_to is not None or mnemonic.startswith(_ARM_CONTROL if arm else _X86_CONTROL):
        return "branch"
    return "scalar"
