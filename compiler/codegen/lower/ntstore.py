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


def store_pieces(em, value: ir.Value, vt: T.Vector, addr: ir.Value, misalignment: int) -> None:
    """`value` at `addr`, which is `misalignment` bytes past a vector-size
    boundary, as naturally aligned non-temporal stores."""
    size = vt.bits // 8
    bld = em.builder
    if misalignment == 0:
        bld.store(value, addr, align=size).set_metadata("nontemporal", nontemporal(em))
        return
    # 4-byte words: floats with SSE4a (movntss/movntsd store from xmm; without
    # it LLVM stores a non-temporal float with a plain movss), else integers
    # (movnti from a general register), vector pieces in the value's domain.
    sse4a = has_sse4a(em.options)
    word = ir.FloatType() if sse4a or vt.elem.is_float else _I32
    words = bld.bitcast(value, ir.VectorType(word, size // 4))
    for offset, width in pieces(misalignment, size):
        first = offset // 4
        if width == 4:
            piece = bld.extract_element(words, const_int(first))
            if not sse4a:
                piece = bld.bitcast(piece, _I32)
        else:
            lanes = width // 4
            piece = bld.shuffle_vector(words, ir.Constant(words.type, ir.Undefined),
                                       ir.Constant(ir.VectorType(_I32, lanes), list(range(first, first + lanes))))
            if width == 8:
                piece = bld.bitcast(piece, ir.DoubleType() if sse4a else _I64)
        at = bld.gep(addr, [ir.Constant(_I64, offset)], source_etype=ir.IntType(8)) if offset else addr
        bld.store(piece, at, align=width).set_metadata("nontemporal", nontemporal(em))


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


def describe(what: str, vt: T.Vector, options, decided: str) -> RuntimePath:
    """What `store_pieces`/`dispatch` do for a vector of `vt`, by misalignment class."""
    size = vt.bits // 8
    small = "movntss/movntsd (SSE4a)" if has_sse4a(options) else "movnti"
    shapes: dict[tuple, list[int]] = {}
    for m in classes(size):
        shapes.setdefault(tuple(sorted(w for _, w in pieces(m, size))), []).append(m)
    paths = []
    for shape, ms in shapes.items():
        if ms == [0]:
            paths.append((f"{size}-byte aligned", f"one {size}-byte non-temporal store"))
            continue
        layouts = sorted({"+".join(str(w) for _, w in pieces(m, size)) for m in ms})
        uses = f", the 4/8-byte ones with {small}" if min(shape) < 16 else ""
        when = ", ".join(str(m) for m in ms[:-1]) + (" or " if len(ms) > 1 else "") + str(ms[-1])
        paths.append((f"{when} mod {size}", f"{len(shape)} non-temporal pieces ({' / '.join(layouts)} bytes{uses})"))
    align = classes(size)[1] if len(classes(size)) > 1 else size
    paths.append((f"not {align}-byte aligned", "a plain store (not non-temporal)"))
    return RuntimePath(None, what, f"the address mod {size}", tuple(paths), decided)
