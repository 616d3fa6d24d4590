"""The incremental analysis gives what a from-scratch analysis gives: random
(seeded) edit sequences replayed over every .ea file of the repository, each
state compared field by field (tokens, both trees with their checked types,
every diagnostic with its spans, labels and fixes, symbols with references,
expression types, recorded decisions) with `analyze()` of the same text;
some states first asked about one place only (`Analysis.focus`)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.incremental import AnalysisSession
from ea_compiler.syntax import ast as A
from focus_support import focus_differences
from incremental_support import differences, snapshot

ROOT = Path(__file__).resolve().parent.parent
# The project's own files: not what benchmarks and tuning runs leave in build/ and __eatune__/
FILES = sorted(p for p in ROOT.rglob("*.ea")
               if not {".venv", "node_modules", ".cache", "build", "__eatune__", "__eacache__"} & set(p.parts))
LINES = ["    let tmp: i32 = 1", "    let v: f32x8 = splat(1.0)", "    let w: f32x4 = load(a, 0)",
         "    let = ", "    }", "    {", "    return 0", "    let bad: u32x8 = splat(2)", "    x = x .+ 1.0",
         "    // a comment", "    let s: f32 = reduce_add(splat(1.0))", "    unknown_call(1, 2)", ";", "\"open"]
WORDS = ["let q: i32 = 0", "x .* y", "load_f32x8(a, i)", "if i < 2 { return }", "reduce_sum(acc)", "1e-6"]


def bodies(text: str) -> list[tuple[int, int]]:
    """Byte ranges strictly inside the functions' and kernels' bodies."""
    a = analyze(text)
    return [(i.body.span.start + 1, i.body.span.end - 1) for i in a.ast.items
            if isinstance(i, (A.Func, A.Kernel)) and i.body.span.end - i.body.span.start > 2]


def line_starts(data: bytes) -> list[int]:
    return [0] + [n + 1 for n, c in enumerate(data) if c == 10 and n + 1 < len(data)]


class Replay:
    def __init__(self, path: Path, text: str):
        self.path = str(path)
        self.session = AnalysisSession(self.path)
        self.data = text.encode()
        self.steps = 0
        self.check()

    def check(self) -> None:
        """Every third state compared whole; the others by their diagnostics
        alone, as an editor reads them after an edit (which leaves the spans of
        the items after the edit unmoved until something else is read)."""
        got = self.session.update(self.data)
        want = analyze(self.data, self.path)
        if self.steps % 3 != 2:
            diff = differences({"diagnostics": [d.to_json() for d in got.diagnostics]},
                               {"diagnostics": [d.to_json() for d in want.diagnostics]})
            if self.steps % 3 == 1:  # then one place read, as a hover reads it (the next check reads it all)
                rnd = random.Random(f"focus:{self.path}:{self.steps}")
                diff += focus_differences(got, want, [rnd.randrange(len(self.data) + 1) for _ in range(3)])
        else:
            diff = differences(snapshot(got), snapshot(want))
        assert not diff, f"{self.path} after {self.steps} edits:\n" + "\n".join(diff) + \
            "\n--- text ---\n" + self.data.decode(errors="replace")
        self.steps += 1

    def replace(self, start: int, end: int, new: str) -> None:
        self.data = self.data[:start] + new.encode() + self.data[end:]
        self.check()


def edit_once(r: Replay, rnd: random.Random) -> None:
    text = r.data.decode()
    inside = bodies(text)
    kind = rnd.choice(["insert", "delete", "type", "break", "replace", "declaration"])
    starts = line_starts(r.data)
    if kind in ("insert", "type", "replace") and inside:
        lo, hi = rnd.choice(inside)
        at = rnd.randint(lo, hi)
        if kind == "insert":
            line = max(s for s in starts if s <= at)
            r.replace(line, line, rnd.choice(LINES) + "\n")
        elif kind == "type":  # a word typed one character at a time, then erased the same way
            word = rnd.choice(WORDS)
            for n in range(1, len(word) + 1):
                r.replace(at, at + n - 1, word[:n])
            for n in range(len(word) - 1, -1, -1):
                r.replace(at, at + n + 1, word[:n])
        else:
            end = min(hi, at + rnd.randint(0, 6))
            r.replace(at, end, rnd.choice(["", "x", "1", ".", "(", "acc", " "]))
    elif kind == "delete" and len(starts) > 2:
        n = rnd.randrange(len(starts) - 1)
        r.replace(starts[n], starts[n + 1], "")
    elif kind == "break":  # a closing brace removed, then put back
        at = text.rfind("}", 0, rnd.randint(0, len(text)))
        if at >= 0:
            r.replace(at, at + 1, "")
            r.replace(at, at, "}")
    else:  # a declaration changed: a constant's value or type, a struct's field, a signature
        for old, new in (("const ", "const Z: i32 = 3\nconst "), (": f32,", ": f64,"), ("-> f32", "-> i32"),
                         ("= 8", "= 4"), ("*mut", "*")):
            at = text.find(old, rnd.randint(0, len(text)))
            if at >= 0:
                r.replace(at, at + len(old), new)
                return


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_random_edits_match_a_full_analysis(path):
    rnd = random.Random(f"incremental:{path.name}")
    r = Replay(path, path.read_text())
    for _ in range(12):
        edit_once(r, rnd)


def test_the_edits_are_mostly_incremental():
    """The comparison above proves nothing if every update is a full analysis."""
    text = (ROOT / "examples" / "dot.ea").read_text()
    r = Replay(Path("dot.ea"), text)
    lo, hi = bodies(text)[0]
    at = r.data.index(b"\n", lo) + 1
    for n, word in enumerate(["    let q: f32 = 1.0\n", "    let zz: f32x8 = splat(2.0)\n"]):
        r.replace(at, at, word)
    assert r.session.incremental_updates == 2
    r.replace(at, at, "    let w: i32 = 1.5\n")  # a type error: still one function
    assert r.session.incremental_updates == 3
    assert any(d.code == "type-mismatch" or "i32" in d.message for d in r.session.analysis.errors)


def test_a_signature_or_declaration_change_is_a_full_analysis():
    text = "const N: i32 = 4\nfunc f(a: i32) -> i32 {\n    return a + N\n}\nfunc g() -> i32 {\n    return f(1)\n}\n"
    s = AnalysisSession("t.ea")
    s.update(text)
    for edited in (text.replace("a: i32", "a: f32"), text.replace("N: i32 = 4", "N: i32 = 5")):
        a = s.update(edited)
        assert not differences(snapshot(a), snapshot(analyze(edited, "t.ea")))
    assert s.incremental_updates == 0
    a = s.update(edited.replace("return a + N", "return a + N + 1"))
    assert s.incremental_updates == 1
    assert [r.line for r in a.symbols.named("N")[0].references] == [3]
    assert [r.line for r in a.symbols.named("f", "function")[0].references] == [6]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_non_ascii_text_and_crlf_line_ends(newline):
    """Columns count characters (the body is re-lexed from its middle of a line)."""
    text = newline.join(["// é à ü", "func f(a: i32) -> i32 { let s: i32 = a // ü", "    return s + 1",
                         "}", "// ÿ", "export func g(x: *f32, n: i32) -> f32 {", "    let v: f32 = x[0] // é",
                         "    return v", "}", ""])
    r = Replay(Path("u.ea"), text)
    rnd = random.Random(f"unicode:{newline!r}")
    for _ in range(10):
        lo, hi = rnd.choice(bodies(r.data.decode()))
        at = rnd.randint(lo, hi)
        while at < len(r.data) and (r.data[at] & 0xC0) == 0x80:  # not inside a character
            at += 1
        r.replace(at, at, rnd.choice(["é", " x", "1", "  ", "ü("]))
    assert r.session.incremental_updates > 0


LINTED = """func first(a: *f32, n: i32) -> f32 {
    let mut s: f32 = 0.0
    return s
}
export kernel vscale(data: *f32, out: *mut f32, factor: f32)
    over i in n step 8
    tail scalar { out[i] = data[i] * factor }
{
    store(out, i, load(data, i) .* splat(factor))
}
kernel padded(x: *f32, y: *mut f32)
    over i in n step 8
    tail pad
{
    store(y, i, load_f32x8(x, i))
}
func caller(x: *f32, y: *mut f32, m: i32) {
    padded(x, y, m)
}
func wide(p: *f32) -> f32 {
    let v: f32x16 = load_f32x16(p, 0)
    return reduce_add(v)
}
"""


def test_edits_before_linted_items_read_by_their_diagnostics():
    """Edits in the first function, each followed by reading the diagnostics
    only: the items after it keep unmoved spans, except the ones the lints
    read and report (a kept coverage warning, a `tail pad` kernel and the call
    of it in another function, the first use of a too-wide vector type)."""
    options = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")
    session = AnalysisSession("l.ea", options)
    data = LINTED.encode()
    codes = {d.code for d in session.update(data).diagnostics}
    assert codes == {"kernel-coverage", "kernel-tail-pad", "vector-too-wide"}
    at = data.index(b"    return s")
    for edit in ["    let t: f32 = 1.0\n", "\n\n", "    let q: i32 = 1.5\n", "x", "    s = s + 1.0 // é\n"]:
        data = data[:at] + edit.encode() + data[at:]
        got = session.update(data)
        want = analyze(data, "l.ea", options)
        assert [d.to_json() for d in got.diagnostics] == [d.to_json() for d in want.diagnostics], edit
    assert session.incremental_updates == 5
    assert not differences(snapshot(got), snapshot(want))


def test_reading_an_older_analysis_leaves_the_newest_intact():
    """An analysis read after a newer update is stale, but filling it (its
    fields are joined when first read) must not change the newest one: the
    declarations' symbols, whose references it gathers, are shared."""
    text = "const N: i32 = 4\nfunc f(a: i32) -> i32 {\n    return a + N\n}\nfunc g() -> i32 {\n    return f(1)\n}\n"
    session = AnalysisSession("t.ea")
    session.update(text)
    at = text.index("    return a")
    first = text[:at] + "    let q: i32 = 1\n" + text[at:]
    second = first[:at] + "    let r: i32 = 2\n" + first[at:]
    older = session.update(first)
    newest = session.update(second)
    assert session.incremental_updates == 2
    want = snapshot(analyze(second, "t.ea"))
    assert not differences(snapshot(newest), want)
    older.symbols, older.tokens  # filled now, after the newer update
    assert not differences(snapshot(newest), want)
