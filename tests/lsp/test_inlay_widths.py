"""Over stdio: the inferred widths of context-typed calls as inlay type hints
(`load(data, i)` -> `: f32x4`) at the functions and lines levels and none at
off; and the kernel warnings published as diagnostics with their quick fixes."""
from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler import analyze
from eals.support import apply_workspace_edit
from lsp_support import HASWELL, SERVER, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

VSCALE = """\
export kernel vscale(data: *f32, out: *mut f32, factor: f32)
    over i in n step 8
    tail scalar { out[i] = data[i] * factor }
{
    store(out, i, load(data, i) .* splat(factor))
}
"""
WIDE = """\
export func f(p: *f32, q: *mut f32) {
    let a: f32x8 = splat(1.0)
    let b: f32x8 = load(p, 0) .+ splat(2.0)
    store(q, 0, a .* load(p, 8))
    store_masked(q, 16, load_masked(p, 16, 3), 3)
}
"""
LINES = VSCALE.splitlines()
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=99, character=0))


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options={"ea": {**HASWELL["ea"], "inlayHints": "functions"}}))
    yield
    await lsp_client.shutdown_session()


def set_level(client, level: str) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"ea": {"inlayHints": level}}))


async def type_hints(client, uri: str, rng: lsp.Range = EVERYTHING) -> list[tuple[int, int, str]]:
    found = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng))
    return [(h.position.line, h.position.character, h.label) for h in found if h.kind == lsp.InlayHintKind.Type]


async def published(client, uri: str) -> list[lsp.Diagnostic]:
    async def wait():
        while uri not in client.diagnostics:
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    await asyncio.wait_for(wait(), 20)
    return list(client.diagnostics[uri])


async def test_showcase_kernel_shows_the_4_lane_default(client):
    uri = "file:///tmp/widths_vscale.ea"
    set_level(client, "functions")
    open_doc(client, uri, VSCALE)
    end_load = LINES[4].index("load(data, i)") + len("load(data, i)")
    end_splat = LINES[4].index("splat(factor)") + len("splat(factor)")
    assert await type_hints(client, uri) == [(4, end_load, ": f32x4"), (4, end_splat, ": f32x4")]


async def test_widths_from_context_and_no_hint_beside_a_written_type(client):
    uri = "file:///tmp/widths_wide.ea"
    set_level(client, "lines")
    open_doc(client, uri, WIDE)
    rows = WIDE.splitlines()

    def end(line: int, text: str) -> int:
        return rows[line].index(text) + len(text)
    assert await type_hints(client, uri) == [
        (2, end(2, "load(p, 0)"), ": f32x8"), (2, end(2, "splat(2.0)"), ": f32x8"),
        (3, end(3, "load(p, 8)"), ": f32x8"),
        (4, end(4, "load_masked(p, 16, 3)"), ": f32x4")]
    only_line_3 = lsp.Range(start=lsp.Position(line=3, character=0), end=lsp.Position(line=3, character=99))
    assert await type_hints(client, uri, only_line_3) == [(3, end(3, "load(p, 8)"), ": f32x8")]


async def test_off_level_shows_none(client):
    uri = "file:///tmp/widths_off.ea"
    set_level(client, "off")
    open_doc(client, uri, VSCALE)
    assert await type_hints(client, uri) == []
    set_level(client, "functions")


async def test_warning_published_with_quick_fixes(client):
    uri = "file:///tmp/widths_warning.ea"
    open_doc(client, uri, VSCALE)
    (d,) = await published(client, uri)
    assert (d.severity, d.code, d.source) == (lsp.DiagnosticSeverity.Warning, "kernel-coverage", "ea[type]")
    assert d.message.startswith("this store writes 4 lanes (f32x4, inferred: `load` defaults to 4 lanes here)")
    assert d.range == lsp.Range(start=lsp.Position(line=4, character=4), end=lsp.Position(line=4, character=49))
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.QuickFix])))  # not the rewrites
    assert [a.title for a in actions] == ["load 8 lanes: load_f32x8(...)", "declare the width: let v: f32x8 = ..."]
    for action in actions:
        fixed = apply_workspace_edit(VSCALE, uri, action.edit)
        assert [x for x in analyze(fixed, "k.ea").diagnostics if x.code == "kernel-coverage"] == []


async def test_tail_and_width_warnings_published(client):
    uri = "file:///tmp/widths_tail.ea"
    src = "export kernel k(x: *f32, out: *mut f32)\n    over i in n step 16\n{\n" \
          "    store(out, i, load_f32x16(x, i))\n}\n"
    open_doc(client, uri, src)
    found = sorted((d.code, d.range.start.line, d.range.start.character) for d in await published(client, uri))
    assert found == [("kernel-no-tail", 1, 9), ("vector-too-wide", 3, 18)]
