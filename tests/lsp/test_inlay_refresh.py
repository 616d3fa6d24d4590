"""Inlay hints over a range too large to compile within the request's budget:
the answer holds what was compiled in time, the rest is compiled in the
background, and a client that declared `workspace.inlayHint.refreshSupport`
is then sent `workspace/inlayHint/refresh`, after which every function of
the range has its hint."""
from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from lsp_support import HASWELL, SERVER, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

FUNCTIONS = 40  # ~10 ms each: far beyond the 40 ms budget of one request
SRC = "".join(f"export func k{k}(a: *restrict f32, n: i32) -> f32 {{\n"
              f"    let mut acc: f32x8 = splat({k}.0)\n"
              f"    let mut i: i32 = 0\n"
              f"    while i + 8 <= n {{\n"
              f"        acc = acc .+ load(a, i)\n"
              f"        i = i + 8\n"
              f"    }}\n"
              f"    return reduce_add(acc)\n"
              f"}}\n" for k in range(FUNCTIONS))
EVERYTHING = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=9 * FUNCTIONS, character=0))
REFRESHED: list[None] = []


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    @lsp_client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh(_params):
        REFRESHED.append(None)

    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(workspace=lsp.WorkspaceClientCapabilities(
            inlay_hint=lsp.InlayHintWorkspaceClientCapabilities(refresh_support=True))),
        initialization_options=HASWELL))
    yield
    await lsp_client.shutdown_session()


async def header_lines(client, uri: str) -> set[int]:
    found = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=EVERYTHING))
    return {h.position.line for h in found if " vec · " in h.label}


async def test_rest_compiled_in_the_background_then_refresh(client):
    uri = "file:///tmp/inlay_refresh.ea"
    open_doc(client, uri, SRC)
    first = await header_lines(client, uri)
    assert first and len(first) < FUNCTIONS  # within the budget: some, not all
    for _ in range(600):
        if REFRESHED:
            break
        await asyncio.sleep(0.05)
    assert REFRESHED == [None]
    assert await header_lines(client, uri) == {9 * k for k in range(FUNCTIONS)}
