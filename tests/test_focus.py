"""`Analysis.focus`: after an edit, a request about one place reads only the
items it needs (the rest of the file keeps its unmoved spans), and answers as
the whole analysis does (tests/test_incremental.py compares them over random
edits). Here: that a hover and a cached function report really stay focused,
and what a focused analysis holds."""
from __future__ import annotations

from ea_compiler import Options, analyze
from ea_compiler.build import errors_blocking
from ea_compiler.ide.hover import hover
from ea_compiler.incremental import AnalysisSession
from ea_compiler.inspect.incremental import inspect_function
from ea_compiler.source import Span
from focus_support import focus_differences

OPTIONS = Options(target_triple="x86_64-unknown-linux-gnu", target_cpu="haswell")
TEXT = """struct P { x: f32 }
const K: f32 = 2.0
func helper(v: f32) -> f32 {
    return v * K
}
export func first(a: *f32) -> f32 {
    return a[0]
}
export func middle(a: *f32) -> f32 {
    return helper(a[1])
}
export func last(a: *f32) -> f32 {
    return a[2]
}
"""
GOOD, BAD = "    return a[0]\n", "    return a[0] + 1\n"  # BAD: an i32 added to an f32


def edited(session: AnalysisSession, text: str):
    a = session.update(text)
    assert "_fill" in a.__dict__, "the edit took the full path"
    return a


def test_hover_and_a_cached_report_read_only_their_items():
    session = AnalysisSession("f.ea", OPTIONS)
    want = inspect_function(session.update(TEXT), "middle")  # compiled once, cached
    new = TEXT.replace(GOOD, BAD)
    a = edited(session, new)
    assert a.errors, "the edit breaks `first`"
    at = new.index("middle")
    h = hover(a, at)
    assert (h.word.text, h.symbol.kind) == ("middle", "function")
    assert inspect_function(a, "middle") is want  # the cached report: `first`'s error does not block it
    assert "_fill" in a.__dict__, "the hover or the report read the whole analysis"
    focused = a.focus(at)
    assert [i.name for i in focused.ast.items] == ["P", "K", "helper", "middle"]
    assert [f.name for f in focused.live_functions] == ["helper", "middle"]
    first, last = new.index("export func first"), new.index("export func last")
    span = a.diagnostics[0].span  # in `first`, which is left out
    assert focused.left_out(span) and first < span.start
    assert [focused.left_out(Span(n, n + 1, 1, 1, 1, 2)) for n in (first, last, len(new) - 2, at, 0)] == \
        [True, True, True, False, False]
    assert not focus_differences(a, analyze(new, "f.ea", OPTIONS), [at, 0, new.index("* K"), new.index("a[2]")])


def test_errors_in_a_function_left_out_block_only_its_callers():
    text = TEXT.replace("    return v * K", "    let q: i32 = 1\n    return v * K")
    session = AnalysisSession("f.ea", OPTIONS)
    session.update(text)
    broken = text.replace("let q: i32 = 1", "let q: i32 = 1.5")  # an error in `helper`, which `middle` calls
    a = edited(session, broken)
    focused = a.focus(names=["last"])
    assert [f.name for f in focused.live_functions] == ["last"]
    assert errors_blocking(focused, ["last"]) == []
    middle = a.focus(names=["middle"])
    assert [d.message for d in errors_blocking(middle, ["middle"])] == \
        [d.message for d in errors_blocking(analyze(broken, "f.ea", OPTIONS), ["middle"])] != []


def test_an_older_or_whole_analysis_is_its_own_focus():
    session = AnalysisSession("f.ea", OPTIONS)
    whole = session.update(TEXT)
    assert whole.focus(0) is whole
    older = edited(session, TEXT.replace(GOOD, BAD))
    newest = edited(session, TEXT)
    assert older.focus(0) is older  # not the newest: read whole (stale, as any older analysis)
    assert newest.focus(0) is not newest and newest.focus(0) is newest.focus(1)  # made once per place
    newest.tokens
    assert newest.focus(0) is newest  # read whole already
