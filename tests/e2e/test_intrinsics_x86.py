"""End to end on x86: lane movement, halves, bitcasts, byte shifts and
conversions (INTRINSICS.md §4-§5). All cases go into one Eä module and one
C driver; each expected value is computed here from the spec's semantics
with numpy, never by running our compiler."""
from __future__ import annotations

import numpy as np
import pytest

from .intrinsics_harness import Cases, expected_strings, host_has, run_cases

pytestmark = pytest.mark.skipif(not host_has("avx2"), reason="host CPU lacks AVX2 (256-bit x86 forms)")

rng = np.random.default_rng(20240611)
U8 = rng.integers(0, 256, 64).astype(np.uint8)
U8B = rng.integers(0, 256, 64).astype(np.uint8)
I8, I8B = U8.view(np.int8), U8B.view(np.int8)
I16 = rng.integers(-32768, 32768, 32).astype(np.int16)
I32 = rng.integers(-(1 << 31), 1 << 31, 32).astype(np.int32)
I32B = rng.integers(-(1 << 31), 1 << 31, 32).astype(np.int32)
F32 = (rng.standard_normal(32) * 100).astype(np.float32)
F32B = (rng.standard_normal(32) * 100).astype(np.float32)

CASES = Cases()
case, unary, binary = CASES.add, CASES.unary, CASES.binary


def bitmask(bits) -> int:
    return sum(1 << k for k, b in enumerate(bits) if b)


# ---- movemask: bit k = top bit of byte lane k ----
for t, lanes, data in (("u8", 16, U8), ("i8", 16, I8), ("u8", 32, U8), ("i8", 32, I8)):
    case(f"movemask_{t}x{lanes}", f"    let v: {t}x{lanes} = load(a0, 0)\n    o0[0] = movemask(v)",
         [(t, data[:lanes])], [("i32", 1)], [[bitmask(data[:lanes].view(np.uint8) >> 7)]])
case("movemask_mask16", "    let v: u8x16 = load(a0, 0)\n    o0[0] = movemask(v .> splat(200))",
     [("u8", U8[:16])], [("i32", 1)], [[bitmask(U8[:16] > 200)]])
case("movemask_mask32", "    let x: i8x32 = load(a0, 0)\n    let y: i8x32 = load(a1, 0)\n    o0[0] = movemask(x .> y)",
     [("i8", I8[:32]), ("i8", I8B[:32])], [("i32", 1)], [[bitmask(I8[:32] > I8B[:32])]])

