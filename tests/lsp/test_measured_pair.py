"""Predicted vs measured cycles per iteration in the editor: once a cycle
run is in the suite's history, hover over the function shows the pair per
size class and the `lines` inlay level shows it on the main loop's header
line. The server only reads the history (it never runs a benchmark)."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from measured_support import DOT as SRC
from measured_support import PAIR, benched as _benched
from lsp_support import HASWELL, SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")



@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=HASWELL))
    yield
    await lsp_client.shutdown_session()


def benched(tmp_path, text: str = SRC) -> str:
    """A kernel with a suite and a recorded cycle run of `text`; the kernel's URI."""
    return _benched(tmp_path, text).as_uri()


async def hover_text(client, uri: str) -> str:
    got = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=at(SRC, "dot", 1)))
    return got.contents.value


async def test_hover_shows_the_pair(client, tmp_path):
    uri = (tmp_path / "k.ea").as_uri()
    (tmp_path / "k.ea").write_text(SRC)
    open_doc(client, uri, SRC)
    assert "Cycles per main-loop iteration" not in await hover_text(client, uri)  # no run yet
    benched(tmp_path)
    text = await hover_text(client, uri)
    assert "**Cycles per main-loop iteration** (last `ea bench --cycles`, " in text
    assert "- L1 (n=3072): ≈2.1 c/iter predicted · 2.3 measured · load ports (-9%)" in text


async def test_inlay_lines_level_shows_the_pair_on_the_main_loop(client, tmp_path):
    uri = benched(tmp_path)
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={"ea": {"inlayHints": "lines"}}))
    open_doc(client, uri, SRC)
    found = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=10, character=0))))
    loops = [h.label for h in found if isinstance(h.label, str) and h.label.startswith("main loop:")]
    assert len(loops) == 1 and loops[0].endswith(" · " + PAIR)
    assert [h.position.line for h in found if h.label == loops[0]] == [3]  # the `while` line


async def test_a_run_of_older_code_is_marked(client, tmp_path):
    uri = benched(tmp_path, SRC.replace("acc)", "acc) "))
    open_doc(client, uri, SRC)
    assert "measured on an older version of this code" in await hover_text(client, uri)
