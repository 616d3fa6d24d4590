"""Where llvm-mca's scheduling model and measurements on the machine disagree
about a pipe, one table: the correction and the measurement behind it.

Zen 3 (llvm's znver3 model): vector loads (one cycle each) and moves from a
vector register to an integer one (`vmovq %xmm, %r64`, `vpextrq`: two cycles
each) share the pair of pipes Zn3FPP45. Measured (bench/opcache_bench.py,
panel gather): 16 such moves run at 18.4 cycles a trip (one a cycle, as the
model says), with 8 xmm loads beside them at 19.4 (the model: 20 + 4) and
with 8 `vinsertps` from memory at 19.4; 256-bit loads alone run two a cycle
(panel memory: ld4 2.07), as the model says. So the pair is two resources:
loads (and the rest) at two a cycle, the moves at one. This is what the
written-out gather (LLVM's lowering of `gather` on Zen 3: vpextrq/vmovq the
addresses, vmovss/vinsertps the elements) runs into: gather_sum's loop, 26
cycles of FPP45 in the model, 16 by this, measured 21."""
from __future__ import annotations

from .mca import BlockTiming

SHARED = "Zn3FPP45"  # the pipe pair of the model (znver3)


def corrected_ports(timing: BlockTiming, moves: list[bool]) -> float:
    """The port bound of one iteration with SHARED split: `moves[k]` tells whether the k-th
    instruction of the input is a move from a vector register to an integer one."""
    units = timing.units.get(SHARED, 0)
    if not units or not timing.usage or not any(moves):
        return timing.rthroughput
    moved = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if m)
    rest = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if not m)
    others = [busy / timing.units.get(name, 1) for name, busy in timing.ports.items() if name != SHARED]
    split = max(moved, rest) / units
    return min(timing.rthroughput, max([split, timing.dispatch] + others))


def is_move_to_integer(mnemonic: str, operands: list[str], loads: bool) -> bool:
    """A move from a vector register to a general-purpose one (AT&T: the destination last)."""
    if loads or not operands or not mnemonic.startswith("v"):
        return False
    dest, source = operands[-1], operands[-2] if len(operands) > 1 else ""
    return dest.startswith(("%r", "%e")) and source.startswith(("%xmm", "%ymm"))
