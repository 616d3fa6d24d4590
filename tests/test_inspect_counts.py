"""`ea_compiler.inspect`: exact counts on small kernels whose machine code is
known (TOOLCHAIN.md §6). Every build names its CPU so results do not depend
on the host: haswell for AVX2, skylake-avx512 + --avx512 for AVX-512, and
AArch64 by cross-compilation (only assembly is needed).

The expected numbers are read off the assembly LLVM emits for these
kernels (`ea k.ea --emit-asm --target=haswell`); the excerpts in the
comments are that assembly."""
from __future__ import annotations

from ea_compiler.inspect import inspect, render_text

from ea_compiler.options import Options
from inspect_support import ARM, AVX2, AVX512, line_of, src  # noqa: F401


def only(text: str, options: Options):
    report = inspect(text, "k.ea", options)
    assert len(report.functions) == 1, [f.name for f in report.functions]
    return report.functions[0]


def mnemonics(mix: dict, prefix: str, reg: str = "") -> int:
    """How many instructions of a mix start with `prefix` and name register class `reg`."""
    return sum(n for key, n in mix.items() if key.startswith(prefix) and reg in key)


def main_loop(fr):
    mains = [lp for lp in fr.loops if lp.role == "main"]
    assert len(mains) == 1, [lp.role for lp in fr.loops]
    return mains[0]


# .LBB0_2:  vmovups -32(%rdi,%rcx,4), %ymm0          (line 4)
#           vmovups -32(%rsi,%rcx,4), %ymm1          (line 5)
#           vfmadd213ps -32(%rdx,%rcx,4), %ymm0, %ymm1   (line 7; the load of line 6 is folded in)
#           vmovups %ymm1, -32(%rdx,%rcx,4)          (line 7)
#           addq $8, %rcx; cmpq %rax, %rcx; jbe .LBB0_2   (line 2)
FMA8 = src("""
    export kernel k(a: *restrict f32, b: *restrict f32, out: *restrict mut f32)
        over i in n step 8
    {
        let va: f32x8 = load(a, i)
        let vb: f32x8 = load(b, i)
        let vo: f32x8 = load(out, i)
        store(out, i, fma(va, vb, vo))
    }
""")
FMA16 = FMA8.replace("f32x8", "f32x16").replace("step 8", "step 16")
FMA4 = FMA8.replace("f32x8", "f32x4").replace("step 8", "step 4")


def test_fma_f32x8_avx2_totals():
    fr = only(FMA8, AVX2)
    assert fr.name == "k" and fr.exported
    c = fr.counts
    # 4 vector: 2 vmovups loads, vfmadd213ps, vmovups store; 9 scalar:
    # cmpl jl movl movl (entry), addq cmpq jbe (loop), vzeroupper retq.
    assert (c.vector, c.scalar, c.instructions) == (4, 9, 13)
    assert (c.loads, c.stores, c.fma) == (3, 1, 1)
    assert (c.bytes_loaded, c.bytes_stored) == (96, 32)
    assert fr.width_bits == 256 and fr.width_type == "f32x8"
    assert fr.vector_width == "256-bit (f32x8)"
    assert fr.registers == ["ymm0", "ymm1"]


def test_fma_f32x8_avx2_main_loop_per_iteration():
    fr = only(FMA8, AVX2)
    assert len(fr.loops) == 1
    lp = main_loop(fr)
    p = lp.per_iteration
    assert (p.instructions, p.vector, p.scalar) == (7, 4, 3)
    assert (p.loads, p.stores, p.fma) == (3, 1, 1)
    assert mnemonics(lp.mix, "vfmadd", "ymm") == 1
    assert mnemonics(lp.mix, "vfmadd") == 1
    assert (p.bytes_loaded, p.bytes_stored) == (96, 32)
    assert p.flops == 16  # 8 lanes x (multiply + add)
    assert lp.elements_per_iteration == 8
    assert (lp.first_line, lp.last_line, lp.header_line, lp.depth) == (2, 7, 2, 0)


