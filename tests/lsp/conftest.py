"""A real client talking to the real server process over stdio."""
from __future__ import annotations

import sys

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "eals.cli"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options={"ea": {"inlayHints": "lines"}}))
    yield
    await lsp_client.shutdown_session()
