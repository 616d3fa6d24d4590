"""dpbusd and dpwssd (the VNNI extension) end to end: every form compiled,
loaded and run against NumPy, exact, on values that saturate maddubs_i16
(u8 255 x i8 -128 pairs) and on accumulators near the i32 limits (the sum
wraps); loops at several sizes; the target errors by exact text and span, from
the checker and from code generation; and what `inspect` counts."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from ea_compiler import Options, analyze
from ea_compiler.build import compile_source
from ea_compiler.inspect import inspect

from .harness import compile_ea, host_has, host_has_vnni

X86 = "x86_64-unknown-linux-gnu"
I32, U8, I8, I16 = np.int32, np.uint8, np.int8, np.int16
needs_vnni = pytest.mark.skipif(not host_has_vnni(), reason="host CPU has no VNNI")
needs_512 = pytest.mark.skipif(not host_has("avx512_vnni"), reason="host CPU has no AVX512-VNNI")

# One function per form: out = dpbusd/dpwssd(acc, a, b) on vectors loaded from memory.
FORMS = [("dpbusd", 4, "u8", "i8"), ("dpbusd", 8, "u8", "i8"), ("dpbusd", 16, "u8", "i8"),
         ("dpwssd", 4, "i16", "i16"), ("dpwssd", 8, "i16", "i16"), ("dpwssd", 16, "i16", "i16")]


def form_source(name: str, lanes: int, ta: str, tb: str) -> str:
    per = 4 if name == "dpbusd" else 2
    return (f"export func {name}_{lanes}(acc: *i32, a: *{ta}, b: *{tb}, out: *mut i32) {{\n"
            f"    let r: i32x{lanes} = {name}(load_i32x{lanes}(acc, 0), load_{ta}x{lanes * per}(a, 0), "
            f"load_{tb}x{lanes * per}(b, 0))\n"
            f"    store(out, 0, r)\n}}\n")


LOOP = """\
export func dot16(a: *u8, b: *i8, n: i32) -> i32 {
    let mut acc: i32x16 = splat(0)
    let mut i: i32 = 0
    while i + 64 <= n {
        acc = dpbusd(acc, load_u8x64(a, i), load_i8x64(b, i))
        i = i + 64
    }
    let mut total: i32 = reduce_add(acc)
    while i < n {
        total = total + to_i32(a[i]) * to_i32(b[i])
        i = i + 1
    }
    return total
}

export func wdot8(a: *i16, b: *i16, n: i32) -> i32 {
    let mut acc: i32x8 = splat(0)
    let mut i: i32 = 0
    while i + 16 <= n {
        acc = dpwssd(acc, load_i16x16(a, i), load_i16x16(b, i))
        i = i + 16
    }
    let mut total: i32 = reduce_add(acc)
    while i < n {
        total = total + to_i32(a[i]) * to_i32(b[i])
        i = i + 1
    }
    return total
}

export func maddubs8(a: *u8, b: *i8, out: *mut i32) {
    let ones: i16x16 = splat(1)
    store(out, 0, madd_i16(maddubs_i16(load_u8x32(a, 0), load_i8x32(b, 0)), ones))
}
"""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vnni")
    src = "".join(form_source(*f) for f in FORMS) + LOOP
    compile_ea(src, tmp, "--lib")
    return ctypes.CDLL(str(tmp / "k.so"))


def reference(name: str, acc, a, b) -> np.ndarray:
    """acc + the sum of each lane's 4 (dpbusd) or 2 (dpwssd) products, wrapping in i32."""
    per = 4 if name == "dpbusd" else 2
    prods = (a.astype(np.int64) * b.astype(np.int64)).reshape(len(acc), per).sum(axis=1)
    return ((acc.astype(np.int64) + prods + (1 << 31)) % (1 << 32) - (1 << 31)).astype(I32)


def operands(rng, name: str, lanes: int, extreme: bool):
    per = 4 if name == "dpbusd" else 2
    if name == "dpbusd":
        a = rng.integers(0, 256, lanes * per, dtype=U8)
        b = rng.integers(-128, 128, lanes * per, dtype=I8)
        if extreme:
            a[:], b[:] = 255, -128  # each pair is -65280: maddubs_i16 would give -32768
    else:
        a = rng.integers(-32768, 32768, lanes * per, dtype=I16)
        b = rng.integers(-32768, 32768, lanes * per, dtype=I16)
        if extreme:
            a[:], b[:] = -32768, -32768  # the pair sum is 2^31: wraps to -2^31
    acc = rng.integers(-(1 << 31), 1 << 31, lanes, dtype=I32)
    if extreme:
        acc[:] = np.iinfo(I32).max  # and the add wraps
    return acc, a, b


