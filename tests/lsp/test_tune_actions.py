"""Rewrite code actions (eals/features/tune_actions.py): where a site is offered
given the function's live inspect report, and, over stdio, the actions each
hint gets (one-accumulator and small-step: unroll; narrow-vectors: widen;
mul-add: fma; a memory-bound loop: prefetch), each edit applied to the text
giving the expected source."""
from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from ea_compiler import Options
from ea_compiler.tooling import Site, analyze, find_sites, inspect_function
from eals.features.tune_actions import Memo, anchor_lines, ordered_choices
from eals.support import apply_workspace_edit
from lsp_support import HASWELL as HASWELL_SETTINGS
from lsp_support import SERVER, at, open_doc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HASWELL = Options(target_cpu="haswell", target_triple="x86_64-unknown-linux-gnu")
TEXT = (EXAMPLES / "reductions.ea").read_text()


def loop_site(analysis, function: str, transform: str, hint: str | None) -> Site:
    """A site spanning the `while` loop of `function` (lines of the example)."""
    start = TEXT.index("while", TEXT.index(f"func {function}"))
    end = TEXT.index("    }\n", start) + len("    }")
    return Site(transform, function, 0, analysis.source.line_of(start), start, end, (2, 4, 8), hint)


def line_of(needle: str, after: str) -> int:
    return TEXT[:TEXT.index(needle, TEXT.index(after))].count("\n") + 1


def test_a_site_is_offered_on_its_construct_and_its_hint():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    report = inspect_function(analysis, "max_f32")
    assert "one-accumulator" in [h.code for h in report.hints]
    site = loop_site(analysis, "max_f32", "unroll", "one-accumulator")
    loop = line_of("while", "func max_f32")
    assert anchor_lines(analysis.source, site, report) == set(range(loop, loop + 4))
    assert line_of("best = max(", "func max_f32") in anchor_lines(analysis.source, site, report)


def test_a_site_whose_hint_the_report_lacks_is_not_offered():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    report = inspect_function(analysis, "max_f32")
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "fma", "mul-add"), report) is None
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "unroll", None), report) is None


def test_prefetch_only_for_a_memory_bound_main_loop():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    summed = inspect_function(analysis, "sum_f32")
    assert [lp.bottleneck for lp in summed.loops if lp.role == "main"] == ["memory-bound"]
    site = loop_site(analysis, "sum_f32", "prefetch", None)
    loop = line_of("while", "func sum_f32")
    assert anchor_lines(analysis.source, site, summed) == set(range(loop, loop + 5))
    site = loop_site(analysis, "sum_f32", "prefetch", "memory-bound")  # what the prefetch sites say
    assert anchor_lines(analysis.source, site, summed) == set(range(loop, loop + 5))
    latency = inspect_function(analysis, "max_f32")  # latency-bound: prefetching does not help
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "prefetch", None), latency) is None
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "prefetch", "memory-bound"), latency) is None


def test_rewrites_are_kept_for_their_analysis_only():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    (site,) = [s for s in find_sites(analysis, "max_f32") if s.transform == "unroll"]
    memo = Memo()
    first = memo.get(analysis, site, 4)
    assert first.title == "Unroll \u00d74 with 4 accumulators"
    assert memo.get(analysis, site, 4) is first
    again = analyze(TEXT, "reductions.ea", HASWELL)
    assert memo.get(again, site, 4) is not first and memo.get(again, site, 4).text == first.text


def test_choices_four_first():
    assert ordered_choices((2, 4, 8)) == [4, 2, 8]
    assert ordered_choices((8, 16)) == [8, 16]
    assert ordered_choices(()) == [None]
    assert ordered_choices((1, 2, 4, 8, 16)) == [4, 1, 2]


# ---- over stdio ----------------------------------------------------------------

UNROLLED_X4 = """\
    let mut best_1: f32x8 = best
    let mut best_2: f32x8 = best
    let mut best_3: f32x8 = best
    while i + 4 * LANES <= n {
        best = max(best, load_f32x8(x, i))
        best_1 = max(best_1, load_f32x8(x, i + LANES))
        best_2 = max(best_2, load_f32x8(x, i + 2 * LANES))
        best_3 = max(best_3, load_f32x8(x, i + 3 * LANES))
        i = i + 4 * LANES
    }
    best = max(max(best, best_1), max(best_2, best_3))
"""
UNROLL_TITLES = ["Unroll ×4 with 4 accumulators", "Unroll ×2 with 2 accumulators", "Unroll ×8 with 8 accumulators"]
PREFETCH_TITLES = ["Prefetch 256 bytes ahead", "Prefetch 512 bytes ahead", "Prefetch 1024 bytes ahead"]
SCALE = """\
export func scale(x: *restrict f32, y: *restrict mut f32, a: f32, n: i32) {
    let va: f32x4 = splat(a)
    let mut i: i32 = 0
    while i + 4 <= n {
        store(y, i, load(x, i) .* va)
        i = i + 4
    }
    for j in i..n {
        y[j] = x[j] * a
    }
}
"""
WIDENED = SCALE.replace("f32x4", "f32x8").replace("load(x", "load_f32x8(x").replace("i + 4", "i + 8")
STEP_1 = """\
export kernel scale(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 1
    tail scalar { y[i] = a * x[i] }
{
    y[i] = a * x[i]
}
"""
STEP_4 = STEP_1.replace("step 1", "step 4").replace(
    "    y[i] = a * x[i]\n}", "".join(f"    y[i{f' + {k}' if k else ''}] = a * x[i{f' + {k}' if k else ''}]\n"
                                    for k in range(4)) + "}")