def test_fma_f32x16_avx512_uses_zmm():
    fr = only(FMA16, AVX512)
    assert fr.vector_width == "512-bit (f32x16)"
    assert fr.registers == ["zmm0", "zmm1"]
    lp = main_loop(fr)
    p = lp.per_iteration
    assert (p.loads, p.stores, p.fma) == (3, 1, 1)
    assert mnemonics(lp.mix, "vfmadd", "zmm") == 1
    assert mnemonics(lp.mix, "vfmadd", "ymm") == 0
    assert (p.bytes_loaded, p.bytes_stored) == (192, 64)
    assert lp.elements_per_iteration == 16
    assert p.flops == 32


def test_same_kernel_differs_by_target():
    narrow, wide = only(FMA8, AVX2), only(FMA16, AVX512)
    assert narrow.width_bits * 2 == wide.width_bits
    assert main_loop(narrow).per_iteration.bytes_loaded * 2 == main_loop(wide).per_iteration.bytes_loaded


# ---- per-line attribution -----------------------------------------------------

LINES = src("""
    export kernel k(a: *restrict f32, b: *restrict f32, c: *restrict f32, out: *restrict mut f32) over i in n step 8 {
        let va: f32x8 = load(a, i)
        let vb: f32x8 = load(b, i)
        let vc: f32x8 = load(c, i)
        let r: f32x8 = fma(va, vb, vc)
        store(out, i, r)
    }
""")


def test_lines_loads_fma_store():
    fr = only(LINES, AVX2)
    load_a = fr.lines[line_of(LINES, "load(a, i)")]
    assert (load_a.counts.loads, load_a.counts.vector, load_a.counts.bytes_loaded) == (1, 1, 32)
    assert load_a.counts.stores == load_a.counts.fma == 0
    fma = fr.lines[line_of(LINES, "fma(va")]
    assert fma.counts.fma == 1 and fma.counts.stores == 0
    assert mnemonics(fma.mix, "vfmadd", "ymm") == 1
    assert "vfmadd" in fma.summary and "ymm" in fma.summary
    store = fr.lines[line_of(LINES, "store(out")]
    assert (store.counts.stores, store.counts.bytes_stored, store.counts.fma) == (1, 32, 0)
    assert store.counts.loads == 0
    assert "store" in store.summary


def test_lines_loop_control_on_kernel_header():
    fr = only(LINES, AVX2)
    header = fr.lines[1]
    assert {"addq", "cmpq", "jbe"} <= set(header.mix)  # the increment, compare and back edge
    assert header.counts.vector == 0 and header.counts.loads == 0
    for name in ("load(a, i)", "fma(va", "store(out"):
        assert "jbe" not in fr.lines[line_of(LINES, name)].mix


def test_lines_loop_control_on_over_line():
    fr = only(FMA8, AVX2)
    over = fr.lines[line_of(FMA8, "over i in n")]
    assert {"addq", "cmpq", "jbe"} <= set(over.mix)
    body = fr.lines[line_of(FMA8, "store(out")]
    assert body.counts.fma == 1 and body.counts.stores == 1 and body.counts.loads == 1


def test_lines_add_up_to_loop():
    """Every instruction of the loop lands on some line; the lines' counts sum to the loop's."""
    fr = only(LINES, AVX2)
    lp = main_loop(fr)
    lines = [fr.lines[n].counts for n in range(lp.first_line, lp.last_line + 1) if n in fr.lines]
    assert sum(c.fma for c in lines) == lp.per_iteration.fma
    assert sum(c.stores for c in lines) == lp.per_iteration.stores
    assert sum(c.vector for c in lines) == lp.per_iteration.vector


# ---- bottleneck class -----------------------------------------------------------

def test_saxpy_like_is_memory_bound():
    assert main_loop(only(FMA8, AVX2)).bottleneck == "memory-bound"


COMPUTE = src("""
    export kernel k(x: *restrict f32, out: *restrict mut f32) over i in n step 8 {
        let v: f32x8 = load(x, i)
        let mut y: f32x8 = v
    """) + "    y = fma(y, v, v)\n" * 40 + src("""
        store(out, i, y)
    }
""")


