"""`ea_compiler.inspect` hints: each one triggered by a kernel written to
trigger it, and absent on a similar kernel that does not. Codes as in
compiler/inspect/hints.py. Fixed CPUs (haswell = AVX2, skylake-avx512 +
--avx512, AArch64 cross) keep the machine code independent of the host."""
from __future__ import annotations

import textwrap

from ea_compiler.inspect import inspect
from ea_compiler.options import Options
from inspect_support import ARM, AVX2, AVX2_FAST_GATHER, AVX512, line_of, src  # noqa: F401


def hints(text: str, options: Options) -> dict[str, list]:
    """code -> hints with that code, for the only function of `text`."""
    report = inspect(text, "k.ea", options)
    assert len(report.functions) == 1
    out: dict[str, list] = {}
    for h in report.functions[0].hints:
        out.setdefault(h.code, []).append(h)
    return out


def kernel(body: str, params: str = "x: *restrict f32, out: *restrict mut f32", step: int = 8) -> str:
    return f"export kernel k({params}) over i in n step {step} {{\n{textwrap.indent(src(body), '    ')}}}\n"


# ---- no-vector -------------------------------------------------------------------

# A strided scalar loop LLVM does not vectorise (only vmovss/vmulss/vaddss).
STRIDED = src("""
    export func k(x: *restrict f32, out: *restrict mut f32, n: i32) {
        let mut i: i32 = 0
        while i < n {
            out[i * 3] = x[i * 5] * 2.0
            i = i + 1
        }
    }
""")
VECTOR = kernel("""
    let v: f32x8 = load(x, i)
    store(out, i, v .* splat(2.0))
""")

# A scalar sum: LLVM may not reassociate the f32 adds, so the loop stays a
# chain of `vaddss (%rdi,%rcx,4), %xmm0, %xmm0`, unrolled 8 times, plus a
# remainder loop. Its only packed instruction is the zeroing idiom
# `vxorps %xmm0, %xmm0, %xmm0` for `acc = 0.0`.
SCALAR_SUM = src("""
    export func ssum(x: *restrict f32, n: i32) -> f32 {
        let mut acc: f32 = 0.0
        let mut i: i32 = 0
        while i < n {
            acc = acc + x[i]
            i = i + 1
        }
        return acc
    }
""")


def test_no_vector_on_scalar_loop():
    h = hints(STRIDED, AVX2)
    assert "no-vector" in h
    assert h["no-vector"][0].message == "no vector instructions \u2014 consider using SIMD types (f32x4, f32x8)"
    assert h["no-vector"][0].line == 1


def test_no_vector_absent_on_vector_kernel():
    assert "no-vector" not in hints(VECTOR, AVX2)


def test_no_vector_on_scalar_sum():
    """The scalar sum uses no vector values; zeroing xmm0 for 0.0 does not make it SIMD code."""
    assert "no-vector" in hints(SCALAR_SUM, AVX2)


# ---- narrow-vectors ------------------------------------------------------------------

NARROW = kernel("""
    let v: f32x4 = load(x, i)
    store(out, i, v .* splat(2.0))
""", step=4)
WIDE16 = kernel("""
    let v: f32x16 = load(x, i)
    store(out, i, v .* splat(2.0))
""", step=16)


def test_narrow_vectors_f32x4_on_avx2():
    h = hints(NARROW, AVX2)
    assert "narrow-vectors" in h
    assert "128-bit" in h["narrow-vectors"][0].message and "AVX2" in h["narrow-vectors"][0].message


def test_narrow_vectors_absent_f32x8_on_avx2():
    assert "narrow-vectors" not in hints(VECTOR, AVX2)


def test_narrow_vectors_f32x8_on_avx512():
    h = hints(VECTOR, AVX512)
    assert "narrow-vectors" in h and "256-bit" in h["narrow-vectors"][0].message


def test_narrow_vectors_absent_f32x16_on_avx512():
    assert "narrow-vectors" not in hints(WIDE16, AVX512)


def test_narrow_vectors_absent_on_aarch64():
    assert "narrow-vectors" not in hints(NARROW, ARM)  # 128 bits is all NEON has


def test_narrow_vectors_absent_on_scalar_sum():
    """No vector arithmetic at all: the hint about 128-bit vectors would be wrong."""
    assert "narrow-vectors" not in hints(SCALAR_SUM, AVX2)


# ---- small-step ----------------------------------------------------------------------

STEP1 = kernel("out[i] = x[i] * 2.0\n", step=1)


def test_small_step_on_step_1():
    h = hints(STEP1, AVX2)
    assert "small-step" in h
    assert h["small-step"][0].line == 1 and "advances 1 element" in h["small-step"][0].message


def test_small_step_absent_on_step_8():
    assert "small-step" not in hints(VECTOR, AVX2)


# ---- mul-add --------------------------------------------------------------------------

