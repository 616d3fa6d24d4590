"""Machine balance of the target, for bottleneck classes and hints.

Peak vector FLOP per cycle assumes two FMA pipes; sustained memory traffic
is 8 bytes per cycle (about 25 GB/s at 3 GHz, what `make bench` measures on
the development machine) unless a measured bandwidth is given.

A loop's class compares three estimates of its cycles per iteration:
memory (bytes / bytes per cycle), compute (flops / peak) and latency (the
longest loop-carried dependency chain, latency.py). When the chain takes at
least as long as both others the loop is `latency-bound`: neither faster
memory nor more arithmetic units would speed it up, only independent chains
(more accumulators). Otherwise the roofline decides between
`memory-bound`, `compute-bound` and `mixed`."""
from __future__ import annotations

from dataclasses import dataclass

from ..options import Options
from .model import Bottleneck


@dataclass(frozen=True)
class Machine:
    vector_bits: int  # widest vector register the target offers
    fma_pipes: int = 2
    load_ports: int = 2
    bytes_per_cycle: float = 8.0

    @property
    def peak_flops_per_cycle(self) -> float:
        return self.fma_pipes * (self.vector_bits // 32) * 2  # f32 lanes, FMA = 2 flops

    def cycles(self, flops: int, bytes_moved: int, chain: int = 0) -> dict[str, float]:
        """Estimated cycles per iteration by each limit."""
        return {"memory": round(bytes_moved / self.bytes_per_cycle, 2),
                "compute": round(flops / self.peak_flops_per_cycle, 2), "latency": float(chain)}

    def classify(self, flops: int, bytes_moved: int, chain: int = 0) -> Bottleneck:
        """Latency first (see above), then the roofline: arithmetic
        intensity against the ridge point."""
        est = self.cycles(flops, bytes_moved, chain)
        if chain and est["latency"] >= max(est["memory"], est["compute"]):
            return Bottleneck.LATENCY
        if bytes_moved == 0:
            return Bottleneck.COMPUTE
        intensity = flops / bytes_moved
        ridge = self.peak_flops_per_cycle / self.bytes_per_cycle
        if intensity < ridge / 2:
            return Bottleneck.MEMORY
        if intensity > ridge * 2:
            return Bottleneck.COMPUTE
        return Bottleneck.MIXED


def machine_for(options: Options, bandwidth_gbs: float | None = None, ghz: float = 3.0) -> Machine:
    if options.is_arm:
        bits = 128
    else:
        from ..codegen.features import x86_features
        feats = x86_features(options)
        bits = 512 if "avx512f" in feats else 256 if "avx2" in feats or "avx" in feats else 128
    bpc = bandwidth_gbs / ghz if bandwidth_gbs else 8.0
    return Machine(vector_bits=bits, bytes_per_cycle=bpc)
