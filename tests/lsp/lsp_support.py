"""What the LSP tests share: how the server is started, opening documents,
and positions from text."""
from __future__ import annotations

import sys

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "eals.cli"])


def open_doc(client, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="ea", version=version, text=text)))


def at(text: str, needle: str, delta: int = 0, nth: int = 0) -> lsp.Position:
    """The position `delta` characters into the nth occurrence of `needle`."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += delta
    return lsp.Position(line=text.count("\n", 0, i), character=i - text.rfind("\n", 0, i) - 1)

# A fixed x86 CPU, so instruction counts do not depend on the host.
HASWELL = {"ea": {"target_cpu": "haswell", "target_triple": "x86_64-unknown-linux-gnu"}}
