"""How an x86 vector `stream_store` stays non-temporal at an address that is
not aligned to the whole vector: the one table of that decision, and the
pieces a store splits into.

x86's non-temporal vector stores (movntps/movntdq, vmovnt* xmm/ymm/zmm)
fault unless their address is aligned to their own size; movnti (4/8 bytes
from a general register) and AMD's SSE4a movntss/movntsd (4/8 bytes from an
xmm register) take any address. NumPy's large arrays start 16 bytes past a
64-byte boundary (glibc's mmap header) and slices anywhere, so a store of S
bytes at misalignment m (address mod S) is split into the widest naturally
aligned non-temporal pieces that cover it: for S = 32, m = 16 is two 16-byte
stores, m = 8 is 8 + 16 + 8 bytes, m = 4 is 4 + 8 + 16 + 4 bytes. Those
pieces of 4 and 8 bytes are movntss/movntsd with SSE4a (no trip through a
general register), movnti without it: LLVM stores a `float` marked
non-temporal as a plain movss where SSE4a is missing.

Measured with bench/stream_store_bench.py (x·s into 16M f32, input and
output at the same offset, AMD EPYC Zen 3 with AVX2 and SSE4a; rerun it on
another machine to check this table there):
  offset 0: vmovntps ymm 4.7 ms; plain vmovups 7.2 ms;
  offset 16: 2 x vmovntps xmm 4.9 ms; 4 x movntsd 5.4 ms; plain 7.6 ms;
  offset 8: 8+16+8 pieces about 5.2 ms; 4 x movntsd 5.4 ms; plain 7.5 ms;
  offset 4: 4+8+16+4 pieces 5.5 ms; 8 x movntss 6.3 ms; plain 7.4 ms;
  offset 1: 4 x movntsd (misaligned) 8.0 ms; 8 x movntss 8.4 ms; plain 7.5 ms.
So pieces at every 4-byte-aligned address, a plain store elsewhere (where a
piece would straddle its own alignment and a cache line more often than not).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    min_align: int  # the smallest alignment (bytes) at which non-temporal stores beat a plain store
    realign: bool  # a run of stores (compiler/codegen/ntloop.py) as realigned full-width blocks, not pieces
    measured: str  # where and how that was decided


# Per vector size in bytes. 64 (zmm, AVX-512) has not been measured: it follows
# the 32-byte rule until bench/stream_store_bench.py --width 64 runs on an
# AVX-512 machine (the bench prints the rule its numbers support).
RULES = {
    16: Rule(4, True, "the 32-byte rule (no 16-byte measurement)"),
    32: Rule(4, True, "AMD Zen 3 (AVX2, SSE4a): bench/stream_store_bench.py, bench/stream_store_paths.py"),
    64: Rule(4, True, "not measured: the 32-byte rule; rerun bench/stream_store_paths.py --width 64 "
                      "and bench/stream_store_bench.py --width 64 on an AVX-512 machine"),
}

# Loop versions per kernel main loop (compiler/codegen/ntloop.py): one per
# misalignment class of each output, multiplied; past this the outputs beyond
# are tested at each store instead.
MAX_VERSIONS = 17


def rule(size: int) -> Rule:
    return RULES[size]


def classes(size: int) -> list[int]:
    """The misalignments (bytes) that get non-temporal pieces; any other is a plain store."""
    step = rule(size).min_align
    return list(range(0, size, step))


def cover(start: int, end: int, size: int) -> list[tuple[int, int]]:
    """(position, bytes) of the stores covering positions [start, end), counted
    from a `size`-byte boundary: at each position the widest power of two (up
    to `size`) that it is aligned to and that fits."""
    assert start % 4 == 0 and end % 4 == 0, (start, end)
    out, at = [], start
    while at < end:
        width = size
        while at % width or at + width > end:
            width //= 2
        out.append((at, width))
        at += width
    return out


def pieces(misalignment: int, size: int) -> list[tuple[int, int]]:
    """(offset from the address, bytes) of the stores of a `size`-byte vector at
    an address `misalignment` bytes past a `size`-byte boundary."""
    assert misalignment % rule(size).min_align == 0, misalignment
    return [(at - misalignment, width) for at, width in cover(misalignment, misalignment + size, size)]
