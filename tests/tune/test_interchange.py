"""The interchange transformation (compiler/tune/transforms/interchange.py
and nest.py): exact output, clean checks, untouched lines, refusals with
their reasons, and results equal bit for bit through `ea.load`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune.config import DEFAULT_TRANSFORMS
from ea_compiler.tune.space import build_space, render
from ea_compiler.tune.transforms import MODULES, NotApplicable, Site

from .rewrite_support import load_pair, random_f32, random_i32, rewrite, sites

ROOT = Path(__file__).resolve().parents[2]
KERNEL = (ROOT / "bench" / "tune_kernels" / "matmul_ijk.ea").read_text()

MATMUL = """\
// Naive ijk matrix product of n x n matrices.
export func matmul(a: *restrict f32, b: *restrict f32, c: *restrict mut f32, n: i32) {
    let mut i: i32 = 0
    while i < n {
        let mut j: i32 = 0
        while j < n {   // one element of c per j
            let mut sum: f32 = 0.0
            let mut k: i32 = 0
            // the dot product of row i of a and column j of b
            while k < n {
                sum = sum + a[i * n + k] * b[k * n + j]
                k = k + 1
            }
            c[i * n + j] = sum
            j = j + 1
        }  // end of j
        i = i + 1
    }
}
"""

INTERCHANGED = """\
        // one element of c per j
        // the dot product of row i of a and column j of b
        while j < n {
            c[i * n + j] = 0.0
            j = j + 1
        }
        let mut k: i32 = 0
        while k < n {
            let a_k: f32 = a[i * n + k]
            j = 0
            while j < n {
                c[i * n + j] = c[i * n + j] + a_k * b[k * n + j]
                j = j + 1
            }
            k = k + 1
"""

# m x q times q x p; the other loop forms, fma, a bias as the start value, `j` set by an assignment.
RECT = """\
export func matmul_rect(a: *restrict f32, b: *restrict f32, bias: *restrict f32, c: *restrict mut f32,
                        m: i32, q: i32, p: i32) {
    let mut i: i32 = 0
    let mut j: i32 = 5
    while i < m {
        j = 0
        while j + 1 <= p {
            let mut kk: i32 = 0
            let mut acc: f32 = bias[j]
            while kk + 1 <= q {
                acc = fma(a[i * q + kk], b[kk * p + j], acc)
                kk = kk + 1
            }
            c[i * p + j] = acc
            j = j + 1
        }
        i = i + 1
    }
    c[0] = c[0] + to_f32(j)
}
"""

RECT_INTERCHANGED = """\
        while j + 1 <= p {
            c[i * p + j] = bias[j]
            j = j + 1
        }
        let mut kk: i32 = 0
        while kk + 1 <= q {
            j = 0
            while j + 1 <= p {
                c[i * p + j] = fma(a[i * q + kk], b[kk * p + j], c[i * p + j])
                j = j + 1
            }
            kk = kk + 1
"""

# `k` also names the order (read in the j loop's bound, which the rewrite reads inside the k loop).
IMATMUL = """\
export func imatmul(a: *restrict i32, b: *restrict i32, c: *restrict mut i32, n: i32) {
    let k: i32 = n
    let mut i: i32 = 0
    while i < k {
        let mut j: i32 = 0
        while j < k {
            let mut s: i32 = 0
            let mut k: i32 = 0
            while k < n {
                s = b[k * n + j] * a[i * n + k] + s
                k = k + 1
            }
            c[j + n * i] = s
            j = j + 1
        }
        i = i + 1
    }
}
"""


def _replaced(before: str, after: str) -> str:
    """The lines of `after` from the outer loop's line (the first `while j`
    line) to the lines it shares with `before` at the end; the lines above
    stay as they were."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    head = next(n for n, line in enumerate(old) if line.lstrip().startswith("while j"))
    assert new[:head] == old[:head]
    tail = 0
    while tail < len(old) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return "".join(new[head:len(new) - tail])


# ---- exact output -------------------------------------------------------------

def test_matmul_exact():
    [site] = sites(MATMUL, "interchange")
    assert (site.function, site.index, site.line, site.hint, site.choices) == ("matmul", 0, 6, None, (True,))
    rw = rewrite(MATMUL, "interchange", "matmul", True)
    assert rw.title == "Interchange loops: k outside j (contiguous inner loop)"
    assert _replaced(MATMUL, rw.text) == INTERCHANGED
    # the text after the loop's closing brace stays on it; the comments inside move above the nest
    assert "            k = k + 1\n        }  // end of j\n        i = i + 1\n" in rw.text
    assert analyze(rw.text, "t.ea").ok


def test_the_bench_kernel_is_interchanged():
    [site] = sites(KERNEL, "interchange")
    rw = rewrite(KERNEL, "interchange", "matmul", True)
    assert "        let a_k: f32 = a[i * n + k]\n" in rw.text
    assert "            while j < n {\n                c[i * n + j] = c[i * n + j] + a_k * b[k * n + j]\n" in rw.text


def test_other_loop_forms_fma_and_a_start_value_read_from_memory():
    rw = rewrite(RECT, "interchange", "matmul_rect", True)
    assert rw.title == "Interchange loops: kk outside j (contiguous inner loop)"
    # different bounds (p, q): the j loop may not run when the k loop does, so a[...] is not read ahead
    assert _replaced(RECT, rw.text) == RECT_INTERCHANGED


def test_a_counter_name_used_elsewhere_is_renamed():
    rw = rewrite(IMATMUL, "interchange", "imatmul", True)
    # (the bounds differ as written, `k` and `n`: nothing is read ahead)
    assert _replaced(IMATMUL, rw.text) == """\
        while j < k {
            c[j + n * i] = 0
            j = j + 1
        }
        let mut k_2: i32 = 0
        while k_2 < n {
            j = 0
            while j < k {
                c[j + n * i] = b[k_2 * n + j] * a[i * n + k_2] + c[j + n * i]
                j = j + 1
            }
            k_2 = k_2 + 1
"""


def test_a_crlf_file_gets_crlf_lines():
    rw = rewrite(MATMUL.replace("\n", "\r\n"), "interchange", "matmul", True)
    assert "\n" not in rw.text.replace("\r\n", "")
    assert rw.text.replace("\r\n", "\n") == rewrite(MATMUL, "interchange", "matmul", True).text


def test_registered_first_and_tried_by_default():
    assert list(MODULES) == ["restrict", "tile", "panels", "kblock", "lines", "vectorise", "interchange", "vectorise_sum", "widen", "fma",
                             "unroll", "prefetch", "prefetch_change", "stream_store", "fast_reduce"]
    assert "interchange" in DEFAULT_TRANSFORMS
    assert MODULES["interchange"].HINTS == ()


# ---- equal results ------------------------------------------------------------------

def _square(k, n: int):
    a, b = random_f32(n * n, n), random_f32(n * n, n + 1)
    c = np.full(n * n, np.nan, np.float32)
    k.matmul(a, b, c, n=n)
    return c


def test_matmul_gives_equal_results_bit_for_bit(tmp_path):
    k0, k1 = load_pair(tmp_path, MATMUL, rewrite(MATMUL, "interchange", "matmul", True).text)
    for n in (0, 1, 2, 7, 8, 33, 64):
        c0, c1 = _square(k0, n), _square(k1, n)
        assert np.array_equal(c0, c1), n
        a, b = random_f32(n * n, n).reshape(n, n), random_f32(n * n, n + 1).reshape(n, n)
        np.testing.assert_allclose(c1.reshape(n, n), a @ b, rtol=1e-4, atol=1e-3, err_msg=str(n))


def test_rectangular_fma_and_integer_variants_give_equal_results(tmp_path):
    before = RECT + IMATMUL
    after = rewrite(rewrite(before, "interchange", "matmul_rect", True).text, "interchange", "imatmul", True).text
    k0, k1 = load_pair(tmp_path, before, after)
    for m, q, p in ((0, 3, 3), (1, 1, 1), (2, 5, 0), (3, 0, 4), (7, 9, 33), (8, 16, 8)):
        a, b, bias = random_f32(m * q, m), random_f32(q * p, q), random_f32(max(p, 1), p)
        out = []
        for k in (k0, k1):
            c = np.full(max(m * p, 1), np.nan, np.float32)
            k.matmul_rect(a, b, bias, c, m=m, q=q, p=p)
            out.append(c)
        assert np.array_equal(out[0], out[1], equal_nan=True), (m, q, p)
    for n in (0, 1, 2, 7, 8, 33):
        a, b = random_i32(n * n, n), random_i32(n * n, n + 1)
        out = []
        for k in (k0, k1):
            c = np.zeros(max(n * n, 1), np.int32)
            k.imatmul(a, b, c, n=n)
            out.append(c)
        assert np.array_equal(out[0], out[1]), n
        ref = (a.astype(np.int64).reshape(n, n) @ b.astype(np.int64).reshape(n, n)).astype(np.int32).ravel()
        assert np.array_equal(out[1][:n * n], ref), n


def test_the_tuner_renders_interchange_then_fma_then_unroll(tmp_path):
    a = analyze(KERNEL, "t.ea")
    space = build_space(a, "matmul", {}, {}, [], ("interchange", "fma", "unroll"))
    assert [k.name for k in space.knobs] == ["interchange:matmul:0", "fma:matmul:0", "unroll:matmul:0"]
    text, _ = render(a, space, (True, True, None))
    assert "                c[i * n + j] = fma(a_k, b[k * n + j], c[i * n + j])\n" in text
    # The knob meant the k loop, which the interchange made an outer loop: it does not move to another loop.
    with pytest.raises(NotApplicable, match="unroll matmul#0 ×4: the site is gone after the other changes"):
        render(a, space, (True, True, 4))
    k0, k1 = load_pair(tmp_path, KERNEL, text)
    for n in (1, 5, 33):
        ref = np.array(_square(k0, n), np.float64)
        np.testing.assert_allclose(_square(k1, n), ref, rtol=1e-5, atol=1e-4, err_msg=str(n))


# ---- not applicable ---------------------------------------------------------------

def _variant(body: str, params: str = "a: *restrict f32, b: *restrict f32, c: *restrict mut f32, n: i32",
             before: str = "        let mut j: i32 = 0\n") -> str:
    return f"""\
export func f({params}) {{
    let mut i: i32 = 0
    while i < n {{
{before}        while j < n {{
{body}            j = j + 1
        }}
        i = i + 1
    }}
}}
"""


def _body(update: str = "sum = sum + a[i * n + k] * b[k * n + j]", store: str = "c[i * n + j] = sum",
          cond: str = "k < n", lets: str = "let mut sum: f32 = 0.0\n            let mut k: i32 = 0",
          extra: str = "") -> str:
    return (f"            {lets}\n            while {cond} {{\n                {update}\n{extra}"
            f"                k = k + 1\n            }}\n            {store}\n")


def _reason(src: str, marker: str = "while j") -> str:
    a = analyze(src, "t.ea")
    assert a.ok, a.errors
    assert sites(src, "interchange") == []
    start = src.index(marker)
    site = Site("interchange", "f", 0, src[:start].count("\n") + 1, start, start + 1, (True,))
    with pytest.raises(NotApplicable) as err:
        MODULES["interchange"].edits(a, site, True)
    return str(err.value)


def test_the_variants_compile_and_the_plain_one_is_a_site():
    assert [s.line for s in sites(_variant(_body()), "interchange")] == [5]


@pytest.mark.parametrize("src, reason", [
    (_variant(_body(update="sum = sum + a[i * n + k] * c[k * n + j]")),
     "the loop reads 'c', the array it stores to"),
    (_variant(_body(lets="let mut sum: f32 = c[i * n + j]\n            let mut k: i32 = 0")),
     "the loop reads 'c', the array it stores to"),
    (_variant(_body(cond="k < j")), "a loop bound depends on 'j'"),
    (_variant(_body(lets="let mut sum: f32 = 0.0\n            let mut k: i32 = j")),
     "'k' starts at a value that depends on 'j' or has side effects"),
    (_variant(_body(store="c[i * n] = sum")),
     "the element of 'c' stored is not at `... + j` (each 'j' must store to an element of its own)"),
    (_variant(_body(store="c[2 * j] = sum")),
     "the element of 'c' stored is not at `... + j` (each 'j' must store to an element of its own)"),
    (_variant(_body(store="c[i * n + j + k] = sum")), "the element of 'c' stored depends on 'k'"),
    (_variant(_body(), params="a: *restrict f32, b: *restrict f32, c: *mut f32, n: i32"),
     "'c' is not a `restrict` pointer parameter: what the loop reads could overlap it"),
    (_variant(_body(update="sum = sum * a[i * n + k]")),
     "the inner loop does not only add to 'sum' (`sum = sum + ...`)"),
    (_variant(_body(update="sum = sum + sum * b[k * n + j]")), "'sum' is read besides being added to and stored"),
    (_variant(_body(extra="                sum = sum + 1.0\n")), "the inner loop does more than add to 'sum'"),
    (_variant(_body(store="c[i * n + j] = sum + 1.0")),
     "the loop does not store 'sum' to an array element after the inner loop"),
    (_variant(_body(cond="k + 2 <= n")), "the inner loop is not a step-1 loop `while i < n { ...; i = i + 1 }`"),
    (_variant("            let z: i32 = 1\n" + _body()),
     "the loop body is not `let mut s = ...; let mut k = ...; while k < n { s = s + ...; k = k + 1 }; "
     "x[...] = s; j = j + 1`"),
    (_variant(_body(), before="        let mut j: i32 = 0\n        let z: i32 = 1\n"),
     "'j' is not set right before the loop (each pass over 'j' starts there again)"),
    (_variant(_body(), before="        let mut j: i32 = 0\n        j = j + 1\n"),
     "the start value of 'j' reads 'j' or has side effects"),
    (_variant(_body(), before="        let mut j: i32 = 0\n        unroll(2) "),
     "the loop carries an `unroll(N)` hint"),
    (_variant(_body(lets="let mut k: i32 = 0\n            let mut sum: f32 = to_f32(k)")),
     "'sum' starts at a value that reads 'k'"),
    (_variant(_body(cond="k < n - k")), "the bound of the inner loop depends on 'k'"),
    (_variant(_body()).replace("            j = j + 1\n", "            j = j + 2\n"),
     "the outer loop is not a step-1 loop `while i < n { ...; i = i + 1 }`"),
])
def test_nests_that_cannot_be_interchanged_say_why(src, reason):
    assert _reason(src) == reason


def test_the_sum_or_the_counter_read_after_the_nest_is_refused():
    # locals are function-scoped: after the loop, `sum` and `k` hold the last element's values
    for name in ("sum", "k"):
        src = _variant(_body()).replace("        i = i + 1\n", f"        c[0] = c[0] + to_f32({name})\n"
                                        "        i = i + 1\n")
        assert _reason(src) == f"'{name}', declared in the loop, is used after it"


def test_a_call_and_a_local_pointer_are_refused():
    helper = "func twice(x: f32) -> f32 {\n    return 2.0 * x\n}\n\n"
    src = helper + _variant(_body(update="sum = sum + twice(a[i * n + k]) * b[k * n + j]"))
    assert _reason(src) == "the loop calls 'twice', which may write to 'c'"
    src = _variant(_body(update="sum = sum + p[i * n + k] * b[k * n + j]"),
                   before="        let p: *f32 = a\n        let mut j: i32 = 0\n")
    assert _reason(src) == "the loop reads through 'p', a local pointer that may point into 'c'"


def test_bad_choices_and_broken_files():
    a = analyze(MATMUL, "t.ea")
    [site] = sites(MATMUL, "interchange")
    for bad in (False, 1, "yes"):
        with pytest.raises(NotApplicable, match="interchange has one choice, True"):
            MODULES["interchange"].edits(a, site, bad)
    assert sites(MATMUL + "\nexport func broken() -> i32 { return 1.0 }\n", "interchange") == []
    with pytest.raises(NotApplicable, match="no while loop at line 1 of 'matmul'"):
        MODULES["interchange"].edits(a, Site("interchange", "matmul", 0, 1, 0, 1), True)
    with pytest.raises(NotApplicable, match="no function 'nope'"):
        MODULES["interchange"].edits(a, Site("interchange", "nope", 0, 1, 0, 1), True)
