"""Moves that carry a value round a loop's back edge (compiler/inspect/predict/carried.py):
llvm-mca's Zen models eliminate them and lose the chain through them; the chain is timed on a
second body where they are one-cycle ops and the folded loads beside them are unfolded.
The detection and the rewrite are checked on bodies written here; the figures on a kernel
compiled for a pinned znver3 target with a fixed memory model, never this host's."""
from __future__ import annotations

import textwrap

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import predict_function
from ea_compiler.inspect.predict import Limit, MemoryModel, mca
from ea_compiler.inspect.predict.carried import carried_moves, chain_body
from ea_compiler.options import Options

MEM = MemoryModel({"L1": 32 << 10, "L2": 512 << 10, "L3": 32 << 20},
                  {"L1": 64.0, "L2": 32.0, "L3": 16.0, "DRAM": 4.0}, ghz=3.0, call_cycles=12.0, source="fixed")
ZEN3 = Options(target_cpu="znver3")
_found = mca.available()
needs_mca = pytest.mark.skipif(_found is None or _found[1] not in ("llvm-mca 14", "llvm-mca 16"),
                               reason="exact figures are llvm-mca 14's and 16's (apt-get install llvm-16)")

# LLVM's loop for the kernel below: the accumulator goes in as the first fma's addend (ymm1)
# and comes back through a move from ymm0.
DOT1_BODY = [
    "vmovups -128(%rdi,%rcx,4), %ymm0", "vmovups -96(%rdi,%rcx,4), %ymm2",
    "vfmadd132ps -128(%rsi,%rcx,4), %ymm1, %ymm0", "vfmadd231ps -96(%rsi,%rcx,4), %ymm2, %ymm0",
    "addq $32, %rcx", "vmovaps %ymm0, %ymm1", "cmpq %rax, %rcx", "jbe .LBB0_2"]

DOT1 = textwrap.dedent("""\
    // one accumulator, four fmas an iteration
    export func dot1(a: *restrict f32, b: *restrict f32, n: i32) -> f32 {
        let mut s: f32x8 = splat(0.0)
        let mut i: i32 = 0
        while i + 32 <= n {
            s = fma(load_f32x8(a, i), load_f32x8(b, i), s)
            s = fma(load_f32x8(a, i + 8), load_f32x8(b, i + 8), s)
            s = fma(load_f32x8(a, i + 16), load_f32x8(b, i + 16), s)
            s = fma(load_f32x8(a, i + 24), load_f32x8(b, i + 24), s)
            i = i + 32
        }
        return reduce_add(s)
    }
""")


def test_a_move_whose_value_the_next_iteration_reads_is_carried():
    assert carried_moves(DOT1_BODY) == [5]
    gpr = ["movq (%rdi), %rbx", "imulq %rcx, %rbx", "movq %rbx, %rcx", "decq %rax", "jne .L"]
    assert carried_moves(gpr) == [2]


@pytest.mark.parametrize("body", [
    ["vmovaps %ymm5, %ymm1", "vaddps %ymm1, %ymm2, %ymm2", "jne .L"],  # copies a value from outside the loop
    ["vaddps %ymm3, %ymm2, %ymm2", "vmovaps %ymm2, %ymm1", "vmulps %ymm4, %ymm4, %ymm1", "jne .L"],  # written before read
    ["vaddps %ymm3, %ymm2, %ymm2", "vmovaps %ymm2, %ymm1", "vaddps %ymm1, %ymm1, %ymm6", "jne .L"],  # read after it
    ["vaddps %ymm3, %ymm0, %ymm0", "vmovq %xmm0, %rax", "addq %rax, %rbx", "jne .L"],  # a transfer, not a move
    ["vmulps %ymm1, %ymm2, %ymm2", "vmovaps %ymm2, %ymm2", "jne .L"],
])
def test_moves_that_carry_nothing(body):
    assert carried_moves(body) == []
    assert chain_body(body) is None


def test_the_chain_body_makes_the_move_an_op_and_unfolds_the_loads_beside_it():
    body, moves = chain_body(DOT1_BODY)
    assert moves == 1
    assert body == [
        "vmovups -128(%rdi,%rcx,4), %ymm0", "vmovups -96(%rdi,%rcx,4), %ymm2",
        "vmovups -128(%rsi,%rcx,4), %ymm15", "vfmadd132ps %ymm15, %ymm1, %ymm0",
        "vmovups -96(%rsi,%rcx,4), %ymm15", "vfmadd231ps %ymm15, %ymm2, %ymm0",
        "addq $32, %rcx", "vorps %ymm0, %ymm0, %ymm1", "cmpq %rax, %rcx", "jbe .LBB0_2"]
    scalar, _ = chain_body(["vaddss (%rsi), %xmm1, %xmm0", "vmovaps %xmm0, %xmm1", "jne .L"])
    assert scalar[:2] == ["vmovss (%rsi), %xmm15", "vaddss %xmm15, %xmm1, %xmm0"]
    gpr, _ = chain_body(["movl (%rdi), %ebx", "imull %ecx, %ebx", "movl %ebx, %ecx", "jne .L"])
    assert gpr[2] == "leal (%rbx), %ecx"


@needs_mca
def test_a_dot_product_with_one_accumulator_is_bound_by_its_chain_of_four_fmas():
    """llvm-mca on the loop as written: 4.32 cycles (the loads), the chain lost; measured on the
    Zen 3 of 2026-11-27 (native calls, 2 KiB arrays): 13.3 cycles an iteration."""
    analysis, module = compile_source(DOT1.encode(), "dot1.ea", ZEN3)
    main = predict_function(analysis, module, "dot1", working_set_bytes=16 << 10, memory=MEM, alignment=64).main
    assert (main.limit, main.cycles_per_iter, main.latency_cycles) == (Limit.LATENCY, 16.07, 16.07)
    assert main.ports_cycles == 4.0  # the ports come from the body as written


_VOCAB = ["vmovaps %ymm0, %ymm1", "vmovaps %zmm2, %zmm3 {%k1}", "movq %rax, %rbx", "movq %xmm0, %rax",
          "movl %r8d, %ecx", "movq %rsp, %rbp", "vaddps (%rsi), %ymm1, %ymm0", "vaddss 4(%rdi,%rcx,4), %xmm1, %xmm1",
          "vfmadd132ps -32(%rsi), %ymm1, %ymm0", "vpaddd (%rax){1to16}, %zmm1, %zmm2", "vmovups %ymm0, (%rdi)",
          "vinsertf128 $1, (%rax), %ymm0, %ymm0", "vshufps $68, (%rdx), %ymm2, %ymm3", "addq $8, %rcx", "jne .L",
          "vmovdqu32 %zmm31, %zmm30", "vorps %xmm15, %xmm15, %xmm14", "nop", "", "ret", "vzeroupper",
          "vpblendvb %ymm3, (%rsi), %ymm1, %ymm2", "leaq (%rax,%rbx,4), %rcx", "movss (%rdi), %xmm0"]


@pytest.mark.parametrize("seed", range(40))
def test_any_body_gives_a_chain_body_or_none(seed):
    import random
    rng = random.Random(seed)
    body = [rng.choice(_VOCAB) for _ in range(rng.randint(0, 14))]
    got = chain_body(body)  # never raises
    assert got is None or (got[1] == len(carried_moves(body)) and len(got[0]) >= len(body))
