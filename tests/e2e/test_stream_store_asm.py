"""Which non-temporal stores `stream_store` compiles to on each alignment path,
read from the machine code (compile only, pinned targets, never run):
haswell (AVX2, no SSE4a: 4- and 8-byte pieces are movnti), znver3 (AVX2 and
SSE4a: movntss/movntsd), skylake-avx512 with --avx512 (zmm). A kernel's main
loop is copied once per misalignment class (compiler/codegen/ntloop.py); each
copy's stores are checked: full-width non-temporal stores when aligned or
realigned, the widest aligned pieces where the stores are not a run, a plain
store for addresses not 4-byte aligned; and, before them, the peeled
prologue (compiler/codegen/ntpeel.py): the tail's scalar stores."""
from __future__ import annotations

import textwrap
import pytest

from ea_compiler import Options
from ea_compiler.build import compile_source
from ea_compiler.inspect.asm import parse
from ea_compiler.inspect.cfg import natural_loops
from ea_compiler.inspect.classify import classifier

TRIPLE = "x86_64-unknown-linux-gnu"
TARGETS = {"haswell": Options(target_triple=TRIPLE, target_cpu="haswell"),
           "znver3": Options(target_triple=TRIPLE, target_cpu="znver3"),
           "skylake-avx512": Options(target_triple=TRIPLE, target_cpu="skylake-avx512", avx512=True)}
NT = ("movnt", "vmovnt")

SCALE = """
    export kernel scale(x: *f32, out: *mut f32, s: f32)
        over i in n step {lanes}
        tail scalar {{ out[i] = x[i] * s }}
    {{
        stream_store(out, i, load_f32x{lanes}(x, i) .* splat(s))
    }}
"""

UNDER_IF = """
    export kernel clip(x: *f32, out: *mut f32, t: f32)
        over i in n step 8
        tail scalar { out[i] = max(x[i], t) }
    {
        let v: f32x8 = load(x, i)
        let tt: f32x8 = splat(t)
        if t > 0.0 { stream_store(out, i, max(v, tt)) } else { stream_store(out, i, max(tt, v)) }
    }
"""

FUNCTION = """
    export func put(p: *mut f32, i: i32, v: f32x8) {
        stream_store(p, i, v)
    }
"""


def stores(src: str, options: Options):
    """(stores of each outermost loop running line 5+, stores outside loops): (mnemonic, bytes) lists."""
    analysis, module = compile_source(textwrap.dedent(src), "k.ea", options)
    assert module is not None, analysis.errors
    (fn,) = parse(module.asm(), False)
    infos = [classifier(False)(ins) for ins in fn.instrs]
    loops = [lp for lp in natural_loops(fn, infos, False) if lp.depth == 0]
    inside = {i for lp in loops for i in lp.instrs}

    def of(indices):
        return [(fn.instrs[i].mnemonic, infos[i].store_bytes) for i in indices if infos[i].stores]
    bodies = [of(lp.instrs) for lp in loops if any(fn.instrs[i].line and fn.instrs[i].line >= 5 for i in lp.instrs)]
    return bodies, of(i for i in range(len(fn.instrs)) if i not in inside)


@pytest.mark.parametrize("target,lanes", [("haswell", 8), ("znver3", 8), ("skylake-avx512", 16), ("znver3", 4)])
def test_every_copy_of_the_loop_stores_full_width_nontemporal_but_one(target, lanes):
    """Aligned and realigned copies: one full-width non-temporal store per
    vector; the copy for addresses not 4-byte aligned: a plain store."""
    size = lanes * 4
    bodies, outside = stores(SCALE.format(lanes=lanes), TARGETS[target])
    peel = [b for b in bodies if b == [("vmovss", 4)]]
    assert len(peel) == 1, bodies  # the tail, run first up to the output's boundary
    bodies = [b for b in bodies if b not in peel]
    assert len(bodies) == size // 4 + 1, bodies
    plain = [b for b in bodies if not any(m.startswith(NT) for m, _ in b)]
    assert plain == [[("vmovups", size)]], bodies
    for body in bodies:
        if body not in plain:
            assert len(body) == 1 and body[0][0].startswith(NT) and body[0][1] == size, body
    # The runs' first and last partial blocks: aligned non-temporal pieces, narrower than a vector.
    pieces = [(m, b) for m, b in outside if m.startswith(NT)]
    assert {b for _, b in pieces} == {w for w in (4, 8, 16, 32) if w < size}, outside
    small = {m for m, b in pieces if b < 16}
    if target == "znver3":
        assert {"movntss", "movntsd"} <= small, small
    else:
        assert small == {"movntil", "movntiq"}, small  # no SSE4a (Intel): from a general register


@pytest.mark.parametrize("target", ["haswell", "znver3"])
def test_stores_that_are_not_a_run_become_aligned_pieces(target):
    """Stores under an `if`: each copy of the loop has the pieces of its class
    (LLVM may unswitch the `if` and merge the two stores: copies of copies)."""
    bodies, _ = stores(UNDER_IF, TARGETS[target])
    widths = {tuple(sorted(b for _, b in body)) for body in bodies}
    # per class: 0 (and the plain copy); 16; 8 and 24; 4/20 and 12/28 (the same widths in another order)
    assert widths == {(32,), (16, 16), (8, 8, 16), (4, 4, 8, 16)}, widths
    for body in bodies:
        assert all(m.startswith(NT) for m, _ in body) or {m for m, _ in body} == {"vmovups"}, body
        if target == "haswell":
            assert not any(m in ("movntss", "movntsd") for m, _ in body), body
        else:
            assert all(m in ("movntss", "movntsd", "movntil") for m, b in body if b < 16), body


@pytest.mark.parametrize("target", ["haswell", "znver3", "skylake-avx512"])
def test_a_store_outside_a_kernel_loop_tests_its_address(target):
    """A function's stream_store: one case per misalignment class, all non-temporal, and a plain store."""
    src = FUNCTION.replace("f32x8", "f32x16") if target == "skylake-avx512" else FUNCTION
    size = 64 if target == "skylake-avx512" else 32
    _, outside = stores(src, TARGETS[target])
    nt = [(m, b) for m, b in outside if m.startswith(NT)]
    assert ("vmovntps", size) in nt and ("vmovups", size) in outside, outside
    assert {b for _, b in nt} == {w for w in (4, 8, 16, 32, 64) if w <= size}, nt
    if target == "znver3":
        assert {"movntss", "movntsd"} <= {m for m, _ in nt}
    else:
        assert not {"movntss", "movntsd"} & {m for m, _ in nt}
