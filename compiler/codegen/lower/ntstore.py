"""The IR of an x86 vector `stream_store` (the decision is ntplan.py's table):
the full-width non-temporal store at an aligned address, the non-temporal
pieces at a misalignment known when the code is generated (a version of a
kernel's main loop, compiler/codegen/ntloop.py), or a test of the address
at the store choosing among them (`dispatch`)."""
from __future__ import annotations

from llvmlite import ir

from ...runtime_paths import RuntimePath
from ...typesys import model as T
from ..features import x86_features
from .common import const_int
from .ntplan import classes, pieces

_I32, _I64 = ir.IntType(32), ir.IntType(64)


def nontemporal(em) -> ir.Value:
    return em.module.add_metadata([const_int(1)])


def has_sse4a(options) -> bool:
    """AMD's movntss/movntsd: 4- and 8-byte non-temporal stores from an xmm register."""
    return "sse4a" in x86_features(options)


def words(em, value: ir.Value, vt: T.Vector) -> ir.Value:
    """`value` as 4-byte words: floats with SSE4a (movntss/movntsd store from
    xmm; without it LLVM stores a non-temporal float with a plain movss) or
    for float elements, else integers (movnti from a general register)."""
    word = ir.FloatType() if has_sse4a(em.options) or vt.elem.is_float else _I32
    return em.builder.bitcast(value, ir.VectorType(word, vt.bits // 32))


def store_piece(em, words_: ir.Value, first: int, width: int, dest: ir.Value) -> None:
    """Words [first, first + width/4) of `words_` at `dest` (aligned to `width`), non-temporal."""
    bld = em.builder
    sse4a = has_sse4a(em.options)
    if width == 4:
        piece = bld.extract_element(words_, const_int(first))
        if not sse4a:
            piece = bld.bitcast(piece, _I32)
    else:
        lanes = width // 4
        piece = bld.shuffle_vector(words_, ir.Constant(words_.type, ir.Undefined),
                                   ir.Constant(ir.VectorType(_I32, lanes), list(range(first, first + lanes))))
        if width == 8:
            piece = bld.bitcast(piece, ir.DoubleType() if sse4a else _I64)
    bld.store(piece, dest, align=width).set_metadata("nontemporal", nontemporal(em))


def byte_offset(em, addr: ir.Value, offset: int) -> ir.Value:
    return em.builder.gep(addr, [ir.Constant(_I64, offset)], source_etype=ir.IntType(8)) if offset else addr


def store_pieces(em, value: ir.Value, vt: T.Vector, addr: ir.Value, misalignment: int) -> None:
    """`value` at `addr`, which is `misalignment` bytes past a vector-size
    boundary, as naturally aligned non-temporal stores."""
    size = vt.bits // 8
    if misalignment == 0:
        em.builder.store(value, addr, align=size).set_metadata("nontemporal", nontemporal(em))
        return
    w = words(em, value, vt)
    for offset, width in pieces(misalignment, size):
        store_piece(em, w, offset // 4, width, byte_offset(em, addr, offset))


def store_plain(em, value: ir.Value, vt: T.Vector, addr: ir.Value) -> None:
    em.builder.store(value, addr, align=max(vt.elem.bits // 8, 1))


def misalignment(em, addr: ir.Value, size: int) -> ir.Value:
    """addr mod size, as i64."""
    bld = em.builder
    return bld.and_(bld.ptrtoint(addr, _I64), ir.Constant(_I64, size - 1))


def dispatch(em, value: ir.Value, vt: T.Vector, addr: ir.Value) -> None:
    """Test the address here: one case per misalignment class, a plain store
    for the others (LLVM lowers the switch to a jump table or compares)."""
    size = vt.bits // 8
    bld = em.builder
    done = em.fn.append_basic_block("ntstore.done")
    plain = em.fn.append_basic_block("ntstore.plain")
    switch = bld.switch(misalignment(em, addr, size), plain)
    for m in classes(size):
        block = em.fn.append_basic_block(f"ntstore.m{m}")
        switch.add_case(ir.Constant(_I64, m), block)
        bld.position_at_end(block)
        store_pieces(em, value, vt, addr, m)
        bld.branch(done)
    bld.position_at_end(plain)
    store_plain(em, value, vt, addr)
    bld.branch(done)
    bld.position_at_end(done)


def describe(what: str, vt: T.Vector, options, decided: str, realigned: bool = False) -> RuntimePath:
    """What the stores of a vector of `vt` do, by misalignment class: pieces
    (`store_pieces`, `dispatch`) or, for a run of stores, realigned blocks
    (ntrealign.py)."""
    size = vt.bits // 8
    small = "movntss/movntsd (SSE4a)" if has_sse4a(options) else "movnti"
    paths = [(f"{size}-byte aligned", f"one {size}-byte non-temporal store")]
    misaligned = classes(size)[1:]
    if realigned and misaligned:
        paths.append((f"{_either(misaligned)} mod {size}",
                      f"one aligned {size}-byte non-temporal store per vector, of its first bytes after the "
                      f"previous vector's last (a lane shift); the run's partial first and last blocks in "
                      f"non-temporal pieces, the 4/8-byte ones with {small}"))
    else:
        shapes: dict[tuple, list[int]] = {}
        for m in misaligned:
            shapes.setdefault(tuple(sorted(w for _, w in pieces(m, size))), []).append(m)
        for shape, ms in sorted(shapes.items(), key=lambda kv: (len(kv[0]), kv[1])):
            layouts = sorted({"+".join(str(w) for _, w in pieces(m, size)) for m in ms})
            uses = f", the 4/8-byte ones with {small}" if min(shape) < 16 else ""
            paths.append((f"{_either(ms)} mod {size}",
                           f"{len(shape)} non-temporal pieces ({' / '.join(layouts)} bytes{uses})"))
    align = misaligned[0] if misaligned else size
    paths.append((f"not {align}-byte aligned", "a plain store (not non-temporal)"))
    summary = (f"non-temporal at every {align}-byte-aligned address: {size}-byte stores when aligned, else "
               + ("realigned {size}-byte blocks" if realigned else "the widest aligned pieces").format(size=size)
               + f"; a plain store when not {align}-byte aligned")
    return RuntimePath(None, what, f"the address mod {size}", tuple(paths), decided, summary=summary)


def _either(ms: list[int]) -> str:
    return ", ".join(str(m) for m in ms[:-1]) + (" or " if len(ms) > 1 else "") + str(ms[-1])


class Fixed:
    """A stream_store whose misalignment a loop version fixed (em.nt_static):
    `m` bytes (pieces; 0: the full-width store), or None (a plain store)."""

    def __init__(self, m: int | None):
        self.m = m

    def emit(self, em, value: ir.Value, vt: T.Vector, addr: ir.Value) -> None:
        if self.m is None:
            store_plain(em, value, vt, addr)
        else:
            store_pieces(em, value, vt, addr, self.m)
