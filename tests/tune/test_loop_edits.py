"""`unroll` of `for ... step` loops (unroll_for.py) and the change or removal
of an existing prefetch (prefetch_change.py): exact output, refusals with
their reasons, and equal results through `ea.load` at the edge lengths."""
from __future__ import annotations

import numpy as np
import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune.transforms import NotApplicable, apply, find_sites

from .rewrite_support import lengths, load_pair, random_f32, rewrite, sites

FOR = """\
export func sum8(x: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    for i in 0..n step 8 {
        let v: f32x8 = load_masked(x, i, n - i)   // the last step may be partial
        acc = acc .+ v
    }
    return reduce_add(acc)
}
"""

FOR_X2 = """\
export func sum8(x: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    let mut acc_1: f32x8 = splat(0.0)
    while i + 8 < n {
        let v: f32x8 = load_masked(x, i, n - i)   // the last step may be partial
        acc = acc .+ v
        let v_1: f32x8 = load_masked(x, i + 8, n - (i + 8))
        acc_1 = acc_1 .+ v_1
        i = i + 16
    }
    acc = acc .+ acc_1
    for i in i..n step 8 {
        let v: f32x8 = load_masked(x, i, n - i)   // the last step may be partial
        acc = acc .+ v
    }
    return reduce_add(acc)
}
"""

# an integer for loop without a step: the copies are exact
ISUM = """\
export func isum(x: *restrict i32, out: *mut i32, n: i32) {
    let mut s: i32 = 0
    for k in 1..n {
        out[k] = x[k] + x[k - 1]
        s = s + x[k]
    }
    out[0] = s
}
"""


def test_a_for_step_loop_is_unrolled_with_its_remainder_in_the_original():
    [site] = sites(FOR, "unroll")
    assert (site.line, site.choices, site.hint, site.accumulators) == (3, (2, 4, 8), "one-accumulator", ("acc",))
    rw = rewrite(FOR, "unroll", "sum8", 2)
    assert rw.title == "Unroll ×2 with 2 accumulators"
    assert rw.text == FOR_X2


@pytest.mark.parametrize("k", [2, 4, 8])
def test_for_unrolls_give_the_same_results(tmp_path, k):
    k0, k1 = load_pair(tmp_path, FOR + ISUM, rewrite(rewrite(FOR + ISUM, "unroll", "sum8", k).text,
                                                      "unroll", "isum", k).text)
    for n in lengths(8 * k):
        x = random_f32(n, n)
        assert np.isclose(k1.sum8(x, n=n), k0.sum8(x, n=n), rtol=1e-5, atol=1e-4), n
        xi = np.arange(n, dtype=np.int32) * 3 - 7
        outs = [np.zeros(max(n, 1), np.int32) for _ in range(2)]
        k0.isum(xi, outs[0], n=n)
        k1.isum(xi, outs[1], n=n)
        assert np.array_equal(outs[0], outs[1]), n


@pytest.mark.parametrize("old, new, reason", [
    ("        acc = acc .+ v\n", "        acc = acc .+ v\n        i = i + 1\n", "the loop body assigns 'i'"),
    ("0..n step 8", "0..n - to_i32(acc[0]) step 8", "the loop's end changes in the loop"),
    ("        acc = acc .+ v\n", "        acc = acc .+ v\n        for j in 0..2 { acc = acc .+ v }\n",
     "the loop body holds a loop (unroll the inner loop instead)"),
])
def test_for_loops_that_cannot_be_unrolled_say_why(old, new, reason):
    from ea_compiler.tune.transforms.loopshape import scope_of
    from ea_compiler.tune.transforms.unroll_for import analyse_for, for_loops
    src = FOR.replace(old, new)
    a = analyze(src, "k.ea")
    assert a.ok, a.errors
    item = a.ast.items[0]
    with pytest.raises(NotApplicable, match="^" + reason.replace("(", r"\(").replace(")", r"\)") + "$"):
        analyse_for(a, scope_of(item), for_loops(item)[0])
    assert not sites(src, "unroll")


# ---- prefetch_change ----------------------------------------------------------------------

PF = """\
const AHEAD: i32 = 64

export func total(x: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        prefetch(x, i + AHEAD)
        acc = acc .+ load_f32x8(x, i)
        i = i + 8
    }
    return reduce_add(acc)
}
"""


def test_an_existing_prefetch_is_removed_or_moved():
    [site] = sites(PF, "prefetch_change")
    assert (site.line, site.choices) == (7, ("remove", 256, 512, 1024, 2048))
    gone = rewrite(PF, "prefetch_change", "total", "remove")
    assert gone.title == "Remove the prefetch" and gone.text == PF.replace("        prefetch(x, i + AHEAD)\n", "")
    moved = rewrite(PF, "prefetch_change", "total", 1024)
    assert moved.title == "Prefetch 1024 bytes ahead instead"
    assert moved.text == PF.replace("prefetch(x, i + AHEAD)", "prefetch(x, i + 256)")
    # the prefetch transformation proper does not add a second one
    assert sites(PF, "prefetch") and "already prefetches" in _refusal(PF)


def _refusal(src: str) -> str:
    a = analyze(src, "k.ea")
    [site] = find_sites(a, only=("prefetch",))
    try:
        apply(a, site, 256)
    except NotApplicable as err:
        return str(err)
    return ""


def test_prefetch_changes_give_the_same_results(tmp_path):
    for choice in ("remove", 2048):
        (tmp_path / str(choice)).mkdir()
        k0, k1 = load_pair(tmp_path / str(choice), PF, rewrite(PF, "prefetch_change", "total", choice).text)
        for n in lengths(8):
            x = random_f32(n, n)
            assert k0.total(x, n=n) == k1.total(x, n=n), (choice, n)


def test_a_prefetch_choice_not_offered_is_refused():
    a = analyze(PF, "k.ea")
    [site] = find_sites(a, only=("prefetch_change",))
    with pytest.raises(NotApplicable, match=r"prefetch_change 100 is not one of \('remove', 256, 512, 1024, 2048\)"):
        apply(a, site, 100)
