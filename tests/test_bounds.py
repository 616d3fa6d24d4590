"""The bounds analysis (compiler/outputs/bounds): for each pointer parameter
of each exported function, the elements the code may touch as a polynomial
in the integer parameters (exact text), or why that is not provable. One
test per construct it must see through, and the ones it must refuse."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.intrinsics import TABLE, lookup
from ea_compiler.outputs.bounds import Extent, Poly, program_bounds
from ea_compiler.outputs.bounds import reasons
from ea_compiler.outputs.metadata import metadata_text

ROOT = Path(__file__).resolve().parents[1]
X86 = Options(target_cpu="icelake-server")  # VNNI too: examples/vnni checks clean


def bounds(src: str) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """{function: ({pointer: extent text}, {pointer: reason})}."""
    a = analyze(src.encode(), "k.ea", X86)
    assert a.errors == [], [d.message for d in a.errors]
    found = program_bounds(a.desugared, a.decisions)
    return {name: ({p: e.text() for p, e in b.extents.items()}, b.unchecked) for name, b in found.items()}


def one(src: str) -> tuple[dict[str, str], dict[str, str]]:
    (result,) = bounds(src).values()
    return result


# ---- loops ----------------------------------------------------------------------------

def test_for_loop_up_to_a_parameter():
    assert one("export func f(x: *f32, y: *mut f32, n: i32) {\n    for i in 0..n { y[i] = x[i] }\n}\n") == \
        ({"x": "n", "y": "n"}, {})


def test_while_loop_with_a_lookahead_bound_and_vector_lanes():
    """`while i + 32 <= n` with loads of 8 lanes at i + 24: the last reaches i + 32 <= n; the
    scalar loop after it starts where the first stopped (i only grows)."""
    assert one((ROOT / "examples" / "dot.ea").read_text()) == ({"a": "n", "b": "n"}, {})


def test_while_i_less_than_n():
    src = """export func f(x: *f64, count: u64) -> f64 {
    let mut i: u64 = 0
    let mut t: f64 = 0.0
    while i < count {
        t = t + x[i]
        i = i + 1
    }
    return t
}
"""
    assert one(src) == ({"x": "count"}, {})


def test_steps_larger_than_one():
    src = """export func f(x: *f32, n: i32) -> f32 {
    let mut t: f32 = 0.0
    for i in 0..n step 4 { t = t + x[i] + x[i + 3] }
    return t
}
"""
    assert one(src) == ({"x": "n + 3"}, {})  # i <= n - 1: i + 3 may be n + 2
    assert one((ROOT / "examples" / "frame_rms.ea").read_text()) == ({"x": "8 * frames", "out": "frames"}, {})


def test_constant_offsets():
    blur = "export func blur(src: *f32, dst: *mut f32, n: i32) {\n" \
           "    for i in 0..n { dst[i] = src[i] + src[i + 1] + src[i + 2] }\n}\n"
    assert one(blur) == ({"src": "n + 2", "dst": "n"}, {})
    back = "export func back(src: *f32, dst: *mut f32, n: i32) {\n    for i in 1..n { dst[i] = src[i - 1] }\n}\n"
    assert one(back) == ({"src": "n - 1", "dst": "n"}, {})


def test_a_possibly_negative_index_is_unchecked():
    src = "export func f(src: *f32, dst: *mut f32, n: i32) {\n    for i in 0..n { dst[i] = src[i - 1] }\n}\n"
    assert one(src) == ({"dst": "n"}, {"src": reasons.NEGATIVE})
    src = "export func f(x: *f32, y: *f32, n: i32) -> f32 {\n    return x[n - 1]\n}\n"
    assert one(src) == ({}, {"x": reasons.NEGATIVE})  # n may be 0; y is never touched


def test_kernel_loops_and_their_tails():
    for stem, want in [("fma", {"a": "n", "b": "n", "c": "n", "out": "n"}),  # tail scalar
                       ("clip_mask", {"v": "count", "o": "count"}),  # tail mask: count - j lanes at j
                       ("leaky_relu", {"x": "n", "out": "n"}),  # tail pad
                       ("normalize_u8", {"px": "n", "out": "n"})]:  # stores at i and i + 8 of 16
        assert one((ROOT / "examples" / f"{stem}.ea").read_text()) == (want, {}), stem


def test_a_kernel_without_a_tail():
    src = "export kernel k(x: *f32, y: *mut f32) over i in n step 4 {\n" \
          "    store(y, i, load_f32x4(x, i))\n}\n"
    assert one(src) == ({"x": "n", "y": "n"}, {})


def test_nested_loops():
    square = "export func f(c: *mut f32, n: i32) {\n    for i in 0..n { for j in 0..n { c[i * n + j] = 0.0 } }\n}\n"
    assert one(square) == ({"c": "n * n"}, {})
    rect = """export func f(c: *mut f32, m: i32, n: i32) {
    let mut i: i32 = 0
    while i < m {
        let mut j: i32 = 0
        while j < n {
            let k: i32 = i * n + j
            c[k] = 1.0
            j = j + 1
        }
        i = i + 1
    }
}
"""
    assert one(rect) == ({"c": "m * n"}, {})  # through the immutable alias k
    triangle = "export func f(x: *f32, n: i32) -> f32 {\n    let mut t: f32 = 0.0\n" \
               "    for i in 0..n { for j in 0..i { t = t + x[i * n + j] } }\n    return t\n}\n"
    assert one(triangle) == ({"x": "n * n - 1"}, {})  # j <= i - 1 <= n - 2


def test_counter_increments_anywhere_in_the_body():
    """Assigned only by `+ constant` in the loop: after the increment the index is one more."""
    src = """export func f(x: *f32, n: i32) -> f32 {
    let mut i: i32 = 0
    let mut t: f32 = 0.0
    while i < n {
        i = i + 1
        t = t + x[i]
    }
    return t
}
"""
    assert one(src) == ({"x": "n + 1"}, {})  # it does read x[n]


def test_a_counter_reset_between_loops():
    src = """export func f(x: *f32, n: i32) -> f32 {
    let mut i: i32 = 0
    let mut t: f32 = 0.0
    while i < n {
        t = t + x[i]
        i = i + 1
    }
    i = 0
    while i < 2 * n {
        t = t + x[i]
        i = i + 1
    }
    return t
}
"""
    assert one(src) == ({"x": "2 * n"}, {})


def test_if_guards_narrow_and_their_else_too():
    guard = "export func f(x: *f32, k: i32, n: i32) -> f32 {\n    if k >= 0 && k < n { return x[k] }\n" \
            "    return 0.0\n}\n"
    assert one(guard) == ({"x": "k + 1"}, {})
    both = """export func f(x: *f32, n: i32) -> f32 {
    let mut i: i32 = 0
    let mut t: f32 = 0.0
    while i < n {
        if i + 8 > n { t = t + x[i] } else { t = t + reduce_add(load_f32x8(x, i)) }
        i = i + 1
    }
    return t
}
"""
    assert one(both) == ({"x": "n"}, {})


def test_a_guard_on_a_scaled_counter_bounds_the_index_it_names():
    """`if 4 * i + 3 < n` narrows no atom (i's coefficient is 4), so x's extent was 4 * m, from
    the loop: a call with m = 1000 and ten elements was refused though it reads below n. The
    guard names the index whole: it is at most n - 1 (and `2 * i - k >= 0` keeps it >= 0)."""
    src = """export func ktimes(x: *u8, m: i32, n: i32) -> i32 {
    let mut s: i32 = 0
    for i in 0..m {
        let t: i32 = i * 4 + 3
        if t < n { s = s + to_i32(x[t]) }
    }
    return s
}
export func g2i(x: *u8, m: i32, n: i32) -> i32 {
    let mut s: i32 = 0
    for i in 0..m {
        if 2 * i < n { s = s + to_i32(x[2 * i]) }
    }
    return s
}
export func back(x: *u8, m: i32, k: i32) -> i32 {
    let mut s: i32 = 0
    for i in 0..m {
        if 2 * i - k >= 0 { s = s + to_i32(x[2 * i - k]) }
    }
    return s
}
"""
    assert bounds(src) == {"ktimes": ({"x": "n"}, {}), "g2i": ({"x": "n"}, {}), "back": ({"x": "-k + 2 * m - 1"}, {})}


def test_unsigned_parameters_and_guards_on_sums_keep_an_index_non_negative():
    """A u32 index cannot be negative, and `a + b >= 0` says a + b is not: both were unchecked
    ("its index may be negative"). `x[a]` under `a < n` keeps its own a + 1 (no minimum)."""
    src = """export func uk(x: *u8, k: u32, n: u32) -> i32 {
    if k < n { return to_i32(x[k]) }
    return 0
}
export func ab(x: *u8, a: i32, b: i32, n: i32) -> i32 {
    if a + b >= 0 && a + b < n { return to_i32(x[a + b]) }
    return 0
}
export func q_a(x: *u8, a: i32, n: i32) -> i32 {
    if a < n { if a >= 0 { return to_i32(x[a]) } }
    return 0
}
"""
    assert bounds(src) == {"uk": ({"x": "k + 1"}, {}), "ab": ({"x": "a + b + 1"}, {}), "q_a": ({"x": "a + 1"}, {})}


def test_several_reaches_give_their_maximum():
    """x[0] is read even when n is 0: max(n, 1); the other functions of the file read n."""
    got = bounds((ROOT / "examples" / "reductions.ea").read_text())
    assert got == {"sum_f32": ({"x": "n"}, {}), "max_f32": ({"x": "max(n, 1)"}, {}),
                   "min_f32": ({"x": "max(n, 1)"}, {})}


def test_called_functions_and_kernels_are_inlined():
    assert one((ROOT / "examples" / "dot_i8.ea").read_text()) == ({"a": "n", "w": "n"}, {})
    # a kernel called per row with first = y * w + 1: reads up to a row below, writes the interior
    assert one((ROOT / "examples" / "sobel.ea").read_text()) == ({"img": "h * w", "out": "h * w - w - 1"}, {})


def test_a_view_counts_in_the_parameters_elements():
    """ptr_as_f32 on 16-byte particles: float index 4 * i + 16 is particle i + 4."""
    assert one((ROOT / "examples" / "particles.ea").read_text()) == ({"ps": "n"}, {})


def test_every_shipped_example_is_checked():
    for path in sorted((ROOT / "examples").glob("*.ea")):
        for name, (extents, unchecked) in bounds(path.read_text()).items():
            assert extents and not unchecked, (path.name, name, unchecked)


# ---- what stays unchecked, and why ----------------------------------------------------

def test_data_dependent_indices():
    lut = "export func f(src: *f32, dst: *mut f32, lut: *f32, n: i32) {\n" \
          "    for i in 0..n { dst[i] = lut[to_i32(src[i])] }\n}\n"
    assert one(lut) == ({"src": "n", "dst": "n"}, {"lut": reasons.DATA})
    hist = """export func f(px: *u8, len: i32, out bins: *mut i32 [cap: 16]) {
    for b in 0..16 { bins[b] = 0 }
    for j in 0..len {
        let k: i32 = to_i32(px[j]) / 16
        bins[k] = bins[k] + 1
    }
}
"""
    assert one(hist) == ({"px": "len"}, {"bins": reasons.DATA})


def test_a_loop_variable_mutated_otherwise():
    odd = """export func f(x: *f32, n: i32) -> f32 {
    let mut i: i32 = 0
    let mut t: f32 = 0.0
    while i < n {
        t = t + x[i]
        i = i * 2 + 1
    }
    return t
}
"""
    assert one(odd) == ({}, {"x": reasons.SHAPE})
    growing_bound = """export func f(x: *f32, n: i32) -> f32 {
    let mut i: i32 = 0
    let mut m: i32 = n
    let mut t: f32 = 0.0
    while i < m {
        t = t + x[i]
        i = i + 1
        m = m + 1
    }
    return t
}
"""
    assert one(growing_bound) == ({}, {"x": reasons.UNBOUNDED})


def test_unprovable_signs_and_shapes():
    stride = "export func f(x: *f32, s: i32, n: i32) -> f32 {\n    let mut t: f32 = 0.0\n" \
             "    for i in 0..n { t = t + x[i * s] }\n    return t\n}\n"
    assert one(stride) == ({}, {"x": reasons.NEGATIVE})  # s may be negative
    scan = "export func f(x: *f32) -> f32 {\n    let mut i: i32 = 0\n    let mut t: f32 = 0.0\n" \
           "    while x[i] > 0.0 {\n        t = t + x[i]\n        i = i + 1\n    }\n    return t\n}\n"
    assert one(scan) == ({}, {"x": reasons.UNBOUNDED})


def test_gathers_recursion_and_prefetches():
    assert one("export func f(x: *f32, idx: i32x8) -> f32x8 { return gather(x, idx) }\n") == \
        ({}, {"x": reasons.VECTOR})
    rec = "func get(p: *f32, k: i32) -> f32 {\n    if k > 0 { return get(p, k - 1) }\n    return p[0]\n}\n" \
          "export func f(x: *f32, n: i32) -> f32 { return get(x, n) }\n"
    assert one(rec) == ({}, {"x": reasons.RECURSION})
    hint = "export func f(x: *f32, n: i32) -> f32 {\n    let mut t: f32 = 0.0\n" \
           "    for i in 0..n {\n        prefetch(x, i + 64)\n        t = t + x[i]\n    }\n    return t\n}\n"
    assert one(hint) == ({"x": "n"}, {})  # a prefetch touches nothing


def test_division_in_a_bound_is_not_followed():
    src = "export func f(x: *i16, len: i32, out y: *mut i16 [cap: len / 2]) {\n" \
          "    for i in 0..len / 2 { y[i] = x[2 * i] + x[2 * i + 1] }\n}\n"
    assert one(src) == ({}, {"x": reasons.UNBOUNDED, "y": reasons.UNBOUNDED})


def test_long_chains_do_not_recurse():
    chain = " + ".join(["x[i + 1]"] * 3000)
    src = f"export func f(x: *f32, y: *mut f32, n: i32) {{\n    for i in 0..n {{ y[i] = {chain} }}\n}}\n"
    assert one(src) == ({"x": "n + 1", "y": "n"}, {})
    guards = " && ".join(["i < n"] * 3000)
    src = f"export func f(x: *f32, n: i32) -> f32 {{\n    let mut t: f32 = 0.0\n" \
          f"    for i in 0..n {{ if {guards} {{ t = t + x[i] }} }}\n    return t\n}}\n"
    assert one(src) == ({"x": "n"}, {})


# ---- the intrinsic table, the forms written ------------------------------------------

def test_every_pointer_intrinsic_says_what_it_touches():
    """The analysis names no intrinsic: the table's `memory` says where the pointer and index are."""
    for name, intr in TABLE.items():
        takes_pointer = any("*" in sig for sig in intr.signatures)
        assert (intr.memory is not None) == takes_pointer, name
        if intr.memory is not None:
            assert intr.params[0] == "ptr", name
            assert intr.memory.kind in ("touch", "indices", "hint", "view"), name
    assert lookup("load_u8x32").memory == TABLE["load"].memory


def test_polynomial_text_is_canonical():
    n, w, h = Poly.name("n"), Poly.name("w"), Poly.name("h")
    assert (n * n + n.scale(2) - Poly.const(1)).text() == "n * n + 2 * n - 1"
    assert (w * h - w - Poly.const(1)).text() == "h * w - w - 1"
    assert (Poly.const(3) - n).text() == "-n + 3"
    assert Extent([Poly.const(1), n]).text() == "max(n, 1)"
    assert Extent([n + Poly.const(2), n]).text() == "n + 2"  # n + 2 always exceeds n
    assert Extent([Poly.const(0), Poly.const(-3)]).text() == "0" and not Extent([Poly.const(-3)])
    assert Extent.of_name("n").bare_name == "n" and Extent([n.scale(2)]).bare_name is None


def test_structured_form_round_trips():
    e = Extent([Poly.name("n") * Poly.name("n") + Poly.const(2), Poly.name("m")])
    assert e.to_json() == [[[1, "n", "n"], [2]], [[1, "m"]]]
    assert Extent.from_json(json.loads(json.dumps(e.to_json()))) == e
    assert e.evaluate({"n": 3, "m": 20}) == 20 and e.evaluate({"n": -5, "m": -1}) == 27
    with pytest.raises(ValueError):
        Extent.from_json([[["n", 1]]])


def test_metadata_fields():
    src = "export func f(src: *f32, dst: *mut f32, lut: *f32, n: i32) {\n" \
          "    for i in 0..n { dst[i] = lut[to_i32(src[i + 2])] }\n}\n" \
          "export func g(a: f32) -> f32 { return a }\n"
    a = analyze(src.encode(), "k.ea", X86)
    f, g = json.loads(metadata_text("libk.so", a.desugared, a.decisions))["exports"]
    assert f["min_lengths"] == {"dst": "n"}  # the extents that are one parameter (older bindings read it)
    assert f["extents"] == {"src": "n + 2", "dst": "n"}
    assert f["extent_terms"] == {"src": [[[1, "n"], [2]]], "dst": [[[1, "n"]]]}
    assert f["unchecked"] == {"lut": reasons.DATA}
    assert set(g) == {"name", "args", "return_type"}  # no pointer, no extension field


def test_bindings_read_the_fields_and_older_files():
    from ea_compiler.bind.meta import BindError, parse_api

    def export(**fields):
        args = [{"name": "x", "type": "*f32"}, {"name": "lut", "type": "*f32"}, {"name": "n", "type": "i32"},
                {"name": "g", "type": "f32"}]
        return parse_api(json.dumps({"exports": [{"name": "f", "args": args, **fields}]}), "k").exports[0]

    e = export(extents={"x": "n + 2"}, extent_terms={"x": [[[1, "n"], [2]]]}, unchecked={"lut": reasons.DATA})
    assert {p: x.text() for p, x in e.extents.items()} == {"x": "n + 2"} and e.min_lengths == {}
    assert e.length_notes() == ["Lengths checked before the call: x >= n + 2",
                                f"Length not checked: lut ({reasons.DATA})"]
    old = export(min_lengths={"x": "n"})  # written before `extents`: still checked
    assert {p: x.text() for p, x in old.extents.items()} == {"x": "n"} and old.min_lengths == {"x": "n"}
    assert export(unchecked=["lut"]).unchecked == {"lut": "not provable"}
    for fields, message in [
            ({"extents": {"x": "n"}}, '"extents" and "extent_terms" must name the same arguments'),
            ({"extents": {"x": "g"}, "extent_terms": {"x": [[[1, "g"]]]}},
             "f: the extent of 'x' (g) uses 'g', which is not an integer argument"),
            ({"extents": {"n": "n"}, "extent_terms": {"n": [[[1, "n"]]]}},
             "f: the extent of 'n', which is not a pointer argument"),
            ({"extents": {"x": "n"}, "extent_terms": {"x": [["n"]]}}, '"extent_terms": a term is [coefficient, name, ...]'),
            ({"unchecked": {"lut": 3}}, '"unchecked" must map argument names to reasons')]:
        with pytest.raises(BindError) as info:
            export(**fields)
        assert str(info.value) == message


def test_pointer_variables():
    alias = "export func f(a: *f32, n: i32) -> f32 {\n    let q: *f32 = a\n    let mut t: f32 = 0.0\n" \
            "    for i in 0..n { t = t + q[i] }\n    return t\n}\n"
    assert one(alias) == ({"a": "n"}, {})
    rebound = """export func f(a: *f32, b: *f32, n: i32) -> f32 {
    let mut p: *f32 = a
    let mut t: f32 = 0.0
    for i in 0..n {
        t = t + p[i + 1000]
        p = b
    }
    return t
}
"""
    assert one(rebound) == ({}, {"a": reasons.REBOUND, "b": reasons.REBOUND})
    escape = "func pick(a: *f32, b: *f32) -> *f32 { return a }\n" \
             "export func f(a: *f32, b: *f32) -> f32 {\n    let p: *f32 = pick(a, b)\n    return p[0]\n}\n"
    assert one(escape) == ({}, {"a": reasons.ESCAPE})