@needs_vnni
@pytest.mark.parametrize("name,lanes,ta,tb", FORMS, ids=[f"{f[0]}_i32x{f[1]}" for f in FORMS])
@pytest.mark.parametrize("extreme", [False, True], ids=["random", "extreme"])
def test_every_form_is_exact(lib, name, lanes, ta, tb, extreme):
    if lanes == 16 and not host_has("avx512_vnni"):
        pytest.skip("512-bit forms need AVX512-VNNI")
    rng = np.random.default_rng(lanes * (2 if extreme else 1) + len(name))
    for _ in range(5):
        acc, a, b = operands(rng, name, lanes, extreme)
        out = np.zeros(lanes, I32)
        getattr(lib, f"{name}_{lanes}")(*(ctypes.c_void_p(x.ctypes.data) for x in (acc, a, b, out)))
        assert out.tolist() == reference(name, acc, a, b).tolist()


@needs_vnni
def test_dpbusd_does_not_saturate_where_maddubs_does(lib):
    a, b = np.full(32, 255, U8), np.full(32, -128, I8)
    out = np.zeros(8, I32)
    lib.maddubs8(*(ctypes.c_void_p(x.ctypes.data) for x in (a, b, out)))
    assert out.tolist() == [2 * -32768] * 8  # each i16 pair sum saturated
    lib.dpbusd_8(*(ctypes.c_void_p(x.ctypes.data) for x in (np.zeros(8, I32), a, b, out)))
    assert out.tolist() == [4 * 255 * -128] * 8


@needs_512
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000, 4099, 1 << 16])
def test_loops_match_numpy(lib, n):
    rng = np.random.default_rng(n)
    a, b = rng.integers(0, 256, n, dtype=U8), rng.integers(-128, 128, n, dtype=I8)
    a[::2], b[::3] = 255, -128
    f = lib.dot16
    f.argtypes, f.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32], ctypes.c_int32
    assert f(a.ctypes.data, b.ctypes.data, n) == np.dot(a.astype(I32), b.astype(I32))
    x, y = rng.integers(-32768, 32768, n, dtype=I16), rng.integers(-32768, 32768, n, dtype=I16)
    g = lib.wdot8
    g.argtypes, g.restype = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32], ctypes.c_int32
    assert g(x.ctypes.data, y.ctypes.data, n) == np.dot(x.astype(I32), y.astype(I32))


# ---- target errors --------------------------------------------------------------------

CALLS = """\
export func f(acc: i32x8, a: u8x32, b: i8x32, w: i16x16) -> i32x8 {
    return dpwssd(dpbusd(acc, a, b), w, w)
}

export func g(acc: i32x16, a: u8x64, b: i8x64) -> i32x16 {
    return dpbusd(acc, a, b)
}
"""
FIX_BUSD = ("use maddubs_i16 + madd_i16 (saturating) or compile for a CPU with VNNI "
            "(e.g. --target=icelake-server or --target=alderlake)")


def target_errors(options: Options, src: str = CALLS) -> list[tuple[str, tuple[int, int]]]:
    a = analyze(src, "k.ea", options)
    return [(d.message, (d.span.line, d.span.col)) for d in a.errors]


def test_a_cpu_without_vnni_is_refused_naming_the_alternative():
    assert target_errors(Options(target_triple=X86, target_cpu="haswell")) == [
        ("dpwssd needs AVX512-VNNI or AVX-VNNI, which --target=haswell lacks; use madd_i16 and .+ (the same "
         "result in two instructions) or compile for a CPU with VNNI (e.g. --target=icelake-server or "
         "--target=alderlake)", (2, 12)),
        (f"dpbusd needs AVX512-VNNI or AVX-VNNI, which --target=haswell lacks; {FIX_BUSD}", (2, 19)),
        ("dpbusd on 512-bit vectors needs AVX512-VNNI, which --target=haswell lacks; use maddubs_i16 + "
         "madd_i16 (saturating) or compile for a CPU with AVX512-VNNI (e.g. --target=icelake-server)", (6, 12)),
    ]
    # AVX-512 without VNNI is no better
    assert [m for m, _ in target_errors(Options(target_triple=X86, target_cpu="x86-64-v4", avx512=True))][1] == \
        f"dpbusd needs AVX512-VNNI or AVX-VNNI, which --target=x86-64-v4 lacks; {FIX_BUSD}"


