"""Full-width non-temporal stores for an output that is not aligned to the
vector: when a loop's streaming stores to it follow one another (each
`size` bytes after the last, on every trip: compiler/codegen/ntloop.py
decides), every store writes the aligned block that ends inside it, made of
the previous vector's last `m` bytes and this one's first `size - m`
(a lane shift of the two: vperm2f128 for 16 of 32 bytes, vpalignr/valignd
otherwise). The first store of the first trip writes its part up to the
first boundary, and after the loop the last vector's remaining `m` bytes go
out, both as aligned non-temporal pieces (lower/ntplan.py `cover`).

Measured on AMD Zen 3 against the pieces of ntstore.store_pieces, LLVM's
own lowering and a plain store (bench/stream_store_paths.py; the numbers
are in ntplan.py); on the same buffers it runs as fast as the same loop
written in C with _mm256_permute2f128_ps and _mm256_stream_ps."""
from __future__ import annotations

from llvmlite import ir

from ...typesys import model as T
from .ntplan import cover
from .ntstore import byte_offset, nontemporal, store_piece, words


class Realigned:
    """One output of one version of the loop, misaligned by `m` (not 0)."""

    def __init__(self, em, vt: T.Vector, m: int):
        self.size, self.m, self.vt = vt.bits // 8, m, vt
        word = words(em, ir.Constant(em.types(vt), None), vt).type
        self.carry = _slot(em, word)  # the last vector stored, as words
        self.last = _slot(em, ir.PointerType())  # its address
        self.first_trip = True

    def store(self, em, k: int, value: ir.Value, addr: ir.Value) -> None:
        """The `k`-th store of a trip (in program order)."""
        bld = em.builder
        w = words(em, value, self.vt)
        if self.first_trip and k == 0:
            for at, width in cover(self.m, self.size, self.size):
                store_piece(em, w, (at - self.m) // 4, width, byte_offset(em, addr, at - self.m))
        else:
            lanes, shift = self.size // 4, (self.size - self.m) // 4
            prev = bld.load(self.carry, typ=w.type)
            block = bld.shuffle_vector(prev, w, ir.Constant(ir.VectorType(ir.IntType(32), lanes),
                                                            list(range(shift, shift + lanes))))
            bld.store(block, byte_offset(em, addr, -self.m), align=self.size).set_metadata(
                "nontemporal", nontemporal(em))
        bld.store(w, self.carry)
        bld.store(addr, self.last)

    def finish(self, em) -> None:
        """After the loop: the last vector's bytes past the last aligned block."""
        bld = em.builder
        w = bld.load(self.carry, typ=self.carry.allocated_type)
        last = bld.load(self.last, typ=ir.PointerType())
        head = self.size - self.m
        for at, width in cover(0, self.m, self.size):
            store_piece(em, w, (head + at) // 4, width, byte_offset(em, last, head + at))


class RealignedSite:
    """A stream_store call's part in a Realigned output (em.nt_static)."""

    def __init__(self, output: Realigned, k: int):
        self.output, self.k = output, k

    def emit(self, em, value: ir.Value, vt: T.Vector, addr: ir.Value) -> None:
        self.output.store(em, self.k, value, addr)


def _slot(em, typ: ir.Type) -> ir.AllocaInstr:
    """A stack slot in the entry block (SROA makes it a register)."""
    with em.builder.goto_block(em.entry):
        if em.entry.instructions:
            em.builder.position_before(em.entry.instructions[0])
        return em.builder.alloca(typ, name="ntcarry")