MULADD_VEC = kernel("""
    let va: f32x8 = load(a, i)
    let vb: f32x8 = load(b, i)
    let vc: f32x8 = load(c, i)
    store(out, i, va .* vb .+ vc)
""", "a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32")
FMA_VEC = MULADD_VEC.replace("va .* vb .+ vc", "fma(va, vb, vc)")
MULADD_SCALAR = src("""
    export func k(a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32, n: i32) {
        let mut i: i32 = 0
        while i < n {
            out[i] = a[i] * b[i] + c[i]
            i = i + 1
        }
    }
""")
FMA_SCALAR = MULADD_SCALAR.replace("a[i] * b[i] + c[i]", "fma(a[i], b[i], c[i])")


def test_mul_add_vector():
    h = hints(MULADD_VEC, AVX2)
    assert [x.line for x in h["mul-add"]] == [line_of(MULADD_VEC, "va .* vb")]


def test_mul_add_absent_with_fma_vector():
    assert "mul-add" not in hints(FMA_VEC, AVX2)


def test_mul_add_scalar():
    h = hints(MULADD_SCALAR, AVX2)
    assert [x.line for x in h["mul-add"]] == [line_of(MULADD_SCALAR, "a[i] * b[i]")]


def test_mul_add_absent_with_fma_scalar():
    assert "mul-add" not in hints(FMA_SCALAR, AVX2)


# ---- one-accumulator ------------------------------------------------------------------

ACC1 = src("""
    export func sum(x: *restrict f32, n: i32) -> f32 {
        let mut acc: f32x8 = splat(0.0)
        let mut i: i32 = 0
        while i + 8 <= n {
            acc = acc .+ load_f32x8(x, i)
            i = i + 8
        }
        return reduce_add(acc)
    }
""")
ACC4 = src("""
    export func sum(x: *restrict f32, n: i32) -> f32 {
        let mut a0: f32x8 = splat(0.0)
        let mut a1: f32x8 = splat(0.0)
        let mut a2: f32x8 = splat(0.0)
        let mut a3: f32x8 = splat(0.0)
        let mut i: i32 = 0
        while i + 32 <= n {
            a0 = a0 .+ load_f32x8(x, i)
            a1 = a1 .+ load_f32x8(x, i + 8)
            a2 = a2 .+ load_f32x8(x, i + 16)
            a3 = a3 .+ load_f32x8(x, i + 24)
            i = i + 32
        }
        return reduce_add((a0 .+ a1) .+ (a2 .+ a3))
    }
""")


def test_one_accumulator():
    h = hints(ACC1, AVX2)
    assert [x.line for x in h["one-accumulator"]] == [line_of(ACC1, "acc = acc")]
    assert "'acc'" in h["one-accumulator"][0].message


def test_one_accumulator_absent_with_four():
    assert "one-accumulator" not in hints(ACC4, AVX2)


def test_one_accumulator_scalar_sum():
    """The main loop is 8 dependent `vaddss ..., %xmm0, %xmm0` per iteration:
    the textbook single-accumulator chain. LLVM's unroll remainder loop
    (`vaddss (%rcx,%rdx,4), %xmm0, %xmm0; incq; cmpq; jne`) must not hide it."""
    h = hints(SCALAR_SUM, AVX2)
    assert [x.line for x in h.get("one-accumulator", [])] == [line_of(SCALAR_SUM, "acc = acc")]


# ---- gather / scatter --------------------------------------------------------------

GATHER = kernel("""
    let ix: i32x8 = load(idx, i)
    let v: f32x8 = gather(p, ix)
    store(out, i, v)
""", "p: *restrict f32, idx: *restrict i32, out: *restrict mut f32")
NO_GATHER = GATHER.replace("gather(p, ix)", "load(p, i)")
SCATTER = kernel("""
    let ix: i32x16 = load(idx, i)
    let v: f32x16 = load(p, i)
    scatter(out, ix, v)
""", "p: *restrict f32, idx: *restrict i32, out: *restrict mut f32", step=16)
NO_SCATTER = SCATTER.replace("scatter(out, ix, v)", "store(out, i, v)")


def test_gather_on_avx2_with_vgatherdps():
    h = hints(GATHER, AVX2_FAST_GATHER)  # skylake: vgatherdps %ymm2, (%rdi,%ymm0,4), %ymm1
    assert [x.line for x in h["gather"]] == [line_of(GATHER, "gather(")]
    assert "vgatherdps" in h["gather"][0].message


def test_gather_on_haswell():
    """On haswell LLVM emulates the gather: vpmovsxdq, vpextrq/vmovq of eight
    addresses, then vmovss + 3 x vinsertps per half: still one memory access
    per lane, which is what the hint is about."""
    h = hints(GATHER, AVX2)
    assert [x.line for x in h.get("gather", [])] == [line_of(GATHER, "gather(")]


def test_gather_absent_on_contiguous_load():
    assert "gather" not in hints(NO_GATHER, AVX2)
    assert "gather" not in hints(NO_GATHER, AVX2_FAST_GATHER)


def test_scatter_on_avx512():
    h = hints(SCATTER, AVX512)
    assert [x.line for x in h["scatter"]] == [line_of(SCATTER, "scatter(")]
    assert "vscatterdps" in h["scatter"][0].message


