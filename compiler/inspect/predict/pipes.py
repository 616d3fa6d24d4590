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

from .mca import BlockTiming

SHARED = "Zn3FPP45"  # the pipe pair of the model (znver3)
STORE_DATA = "Zn3FPSt"  # the FP store-data pipe of the model (znver3)
FMA_STORE_SHARE = 0.5  # cycles of STORE_DATA an FMA takes
_FMA = ("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")


def corrected_ports(timing: BlockTiming, moves: list[bool], fmas: list[bool] | None = None) -> float:
    """The port bound of one iteration with SHARED split and STORE_DATA charged for FMAs:
    `moves[k]` tells whether the k-th instruction of the input is a move from a vector register to
    an integer one, `fmas[k]` whether it is an FMA. Other models (no SHARED) are left as they are."""
    fmas = fmas or [False] * len(moves)
    units = timing.units.get(SHARED, 0)
    if not units or not timing.usage or not (any(moves) or any(fmas)):
        return timing.rthroughput
    moved = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if m)
    rest = sum(u.get(SHARED, 0.0) for u, m in zip(timing.usage, moves) if not m)
    busy = {name: cycles / timing.units.get(name, 1) for name, cycles in timing.ports.items() if name != SHARED}
    busy[SHARED] = max(moved, rest) / units
    if any(fmas) and STORE_DATA in timing.units:
        busy[STORE_DATA] = (timing.ports.get(STORE_DATA, 0.0) + FMA_STORE_SHARE * sum(fmas)) / timing.units[STORE_DATA]
    bound = max([timing.dispatch] + list(busy.values()))
    return bound if any(fmas) else min(timing.rthroughput, bound)


def fmas_binding(timing: BlockTiming, fmas: list[bool]) -> int:
    """How many FMAs the loop has where their share of STORE_DATA makes it the loop's port bound,
    beyond the model's (the report names them); 0 where it does not bind."""
    if not any(fmas) or SHARED not in timing.units or STORE_DATA not in timing.units:
        return 0
    store_data = corrected_usage(timing, fmas)[STORE_DATA] / timing.units[STORE_DATA]
    bound = corrected_ports(timing, [False] * len(fmas), fmas)
    return sum(fmas) if store_data > timing.rthroughput and store_data >= bound else 0


def corrected_usage(timing: BlockTiming, fmas: list[bool]) -> dict[str, float]:
    """The model's cycles per iteration each resource is busy, STORE_DATA with the FMAs' share."""
    ports = dict(timing.ports)
    if any(fmas) and SHARED in timing.units and STORE_DATA in timing.units:
        ports[STORE_DATA] = round(ports.get(STORE_DATA, 0.0) + FMA_STORE_SHARE * sum(fmas), 3)
    return ports


def is_move_to_integer(mnemonic: str, operands: list[str], loads: bool) -> bool:
    """A move from a vector register to a general-purpose one (AT&T: the destination last)."""
    if loads or not operands or not mnemonic.startswith("v"):
        return False
    dest, source = operands[-1], operands[-2] if len(operands) > 1 else ""
    return dest.startswith(("%r", "%e")) and source.startswith(("%xmm", "%ymm"))


def is_fma(mnemonic: str) -> bool:
    """A fused multiply-add (any form: 132/213/231, packed or scalar, from memory or not)."""
    return mnemonic.startswith(_FMA)
