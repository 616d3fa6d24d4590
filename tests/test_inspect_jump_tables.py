"""A loop whose body jumps through a jump table (LLVM lowers stream_store's
test of the address, a switch, to one) is still a loop to inspect: the table's
targets are the jump's successors, and a block only the table reaches does not
hide the loop's back edge. Before this, blur3's unrolled stream_store variant
lost its main loop, and the tuner's prediction timed the scalar remainder."""
from __future__ import annotations

import pytest

from ea_compiler.build import compile_source
from ea_compiler.inspect import inspect
from ea_compiler.inspect.asm import parse
from ea_compiler.inspect.cfg import natural_loops
from ea_compiler.inspect.classify import classify_arm, classify_x86
from ea_compiler.options import Options
from inspect_support import line_of, src

UNROLLED_STREAM = src("""
    export func blur3(x: *restrict f32, out: *restrict mut f32, n: i32) {
        let third: f32x4 = splat(0.33333334)
        let mut i: i32 = 1
        while i + 8 <= n - 1 {
            let s: f32x4 = load_f32x4(x, i - 1) .+ load_f32x4(x, i) .+ load_f32x4(x, i + 1)
            stream_store(out, i, s .* third)
            let t: f32x4 = load_f32x4(x, i + 3) .+ load_f32x4(x, i + 4) .+ load_f32x4(x, i + 5)
            stream_store(out, i + 4, t .* third)
            i = i + 8
        }
        while i < n - 1 {
            out[i] = (x[i - 1] + x[i] + x[i + 1]) * 0.33333334
            i = i + 1
        }
    }
""")


@pytest.mark.parametrize("cpu", ["znver3", "haswell"])
def test_main_loop_through_a_jump_table_is_found(cpu):
    options = Options(target_cpu=cpu, stream_threshold=0)
    asm = compile_source(UNROLLED_STREAM, "k.ea", options)[1].asm()
    assert ".LJTI" in asm, "the kernel no longer makes a jump table: this test checks nothing"
    (fn,) = inspect(UNROLLED_STREAM, "k.ea", options).functions
    first, last = line_of(UNROLLED_STREAM, "while i + 8"), line_of(UNROLLED_STREAM, "stream_store(out, i + 4")
    mains = [lp for lp in fn.loops if lp.role == "main"]
    assert [(lp.first_line, lp.last_line) for lp in mains] == [(first, last)]
    assert mains[0].elements_per_iteration == 8


X86 = """
    .text
    .globl f
    .type f,@function
f:
    leaq .LJTI0_0(%rip), %r9
.LBB0_1:
    movq %rsi, %rax
    andq $3, %rax
    movslq (%r9,%rax,4), %r11
    addq %r9, %r11
    jmpq *%r11
.LBB0_2:
    vmovntps %xmm0, (%rdi)
    jmp .LBB0_4
.LBB0_3:
    vmovups %xmm0, (%rdi)
.LBB0_4:
    addq $16, %rdi
    decq %rsi
    jne .LBB0_1
    retq
.Lfunc_end0:
    .section .rodata,"a",@progbits
.LJTI0_0:
    .long .LBB0_2-.LJTI0_0
    .long .LBB0_3-.LJTI0_0
    .long .LBB0_3-.LJTI0_0
    .long .LBB0_2-.LJTI0_0
"""

ARM = """
    .text
    .globl f
    .type f,@function
f:
    adrp x9, .LJTI0_0
    add x9, x9, :lo12:.LJTI0_0
.LBB0_1:
    and x8, x1, #3
    ldrb w10, [x9, x8]
    adr x11, .LBB0_2
    add x10, x11, x10, lsl #2
    br x10
.LBB0_2:
    str q0, [x0]
    b .LBB0_4
.LBB0_3:
    stnp d0, d1, [x0]
.LBB0_4:
    add x0, x0, #16
    subs x1, x1, #1
    b.ne .LBB0_1
    ret
.Lfunc_end0:
    .section .rodata,"a",@progbits
.LJTI0_0:
    .byte (.LBB0_2-.LBB0_2)>>2
    .byte (.LBB0_3-.LBB0_2)>>2
"""


@pytest.mark.parametrize("text, arm", [(X86, False), (ARM, True)], ids=["x86", "aarch64"])
def test_jump_table_targets_are_successors(text, arm):
    (fn,) = parse(text, arm)
    assert fn.jump_tables == {".LJTI0_0": [".LBB0_2", ".LBB0_3", ".LBB0_3", ".LBB0_2"] if not arm
                              else [".LBB0_2", ".LBB0_3"]}
    infos = [(classify_arm if arm else classify_x86)(ins) for ins in fn.instrs]
    (loop,) = natural_loops(fn, infos, arm)
    body = {fn.instrs[i].mnemonic for i in loop.instrs}
    assert {"vmovntps", "vmovups"} <= body if not arm else {"str", "stnp"} <= body
    assert loop.header == fn.labels[".LBB0_1"]
