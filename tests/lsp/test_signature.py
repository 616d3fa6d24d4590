"""Signature help over stdio: intrinsic signatures with parameter labels,
user functions, and the active parameter counted from top-level commas."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler.intrinsics import TABLE
from eals.markdown import escape
from lsp_support import HASWELL, SERVER, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

URI = "file:///tmp/signature.ea"
SETTINGS = HASWELL
SRC = """\
func twice(v: f32x8, w: i32) -> f32x8 {
    return v .+ v
}

export func k(x: *restrict f32, y: *restrict mut f32, i: i32) {
    let va: f32x8 = splat(x[0])
    store(y, i, twice(fma(va, load(x, i), load(y, i)), 2))
    let s: f32x8 = shuffle(va, [0, 1, 2, 3, 4, 5, 6, 7])
    let z: f32x8 = fma(va, load(x, i),
}
"""


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), initialization_options=SETTINGS))
    open_doc(lsp_client, URI, SRC)
    yield
    await lsp_client.shutdown_session()


def after(needle: str, nth: int = 0) -> lsp.Position:
    i = -1
    for _ in range(nth + 1):
        i = SRC.index(needle, i + 1)
    i += len(needle)
    return lsp.Position(line=SRC.count("\n", 0, i), character=i - SRC.rfind("\n", 0, i) - 1)


async def help_at(client, pos: lsp.Position) -> lsp.SignatureHelp | None:
    return await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        text_document=lsp.TextDocumentIdentifier(uri=URI), position=pos))


def labels(sig: lsp.SignatureInformation) -> list[str]:
    return [sig.label[p.label[0]:p.label[1]] for p in sig.parameters]


async def test_intrinsic_active_parameter(client):
    for needle, active in (("twice(fma(", 0), ("twice(fma(va,", 1), ("twice(fma(va, load(x, i),", 2),
                           ("twice(fma(va, load(x, i), load(y, i)", 2)):
        h = await help_at(client, after(needle))
        assert h.active_parameter == active, needle
        assert [s.label for s in h.signatures] == [
            "fma(a: FV, b: FV, c: FV) -> FV", "fma(a: f32, b: f32, c: f32) -> f32", "fma(a: f64, b: f64, c: f64) -> f64"]
        assert [labels(s) for s in h.signatures] == [[f"{p}: {t}" for p in "abc"] for t in ("FV", "f32", "f64")]
        assert h.signatures[0].documentation.value == escape(TABLE["fma"].doc)


async def test_nested_calls_and_brackets(client):
    h = await help_at(client, after("load(x, i), load(y,"))
    assert (h.signatures[0].label, h.active_parameter) == ("load(ptr: *T, index: int) -> TxN", 1)
    h = await help_at(client, after("twice(fma(va, load(x, i), load(y, i)),"))
    assert [s.label for s in h.signatures] == ["twice(v: f32x8, w: i32) -> f32x8"]
    assert labels(h.signatures[0]) == ["v: f32x8", "w: i32"] and h.active_parameter == 1
    h = await help_at(client, after("[0, 1, 2,"))  # commas inside [..] belong to the argument
    assert h.active_parameter == 1 and h.active_signature == 0
    assert labels(h.signatures[1]) == ["TxN", "TxN", "[N int literals in 0..2N]"]  # 3 operands, 2 names
    h = await help_at(client, after("store(y, i,"))
    assert h.active_parameter == 2 and labels(h.signatures[0]) == ["ptr: *mut T", "index: int", "vector: TxN"]
    h = await help_at(client, after("splat("))
    assert h.signatures[0].label == "splat(value: T) -> TxN" and h.active_parameter == 0


async def test_unfinished_call_and_outside(client):
    h = await help_at(client, after("let z: f32x8 = fma(va, load(x, i),"))
    assert h.active_parameter == 2 and h.signatures[0].label.startswith("fma(")
    assert await help_at(client, after("let va: f32x8 = ")) is None
    assert await help_at(client, after("return v .+ v")) is None
    assert await help_at(client, after("func twice(v")) is None  # a definition, not a call
