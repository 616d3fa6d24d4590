"""Completion for a client that declares no completion capabilities (eglot,
Neovim without a snippet engine): no snippet syntax is ever inserted, and the
optional fields the client did not ask for are left out."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from lsp_support import HASWELL, SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SRC = """\
func twice(v: f32x8) -> f32x8 {
    return v .+ v
}

export func first(p: *f32, n: i32) -> f32 {
    let q: f32 = p[0]
    return q
}
"""


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=HASWELL))
    yield
    await lsp_client.shutdown_session()


async def test_plain_text_items_without_snippet_support(client):
    uri = "file:///tmp/complete_plain.ea"
    open_doc(client, uri, SRC)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(SRC, "return q")))
    items = {i.label: i for i in (result.items if isinstance(result, lsp.CompletionList) else result)}
    assert items["fma"].insert_text == "fma"
    assert items["twice"].insert_text == "twice"
    assert all(i.insert_text_format in (None, lsp.InsertTextFormat.PlainText) for i in items.values())
    assert not any("${" in (i.insert_text or "") for i in items.values())
    assert items["q"].label_details is None
    assert isinstance(items["fma"].documentation, str) and "fma" in items["fma"].documentation
    assert items["sat_add"].tags is None and items["sat_add"].deprecated is None
