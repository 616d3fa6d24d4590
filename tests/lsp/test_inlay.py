"""Inlay hints over stdio at each level: off, functions (a summary at the
end of each function header line, equal to ea_compiler.inspect's counts) and
lines (also each line's LineReport.summary and each loop's bottleneck);
none for a function with errors in it or its callees."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler.inspect import inspect
from eals.config import Config
from lsp_support import HASWELL, SERVER, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SETTINGS = {"ea": {**HASWELL["ea"], "inlay_hints": "functions"}}
SRC = """\
func twice(v: f32x8) -> f32x8 {
    return v .+ v
}

export kernel saxpy(x: *restrict f32, y: *restrict mut f32, a: f32)
    over i in n step 8
    tail scalar { y[i] = fma(a, x[i], y[i]) }
{
    let va: f32x8 = splat(a)
    store(y, i, twice(fma(va, load(x, i), load(y, i))))
}

export func total(p: *f32, n: i32) -> f32 {
    let mut t: f32 = 0.0
    foreach (k in 0..n) {
        t = t + p[k]
    }
    return t
}

func unused(a: i32) -> i32 {
    return a + 1
}
"""
LINES = SRC.splitlines()
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(LINES), character=0))


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=SETTINGS))
    yield
    await lsp_client.shutdown_session()


def set_level(client, level: str) -> None:
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"ea": {"inlayHints": level}}))


async def hints(client, uri: str, rng: lsp.Range = EVERYTHING) -> list[tuple[int, int, str]]:
    found = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng))
    found = [h for h in found if h.kind != lsp.InlayHintKind.Type]  # widths: test_inlay_widths.py
    assert all(h.padding_left for h in found)
    return [(h.position.line, h.position.character, h.label) for h in found]


def report(uri: str):
    return {f.name: f for f in inspect(SRC, uri, Config().updated(SETTINGS).options()).functions}


def header_hints(uri: str) -> list[tuple[int, int, str]]:
    fr = report(uri)
    saxpy, total, twice = fr["saxpy"].counts, fr["total"].counts, fr["twice"].counts
    assert saxpy.fma > 0 and total.fma == 0 and fr["saxpy"].width_bits == 256
    return [(0, len(LINES[0]), f"{twice.vector} vec · {twice.scalar} scalar · inlined"),
            (4, len(LINES[4]), f"{saxpy.vector} vec · {saxpy.scalar} scalar · {saxpy.fma} fma · 256-bit"),
            (12, len(LINES[12]), f"{total.vector} vec · {total.scalar} scalar")]


async def test_functions_level(client):
    uri = "file:///tmp/inlay_functions.ea"
    set_level(client, "functions")
    open_doc(client, uri, SRC)
    assert await hints(client, uri) == header_hints(uri)
    only_first = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=3, character=0))
    assert await hints(client, uri, only_first) == header_hints(uri)[:1]


async def test_lines_level(client):
    uri = "file:///tmp/inlay_lines.ea"
    set_level(client, "lines")
    open_doc(client, uri, SRC)
    per_line = {}
    for fr in report(uri).values():
        for ln, rep in fr.lines.items():
            per_line.setdefault(ln, rep.summary)
    assert {10, 16} <= set(per_line)  # the store line, the foreach body
    loops = [(lp.header_line - 1, len(LINES[lp.header_line - 1]), f"{lp.role} loop: {lp.bottleneck} · "
              f"{lp.kernel_bytes} B/iter")
             for fr in report(uri).values() for lp in fr.loops]
    # Written out (haswell), not recomputed the way the server does it.
    assert sorted((line, label) for line, _, label in loops) == [
        (5, "main loop: memory-bound · 96 B/iter"), (5, "tail loop: memory-bound · 12 B/iter"),
        (14, "main loop: latency-bound · 32 B/iter"), (14, "tail loop: latency-bound · 4 B/iter")]
    expected = header_hints(uri) + loops + [(ln - 1, len(LINES[ln - 1]), s) for ln, s in per_line.items()]
    got = await hints(client, uri)
    assert sorted(got) == sorted(expected)
    assert [h for h in got if h[0] == 4][0] == header_hints(uri)[1]  # the function's summary comes first


async def test_off_level_and_errors(client):
    uri = "file:///tmp/inlay_off.ea"
    set_level(client, "off")
    open_doc(client, uri, SRC)
    assert await hints(client, uri) == []
    set_level(client, "lines")
    bad_uri = "file:///tmp/inlay_errors.ea"
    open_doc(client, bad_uri, SRC.replace("return v .+ v", "return v + v"))
    # `twice` has the error and saxpy calls it: no hints on them; `total` is clean and has its hints
    got = await hints(client, bad_uri)
    assert got and all(12 <= line <= 17 for line, _, _ in got)
    assert got[0] == header_hints(uri)[2]
    assert len(await hints(client, uri)) > 3


async def test_follows_edits(client):
    uri = "file:///tmp/inlay_edits.ea"
    set_level(client, "functions")
    open_doc(client, uri, SRC)
    assert len(await hints(client, uri)) == 3
    fixed = "export func one(a: f32x4, b: f32x4) -> f32x4 {\n    return fma(a, b, b)\n}\n"
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=fixed)]))
    fr = inspect(fixed, uri, Config().updated(SETTINGS).options()).functions[0]
    c = fr.counts
    assert (c.fma, fr.width_bits) == (1, 128)
    assert await hints(client, uri) == [(0, 46, f"{c.vector} vec · {c.scalar} scalar · 1 fma · 128-bit")]
