"""Where llvm-mca's scheduling model and measurements on the machine disagree
about a pipe, one table: the correction and the measurement behind it.

Zen 3 (llvm's znver3 model), two corrections:

* Vector loads (one cycle each) and moves from a vector register to an
  integer one (`vmovq %xmm, %r64`, `vpextrq`: two cycles each) share the
  pair of pipes Zn3FPP45. Measured (bench/opcache_bench.py, panel gather):
  16 such moves run at 18.4 cycles a trip (one a cycle, as the model says),
  with 8 xmm loads beside them at 19.4 (the model: 20 + 4) and with 8
  `vinsertps` from memory at 19.4; 256-bit loads alone run two a cycle
  (panel memory: ld4 2.07), as the model says. So the pair is two
  resources: loads (and the rest) at two a cycle, the moves at one. This is
  what the written-out gather (LLVM's lowering of `gather` on Zen 3:
  vpextrq/vmovq the addresses, vmovss/vinsertps the elements) runs into:
  gather_sum's loop, 26 cycles of FPP45 in the model, 16 by this, measured 21.
* An FMA takes half a cycle of the FP store-data pipe (Zn3FPSt, one store a
  cycle in the model), which the model gives no FMA. Measured (panel fma,
  2026-11-28, both states of the shared core): four vector stores a trip
  take 3.7-4.1 cycles with the data loaded, multiplied or added, 5.6-6.1
  with it from four FMAs (xmm or ymm, the load folded into the FMA or not,
  or no load at all), 6.3-6.7 from FMAs then adds; eight FMAs and no store,
  4.0-4.2 (the loads bind). So y = x * a + b written with `fma` in 128-bit
  vectors runs 1.5x slower than the same loop with a multiply and an add
  (bench/tune_kernels/scale_shift.ea: 1.3-1.5x in L2, 1.2-1.3x from the L3)."""
from __future__ import annotations

from dataclasses import dataclass

from .mca import BlockTiming

SHARED = "Zn3FPP45"  # the pipe pair of the model (znver3)
STORE_DATA = "Zn3FPSt"  # the FP store-data pipe of the model (znver3)
FMA_STORE_SHARE = 0.5  # cycles of STORE_DATA an FMA takes
_FMA = ("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")


@dataclass(frozen=True)
class Corrected:
    ports: float  # the port bound of one iteration
    usage: dict[str, float]  # resource -> cycles busy per iteration (the model's, STORE_DATA with the FMAs)
    fmas_binding: int  # the FMAs, where their share of STORE_DATA makes it the bound beyond the model's; else 0


def corrected(timing: BlockTiming, moves: list[bool], fmas: list[bool]) -> Corrected:
    """The model's figures with SHARED split and STORE_DATA charged for FMAs: `moves[k]` tells
    whether the k-th instruction of the input is a move from a vector register to an integer one,
    `fmas[k]` whether it is an FMA. Other models (no SHARED) are left as they are."""
    units = timing.units.get(SHARED, 0)
    if not units or not timing.usage or not (any(moves) or any(fmas)):
        return Corrected(timing.rthroughput, dict(timing.ports), 0)
    usage = dict(timing.ports)
    if any(fmas) and STORE_DATA in timing.units:
        usage[STORE_DATA] = round(usage.get(STORE_DATA, 0.0) + FMA_STORE_SHARE * sum(fmas), 3)
    moved = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if m)
    rest = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if not m)
    busy = {name: cycles / timing.units.get(name, 1) for name, cycles in usage.items() if name != SHARED}
    busy[SHARED] = max(moved, rest) / units
    bound = max([timing.dispatch] + list(busy.values()))
    store_data = busy.get(STORE_DATA, 0.0)
    binding = sum(fmas) if any(fmas) and store_data > timing.rthroughput and store_data >= bound else 0
    return Corrected(bound if any(fmas) else min(timing.rthroughput, bound), usage, binding)


def corrected_ports(timing: BlockTiming, moves: list[bool], fmas: list[bool] | None = None) -> float:
    """The port bound of one iteration (corrected)."""
    return corrected(timing, moves, fmas or [False] * len(moves)).ports


def is_move_to_integer(mnemonic: str, operands: list[str], loads: bool) -> bool:
    """A move from a vector register to a general-purpose one (AT&T: the destination last)."""
    if loads or not operands or not mnemonic.startswith("v"):
        return False
    dest, source = operands[-1], operands[-2] if len(operands) > 1 else ""
    return dest.startswith(("%r", "%e")) and source.startswith(("%xmm", "%ymm"))


def is_fma(mnemonic: str) -> bool:
    """A fused multiply-add (any form: 132/213/231, packed or scalar, from memory or not)."""
    return mnemonic.startswith(_FMA)