AXPY = """\
export func axpy(x: *f32, y: *mut f32, a: f32, n: i32) {
    for i in 0..n {
        println("\u00e9\U0001F600") y[i] = a * x[i] + y[i]
    }
}
"""


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=HASWELL_SETTINGS))
    yield
    await lsp_client.shutdown_session()


async def actions(client, uri: str, pos: lsp.Position, only=None) -> list[lsp.CodeAction]:
    return list(await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(start=pos, end=pos),
        context=lsp.CodeActionContext(diagnostics=[], only=only))))


def rewrites_of(found) -> list[lsp.CodeAction]:
    return [a for a in found if a.kind == lsp.CodeActionKind.RefactorRewrite]


@pytest.mark.asyncio(loop_scope="module")
async def test_unroll_offered_on_the_loop_and_on_the_hint_line(client):
    uri = "file:///tune/max.ea"
    open_doc(client, uri, TEXT)
    on_loop = rewrites_of(await actions(client, uri, at(TEXT, "while", 4, nth=1)))
    assert [a.title for a in on_loop] == UNROLL_TITLES
    on_hint = rewrites_of(await actions(client, uri, at(TEXT, "best = max(", 2)))
    assert [a.title for a in on_hint] == UNROLL_TITLES
    loop = TEXT.index("    while", TEXT.index("func max_f32"))
    expected = TEXT[:loop] + UNROLLED_X4 + TEXT[loop:]
    assert apply_workspace_edit(TEXT, uri, on_loop[0].edit) == expected
    assert analyze(expected, "max.ea", HASWELL).ok


@pytest.mark.asyncio(loop_scope="module")
async def test_nothing_offered_where_no_hint_asks(client):
    uri = "file:///tune/none.ea"
    open_doc(client, uri, TEXT)
    assert rewrites_of(await actions(client, uri, at(TEXT, "let mut m: f32 = reduce_max"))) == []
    # sum_f32 keeps two accumulators already: no one-accumulator hint, no unroll action; its main loop
    # is memory-bound without prefetches: prefetch is offered
    assert [a.title for a in rewrites_of(await actions(client, uri, at(TEXT, "acc0 = acc0")))] == PREFETCH_TITLES


@pytest.mark.asyncio(loop_scope="module")
async def test_the_only_filter(client):
    uri = "file:///tune/only.ea"
    open_doc(client, uri, TEXT)
    pos = at(TEXT, "while", 4, nth=1)
    assert await actions(client, uri, pos, only=[lsp.CodeActionKind.QuickFix]) == []
    assert [a.title for a in await actions(client, uri, pos, only=[lsp.CodeActionKind.Refactor])] == UNROLL_TITLES


@pytest.mark.asyncio(loop_scope="module")
async def test_fma_edit_in_utf16_columns(client):
    uri = "file:///tune/axpy.ea"
    open_doc(client, uri, AXPY)
    found = rewrites_of(await actions(client, uri, at(AXPY, "a * x")))
    assert [a.title for a in found] == ["Use fma(a, x[i], y[i])"]
    (edit,) = found[0].edit.changes[uri]
    line = AXPY.splitlines()[2]
    start = len(line[:line.index("a * x")].encode("utf-16-le")) // 2  # é is one UTF-16 unit, the emoji two
    assert start == line.index("a * x") + 1
    assert edit.range == lsp.Range(start=lsp.Position(line=2, character=start),
                                   end=lsp.Position(line=2, character=start + len("a * x[i] + y[i]")))
    assert apply_workspace_edit(AXPY, uri, found[0].edit) == AXPY.replace("a * x[i] + y[i]", "fma(a, x[i], y[i])")


@pytest.mark.asyncio(loop_scope="module")
async def test_widen_on_the_function_prefetch_on_the_memory_bound_loop(client):
    uri = "file:///tune/scale.ea"
    open_doc(client, uri, SCALE)
    on_loop = rewrites_of(await actions(client, uri, at(SCALE, "while")))
    assert [a.title for a in on_loop] == ["Widen f32x4 \u2192 f32x8"] + PREFETCH_TITLES
    assert [a.title for a in rewrites_of(await actions(client, uri, at(SCALE, "let va")))] == ["Widen f32x4 \u2192 f32x8"]
    assert apply_workspace_edit(SCALE, uri, on_loop[0].edit) == WIDENED
    assert analyze(WIDENED, "scale.ea", HASWELL).ok
    prefetched = apply_workspace_edit(SCALE, uri, on_loop[2].edit)
    assert prefetched == SCALE.replace("    while i + 4 <= n {\n", "    while i + 4 <= n {\n        prefetch(x, i + 128)\n")


