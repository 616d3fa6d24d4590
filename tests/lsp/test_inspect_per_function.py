"""Machine code per function over stdio: while one function of the file has
a type error, hover and inlay hints still show the machine code of every
function whose own code and callees check clean (equal to
ea_compiler.inspect of the file without the broken functions), and the
functions that depend on the error say which error blocks them."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler.inspect import inspect
from eals.config import Config
from lsp_support import HASWELL, SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SETTINGS = {"ea": {**HASWELL["ea"], "inlay_hints": "lines"}}
CLEAN = """\
func scale(v: f32x8, s: f32) -> f32x8 {
    return v .* splat(s)
}

export func good(x: *restrict f32, y: *restrict mut f32, n: i32) {
    let mut i: i32 = 0
    while i + 8 <= n {
        store(y, i, fma(scale(load(x, i), 2.0), load(x, i), load(y, i)))
        i = i + 8
    }
}
"""
BROKEN = """
func bad(v: f32x8) -> f32x8 {
    return v + v
}

export func uses_bad(x: *restrict f32, y: *restrict mut f32) {
    store(y, 0, bad(load(x, 0)))
}
"""
SRC = CLEAN + BROKEN
LINES = SRC.splitlines()
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(LINES), character=0))
BLOCKED = ("*Machine code not shown: an error in this function, a function it calls or a declaration \u2014 "
           "line 14: cannot use '+' on vectors. Use '.+' for element-wise vector operations*")


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=SETTINGS))
    yield
    await lsp_client.shutdown_session()


def clean_report():
    return {f.name: f for f in inspect(CLEAN, "clean.ea", Config().updated(SETTINGS).options()).functions}


async def hover_text(client, uri: str, needle: str) -> str:
    """Hover on the last word of `needle`."""
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(SRC, needle, delta=len(needle) - 1)))
    return h.contents.value


async def test_hover_shows_clean_functions_beside_an_error(client):
    uri = "file:///tmp/per_function_hover.ea"
    open_doc(client, uri, SRC)
    fr = clean_report()["good"]
    assert fr.counts.fma > 0 and fr.width_bits == 256
    text = await hover_text(client, uri, "good")
    c = fr.counts
    assert f"- vector instructions: {c.vector}\n- scalar instructions: {c.scalar}\n- FMA: {c.fma}\n" \
           f"- loads: {c.loads}\n- stores: {c.stores}\n- vector width: 256-bit (f32x8)" in text
    inlined = await hover_text(client, uri, "func scale")
    assert "**Machine code of its lines inlined into** good" in inlined
    assert await hover_text(client, uri, "func bad") == "```ea\nfunc bad(v: f32x8) -> f32x8\n```\n\n" + BLOCKED
    assert (await hover_text(client, uri, "uses_bad")).endswith("\n\n" + BLOCKED)  # it calls `bad`


async def test_inlay_hints_for_clean_functions_beside_an_error(client):
    uri = "file:///tmp/per_function_inlay.ea"
    open_doc(client, uri, SRC)
    found = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=EVERYTHING))
    got = {(h.position.line, h.label) for h in found if h.kind != lsp.InlayHintKind.Type}
    reports = clean_report()
    good, scale = reports["good"], reports["scale"]
    c = good.counts
    assert (4, f"{c.vector} vec · {c.scalar} scalar · {c.fma} fma · 256-bit") in got
    assert (0, f"{scale.counts.vector} vec · {scale.counts.scalar} scalar · inlined") in got
    for ln, rep in good.lines.items():
        if 5 <= ln <= 11:
            assert (ln - 1, rep.summary) in got
    assert (1, scale.lines[2].summary) in got  # `scale`'s line, as inlined into `good`
    assert not [line for line, _ in got if line >= 12], "no hints on `bad` and `uses_bad`"