def test_many_fmas_per_load_is_compute_bound():
    fr = only(COMPUTE, AVX2)
    lp = main_loop(fr)
    assert lp.per_iteration.fma == 40
    assert (lp.per_iteration.loads, lp.per_iteration.stores) == (1, 1)
    assert lp.bottleneck == "compute-bound"


# ---- loops and roles ----------------------------------------------------------------

SAXPY = src("""
    export kernel saxpy(x: *restrict f32, y: *restrict mut f32, a: f32)
        over i in n step 8
        tail scalar { y[i] = fma(a, x[i], y[i]) }
    {
        let va: f32x8 = splat(a)
        store(y, i, fma(va, load(x, i), load(y, i)))
    }
""")


def test_tail_scalar_roles():
    """The body loop is main; the scalar tail stays one scalar loop (codegen
    tells LLVM not to vectorise or unroll it: it runs at most step-1 times)."""
    report = inspect(SAXPY, "k.ea", AVX2)
    fr = report.functions[0]
    assert [lp.role for lp in fr.loops] == ["main", "tail"]
    assert "  loops:                2 (1 main, 1 tail)" in render_text(report).splitlines()
    assert all(lp.depth == 0 for lp in fr.loops)
    body, tail = line_of(SAXPY, "store(y"), line_of(SAXPY, "tail scalar")
    main, scalar = fr.loops
    assert main.first_line <= body <= main.last_line
    assert scalar.first_line <= tail <= scalar.last_line
    assert fr.auto_vectorised == [] and scalar.llvm_vector_bits == 0


def test_tail_scalar_per_iteration():
    fr = only(SAXPY, AVX2)
    main, scalar = fr.loops
    # main: movq, vmovups, vfmadd213ps (mem), vmovups store, addq, addq, cmpq, jbe
    assert (main.per_iteration.instructions, main.per_iteration.vector) == (8, 3)
    assert (main.per_iteration.loads, main.per_iteration.stores, main.per_iteration.fma) == (2, 1, 1)
    assert main.elements_per_iteration == 8
    # the tail: vmovss, vfmadd213ss (mem), vmovss store, incq, cmpq, jne
    assert (scalar.per_iteration.fma, scalar.per_iteration.loads, scalar.per_iteration.stores) == (1, 2, 1)
    assert scalar.per_iteration.vector == 0 and scalar.elements_per_iteration is None


def test_scalar_tail_loop_is_only_its_own_instructions():
    """The scalar remainder is
        .LBB0_5: vmovss (%rdi,%rcx,4), %xmm1; vfmadd213ss (%rsi,%rcx,4), %xmm0, %xmm1
                 vmovss %xmm1, (%rsi,%rcx,4); incq %rcx; cmpq %rcx, %rax; jne .LBB0_5
    6 instructions on lines 2-3, none of the main loop's or the return's."""
    fr = only(SAXPY, AVX2)
    scalar = fr.loops[-1]
    p = scalar.per_iteration
    assert (p.loads, p.stores, p.fma, p.vector) == (2, 1, 1, 0)
    assert p.instructions == 6
    assert scalar.last_line == line_of(SAXPY, "tail scalar")


VMAX = src("""
    export func vmax(x: *restrict f32, n: i32) -> f32 {
        let mut best: f32x8 = splat(x[0])
        let mut i: i32 = 0
        while i + 8 <= n {
            best = max(best, load_f32x8(x, i))
            i = i + 8
        }
        let mut m: f32 = reduce_max(best)
        while i < n {
            m = max(m, x[i])
            i = i + 1
        }
        return m
    }
""")


def test_loops_entered_from_below_are_not_nested():
    """Two source loops, none nested. LLVM makes three machine loops: the
    f32x8 loop (9 instructions), the second loop vectorised 4x8 with an early
    exit (31 instructions, .LBB0_7) and its scalar remainder (7 instructions,
    .LBB0_13). The vector epilogue ends in `jne .LBB0_13` (entering the
    remainder), which is no back edge: no loop of 99 instructions, none nested."""
    fr = only(VMAX, AVX2)
    assert all(lp.depth == 0 for lp in fr.loops), [(lp.role, lp.depth) for lp in fr.loops]
    assert sorted(lp.per_iteration.instructions for lp in fr.loops) == [7, 9, 31]


