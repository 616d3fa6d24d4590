"""How an x86 vector `stream_store` stays non-temporal at an address that is
not aligned to the whole vector: the one table of that decision, and the
pieces a store splits into.

x86's non-temporal vector stores (movntps/movntdq, vmovnt* xmm/ymm/zmm)
fault unless their address is aligned to their own size; movnti (4/8 bytes
from a general register) and AMD's SSE4a movntss/movntsd (4/8 bytes from an
xmm register) take any address. NumPy's large arrays start 16 bytes past a
64-byte boundary (glibc's mmap header) and slices anywhere, so a store of S
bytes at misalignment m (address mod S) is split into the widest naturally
aligned non-temporal pieces that cover it (lower/ntstore.py): for S = 32,
m = 16 is two 16-byte stores, m = 8 is 8 + 16 + 8 bytes, m = 4 is
4 + 8 + 16 + 4 bytes; or, for a run of stores in a kernel's loop, realigned
into full-width stores, pieces only at the run's two ends (lower/ntrealign.py). The
pieces of 4 and 8 bytes are movntss/movntsd with SSE4a (no trip through a
general register), movnti without it: LLVM stores a `float` marked
non-temporal as a plain movss where SSE4a is missing.

Measured with bench/stream_store_paths.py (x·s into 16M f32, medians of
21 rounds, ms; AMD EPYC Zen 3, AVX2 and SSE4a, 2 cores shared with other
jobs, load average 3.7), the input aligned / at the output's offset:
  offset  realigned     pieces       LLVM's movntsd   plain
  0       4.7 / 4.6     (the same aligned store)      7.3 / 7.2
  16      5.1 / 5.1     4.9 / 5.2    5.5 / 5.6        7.3 / 7.7
  8       5.2 / 5.1     6.9 / 5.4    7.0 / 5.6        7.7 / 7.3
  4       5.3 / 5.1     7.4 / 5.4    9.7 / 8.2        7.5 / 7.4
  1       -             -            9.7              7.7
So: runs of stores realigned (`Rule.realign`), other stores in pieces, at
every 4-byte-aligned address (`Rule.min_align`); a plain store elsewhere,
where LLVM's misaligned movntsd (the reference compiler's lowering) is
slower than a plain store, as it is at offsets 4 and 12.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    min_align: int  # the smallest alignment (bytes) at which non-temporal stores beat a plain store
    realign: bool  # a run of stores (compiler/codegen/ntloop.py) as realigned full-width blocks, not pieces
    measured: str  # where and how that was decided


# Per vector size in bytes. 64 (zmm, AVX-512) has not been measured: it follows
# the 32-byte rule until bench/stream_store_paths.py --width 64 runs on an
# AVX-512 machine (it prints the rule its numbers support and whether this
# table agrees).
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