def test_scatter_absent_on_contiguous_store():
    assert "scatter" not in hints(NO_SCATTER, AVX512)


# ---- spills --------------------------------------------------------------------------

def accumulators(count: int) -> str:
    """`count` f32x8 accumulators live across the loop (each an independent FMA chain)."""
    lines = ["export func k(x: *restrict f32, out: *restrict mut f32, n: i32) {"]
    lines += [f"    let mut a{j}: f32x8 = splat(0.0)" for j in range(count)]
    lines += ["    let mut i: i32 = 0", "    while i + 8 <= n {", "        let v: f32x8 = load_f32x8(x, i)"]
    lines += [f"        a{j} = fma(a{j}, v, v)" for j in range(count)]
    lines += ["        i = i + 8", "    }", f"    store(out, 0, {' .+ '.join(f'a{j}' for j in range(count))})", "}"]
    return "\n".join(lines) + "\n"


def test_spills_with_40_live_vectors():
    """16 ymm registers cannot hold 40 accumulators: inside the loop LLVM
    writes `vmovups %ymm15, 608(%rsp)` and reads `vmovups 576(%rsp), %ymm15`
    (27 loads and 26 stores per iteration where the source loads one vector)."""
    text = accumulators(40)
    report = inspect(text, "k.ea", AVX2)
    loop = report.functions[0].loops[0]
    assert loop.per_iteration.loads > 20 and loop.per_iteration.stores > 20  # the spill traffic is there
    assert "spills" in hints(text, AVX2)


def test_spills_absent_with_8_live_vectors():
    text = accumulators(8)
    loop = inspect(text, "k.ea", AVX2).functions[0].loops[0]
    assert (loop.per_iteration.loads, loop.per_iteration.stores) == (1, 0)
    assert "spills" not in hints(text, AVX2)


# ---- load-ports ----------------------------------------------------------------------

EIGHT_LOADS = kernel("""
    let s: f32x8 = load(a, i) .+ load(b, i) .+ load(c, i) .+ load(d, i) .+ load(e, i) .+ load(f, i) .+ load(g, i) .+ load(h, i)
    store(out, i, s)
""", "a: *restrict f32, b: *restrict f32, c: *restrict f32, d: *restrict f32, e: *restrict f32, "
     "f: *restrict f32, g: *restrict f32, h: *restrict f32, out: *restrict mut f32")
ONE_LOAD_MANY_OPS = kernel("""
    let v: f32x8 = load(x, i)
    let v2: f32x8 = v .* v
    let v3: f32x8 = v2 .* v
    let v4: f32x8 = v3 .* v
    let v5: f32x8 = v4 .* v
    store(out, i, v2 .+ v3 .+ v4 .+ v5)
""")


def test_load_ports_eight_loads():
    h = hints(EIGHT_LOADS, AVX2)
    assert "load-ports" in h and "8 loads per iteration" in h["load-ports"][0].message


def test_load_ports_absent_one_load():
    assert "load-ports" not in hints(ONE_LOAD_MANY_OPS, AVX2)


def test_load_ports_absent_on_latency_bound_scalar_sum():
    """8 loads per iteration at 2 per cycle take 4 cycles; the 8 dependent
    vaddss take 8 x 3 = 24. Each load is folded into its add
    (`vaddss 4(%rdi,%rcx,4), %xmm0, %xmm0`), so arithmetic bounds the loop."""
    assert "load-ports" not in hints(SCALAR_SUM, AVX2)


# ---- memory-heavy -----------------------------------------------------------------------

OUTS = ", ".join(f"o{j}: *restrict mut f32" for j in range(1, 9))
FAN_OUT = kernel("let v: f32x8 = load(x, i)\n" + "".join(f"store(o{j}, i, v)\n" for j in range(1, 9)),
                 "x: *restrict f32, " + OUTS)
FAN_OUT_COMPUTE = kernel(src("""
    let v: f32x8 = load(x, i)
    let v2: f32x8 = v .* v
    let v3: f32x8 = v2 .* v
    let v4: f32x8 = v3 .* v
    let v5: f32x8 = v4 .* v
    let v6: f32x8 = v5 .* v
    let v7: f32x8 = v6 .* v
    let v8: f32x8 = v7 .* v
    store(o1, i, v2 .+ v3 .+ v4 .+ v5 .+ v6 .+ v7 .+ v8)
"""), "x: *restrict f32, " + OUTS)


def test_memory_heavy_on_pure_data_movement():
    """Per iteration: 1 load, 8 stores and no arithmetic at all (addq, cmpq,
    jbe of the loop control); the function adds only entry/exit code
    (cmpl, jl, movl, pushq, popq, vzeroupper, retq), which is not compute."""
    fr = inspect(FAN_OUT, "k.ea", AVX2).functions[0]
    assert (fr.loops[0].per_iteration.loads, fr.loops[0].per_iteration.stores) == (1, 8)
    assert "memory-heavy" in hints(FAN_OUT, AVX2)


def test_memory_heavy_absent_with_arithmetic():
    assert "memory-heavy" not in hints(FAN_OUT_COMPUTE, AVX2)
