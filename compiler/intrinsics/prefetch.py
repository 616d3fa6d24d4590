"""Prefetch hints, streaming (non-temporal) stores and their fence
(INTRINSICS.md §10)."""
from __future__ import annotations

from ..typesys import model as T
from .memory import check_index, check_writable
from .table import Intrinsic, Memory, check_arity

FAMILY = "prefetch"
HINT = Memory("hint", index=1)
STREAM_FAMILY = "streaming stores and fences"

# Scalar streaming stores (v1.15) exist for integer types only (movnti / stnp).
_STREAM_SCALARS = (T.I16, T.U16, T.I32, T.U32, T.I64, T.U64)


def _prefetch(name: str):
    def rule(c) -> T.Type:
        if c.nargs != 2:
            # All three hints give the reference's `prefetch expects 2 arguments`
            # (INTRINSICS.md §0.3); the other two also say which call it is.
            c.args()
            which = "" if name == "prefetch" else f", but this {name} call has {c.nargs}"
            return c.fail(f"prefetch expects 2 arguments: (ptr, offset){which}", code="intrinsic-arity")
        p, off = c.args()
        if p.is_error or off.is_error:
            return T.ERROR
        if not isinstance(p, T.Pointer):
            return c.fail(f"{name} first argument must be a pointer, got {p}", c.arg_span(0),
                          notes=[f"the address is a pointer and an element offset: {name}(p, i + 64)"])
        if not T.is_int(off):
            return c.fail(f"{name} offset must be integer, got {off}", c.arg_span(1))
        return T.VOID
    return rule


def _stream_store(c) -> T.Type:
    if not check_arity(c, "stream_store", 3, " (ptr, index, value)"):
        return T.ERROR
    p, _, v = c.args()
    if p.is_error or v.is_error or not check_index(c, 1, "stream_store"):
        return T.ERROR
    if not isinstance(p, T.Pointer):
        return c.fail(f"stream_store expects (mut ptr, index, value), got ({p}, {c.arg(1)}, {v})")
    if isinstance(v, T.Vector):
        return T.VOID if check_writable(c, p, v.elem) else T.ERROR
    # A bare literal is refused: the store width must come from a typed value.
    if v not in _STREAM_SCALARS:
        return c.fail("stream_store expects a vector or a typed i16, u16, i32, u32, i64 or u64 value, "
                      f"got {v}", c.arg_span(2))
    return T.VOID if check_writable(c, p, v, "value type") else T.ERROR


def _fence_nt(c) -> T.Type:
    if c.nargs != 0:
        c.args()
        return c.fail("fence_nt takes 0 arguments (no operands)", code="intrinsic-arity")
    return T.VOID


INTRINSICS = [
    Intrinsic("prefetch", ("ptr", "offset"), ("(*T, int) -> void",),
              "Read hint for &ptr[offset], kept in all cache levels.", _prefetch("prefetch"), FAMILY,
              "CORE (v0.6)", memory=HINT),
    Intrinsic("prefetch_write", ("ptr", "offset"), ("(*T, int) -> void",),
              "Write-intent hint for &ptr[offset] (prefetchw / prfm pstl1keep).", _prefetch("prefetch_write"),
              FAMILY, "v1.14", memory=HINT),
    Intrinsic("prefetch_nta", ("ptr", "offset"), ("(*T, int) -> void",),
              "Non-temporal read hint for &ptr[offset] (prefetchnta / prfm pldl1strm).",
              _prefetch("prefetch_nta"), FAMILY, "v1.14", memory=HINT),
    Intrinsic("stream_store", ("ptr", "index", "value"),
              ("(*mut T, int, TxN) -> void", "(*mut T, int, T) -> void for T in i16 u16 i32 u32 i64 u64"),
              "Non-temporal store, safe at any address: on x86 a vector store stays non-temporal at every "
              "4-byte-aligned address (full width when aligned; a kernel loop's run of stores realigned, "
              "others split into aligned pieces) and is a plain store otherwise.",
              _stream_store, STREAM_FAMILY, "v1.5.5", memory=Memory("touch", index=1, lanes=2)),
    Intrinsic("fence_nt", (), ("() -> void",), "Store-store barrier ordering earlier streaming stores.",
              _fence_nt, STREAM_FAMILY, "v1.15"),
]
