"""DWARF line tables: `--emit-llvm` carries a `!DILocation` for the lines of
a kernel body, the object has a .debug_line section, and debug info does not
change the optimised machine code.

There is no command-line switch to turn debug info off, so the comparison is
done in-process: the compiler's own unoptimised IR with every `!dbg`
attachment and metadata line removed is run through the compiler's own
pipeline (`CompiledModule`, same options) and the two assembly listings are
compared with debug directives (.loc/.file/.cfi_*, .Ltmp/.Lfunc_begin labels,
.debug_* sections) filtered out."""
from __future__ import annotations

import re

import pytest

from ea_compiler.codegen import CompiledModule
from ea_compiler.build import compile_source
from ea_compiler.options import Options

from .harness import ROOT, ea

KERNEL = """struct P { x: f32, y: f32 }
func half(v: f32) -> f32 { return v * 0.5 }
export kernel blend(a: *restrict f32, b: *restrict f32, o: *mut f32, t: f32)
    over i in n step 8
    tail scalar { o[i] = a[i] + t * (b[i] - a[i]) }
{
    let va: f32x8 = load(a, i)
    let vb: f32x8 = load(b, i)
    let d: f32x8 = vb .- va
    store(o, i, fma(d, splat(half(t)), va))
}
export func total(ps: *P, n: i32) -> f32 {
    let mut s: f32 = 0.0
    foreach (k in 0..n) {
        if ps[k].x > 0.0 { s = s + ps[k].y }
    }
    return s
}
"""
BODY_LINES = [5, 7, 8, 9, 10]          # tail and body statements of `blend`
STORE_LINES = [5, 10]                  # lines whose stores survive -O3
TOTAL_LINES = [13, 14, 15, 17]


def locations(ir: str) -> set[int]:
    """Lines of `!DILocation(line: N, ...)` nodes, in LLVM's own spelling."""
    return {int(m) for m in re.findall(r"!DILocation\(line: (\d+)", ir)}


def test_emit_llvm_has_line_locations_for_kernel_body(tmp_path):
    (tmp_path / "k.ea").write_text(KERNEL)
    p3 = ea("k.ea", "--emit-llvm", cwd=tmp_path)
    assert p3.returncode == 0, p3.stderr
    assert set(STORE_LINES) <= locations(p3.stdout), sorted(locations(p3.stdout))
    assert re.search(r'!DISubprogram\(name: "blend"', p3.stdout)
    assert re.search(r'!DIFile\(filename: "k.ea", directory: "[^"]+"', p3.stdout)
    assert "distinct !DICompileUnit(" in p3.stdout
    assert re.search(r"^define void @blend\(.*!dbg !\d+", p3.stdout, re.M)


def test_emit_llvm_opt0_has_a_location_for_every_body_line(tmp_path):
    """At -O0 nothing is folded away: every statement line of the kernel
    body and tail, and of `total`, has a `!DILocation(line: N` node and every
    instruction of the defined functions carries `!dbg`."""
    (tmp_path / "k.ea").write_text(KERNEL)
    p0 = ea("k.ea", "--emit-llvm", "--opt-level=0", cwd=tmp_path)
    assert p0.returncode == 0, p0.stderr
    body = [ln for ln in p0.stdout.splitlines()
            if re.match(r"\s+(%\S+ = )?(store|load|call|br|ret|fadd|fmul)\b", ln)]
    assert body and all("!dbg" in ln for ln in body), [ln for ln in body if "!dbg" not in ln][:3]
    any_order = {int(m) for m in re.findall(r"!DILocation\([^)]*\bline: (\d+)", p0.stdout)}
    assert set(BODY_LINES + TOTAL_LINES) <= any_order, sorted(any_order)
    # Printed by LLVM, as upstream does: `!DILocation(line: 7, column: 5, scope: !6)`
    # and opaque `ptr` types, not the builder's own text.
    assert set(BODY_LINES + TOTAL_LINES) <= locations(p0.stdout), re.findall(r"!DILocation\([^)]*\)", p0.stdout)[:2]
    assert not re.search(r"\b(float|i32)\*", p0.stdout)


def test_object_and_asm_carry_line_tables(tmp_path):
    (tmp_path / "k.ea").write_text(KERNEL)
    assert ea("k.ea", cwd=tmp_path).returncode == 0
    assert b".debug_line" in (tmp_path / "k.o").read_bytes()
    assert ea("k.ea", "--emit-asm", cwd=tmp_path).returncode == 0
    asm = (tmp_path / "k.s").read_text()
    assert re.search(r'^\s*\.file\s+\d+\s+"[^"]*"\s+"k.ea"', asm, re.M)
    loc_lines = {int(m) for m in re.findall(r"^\s*\.loc\s+\d+\s+(\d+)", asm, re.M)}
    assert set(STORE_LINES) <= loc_lines, sorted(loc_lines)


def strip_debug_ir(ir: str) -> str:
    ir = re.sub(r",?\s*!dbg !\d+", "", ir)
    # drop the debug metadata, keep the rest (loop IDs, !nontemporal)
    debug = re.compile(r"DI[A-Z]|llvm\.dbg|llvm\.module\.flags|Dwarf Version|Debug Info Version")
    kept = [ln for ln in ir.splitlines() if not (ln.startswith("!") and debug.search(ln))]
    text = "\n".join(kept) + "\n"
    assert "!DI" not in text and "!dbg" not in text
    return text


def strip_debug_asm(asm: str) -> list[str]:
    out, in_debug = [], False
    for line in asm.splitlines():
        s = line.strip()
        if s.startswith(".section"):
            in_debug = ".debug_" in s
            if in_debug:
                continue
        if in_debug or re.match(r"\.(loc|file|cfi_\w+)\b", s) or re.match(r"\.L(tmp|func_begin)\d+:", s):
            continue
        out.append(line)
    return out


EXAMPLES = ["clip_mask.ea", "dot.ea", "fma.ea", "normalize_u8.ea", "particles.ea", "reductions.ea",
            "saxpy.ea", "threshold_u8.ea"]
SOURCES = [("k.ea", KERNEL)] + [(n, (ROOT / "examples" / n).read_text()) for n in EXAMPLES]


@pytest.mark.parametrize("opt", [3, 1])
def test_debug_info_does_not_change_code(opt):
    options = Options(opt_level=opt)
    for name, src in SOURCES:
        analysis, module = compile_source(src, name, options)
        assert module is not None, (name, [d.message for d in analysis.diagnostics])
        assert "!dbg" in module.unoptimized_ir and "DILocation" in module.unoptimized_ir
        # asm() is taken once per module: see test_emitting_does_not_mutate_the_module.
        with_dbg = module.asm()
        without = CompiledModule(strip_debug_ir(module.unoptimized_ir), options).asm()
        assert ".loc" in with_dbg and ".loc" not in without
        assert strip_debug_asm(with_dbg) == strip_debug_asm(without), name


def test_emitting_does_not_mutate_the_module():
    """In-process API: `ir()`, `asm()` and `object()` are views of one
    optimised module, so asking twice, or in another order, gives the same
    result (the machine-code pipeline must not rewrite the module in place)."""
    src = (ROOT / "examples" / "fma.ea").read_text()
    _, first = compile_source(src, "fma.ea", Options())
    _, fresh = compile_source(src, "fma.ea", Options())
    ir_before = first.ir()
    asm_once = first.asm()
    assert first.ir() == ir_before
    assert first.asm() == asm_once
    assert first.object() == fresh.object()
