"""The `kernel-no-tail` and `kernel-tail-pad` warnings: the last n % step
elements left unprocessed, said where the step is declared. Exact text and
span; the no-tail fix (`tail pad`, which states the promise) applied gives a
clean file; a run shows the elements really are left untouched."""
from __future__ import annotations

import os

os.environ["EA_DEBUG"] = "1"

import pytest  # noqa: E402

from ea_compiler import Options, analyze, render_all  # noqa: E402

X86 = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")


def lines(*rows: str) -> str:
    return "".join(r + "\n" for r in rows)


def rendered(src: str) -> str:
    a = analyze(src, "k.ea", X86)
    return render_all(a.diagnostics, a.source, "k.ea")


def tail_warnings(src: str, options: Options = X86):
    a = analyze(src, "k.ea", options)
    assert a.errors == [], [d.message for d in a.errors]
    return [d for d in a.diagnostics if d.code in ("kernel-no-tail", "kernel-tail-pad")]


def pos(span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


def apply(src: str, s) -> str:
    data = src.encode()
    return (data[: s.span.start] + s.replacement.encode() + data[s.span.end:]).decode()


NO_TAIL = lines("export kernel double(x: *f32, out: *mut f32)",
                "    over i in n step 8",
                "{",
                "    store(out, i, load_f32x8(x, i) .+ load_f32x8(x, i))",
                "}")


def test_exported_kernel_without_tail():
    assert rendered(NO_TAIL) == lines(
        "k.ea:2:10  warning[type]: kernel 'double' has no tail: when callers pass a value of 'n' that is not "
        "a multiple of 8, the last n % 8 elements are never processed",
        "        over i in n step 8",
        "             ^^^^^^^^^^^^^",
        "  = note: add 'tail scalar { ... }' or 'tail mask { ... }' to process them, or 'tail pad' to state "
        "that 'n' is always a multiple of 8",
        "  = help: 'n' is always a multiple of 8: declare 'tail pad'")
    (d,) = tail_warnings(NO_TAIL)
    assert (d.severity, d.kind, pos(d.span)) == ("warning", "type", (2, 10, 2, 23))
    (fix,) = d.suggestions
    assert (fix.replacement, pos(fix.span)) == (" tail pad", (2, 23, 2, 23))
    fixed = apply(NO_TAIL, fix)
    assert fixed.splitlines()[1] == "    over i in n step 8 tail pad"
    assert tail_warnings(fixed) == []


def test_the_elements_really_are_left_untouched(tmp_path):
    np = pytest.importorskip("numpy")
    from ea_compiler.loader import load
    path = tmp_path / "double.ea"
    path.write_text(NO_TAIL)
    lib = load(str(path))
    x = np.ones(13, dtype=np.float32)
    out = np.zeros(13, dtype=np.float32)
    lib.double(x, out)
    assert out.tolist() == [2.0] * 8 + [0.0] * 5


CALLED = lines("kernel zero(out: *mut f32)",
               "    over i in n step 8",
               "    {TAIL}",
               "{",
               "    store(out, i, load_f32x8(out, i) .- load_f32x8(out, i))",
               "}",
               "const N: i32 = 64",
               "export func run(out: *mut f32, m: i32) {",
               "    zero(out, N)",
               "    zero(out, m * 16)",
               "    zero(out, (m + 1) * 8)",
               "    zero(out, m)",
               "}")


def test_tail_pad_broken_by_a_call_in_the_file():
    src = CALLED.replace("{TAIL}", "tail pad")
    assert rendered(src) == lines(
        "k.ea:2:10  warning[type]: 'tail pad' leaves the last n % 8 elements untouched, and a call in this file "
        "may pass a value of 'n' that is not a multiple of 8",
        "        over i in n step 8",
        "             ^^^^^^^^^^^^^",
        "  k.ea:12:15: passed as 'n': not provably a multiple of 8",
        "          zero(out, m)",
        "                    ^",
        "  = note: 'tail pad' pads nothing: it is a promise that callers pass a multiple of the step; use "
        "'tail scalar { ... }' or 'tail mask { ... }' to process the rest")
    assert tail_warnings(src)[0].suggestions == []


def test_private_kernel_without_tail_called_with_any_n():
    src = CALLED.replace("{TAIL}", "")
    (d,) = tail_warnings(src)
    assert d.code == "kernel-no-tail"
    assert d.message == ("kernel 'zero' has no tail: when a call in this file passes a value of 'n' that is "
                         "not a multiple of 8, the last n % 8 elements are never processed")
    assert [lab.span.line for lab in d.labels] == [12]


@pytest.mark.parametrize("src", [
    CALLED.replace("{TAIL}", "tail pad").replace("    zero(out, m)\n", ""),  # every call a multiple
    CALLED.replace("{TAIL}", "").replace("    zero(out, m)\n", ""),
    CALLED.replace("{TAIL}", "tail scalar { out[i] = 0.0 }"),
    CALLED.replace("{TAIL}", "tail mask { store_masked(out, i, splat(0.0), n - i) }"),
    NO_TAIL.replace("step 8", "step 1").replace("load_f32x8(x, i) .+ load_f32x8(x, i)", "load(x, i)")
    .replace("store(out, i, load(x, i))", "out[i] = x[i]"),  # step 1 covers everything
    lines("export kernel pad(x: *f32, out: *mut f32)", "    over i in n step 8", "    tail pad", "{",
          "    store(out, i, load_f32x8(x, i))", "}"),  # the stated promise, no caller to break it
    NO_TAIL.replace("export kernel", "kernel"),  # never called
])
def test_no_warning(src):
    assert tail_warnings(src) == []


def test_examples_have_no_tail_warning():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
    for name in sorted(os.listdir(root)):
        if name.endswith(".ea"):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                # A CPU with every instruction set the examples use (int8_*.ea: VNNI).
                assert tail_warnings(f.read(), Options(target_triple=X86.target_triple,
                                                       target_cpu="icelake-server")) == [], name