# ---- shuffle_bytes: x86 uses index bits 0-3, bit 7 gives 0, per 16-byte half ----
for t, lanes in (("u8", 16), ("i8", 16), ("u8", 32), ("i8", 32)):
    table = (U8 if t == "u8" else I8)[:lanes]
    idx = U8B[:lanes]
    want = [0 if idx[k] & 0x80 else table[(k // 16) * 16 + (idx[k] & 15)] for k in range(lanes)]
    body = (f"    let t: {t}x{lanes} = load(a0, 0)\n    let i: u8x{lanes} = load(a1, 0)\n"
            f"    store(o0, 0, shuffle_bytes(t, i))")
    case(f"shuffle_bytes_{t}x{lanes}", body, [(t, table), ("u8", idx)], [(t, lanes)], [want])

# ---- permute_runtime: r[k] = t[idx[k] & 7] ----
PIDX = rng.integers(-20, 21, 8).astype(np.int32)
for t, data in (("f32", F32[:8]), ("i32", I32[:8])):
    body = (f"    let t: {t}x8 = load(a0, 0)\n    let i: i32x8 = load(a1, 0)\n"
            "    store(o0, 0, permute_runtime(t, i))")
    case(f"permute_runtime_{t}x8", body, [(t, data), ("i32", PIDX)], [(t, 8)],
         [[data[int(i) & 7] for i in PIDX]])


def per_group(lanes, pick):
    return [4 * (k // 4) + pick(k % 4) for k in range(lanes)]


# ---- immediate-controlled i32 shuffles (a const and a constant expression as immediates) ----
unary("shuffle_i32x8", "shuffle_i32x8(v, SH_IMM)", "i32", "i32x8", "i32", "i32x8", I32[:8],
      I32[:8][per_group(8, lambda j: (27 >> 2 * j) & 3)], prelude="const SH_IMM: i32 = 27")
unary("shuffle_i32x16", "shuffle_i32x16(v, 100 + 77)", "i32", "i32x16", "i32", "i32x16", I32[:16],
      I32[:16][per_group(16, lambda j: (177 >> 2 * j) & 3)])
binary("blend_i32", "blend_i32(x, y, 0xA5)", "i32", "i32x8", "i32", "i32x8", I32[:8], I32B[:8],
       [I32B[j] if (0xA5 >> j) & 1 else I32[j] for j in range(8)])
for kind, first in (("even", 0), ("odd", 1)):
    for lanes in (8, 16):
        unary(f"bcast_{kind}_pairs_i32x{lanes}", f"bcast_{kind}_pairs_i32x{lanes}(v)", "i32", f"i32x{lanes}",
              "i32", f"i32x{lanes}", I32[:lanes], I32[:lanes][per_group(lanes, lambda j: first + (j & 2))])

# ---- concat and halves ----
for ty in ("i8x16", "u8x16", "i8x32", "u8x32", "i32x8", "f32x8"):
    elem, n = ty.split("x")
    n = int(n)
    src = {"i8": I8, "u8": U8, "i32": I32, "f32": F32}[elem]
    src_b = {"i8": I8B, "u8": U8B, "i32": I32B, "f32": F32B}[elem]
    binary(f"concat_{ty}", f"concat_{ty}(x, y)", elem, ty, elem, f"{elem}x{2 * n}", src[:n], src_b[:n],
           np.concatenate([src[:n], src_b[:n]]))
HALF_TYPES = {"lo128": ("i8x32", "u8x32", "i16x16", "u16x16"),
              "lo256": ("i8x64", "u8x64", "i32x16", "f32x16", "i16x32", "u16x32")}
for lo, types in HALF_TYPES.items():
    for ty in types:
        elem, n = ty.split("x")
        n = int(n)
        data = {"i8": I8, "u8": U8, "i16": I16, "u16": I16.view(np.uint16), "i32": I32, "f32": F32}[elem][:n]
        for prefix, part in ((lo, data[:n // 2]), ("hi" + lo[2:], data[n // 2:])):
            unary(f"{prefix}_{ty}", f"{prefix}_{ty}(v)", elem, ty, elem, f"{elem}x{n // 2}", data, part)

# ---- vectors from scalars ----
case("f32x4_from_scalars", "    store(o0, 0, f32x4_from_scalars(a0[0], 1.5, a0[2], -0.25))",
     [("f32", F32[:4])], [("f32", 4)], [[F32[0], 1.5, F32[2], -0.25]])
case("f32x8_from_scalars",
     "    store(o0, 0, f32x8_from_scalars(a0[7], a0[6], a0[5], a0[4], a0[3], a0[2], a0[1], a0[0]))",
     [("f32", F32[:8])], [("f32", 8)], [F32[:8][::-1]])

# ---- bitcasts: reinterpret the bytes ----
unary("bitcast_i8x16", "bitcast_i8x16(v)", "f32", "f32x4", "i8", "i8x16", F32[:4], F32[:4].view(np.int8))
unary("bitcast_i8x32", "bitcast_i8x32(v)", "i16", "i16x16", "i8", "i8x32", I16[:16], I16[:16].view(np.int8))
unary("bitcast_i32x4", "bitcast_i32x4(v)", "u8", "u8x16", "i32", "i32x4", U8[:16], U8[:16].view(np.int32))
unary("bitcast_i32x8", "bitcast_i32x8(v)", "f32", "f32x8", "i32", "i32x8", F32[:8], F32[:8].view(np.int32))


# ---- byte shifts per 16-byte half, zero fill ----
def byte_shift(v, imm, right):
    out = []
    for k in range(len(v)):
        h, j = 16 * (k // 16), k % 16
        src = j + imm if right else j - imm
        out.append(v[h + src] if 0 <= src < 16 else 0)
    return out


for op, right in (("bsrli", True), ("bslli", False)):
    for lanes, imms in ((16, (0, 3, 15)), (32, (5, 15))):
        for imm in imms:
            unary(f"{op}_i8x{lanes}_{imm}", f"{op}_i8x{lanes}(v, {imm})", "i8", f"i8x{lanes}", "i8",
                  f"i8x{lanes}", I8[:lanes], byte_shift(I8[:lanes], imm, right))

# ---- ptr_as: offsets count in the new element type ----
for elem in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"):
    np_t = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
            "u32": np.uint32, "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f64": np.float64}[elem]
    view = U8[:32].view(np_t)
    case(f"ptr_as_{elem}", f"    let p: *{elem} = ptr_as_{elem}(a0)\n    o0[0] = p[1]\n    o0[1] = p[2]",
         [("u8", U8[:32])], [(elem, 2)], [view[1:3]])
case("ptr_as_mut", "    let q: *mut u32 = ptr_as_u32(o0)\n    q[1] = 305419896", [], [("u8", 8)],
     [np.array([0, 305419896], dtype=np.uint32).view(np.uint8)])


# ---- widen: the name's sign picks sign/zero extension, either byte type accepted ----
def widened(data, first, lanes, signed):
    part = data[first:first + lanes]
    return part.view(np.int8).astype(np.int32) if signed else part.view(np.uint8).astype(np.int32)


for sign in ("i8", "u8"):
    for lanes in (8, 16):
        for in_t in ("i8", "u8"):
            unary(f"widen_{sign}_f32x{lanes}_from_{in_t}", f"widen_{sign}_f32x{lanes}(v)", in_t, f"{in_t}x16",
                  "f32", f"f32x{lanes}", U8[:16], widened(U8, 0, lanes, sign == "i8").astype(np.float32))
    for k in (4, 8, 12):
        unary(f"widen_{sign}_f32x4_{k}", f"widen_{sign}_f32x4_{k}(v)", "u8", "u8x16", "f32", "f32x4", U8[:16],
              widened(U8, k, 4, sign == "i8").astype(np.float32))
for lanes in (4, 8, 16):
    unary(f"widen_u8_i32x{lanes}", f"widen_u8_i32x{lanes}(v)", "u8", "u8x16", "i32", f"i32x{lanes}", U8[:16],
          widened(U8, 0, lanes, False))
for k in (4, 8, 12):
    unary(f"widen_u8_i32x4_{k}", f"widen_u8_i32x4_{k}(v)", "u8", "u8x16", "i32", "i32x4", U8[:16],
          widened(U8, k, 4, False))
unary("widen_u8_u16", "widen_u8_u16(v)", "u8", "u8x16", "u16", "u16x8", U8[:16], U8[:8].astype(np.uint16))
unary("widen_u8_u16_hi", "widen_u8_u16_hi(v)", "u8", "u8x16", "u16", "u16x8", U8[:16], U8[8:16].astype(np.uint16))

# ---- round to nearest, ties to even ----
ROUND_IN = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.2, 1e6 + 0.5, -7.49, 123456.5, 0.0], np.float32)
unary("round_f32x4_i32x4", "round_f32x4_i32x4(v)", "f32", "f32x4", "i32", "i32x4", ROUND_IN[:4],
      np.rint(ROUND_IN[:4]).astype(np.int32))
unary("round_f32x8_i32x8", "round_f32x8_i32x8(v)", "f32", "f32x8", "i32", "i32x8", ROUND_IN[4:12],
      np.rint(ROUND_IN[4:12]).astype(np.int32))

# ---- saturating packs: sequential [a..., b...] ----
P32 = np.concatenate([[70000, -70000, 32767, -32768, 32768, -32769, 65535, 65536], rng.integers(-100000, 100000, 8)])
P32B = rng.integers(-100000, 100000, 16)
P16 = np.concatenate([[127, 128, -128, -129, 255, 256, 0, -1], rng.integers(-32768, 32768, 8)])
P16B = rng.integers(-400, 400, 16)
PACKS = {"i32": (P32, P32B, "i16", "u16", (-32768, 32767), (0, 65535)),
         "i16": (P16, P16B, "i8", "u8", (-128, 127), (0, 255))}
for src, (a, b, sat_t, usat_t, sat_rng, usat_rng) in PACKS.items():
    for lanes in ((4, 8) if src == "i32" else (8, 16)):
        for kind, out_t, (lo, hi) in (("sat", sat_t, sat_rng), ("usat", usat_t, usat_rng)):
            both = np.clip(np.concatenate([a[:lanes], b[:lanes]]), lo, hi)
            binary(f"pack_{kind}_{src}x{lanes}", f"pack_{kind}_{src}x{lanes}(x, y)", src, f"{src}x{lanes}",
                   out_t, f"{out_t}x{2 * lanes}", a[:lanes], b[:lanes], both)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return run_cases(CASES, tmp_path_factory.mktemp("lanes_x86"))


@pytest.mark.parametrize("c", CASES, ids=[c.name for c in CASES])
def test_intrinsic(results, c):
    assert results[c.name] == expected_strings(c)
