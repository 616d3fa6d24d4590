"""Lane movement: shuffle, select, movemask, byte tables, runtime permutes
and the immediate-controlled i32 shuffles (INTRINSICS.md §4; the half/concat,
bitcast and byte-shift members live in halves.py)."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic, check_arity, declare_fixed, declare_fixed_imm, declare_typed, type_named, x86_only

FAMILY = "lanes"


def _shuffle(c) -> T.Type:
    if c.nargs not in (2, 3):
        c.args()
        return c.fail("shuffle expects 2 or 3 arguments: (vector, [indices]) or (a, b, [indices])",
                      code="intrinsic-arity")
    vecs = [c.arg(i) for i in range(c.nargs - 1)]
    indices = c.array_literal(c.nargs - 1)
    if any(v.is_error for v in vecs):
        return T.ERROR
    v = vecs[0]
    if not isinstance(v, T.Vector):
        return c.fail(f"shuffle expects a vector, got {v}", c.arg_span(0))
    if len(vecs) == 2 and vecs[1] is not v:
        return c.fail(f"shuffle operands must have the same type, got {v} and {vecs[1]}", c.arg_span(1))
    if indices is None:
        return c.fail("shuffle indices argument must be [index, ...] array literal", c.arg_span(c.nargs - 1))
    if len(indices) != v.lanes:
        return c.fail(f"shuffle indices length {len(indices)} != vector width {v.lanes}",
                      c.arg_span(c.nargs - 1))
    limit = v.lanes * len(vecs)
    for k, (value, span) in enumerate(indices):
        if value is None:
            return c.fail(f"shuffle index {k} must be integer literal", span)
        if not 0 <= value < limit:
            return c.fail(f"shuffle index {k} out of range: {value} (must be in [0, {limit}))", span)
    return v


def _select(c) -> T.Type:
    if not check_arity(c, "select", 3, " (mask, a, b)"):
        return T.ERROR
    m, a, b = c.peer_args(1)
    if m.is_error or a.is_error or b.is_error:
        return T.ERROR
    if not isinstance(a, T.Vector) or a is not b:
        notes, fixes = c.blame([1, 2], None, f" but the other operand is {b if a is not b else a}")
        return c.fail(f"select operands must be vectors of the same type, got {a} and {b}", c.arg_span(1),
                      notes=notes, suggestions=fixes)
    if not isinstance(m, T.Mask):
        return c.fail(f"select mask must be bool vector matching operand width, got {m}. "
                      "Use comparison operators (.>, .==) to create a mask", c.arg_span(0))
    if m.lanes != a.lanes:
        # The mask is a comparison (masks have no other source): blame the
        # operands' width, naming a context-typed default when that is the cause.
        compared = c.compared_type(0)
        shape = compared if compared is not None else f"{m.lanes}-lane vectors"
        want = T.vector(compared.elem, m.lanes) if compared is not None else None
        notes, fixes = c.blame([1, 2], want, f" but the mask compares {shape}")
        if notes:
            return c.fail(f"select mask must be bool vector matching operand width: {notes[0]}",
                          c.blamed_span([1, 2]), code="vector-width", notes=notes[1:], suggestions=fixes)
        return c.fail(f"select mask must be bool vector matching operand width: the mask compares {shape} "
                      f"but the operands are {a}", c.arg_span(1), code="vector-width")
    return a



def _movemask(c) -> T.Type:
    t = c.only_arg()
    if t.is_error:
        return T.ERROR
    # Masks count as bytes: a true lane has its top bit set.
    if isinstance(t, T.Mask) and t.lanes in (16, 32):
        return T.I32
    if isinstance(t, T.Vector) and t.elem in (T.I8, T.U8) and t.lanes in (16, 32):
        return T.I32
    return c.fail(f"movemask expects u8x16, i8x16, u8x32, i8x32 or a 16/32-lane comparison mask, got {t}",
                  c.arg_span(0))


def _shuffle_bytes_target(c, result):
    if c.options.is_arm and result.lanes == 32:
        return "shuffle_bytes(u8x32) is x86-only (AVX2 vpshufb); use u8x16 on ARM"
    return None


_PERMUTE_SIGS = [(("f32x8", "i32x8"), "f32x8"), (("i32x8", "i32x8"), "i32x8")]
_PERMUTE_TYPED = [([type_named(a) for a in args], type_named(ret)) for args, ret in _PERMUTE_SIGS]
_PERMUTE_ARM = ("permute_runtime has no NEON equivalent on ARM. Use compare/select chains "
                "(v .== splat(k)) or shuffle_bytes with a u8x16 table instead; "
                "docs/idioms/neon-runtime-permute.md shows both")


def _permute_runtime(c) -> T.Type:
    # On ARM the target error comes before any other check (INTRINSICS.md
    # §4): skip the signature check and let the target rule report it.
    if c.options.is_arm:
        ts = c.args()
        if ts and ts[0].is_error:
            return T.ERROR
        return ts[0] if ts and isinstance(ts[0], T.Vector) else T.VOID
    if not check_arity(c, "permute_runtime", 2, ": (f32x8, i32x8) or (i32x8, i32x8)"):
        return T.ERROR
    table, idx = c.signature_args(_PERMUTE_TYPED)
    if table.is_error or idx.is_error:
        return T.ERROR
    for (want_table, want_idx), ret in _PERMUTE_TYPED:
        if T.compatible(table, want_table) and T.compatible(idx, want_idx):
            return ret
    # The table first, then the indices, each with what it lacks (the
    # reference's phrases: `f32 or i32`, `table must have width 8`, `i32 vector`).
    if not isinstance(table, T.Vector) or table.elem not in (T.F32, T.I32):
        return c.fail(f"permute_runtime table must be an f32 or i32 vector of 8 lanes (f32x8 or i32x8), "
                      f"got {table}", c.arg_span(0))
    if table.lanes != 8:
        want = T.vector(table.elem, 8)
        notes, fixes = c.blame([0], want, " but permute_runtime permutes 8 lanes")
        return c.fail(f"permute_runtime table must have width 8 ({want}), got {table}", c.arg_span(0),
                      notes=notes, suggestions=fixes)
    notes, fixes = c.blame([1], T.vector(T.I32, 8), " but the indices must be i32x8")
    return c.fail(f"permute_runtime indices must be an i32 vector of 8 lanes (i32x8), got {idx}", c.arg_span(1),
                  notes=notes, suggestions=fixes)


def _pairs(kind: str, ty: str, picks: str) -> Intrinsic:
    return declare_typed(f"bcast_{kind}_pairs_{ty}", ("v",), ty,
                         f"Per 4-lane group {picks}.", FAMILY, "v1.11")


INTRINSICS = [
    Intrinsic("shuffle", ("v", "indices"), ("(TxN, [N int literals in 0..N]) -> TxN",
                                             "(TxN, TxN, [N int literals in 0..2N]) -> TxN"),
              "Rearrange lanes: r[k] = v[indices[k]] (with two vectors, indices >= N pick from b).",
              _shuffle, FAMILY, "CORE (v0.1)"),
    Intrinsic("select", ("mask", "a", "b"), ("(bool mask xN, TxN, TxN) -> TxN",),
              "Per lane: mask[k] ? a[k] : b[k]; the mask comes from a dotted comparison.",
              _select, FAMILY, "CORE (v0.1)"),
    Intrinsic("movemask", ("v",), ("(u8x16|i8x16|bool x16) -> i32", "(u8x32|i8x32|bool x32) -> i32"),
              "Bit k of the result = top bit of byte lane k (mask lanes: true -> 1).", _movemask,
              FAMILY, "v1.5.2", x86_only("movemask is x86-only (SSE2/AVX2); no NEON equivalent")),
    declare_fixed("shuffle_bytes", ("table", "idx"),
                  [(("u8x16", "u8x16"), "u8x16"), (("i8x16", "u8x16"), "i8x16"),
                   (("u8x32", "u8x32"), "u8x32"), (("i8x32", "u8x32"), "i8x32")],
                  "r[k] = table[idx[k]] (per 16-byte half for 32 lanes); an index with bit 7 set gives 0.",
                  FAMILY, "v1.11", _shuffle_bytes_target),
    Intrinsic("permute_runtime", ("table", "idx"), ("(f32x8, i32x8) -> f32x8", "(i32x8, i32x8) -> i32x8"),
              "r[k] = table[idx[k] & 7] across all 8 lanes (AVX2 vpermps/vpermd).", _permute_runtime,
              FAMILY, "v1.14", x86_only(_PERMUTE_ARM)),
    declare_typed("shuffle_i32x8", ("v", "imm"), "i32x8",
                  "Per 4-lane group g: r[4g+j] = v[4g + ((imm >> 2j) & 3)] (vpshufd).", FAMILY, "v1.11",
                  imm=(0, 255)),
    declare_typed("shuffle_i32x16", ("v", "imm"), "i32x16",
                  "Per 4-lane group g: r[4g+j] = v[4g + ((imm >> 2j) & 3)] (vpshufd).", FAMILY, "v1.11",
                  imm=(0, 255)),
    declare_fixed_imm("blend_i32", ("a", "b", "imm"), ("i32x8", "i32x8"), "i32x8", (0, 255),
                      "r[j] = bit j of imm ? b[j] : a[j] (vpblendd).", FAMILY, "v1.11"),
    _pairs("even", "i32x8", "[x0, x0, x2, x2]"),
    _pairs("even", "i32x16", "[x0, x0, x2, x2]"),
    _pairs("odd", "i32x8", "[x1, x1, x3, x3]"),
    _pairs("odd", "i32x16", "[x1, x1, x3, x3]"),
]
