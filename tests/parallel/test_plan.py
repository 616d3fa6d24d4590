"""What the compiler decides about splitting each export (outputs/parallel.py):
the plan recorded in `.ea.json` as `"parallel"`, or the reason it is not
splittable, and how the bindings' metadata model reads the field back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.bind.meta import BindError, Parallel, parse_api
from ea_compiler.outputs.metadata import metadata_text
from ea_compiler.outputs.parallel import decide
from ea_compiler.syntax import ast as A

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
X86 = Options(target_cpu="haswell")


def decisions(path: Path, options: Options = X86) -> dict[str, tuple[dict | None, str]]:
    a = analyze(path.read_bytes(), str(path), options)
    assert not a.errors, a.errors
    found = {}
    for f in a.desugared.items:
        if isinstance(f, A.Func) and f.export:
            plan, why = decide(f, a.desugared, a.decisions)
            found[f.name] = (plan.as_json() if plan else None, why)
    return found


def plan(length: str, granule: int, combine: str, *split: str) -> dict:
    return {"length": length, "granule": granule, "combine": combine, "split": list(split)}


SPLIT = {
    "sum_i32": plan("n", 1, "sum", "x"),
    "sum_u32": plan("n", 1, "sum", "x"),
    "maxval": plan("n", 1, "max", "x"),
    "minval": plan("n", 8, "min", "x"),
    "max_from": plan("n", 1, "max", "x"),  # start[0]: a table, not offset
    "dot_f64": plan("n", 1, "sum", "a", "b"),
    "count_above": plan("n", 1, "sum", "x"),
    "blend": plan("n", 1, "none", "x", "out"),  # lut: a table, not offset
    "widen": plan("n", 1, "none", "a", "b", "out"),
    "scale_inplace": plan("n", 8, "none", "x"),
    "swap_ab": plan("n", 2, "none", "ps"),
    "scaled_sum": plan("n", 1, "sum", "x", "y"),
}

REFUSED = {
    "l2norm": "'sqrt' uses the accumulator 's' as a value",
    "mean": "'to_f32' uses the length as a value",
    "running": "a stored value uses the accumulator 's' as a value",
    "shift_left": "'x' is written, and an iteration of the first loop reaches past its 1 elements",
    "hist": "'bins' is written at an index that is not the loop variable",
    "minus_first": "'x' is indexed both by the loop variable and at a fixed index",
    "iota": "'to_f32' uses a position as a value",
    "evens": "'x' is indexed by 2 times the loop variable",
    "sum_from_one": "'s' is a sum that does not start at 0",
    "argmax": "an accumulator is combined by '>'",
    "find": "it returns from inside its loop",
    "sum_plus_max": "the returned value combines + and max",
    "shorter": "the first loop's condition does not stop it at a multiple of its step 1",
    "scan": "the loop variable 'i' does not start at 0",
    "times_n": "'to_f32' uses the length as a value",
    "reverse": "an index uses a position as a value",
    "max_sq": "'m' starts from an element of 'x' that the first loop does not take in every iteration",
    "max_from_second": "'m' starts from an element of 'x' that the first loop does not take in every iteration",
    "overlapping_stores": "'out' is written, and an iteration of the first loop reaches past its 1 elements",
}

EXAMPLES = {
    "clip": plan("count", 8, "none", "v", "o"),
    "dot": plan("n", 32, "sum", "a", "b"),
    "dot_u8i8": plan("n", 128, "sum", "a", "w"),
    "fma_kernel": plan("n", 8, "none", "a", "b", "c", "out"),
    "frame_rms": None,
    "leaky_relu": plan("n", 8, "none", "x", "out"),
    "normalize": plan("n", 16, "none", "px", "out"),
    "step": plan("n", 4, "none", "ps"),  # the particles seen as floats, four to a particle
    "preprocess": plan("n", 16, "none", "px", "out"),
    "sum_f32": plan("n", 16, "sum", "x"),
    "max_f32": plan("n", 8, "max", "x"),
    "min_f32": plan("n", 8, "min", "x"),
    "saxpy": plan("n", 8, "none", "x", "y"),
    "sobel": None,
    "threshold": plan("len", 32, "none", "px", "out"),
    "dot_vnni": None,  # the accumulator goes through a helper
    "dot_maddubs": plan("n", 128, "sum", "a", "w"),
    "gemm_vnni": None,
    "gemm_maddubs": None,
}


def test_splittable_exports():
    assert {name: p for name, (p, _) in decisions(HERE / "split.ea").items()} == SPLIT


def test_refused_exports_and_why():
    assert {name: (p, why) for name, (p, why) in decisions(HERE / "refused.ea").items()} == \
        {name: (None, why) for name, why in REFUSED.items()}


def test_examples():
    found = {}
    for path in sorted((ROOT / "examples").glob("*.ea")):
        found |= {name: p for name, (p, _) in decisions(path).items()}
    for path in sorted((ROOT / "examples" / "vnni").glob("*.ea")):  # analysed only: a VNNI CPU's code
        found |= {name: p for name, (p, _) in decisions(path, Options(target_cpu="alderlake")).items()}
    assert found == EXAMPLES


@pytest.mark.parametrize("body, why", [
    ("for i in 0..n { y[i] = x[i] }\n    y[0] = 1.0", "a statement other than a loop, an `if` or a `let` after "
     "the first loop"),
    ("let k: f32 = x[0]\n    for i in 0..n { y[i] = k }", ""),  # x: a table, not offset
    ("let k: f32 = x[0]\n    for i in 0..n { y[i] = k + x[i] }", "an element of 'x' read before the loop is used "
     "in it"),
    ("for i in 0..n { y[i] = x[i] }\n    for i in 0..n { y[i] = x[i] }", "a second loop over 'i' from its start"),
    ("foreach (i in 0..n) { y[i] = x[i] }\n    foreach (i in 0..n) { y[i] = x[i] }", "a loop after a tail that "
     "ends the loop variable's range"),
    ("let mut i: i32 = 0\n    while i < n { y[i] = x[i]\n i = i + 1 }\n    while i + 1 <= n { y[i] = x[i]\n"
     " i = i + 1 }", ""),
    ("let mut i: i32 = 0\n    while i < n { y[i] = x[i]\n i = i + 1 }\n    while i < n + 1 { y[i] = x[i]\n"
     " i = i + 1 }", "a loop after the first one could run in a chunk that is not the last"),
    ("let mut i: i32 = 0\n    while i < n { y[i] = x[i]\n i = i + 1 }\n    while i <= n { y[i] = x[i]\n"
     " i = i + 1 }", "a loop after the first one could run in a chunk that is not the last"),
    ("for i in 0..n { println(x[i]) }", "it prints (println): the order of the output would change"),
    ("for i in 0..n { y[i] = x[i - 1] }", ""),  # reads before i: x is read only
    ("for i in 0..n { y[i] = y[i - 1] }", "'y' is written, and accessed before the loop variable"),
    ("let mut i: i32 = 0\n    while i + 16 <= n { store(y, i, load_f32x8(x, i))\n i = i + 8 }",
     "the first loop's condition does not stop it at a multiple of its step 8"),
    ("for i in 0..n {\n let mut k: i32 = i\n while k < i + 4 { y[k] = x[k]\n k = k + 1 }\n }",
     "'y' is written, and accessed at the loop variable plus a varying amount"),
])
def test_shapes(body, why):
    src = f"export func f(x: *f32, y: *mut f32, n: i32) {{\n    {body}\n}}\n"
    a = analyze(src.encode(), "f.ea", X86)
    assert not a.errors, [d.message for d in a.errors]
    found, reason = decide(a.desugared.items[0], a.desugared, a.decisions)
    assert reason == why and (found is None) == bool(why)


def test_metadata_field():
    src = (HERE / "split.ea").read_bytes()
    a = analyze(src, "split.ea", X86)
    exports = {e["name"]: e for e in json.loads(metadata_text("libsplit.so", a.desugared, a.decisions))["exports"]}
    assert exports["maxval"]["parallel"] == SPLIT["maxval"]
    api = parse_api(metadata_text("libsplit.so", a.desugared, a.decisions), "split")
    assert {e.name: e.parallel for e in api.exports}["blend"] == Parallel("n", 1, "none", ("x", "out"))


GOOD = {"length": "n", "granule": 8, "combine": "sum", "split": ["x"]}


@pytest.mark.parametrize("field, message", [
    ({"length": "n"}, '"parallel" must have "length", "granule", "combine" and "split"'),
    (GOOD | {"length": "x"}, "\"parallel\": length 'x' is not an integer argument"),
    (GOOD | {"granule": 0}, '"parallel": granule must be a positive integer'),
    (GOOD | {"combine": "none"}, "\"parallel\": combine 'none' does not fit return type f32"),
    (GOOD | {"combine": "product"}, "\"parallel\": combine 'product' does not fit return type f32"),
    (GOOD | {"split": ["n"]}, "\"parallel\": split 'n' is not a pointer argument"),
])
def test_malformed_field_is_a_bind_error(field, message):
    text = json.dumps({"exports": [{"name": "f", "return_type": "f32", "parallel": field, "args": [
        {"name": "x", "type": "*f32"}, {"name": "n", "type": "i32"}]}]})
    with pytest.raises(BindError) as info:
        parse_api(text, "k")
    assert str(info.value) == message


def test_unsigned_index_below_the_loop_variable():
    """x[i - 1] with i a u32: at a chunk's position 0 it wraps to 2^32 - 1, where the
    whole call computes start - 1."""
    for index, why in (("i - 1", "an unsigned index below the loop variable (it wraps in a chunk)"), ("i + 1", "")):
        src = (f"export func f(x: *f32, y: *mut f32, n: u32) {{\n    let mut i: u32 = 0\n"
               f"    while i < n {{ y[i] = x[{index}]\n i = i + 1 }}\n}}\n")
        a = analyze(src.encode(), "f.ea", X86)
        assert not a.errors, [d.message for d in a.errors]
        assert decide(a.desugared.items[0], a.desugared, a.decisions)[1] == why
