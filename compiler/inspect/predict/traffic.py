"""A loop's memory traffic per iteration, by stream.

A stream is the loads (or stores) that share an address expression but for
the constant displacement: `disp(base, index, scale)` on x86, `[base, ...]`
on ARM. Beyond L1 a stream costs the bytes it covers (the union of its
accesses' byte ranges), not the sum of its loads: a stencil's neighbour
loads x[i-1], x[i], x[i+1] are one stream and come from memory once. In L1
every load instruction counts (the load ports move each one).

Gathers are kept apart: their table is small or reused (a lookup table, an
index into a cached array), so its bytes are charged to the closest cache
rather than to the working set's level. Non-temporal stores go to memory
whatever the working set. Rows of one array read at once (a 2-D stencil,
origin.py) cost one row beyond L1.

Accesses that cross a 64-byte line take two cache accesses: where an
access starts in its line follows from where its array starts (the
`line_offset` the prediction is asked about: NumPy's arrays 16 bytes past a
line) and its displacement; `split_loaded`/`split_stored` weigh each
access's bytes by the fraction of its instances that cross a line."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..asm import AsmFunction
from ..cfg import Loop
from ..classify import Info
from .origin import origins

_NONTEMPORAL = ("movnt", "vmovnt", "stnp")
_PREFETCH = ("prefetch", "prfm")
LINE = 64  # bytes in a cache line
SCALAR_GATHER = 4  # scalar loads through this many separate pointers: a gather written out
_X86_MEM = re.compile(r"^(?P<disp>[^(]*)\((?P<rest>[^)]*)\)$")
_ARM_MEM = re.compile(r"\[(?P<inside>[^\]]*)\]")


@dataclass(frozen=True)
class Traffic:
    loaded: int = 0  # bytes the load instructions move (every load counted; gathers apart)
    unique_loaded: int = 0  # bytes the read streams cover
    read_streams: int = 0
    stored: int = 0  # bytes of ordinary stores
    stored_nt: int = 0  # bytes of non-temporal stores
    gathered: int = 0  # bytes gathers load
    streams: int = 0  # distinct streams, read or written
    split_loaded: float = 0.0  # bytes of loads (gathers apart) x the fraction of them that cross a line
    split_stored: float = 0.0  # the same for ordinary stores
    walking: int = 0  # unique bytes of the read streams the enclosing loop moves on (origin.advanced_by_parent)
    stored_in_place: int = 0  # bytes of ordinary stores into bytes the loop reads itself (`y = a*x + y`)
    stack: int = 0  # bytes of spills and reloads (not the kernel's traffic: L1 work all the same)
    # (bytes ahead, bytes of the stream per prefetch, bytes of the stream per iteration) of each
    # read stream a software prefetch runs ahead of (`prefetch(a, i + d)`: prefetcht0 / prfm)
    prefetched: tuple[tuple[int, float, int], ...] = ()

    @property
    def writes(self) -> bool:
        return bool(self.stored or self.stored_nt)


def _address(operands: list[str], arm: bool) -> tuple[str, int] | None:
    """(stream key, displacement) of the memory operand, None if there is none or it is not plain."""
    for op in operands:
        if arm:
            m = _ARM_MEM.search(op)
            if not m:
                continue
            parts = [p.strip() for p in m.group("inside").split(",")]
            disp = 0
            if len(parts) > 1 and parts[-1].startswith("#"):
                try:
                    disp = int(parts[-1][1:], 0)
                except ValueError:
                    return None
                parts = parts[:-1]
            return ",".join(parts), disp
        m = _X86_MEM.match(op.strip())
        if not m or op.strip().startswith("%"):
            continue
        text = m.group("disp").strip() or "0"
        try:
            disp = int(text, 0)
        except ValueError:  # a symbol (a constant pool entry): its own stream
            return op.strip(), 0
        return m.group("rest").replace(" ", ""), disp
    return None


def _covered(ranges: list[tuple[int, int]]) -> int:
    """Bytes in the union of [start, end) ranges."""
    total, end = 0, None
    for lo, hi in sorted(ranges):
        if end is None or lo >= end:
            total += hi - lo
            end = hi
        elif hi > end:
            total += hi - end
            end = hi
    return total


def split_fraction(start: int, width: int) -> float:
    """Of the `width`-byte accesses at start, start + width, start + 2 width, ... (a stream of
    consecutive vectors; `start` in bytes past a line), the fraction that cross a line."""
    if width <= 1:
        return 0.0
    count = LINE // math.gcd(width, LINE)
    return sum((start + j * width) % LINE + width > LINE for j in range(count)) / count


def _start(where: tuple[str, int] | None, line_offset: int) -> int:
    """Bytes past a line where the access's first instance starts: its array's offset plus its
    displacement; a constant-pool entry (`sym(%rip)`) is placed by the compiler, aligned."""
    if where is None:
        return line_offset
    return where[1] if "rip" in where[0] else line_offset + where[1]


def loop_traffic(fn: AsmFunction, infos: list[Info], lp: Loop, arm: bool, line_offset: int = 0,
                 advancing: frozenset[str] = frozenset()) -> Traffic:
    """The kernel's traffic along the loop's likely path (stack spills and calls left out), its
    arrays starting `line_offset` bytes past a line; `advancing`: the base registers the
    enclosing loop moves on."""
    loaded = stored = stored_nt = gathered = stack = 0
    split_loaded = split_stored = 0.0
    streams: dict[str, list[tuple[int, int]]] = {}
    written: set = set()
    stores: list[tuple[str, int, int]] = []  # (stream key, displacement, bytes) of ordinary stores
    unplaced = 0
    prefetches: dict[str, list[int]] = {}  # stream key -> displacements of its prefetches
    for i in lp.path:
        ins, info = fn.instrs[i], infos[i]
        if info.call:
            continue
        if ins.mnemonic.startswith(_PREFETCH):
            where = _address(ins.operands, arm)
            if where is not None:
                prefetches.setdefault(where[0], []).append(where[1])
            continue
        if info.spill:
            stack += info.load_bytes + info.store_bytes
            continue
        if info.stores:
            key, disp = _address(ins.operands, arm) or (str(i), 0)
            written.add(key)
            if ins.mnemonic.startswith(_NONTEMPORAL):
                stored_nt += info.store_bytes
            else:
                stored += info.store_bytes
                split_stored += info.store_bytes * split_fraction(_start((key, disp), line_offset), info.store_bytes)
                stores.append((key, disp, info.store_bytes))
        if not info.loads:
            continue
        if info.gather:
            gathered += info.load_bytes
            continue
        loaded += info.load_bytes
        where = _address(ins.operands, arm)
        split_loaded += info.load_bytes * split_fraction(_start(where, line_offset), info.load_bytes)
        if where is None:
            unplaced += info.load_bytes
        else:
            streams.setdefault(where[0], []).append((where[1], where[1] + info.load_bytes))
    # Single scalar loads each from its own bare pointer register, four or more of them: a gather
    # written out (LLVM's lowering of `gather` where vgatherdps is slow), a table, not streams.
    lone = [key for key, r in streams.items()
            if len(r) == 1 and r[0][1] - r[0][0] <= 8 and re.fullmatch(r"%\w+|x\d+", key)]
    if len(lone) >= SCALAR_GATHER:
        for key in lone:
            (lo, hi), = streams.pop(key)
            loaded -= hi - lo
            gathered += hi - lo
            split_loaded -= (hi - lo) * split_fraction(_start((key, lo), line_offset), hi - lo)
    rows = _rows(streams, {} if arm else origins(fn, infos, lp.header))
    unique = unplaced + sum(max(_covered(streams[key]) for key in keys) for keys in rows)
    walking = sum(_covered(r) for key, r in streams.items()
                  if key.startswith("%") and key.partition(",")[0].lstrip("%") in advancing and key not in written)
    in_place = sum(size for key, disp, size in stores
                   if any(lo < disp + size and disp < hi for lo, hi in streams.get(key, ())))
    return Traffic(loaded, unique, len(rows) + (1 if unplaced else 0), stored, stored_nt, gathered,
                   len(set(streams) | written) + (1 if unplaced else 0), split_loaded, split_stored, walking,
                   in_place, stack, _prefetched(prefetches, streams))


def _prefetched(prefetches: dict[str, list[int]], streams: dict[str, list[tuple[int, int]]]) -> tuple:
    """Traffic.prefetched: a prefetch belongs to the read stream of its address expression; it runs
    ahead of the stream's first load by the difference of their displacements (LLVM addresses
    `prefetch(a, i + 256)` and `load(a, i)` from one register: `(%rdi,%rcx,4)` and
    `-1024(%rdi,%rcx,4)`). One behind or level with the loads, or on an address no load
    shares, is left out."""
    out = []
    for key, disps in sorted(prefetches.items()):
        if key not in streams:
            continue
        ahead = min(disps) - min(lo for lo, _ in streams[key])
        if ahead > 0:
            covered = _covered(streams[key])
            out.append((ahead, covered / len(disps), covered))
    return tuple(out)


def _rows(streams: dict[str, list], origin: dict[str, str]) -> list[list[str]]:
    """The read streams grouped by array: streams with the same index and scale whose base
    registers point into the same argument are rows of one array (a 2-D stencil's y-1, y, y+1):
    beyond L1 one row a group is new each iteration, the others were read by the rows before."""
    groups: dict[tuple, list[str]] = {}
    for key in streams:
        base, _, rest = key.partition(",")
        arg = origin.get(base.lstrip("%")) if base.startswith("%") else None
        groups.setdefault((arg, rest) if arg else (key,), []).append(key)
    return list(groups.values())


def inner_working_set(t: Traffic, working_set_bytes: int, elem_bytes: int = 4) -> int:
    """The bytes a loop deep in a nest touches: rows, not the whole arrays (matmul's inner
    loop runs along a row of B and of C; the whole of B is needed again only once per i). The arrays taken as square, one per stream of the
    loop: a row of W/s bytes in all is sqrt(W*e/s) bytes, s rows sqrt(s*W*e)."""
    return min(working_set_bytes, int((max(1, t.streams) * working_set_bytes * elem_bytes) ** 0.5))
