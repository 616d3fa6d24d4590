"""The front end's share of a loop iteration: how many op-cache fetches one
iteration takes, from where its instructions sit in 64-byte windows.

Measured on AMD Zen 3 (bench/opcache_bench.py: asm loops placed at chosen
offsets, sizes and op counts, cycles per iteration by thread CPU time):
  * a loop of 6 ops (LLVM's copy loop, 26 bytes) runs at 1.1 cycles per
    iteration when its bytes lie in one 64-byte window (0..36 bytes past
    one) and at 2.05 when they touch the next (40..60 bytes past);
  * one window of more than 8 ops takes two fetches: the copy loop with
    independent register ops added runs at 1.09, 1.14-1.26, 1.42 cycles for
    6, 7, 8 ops (dispatch, 6 a cycle, which llvm-mca models) and 2.06 for 9
    and 10; with two 32-bit displacements 8 ops take two fetches (2.05), 7
    do not (1.26); with one, 8 ops fit (1.42);
  * a cmp/test and the jcc after it are one op (macro-op fusion).
So an iteration takes at least one fetch per 64-byte window its bytes touch,
per FETCH_OPS slots of a window, and per taken jump inside the body. The
cycles a fetch takes are a per-machine figure (MemoryModel.fetch_cycles):
1.0 on a Zen 3 core alone, 2.0-2.4 in a state a shared virtual machine
enters and leaves (likely the core's other hardware thread busy, the two
taking turns at the op cache; not visible from the guest: the same loops then ran
at 2.0 and 4.0), measured by `ea bench --calibrate`. llvm-mca models
neither, which is why loops that store, with 32-43-byte bodies, ran at
about 2 cycles where it said 1.6.

Where a loop sits is read from the object file LLVM emits for the same
module (llvm-objdump): the offsets are those of its .text section, which
`ea.load` maps at the start of a page; a library linked by a C toolchain
may shift them by a multiple of 16 bytes."""
from __future__ import annotations

import functools
import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections import OrderedDict

WINDOW = 64  # bytes of the aligned window one op-cache entry covers
FETCH_OPS = 8  # ops one fetch delivers at most
DEFAULT_FETCH_CYCLES = 1.0  # Zen 3, a core whose other thread is idle (measured; see above)
SHARED_FETCH_CYCLES = 2.0  # Zen 3 while the core's other thread is busy (measured 2.0-2.4; see above)
CANDIDATES = ("llvm-objdump-16", "llvm-objdump-14", "llvm-objdump", "objdump")
_FUSES = re.compile(r"^(cmp|test)[bwlq]?$")
_PADDING = re.compile(r"^(nop\w*|data16|cs|int3|xchg\s+%ax,\s*%ax)\b")
_FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:")
_INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 32

Layout = dict[str, list[tuple[int, int]]]  # function -> (offset, size) of each instruction of the asm, in order


@functools.cache
def objdump() -> str | None:
    """The disassembler used to place instructions, or None."""
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


def module_layout(asm_functions: dict[str, list[str]], obj: bytes) -> Layout:
    """(offset, size) of every instruction of each function of `asm_functions` (name ->
    mnemonics, as inspect parsed the assembly) in the object file `obj` of the same module.
    A function whose disassembly does not match its assembly instruction for instruction (a
    jump at another place) is left out. Empty without a disassembler."""
    key = hashlib.blake2b(obj, digest_size=16).digest()
    hit = _CACHE.get(key)
    if hit is None:
        hit = _disassemble(obj)
        _CACHE[key] = hit
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    out: Layout = {}
    for name, mnemonics in asm_functions.items():
        placed = hit.get(name)
        if placed is None or len(placed) != len(mnemonics):
            continue
        if all(m.startswith("j") == d.startswith("j") for m, (_, _, d) in zip(mnemonics, placed)):
            out[name] = [(off, size) for off, size, _ in placed]
    return out


def _disassemble(obj: bytes) -> dict[str, list[tuple[int, int, str]]]:
    """Function -> (offset, size, mnemonic) of its instructions, alignment padding left out."""
    tool = objdump()
    if tool is None:
        return {}
    fd, path = tempfile.mkstemp(suffix=".o")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(obj)
        text = subprocess.run([tool, "-d", "--no-show-raw-insn", path], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    finally:
        os.unlink(path)
    out: dict[str, list[list]] = {}
    current: list[list] | None = None
    last: list | None = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            current = out.setdefault(m.group(1), [])
            last = None
            continue
        m = _INSN.match(line)
        if current is None or not m:
            continue
        offset, code = int(m.group(1), 16), m.group(2).strip()
        if last is not None and last[1] is None:
            last[1] = offset - last[0]
        if _PADDING.match(code):
            last = None
            continue
        last = [offset, None, code.split(None, 1)[0] if code else ""]
        current.append(last)
    return {name: [(o, s if s is not None else 1, mn) for o, s, mn in rows] for name, rows in out.items()}


def wide_fields(operands: list[str], mnemonic: str = "") -> int:
    """32-bit displacements and immediates among an AT&T instruction's operands: a displacement
    or immediate outside -128..127, a symbol, a rip-relative address, a `mov` of an immediate."""
    count = 0
    for op in operands:
        op = op.strip()
        if op.startswith("$"):
            count += mnemonic.startswith("mov") or not _small(op[1:])
        elif "(" in op:
            disp = op.split("(", 1)[0].strip()
            count += "%rip" in op or (bool(disp) and not _small(disp))
    return count


def _small(text: str) -> bool:
    try:
        return -128 <= int(text, 0) <= 127
    except ValueError:
        return False  # a symbol: a 32-bit field


def fetches(placed: list[tuple[int, int]], mnemonics: list[str], path: list[int],
            wide: list[int] | None = None) -> int:
    """Op-cache fetches one iteration along `path` (instruction indices) takes: one per 64-byte
    window its bytes touch, per run of adjacent instructions (a jump to a non-adjacent one starts
    a new run), and one more per FETCH_OPS slots of a window's ops: an op takes a slot, a cmp/test
    with the jcc after it is one op, and each 32-bit displacement or immediate (`wide`, per
    instruction) after a window's first takes one (measured: 8 ops with one fit, with two not;
    7 ops with two fit)."""
    order = sorted(path)
    on_path = set(order)
    count, run, end = 0, [], None
    for i in order:
        off, size = placed[i]
        if end is not None and off != end:
            count += _run_fetches(run)
            run = []
        fused = mnemonics[i].startswith("j") and not mnemonics[i].startswith("jmp") and i - 1 in on_path \
            and _FUSES.match(mnemonics[i - 1])
        run.append((off, off + size, 0 if fused else 1, wide[i] if wide else 0))
        end = off + size
    return count + _run_fetches(run)


def _run_fetches(run: list[tuple[int, int, int, int]]) -> int:
    windows: dict[int, list[int]] = {}
    for start, end, ops, wide in run:
        for w in range(start // WINDOW, (end - 1) // WINDOW + 1):
            windows.setdefault(w, [0, 0])
        windows[start // WINDOW][0] += ops
        windows[start // WINDOW][1] += wide
    return sum(max(1, math.ceil((ops + max(0, wide - 1)) / FETCH_OPS)) for ops, wide in windows.values())