@pytest.mark.asyncio(loop_scope="module")
async def test_small_step_kernel_unrolled(client):
    uri = "file:///tune/step.ea"
    open_doc(client, uri, STEP_1)
    found = rewrites_of(await actions(client, uri, at(STEP_1, "step 1")))
    assert [a.title for a in found] == ["Unroll \u00d74", "Unroll \u00d72", "Unroll \u00d78"] + PREFETCH_TITLES
    assert apply_workspace_edit(STEP_1, uri, found[0].edit) == STEP_4
    assert "    y[i + 3] = a * x[i + 3]\n}" in STEP_4 and analyze(STEP_4, "step.ea", HASWELL).ok


# ---- a client that resolves the edits -------------------------------------------

RESOLVING = lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
    code_action=lsp.CodeActionClientCapabilities(
        data_support=True, resolve_support=lsp.ClientCodeActionResolveOptions(properties=["edit"]))))


@pytest_lsp.fixture(scope="module", config=SERVER)
async def resolving(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=RESOLVING, initialization_options=HASWELL_SETTINGS))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_edits_come_from_resolve(resolving):
    uri = "file:///tune/resolve.ea"
    open_doc(resolving, uri, TEXT)
    found = rewrites_of(await actions(resolving, uri, at(TEXT, "while", 4, nth=1)))
    assert [a.title for a in found] == UNROLL_TITLES
    assert all(a.edit is None for a in found)
    resolved = await resolving.code_action_resolve_async(found[0])
    loop = TEXT.index("    while", TEXT.index("func max_f32"))
    assert apply_workspace_edit(TEXT, uri, resolved.edit) == TEXT[:loop] + UNROLLED_X4 + TEXT[loop:]


@pytest.mark.asyncio(loop_scope="module")
async def test_resolve_after_the_site_is_gone(resolving):
    uri = "file:///tune/gone.ea"
    open_doc(resolving, uri, TEXT)
    (first, *_) = rewrites_of(await actions(resolving, uri, at(TEXT, "while", 4, nth=1)))
    start = TEXT.index("export func max_f32")
    end = TEXT.index("export func min_f32")
    resolving.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=TEXT[:start] + TEXT[end:])]))
    with pytest.raises(JsonRpcException) as info:
        await resolving.code_action_resolve_async(first)
    assert info.value.code == -32803
    assert info.value.message == "Unroll ×4 with 4 accumulators: the code changed: it no longer applies here"


@pytest.mark.asyncio(loop_scope="module")
async def test_resolve_with_unusable_data(resolving):
    bad = lsp.CodeAction(title="Unroll", kind=lsp.CodeActionKind.RefactorRewrite,
                         data={"eaRewrite": {"uri": 3, "site": "unroll"}})
    with pytest.raises(JsonRpcException) as info:
        await resolving.code_action_resolve_async(bad)
    assert info.value.code == -32602 and "unusable data" in info.value.message
    plain = lsp.CodeAction(title="something else", data={"other": 1})
    assert (await resolving.code_action_resolve_async(plain)).title == "something else"


# ---- loop-nest transformations: offered on their loop, or disabled with the reason ----------

NAIVE = (Path(__file__).resolve().parents[2] / "bench" / "tune_nest" / "matmul_naive.ea").read_text()


def test_a_nest_transformation_that_does_not_apply_is_a_disabled_action_with_its_reason():
    from eals.features.tune_actions import explained, sites_of
    analysis = analyze(NAIVE, "mm.ea", HASWELL)
    actions = explained(analysis, ["matmul"], sites_of(analysis, ["matmul"]))
    why = ("`c` may alias `a`, `b` (not restrict): use --assume-noalias (Eä has no pointer comparison, so no "
           "runtime overlap check can be written)")
    assert [(a.title, a.disabled.reason) for a in actions][:3] == [
        ("Register-tile the loop nest (ea tune)", f"tile: {why}"),
        ("Vectorise the loop nest (ea tune)", f"vectorise: {why}"),
        ("Interchange loops (ea tune)", f"interchange: {why}")]
    assert all(a.kind == lsp.CodeActionKind.RefactorRewrite and a.edit is None for a in actions)


def test_a_nest_transformation_that_applies_is_offered_on_its_loop_with_its_largest_choice():
    from eals.features.tune_actions import Memo, explained, nest_offered, sites_of
    text = NAIVE.replace("a: *f32, b: *f32, c: *mut f32", "a: *restrict f32, b: *restrict f32, c: *restrict mut f32")
    analysis = analyze(text, "mm.ea", HASWELL)
    sites = sites_of(analysis, ["matmul"])
    assert explained(analysis, ["matmul"], sites) == []
    pairs = nest_offered(analysis, sites, range(7, 8))  # the j loop's line: inside the i loop (tile) too
    assert [(s.transform, c) for s, c in pairs] == [("tile", (4, 3, 8, True)), ("vectorise", (1, 1, 8, True)),
                                                    ("interchange", True)]
    assert Memo().get(analysis, pairs[0][0], pairs[0][1]).title == "Register-tile 4×3 vectors of 8 lanes with fma"
    assert nest_offered(analysis, sites, range(1, 3)) == []