# ---- elements and bytes per iteration --------------------------------------------------

STEP1 = src("""
    export kernel k(x: *restrict f32, out: *restrict mut f32) over i in n step 1 {
        out[i] = x[i] * 2.0
    }
""")


def test_elements_with_negative_immediate_step():
    """LLVM vectorises the step-1 kernel 4 x f32x8 and advances the byte offset
    with `subq $-128, %r8` (-128 fits an 8-bit immediate, +128 does not):
    32 elements per iteration."""
    fr = only(STEP1, AVX2)
    lp = max(fr.loops, key=lambda lp: lp.per_iteration.vector)
    assert (lp.per_iteration.loads, lp.per_iteration.stores) == (4, 4)
    assert lp.per_iteration.bytes_loaded == 128
    assert lp.elements_per_iteration == 32


WIDEN = src("""
    export kernel k(px: *restrict u8, out: *restrict mut f32) over i in n step 8 {
        let b: u8x16 = load(px, i)
        store(out, i, widen_u8_f32x8(b))
    }
""")


def test_widening_load_bytes():
    """`vpmovzxbd -8(%rdi,%rcx), %ymm0` reads 8 bytes (eight u8 lanes), not 32."""
    fr = only(WIDEN, AVX2)
    lp = main_loop(fr)
    assert (lp.per_iteration.loads, lp.per_iteration.stores) == (1, 1)
    assert lp.elements_per_iteration == 8
    assert lp.per_iteration.bytes_stored == 32
    assert lp.per_iteration.bytes_loaded == 8


# ---- AArch64 (cross-compiled) ----------------------------------------------------

def test_aarch64_fmla_counts():
    # .LBB0_2: ldr q0, [x0], #16; ldr q2, [x2]; ldr q1, [x1], #16; add x9, x9, #4
    #          cmp x9, x8; fmla v2.4s, v1.4s, v0.4s; str q2, [x2], #16; b.ls .LBB0_2
    fr = only(FMA4, ARM)
    assert fr.counts.fma == 1
    assert (fr.counts.loads, fr.counts.stores) == (3, 1)
    assert fr.vector_width == "128-bit (f32x4)"
    assert fr.registers == ["q0", "q1", "q2", "v0", "v1", "v2"]
    lp = main_loop(fr)
    p = lp.per_iteration
    assert (p.instructions, p.vector, p.loads, p.stores, p.fma) == (8, 5, 3, 1, 1)
    assert mnemonics(lp.mix, "fmla") == 1
    assert (p.bytes_loaded, p.bytes_stored) == (48, 16)
    assert lp.elements_per_iteration == 4
    assert fr.lines[line_of(FMA4, "store(out")].counts.fma == 1


def test_aarch64_tail_scalar_fma():
    """saxpy with f32x4 on AArch64: fmla (vector) and fmadd (scalar tail) are
    FMAs; the tail is one scalar loop."""
    text = SAXPY.replace("f32x8", "f32x4").replace("step 8", "step 4")
    fr = only(text, ARM)
    assert fr.counts.fma == 2
    assert [lp.role for lp in fr.loops] == ["main", "tail"]
    main, scalar = fr.loops
    assert main.elements_per_iteration == 4 and mnemonics(main.mix, "fmla") == 1
    assert scalar.per_iteration.fma == 1 and scalar.per_iteration.vector == 0


def test_aarch64_pointer_bumps():
    """The step-1 kernel, vectorised by LLVM: `ldp q0, q1, [x10, #-16]`, and the
    pointers bumped with `add x10, x10, #32`: 8 f32 elements per iteration."""
    fr = only(STEP1, ARM)
    lp = main_loop(fr)
    assert mnemonics(lp.mix, "fadd") == 2 and lp.per_iteration.bytes_loaded == 32
    assert lp.elements_per_iteration == 8
