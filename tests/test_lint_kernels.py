"""The `kernel-coverage` warning: a kernel body whose stores leave part of
the step unwritten or write outside it. Exact CLI text and span; each quick
fix applied gives a file without the warning (and without errors), and the
fixed kernel computes every element when run."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")
ARM = Options(target_triple="aarch64-unknown-linux-gnu")


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


def rendered(src: str, opts: Options = X86) -> str:
    a = analyze(src, "k.ea", opts)
    return render_all(a.diagnostics, a.source, "k.ea")


def warnings(src: str, opts: Options = X86):
    a = analyze(src, "k.ea", opts)
    assert a.errors == [], [d.message for d in a.errors]
    return [d for d in a.diagnostics if d.code == "kernel-coverage"]


def apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


def pos(span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


def kernel(body: str, step: int = 8, params: str = "data: *f32, out: *mut f32, factor: f32",
           tail: str = "tail scalar { out[i] = data[i] * factor }") -> str:
    return lines(f"export kernel k({params})", f"    over i in n step {step}", f"    {tail}", "{",
                 *body.split("\n"), "}")


# The founding article's showcase kernel: `load` is 4 lanes here (LANGUAGE.md §5.6).
VSCALE = lines("export kernel vscale(data: *f32, out: *mut f32, factor: f32)",
               "    over i in n step 8",
               "    tail scalar { out[i] = data[i] * factor }",
               "{",
               "    store(out, i, load(data, i) .* splat(factor))",
               "}")


def test_showcase_kernel_text_span_and_fixes():
    assert rendered(VSCALE) == lines(
        "k.ea:5:5  warning[type]: this store writes 4 lanes (f32x4, inferred: `load` defaults to 4 lanes here) "
        "at i, but the kernel steps by 8: elements i+4..i+7 are never written",
        "        store(out, i, load(data, i) .* splat(factor))",
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
        "  = help: load 8 lanes: load_f32x8(...)",
        "  = help: declare the width: let v: f32x8 = ...")
    (d,) = warnings(VSCALE)
    assert (d.severity, d.kind, d.code) == ("warning", "type", "kernel-coverage")
    assert pos(d.span) == (5, 5, 5, 50)
    load, let = d.suggestions
    assert (load.replacement, pos(load.span)) == ("load_f32x8", (5, 19, 5, 23))
    assert apply(VSCALE, load).splitlines()[4] == "    store(out, i, load_f32x8(data, i) .* splat(factor))"
    assert pos(let.span) == (5, 5, 5, 50)
    assert apply(VSCALE, let).splitlines()[4:6] == ["    let v: f32x8 = load(data, i) .* splat(factor)",
                                                    "    store(out, i, v)"]
    for fix in (load, let):
        assert warnings(apply(VSCALE, fix)) == []


def test_json_output_carries_code_span_and_fixes():
    (d,) = warnings(VSCALE)
    j = d.to_json()
    assert (j["severity"], j["code"]) == ("warning", "kernel-coverage")
    assert j["span"] == {"start": d.span.start, "end": d.span.end, "line": 5, "col": 5, "end_line": 5,
                         "end_col": 50}
    assert [s["replacement"] for s in j["suggestions"]][0] == "load_f32x8"


def test_fixed_showcase_kernel_writes_every_element(tmp_path):
    np = pytest.importorskip("numpy")
    from ea_compiler.loader import load
    (d,) = warnings(VSCALE)
    for i, fix in enumerate(d.suggestions):
        path = tmp_path / f"vscale{i}.ea"
        path.write_text(apply(VSCALE, fix))
        lib = load(str(path))
        data = np.arange(21, dtype=np.float32)
        out = np.full(21, -1.0, dtype=np.float32)
        lib.vscale(data, out, np.float32(3.0))
        assert np.array_equal(out, data * 3.0)


def test_fresh_name_for_the_let_fix():
    src = kernel("    let v: f32 = factor\n    store(out, i, splat(v))", step=8)
    (d,) = warnings(src)
    assert d.message.startswith("this store writes 4 lanes (f32x4, inferred: `splat` defaults to 4 lanes here)")
    (let,) = d.suggestions  # splat has no explicit-width spelling
    assert let.replacement == "let v1: f32x8 = splat(v)\n    store(out, i, v1)"
    assert warnings(apply(src, let)) == []


def test_stream_store_is_a_store():
    src = kernel("    stream_store(out, i, load(data, i) .* splat(factor))")
    (d,) = warnings(src)
    assert d.message.endswith("at i, but the kernel steps by 8: elements i+4..i+7 are never written")
    assert pos(d.span) == (5, 5, 5, 57)
    assert [s.replacement for s in d.suggestions][0] == "load_f32x8"


def test_scalar_stores_with_a_gap():
    src = kernel("    out[i] = data[i]\n    out[i + 1] = data[i + 1]\n    out[i + 3] = data[i + 3]", step=4)
    assert rendered(src) == lines(
        "k.ea:5:5  warning[type]: the stores to 'out' write i, i+1, i+3, but the kernel steps by 4: "
        "element i+2 is never written",
        "        out[i] = data[i]",
        "        ^^^^^^^^^^^^^^^^",
        "  k.ea:6:5: this store writes i+1",
        "          out[i + 1] = data[i + 1]",
        "          ^^^^^^^^^^^^^^^^^^^^^^^^",
        "  k.ea:7:5: this store writes i+3",
        "          out[i + 3] = data[i + 3]",
        "          ^^^^^^^^^^^^^^^^^^^^^^^^")
    assert warnings(src)[0].suggestions == []


def test_explicit_narrow_let_is_named_without_inference():
    src = kernel("    let v: f32x4 = load(data, i)\n    store(out, i, v)")
    (d,) = warnings(src)
    assert d.message == ("this store writes 4 lanes (f32x4) at i, but the kernel steps by 8: "
                         "elements i+4..i+7 are never written")
    assert pos(d.span) == (6, 5, 6, 21)
    # The width is written, the step disagrees with it: the step is the fix.
    assert [(s.replacement, pos(s.span), s.title) for s in d.suggestions] == [
        ("4", (2, 22, 2, 23), "step by 4, the lanes the store writes")]


def test_writing_past_the_step():
    src = kernel("    store(out, i, load_f32x8(data, i))", step=4)
    (d,) = warnings(src)
    assert d.message == ("this store writes 8 lanes (f32x8) at i, but the kernel steps by 4: elements "
                         "i+4..i+7 lie past the step (written again by the next step; on the last step, past the end)")
    assert d.suggestions == []


def test_two_stores_one_misplaced():
    src = kernel("    store(out, i, load(data, i))\n    store(out, i + 8, load(data, i + 4))")
    (d,) = warnings(src)
    assert d.message == ("the stores to 'out' write i..i+3, i+8..i+11, but the kernel steps by 8: elements "
                         "i+4..i+7 are never written; elements i+8..i+11 lie past the step (written again by "
                         "the next step; on the last step, past the end)")
    assert pos(d.span) == (5, 5, 5, 33)
    assert [(pos(lab.span), lab.message) for lab in d.labels] == [((6, 5, 6, 41), "this store writes i+8..i+11")]


def test_masked_store_with_a_constant_count():
    src = kernel("    let v: f32x8 = load(data, i)\n    store_masked(out, i, v, 6)")
    (d,) = warnings(src)
    assert d.message == ("this store writes 6 lanes (f32x8 masked to 6) at i, but the kernel steps by 8: "
                         "elements i+6..i+7 are never written")


def test_context_through_an_intrinsic_is_named():
    src = kernel("    store(out, i, fma(load(data, i), load(data, i), load(data, i)))")
    (d,) = warnings(src)
    assert "(f32x4, inferred: `load` defaults to 4 lanes here)" in d.message
    assert d.suggestions == []  # fma's operands take no width from outside: no certain fix


def test_let_bound_and_invariant_offsets():
    # k = first + i: the step is [first+i, first+i+8); the index is followed through the let.
    src = kernel("    let k: i32 = first + i\n    store(out, k, load(data, k))",
                 params="data: *f32, out: *mut f32, first: i32", tail="tail pad")
    (d,) = warnings(src)
    assert d.message.endswith("at k, but the kernel steps by 8: elements k+4..k+7 are never written")
    assert [s.replacement for s in d.suggestions] == [
        "load_f32x8", "let v: f32x8 = load(data, k)\n    store(out, k, v)"]


def test_scaled_index():
    src = kernel("    store(out, 2 * i, load_f32x8(data, i))", tail="tail pad")
    (d,) = warnings(src)
    assert d.message == ("this store writes 8 lanes (f32x8) at (2 * i), but each step covers 16 elements of "
                         "'out' (2 per step of 8): elements (2 * i) + 8..(2 * i) + 15 are never written")


@pytest.mark.parametrize("body,step", [
    ("    store(out, i, load(data, i))\n    store(out, i + 4, load(data, i + 4))", 8),  # exact, two halves
    ("    let v: f32x8 = load(data, i)\n    store(out, i, v)", 8),
    ("    store(out, i, load_f32x8(data, i) .* splat(factor))", 8),
    ("    out[i] = data[i] * factor", 1),
    ("    store(out, i, load(data, i))", 4),
    ("    store(out, i + N, load(data, i + N))\n    store(out, i, load(data, i))", 8),  # a const offset
    ("    for j in 0..8 {\n        out[i + j] = data[i + j]\n    }", 8),  # index not affine in i
    ("    store(out, i / 2, load(data, i))", 8),  # not affine: no guess
    ("    out[0] = data[i]", 8),  # not a per-step output
    ("    fill(out, i)", 8),  # written by a function: out of sight
    ("    let v: f32x4 = load(data, i)\n    store_masked(out, i, v, n - i)\n    out[i + 4] = 0.0", 8),
    ("    if factor > 0.0 {\n        store(out, i, load_f32x8(data, i))\n    } else {\n"
     "        store(out, i, load_f32x8(data, i) .+ splat(0.0))\n    }", 8),
])
def test_no_warning(body, step):
    src = "const N: i32 = 4\nfunc fill(p: *mut f32, i: i32) {\n    p[i] = 0.0\n}\n" + kernel(body, step=step)
    assert warnings(src) == []


def test_no_warning_on_a_kernel_with_errors():
    src = kernel("    store(out, i, load(data, i) .* factor)")
    a = analyze(src, "k.ea", X86)
    assert [d.code for d in a.diagnostics] == ["operand-types"]


def test_no_fix_that_the_target_rejects():
    # On AArch64 f32x8 is an error: the warning stands, without a fix.
    src = kernel("    store(out, i, load(data, i) .* splat(factor))")
    (d,) = warnings(src, ARM)
    assert d.suggestions == []


def test_examples_have_no_coverage_warning():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
    for name in sorted(os.listdir(root)):
        if name.endswith(".ea"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                assert warnings(f.read()) == [], name


def test_ea_check_text_and_json(tmp_path):
    import json
    import subprocess
    import sys
    ea = os.path.join(os.path.dirname(sys.executable), "ea")
    (tmp_path / "k.ea").write_text(VSCALE)
    proc = subprocess.run([ea, "check", "k.ea", "--target=haswell"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0
    assert rendered(VSCALE) in proc.stdout + proc.stderr
    assert "checked 1 file: 0 errors, 1 warning" in proc.stdout + proc.stderr
    proc = subprocess.run([ea, "check", "--format", "json", "k.ea", "--target=haswell"], cwd=tmp_path,
                          capture_output=True, text=True)
    report = json.loads(proc.stdout)
    (d,) = report["files"][0]["diagnostics"]
    (expected,) = warnings(VSCALE)
    assert d == expected.to_json() and report["warnings"] == 1
