"""Completion over stdio: locals in scope (and not the others), fields after
`.`, intrinsic snippets, user functions, constants, types and keywords."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler.intrinsics import TABLE
from eals.markdown import escape
from lsp_support import HASWELL, SERVER, at, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")

SETTINGS = HASWELL
SRC = """\
const SCALE: f32 = 0.5

struct Pair {
    a: f32, b: f32
}

func twice(v: f32x8) -> f32x8 {
    let doubled: f32x8 = v .+ v
    return doubled
}

export func first(p: *Pair, n: i32) -> f32 {
    let q: Pair = p[0]
    let mut t: f32 = q.a
    foreach (k in 0..n) {
        let w: f32 = p[k].b
        t = t + w
    }
    return t + q.b
}
"""


# What VS Code declares for completion items.
RICH = lsp.ClientCapabilities(text_document=lsp.TextDocumentClientCapabilities(
    completion=lsp.CompletionClientCapabilities(completion_item=lsp.ClientCompletionItemOptions(
        snippet_support=True, label_details_support=True, deprecated_support=True,
        documentation_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText],
        tag_support=lsp.CompletionItemTagOptions(value_set=[lsp.CompletionItemTag.Deprecated])))))


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=RICH, initialization_options=SETTINGS))
    yield
    await lsp_client.shutdown_session()


async def complete(client, uri: str, pos: lsp.Position, dot: bool = False) -> dict[str, lsp.CompletionItem]:
    context = lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.TriggerCharacter, trigger_character=".") \
        if dot else lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.Invoked)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos, context=context))
    items = result.items if isinstance(result, lsp.CompletionList) else result
    return {item.label: item for item in items}


def variables(items: dict[str, lsp.CompletionItem]) -> set[str]:
    return {name for name, item in items.items() if item.kind == lsp.CompletionItemKind.Variable}


async def test_locals_in_scope(client):
    uri = "file:///tmp/complete_scope.ea"
    open_doc(client, uri, SRC)
    after_loop = await complete(client, uri, at(SRC, "return t + q.b"))
    assert variables(after_loop) == {"p", "n", "q", "t"}  # not k, w (foreach body), not v, doubled
    assert after_loop["q"].detail == "Pair" and after_loop["p"].detail == "*Pair"
    in_loop = await complete(client, uri, at(SRC, "t = t + w"))
    assert variables(in_loop) == {"p", "n", "q", "t", "k", "w"}
    before_q = await complete(client, uri, at(SRC, "let q"))
    assert variables(before_q) == {"p", "n"}
    in_twice = await complete(client, uri, at(SRC, "return doubled"))
    assert variables(in_twice) == {"v", "doubled"}
    assert variables(await complete(client, uri, at(SRC, "struct Pair"))) == set()


async def test_fields_after_dot(client):
    uri = "file:///tmp/complete_fields.ea"
    text = SRC.replace("    return t + q.b\n", "    let z: f32 = q.\n    let y: f32 = p.\n    let x: f32 = p[0].\n"
                       "    let s: f32 = t.\n    return t\n")
    open_doc(client, uri, text)
    for needle in ("q.\n", "p.\n", "p[0].\n"):
        items = await complete(client, uri, at(text, needle, len(needle) - 1), dot=True)
        assert list(items) == ["a", "b"], needle
        assert all(i.kind == lsp.CompletionItemKind.Field and i.detail == "f32" for i in items.values())
    assert await complete(client, uri, at(text, "t.\n", 2), dot=True) == {}  # f32 has no fields
    typed = await complete(client, uri, at(text, "q.\n", 2))
    assert list(typed) == ["a", "b"]
    assert list(await complete(client, uri, at(text, "q.a", 3))) == ["a", "b"]  # a field name being typed


async def test_intrinsics_functions_and_words(client):
    uri = "file:///tmp/complete_global.ea"
    open_doc(client, uri, SRC)
    items = await complete(client, uri, at(SRC, "return t + q.b"))
    fma = items["fma"]
    assert fma.insert_text == "fma(${1:a}, ${2:b}, ${3:c})" == TABLE["fma"].snippet()
    assert fma.insert_text_format == lsp.InsertTextFormat.Snippet and fma.kind == lsp.CompletionItemKind.Function
    assert escape(TABLE["fma"].doc) in fma.documentation.value and "fma(f64, f64, f64) -> f64" in fma.documentation.value
    assert items["store"].insert_text == "store(${1:ptr}, ${2:index}, ${3:vector})"
    assert list(items["sat_add"].tags) == [lsp.CompletionItemTag.Deprecated] and not items["sat_add_i8x16"].tags
    assert items["twice"].insert_text == "twice(${1:v})" and items["twice"].detail == "func twice(v: f32x8) -> f32x8"
    assert items["SCALE"].kind == lsp.CompletionItemKind.Constant and items["SCALE"].detail == "const SCALE: f32 = 0.5"
    assert items["Pair"].kind == lsp.CompletionItemKind.Struct
    types = {n for n, i in items.items() if i.kind == lsp.CompletionItemKind.TypeParameter}
    assert {"f32", "u32", "f32x8", "i8x16"} <= types
    keywords = {n for n, i in items.items() if i.kind == lsp.CompletionItemKind.Keyword}
    assert {"let", "mut", "foreach", "return", "kernel", "export"} <= keywords and "f32" not in keywords
    assert set(TABLE) <= set(items)