def test_avx_vnni_has_the_256_bit_forms_only():
    assert target_errors(Options(target_triple=X86, target_cpu="alderlake")) == [
        ("dpbusd on 512-bit vectors needs AVX512-VNNI, which --target=alderlake lacks; use the 256-bit form "
         "(an i32x8 accumulator) or compile for a CPU with AVX512-VNNI (e.g. --target=icelake-server)", (6, 12))]


@pytest.mark.parametrize("cpu", ["icelake-server", "cascadelake", "tigerlake", "sapphirerapids", "znver4",
                                 "znver5", "graniterapids"])
def test_cpus_with_avx512_vnni_take_every_form(cpu):
    assert target_errors(Options(target_triple=X86, target_cpu=cpu)) == []


def test_aarch64_names_its_own_instructions():
    src = ("export func f(acc: i32x4, a: u8x16, b: i8x16, w: i16x8) -> i32x4 {\n"
           "    return dpwssd(dpbusd(acc, a, b), w, w)\n}\n")
    assert target_errors(Options(target_triple="aarch64-unknown-linux-gnu"), src) == [
        ("dpwssd is x86-only (VNNI vpdpwssd); on AArch64 use wmul_i32 and addp_i32", (2, 12)),
        ("dpbusd is x86-only (VNNI vpdpbusd); on AArch64 use vdot_i32 or vdot_lane_i32 with --dotprod "
         "(signed i8 x i8)", (2, 19))]


def test_codegen_refuses_what_the_checker_could_not_know():
    """A CPU LLVM knows but our table does not: the checker cannot tell, code
    generation assumes the baseline and refuses with the same message (LLVM would
    abort the process)."""
    src = "export func f(acc: i32x4, a: u8x16, b: i8x16) -> i32x4 {\n    return dpbusd(acc, a, b)\n}\n"
    analysis, module = compile_source(src, "k.ea", Options(target_triple=X86, target_cpu="goldmont"))
    assert module is None
    assert [(d.message, d.span.line, d.span.col) for d in analysis.errors] == [
        (f"dpbusd needs AVX512-VNNI or AVX-VNNI, which --target=goldmont lacks; {FIX_BUSD}", 2, 12)]


# ---- inspect ----------------------------------------------------------------------------

INSPECTED = """\
export func busd(acc: *i32, a: *u8, b: *i8, out: *mut i32) {
    store(out, 0, dpbusd(load_i32x8(acc, 0), load_u8x32(a, 0), load_i8x32(b, 0)))
}

export func wssd(acc: *i32, a: *i16, b: *i16, out: *mut i32) {
    store(out, 0, dpwssd(load_i32x4(acc, 0), load_i16x8(a, 0), load_i16x8(b, 0)))
}
"""


@pytest.mark.parametrize("cpu,encoding", [("icelake-server", "EVEX"), ("alderlake", "VEX")])
def test_inspect_counts_them_as_vector_multiply_adds(cpu, encoding):
    """8 i32 lanes x 4 products and 4 x 2, each multiply-add counted 2 like an FMA lane;
    AVX-VNNI's `{vex} vpdpbusd` is read as vpdpbusd."""
    report = inspect(INSPECTED, "k.ea", Options(target_triple=X86, target_cpu=cpu))
    busd, wssd = report.functions
    assert (busd.counts.fma, busd.counts.flops, busd.width_bits) == (1, 8 * 4 * 2, 256)
    assert (wssd.counts.fma, wssd.counts.flops, wssd.width_bits) == (1, 4 * 2 * 2, 128)
    line = busd.lines[2]
    assert line.mix.get("vpdpbusd ymm") == 1, line.mix
    assert line.counts.bytes_loaded == 3 * 32  # acc, a and b: the folded load is a 32-byte vector
    assert busd.counts.scalar <= 2  # the return, and nothing of the dot product
    assert not [h for h in busd.hints if h.code in ("no-vector", "memory-heavy")]
