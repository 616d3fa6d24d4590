"""Go to definition, find references and rename over stdio, with exact ranges."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from ea_compiler import analyze
from eals.support import apply_workspace_edit
from lsp_support import SERVER

pytestmark = pytest.mark.asyncio(loop_scope="module")

SOURCE = """\
struct Vec2 {
    x: f32
    y: f32
}
const SCALE: f32 = 2.0
func length2(v: Vec2) -> f32 {
    return v.x * v.x + v.y * v.y
}
export func run(dst: *mut f32, n: i32) {
    let mut total: f32 = 0.0
    for i in 0..n {
        let p: Vec2 = Vec2 { x: to_f32(i), y: SCALE }
        total = total + length2(p)
        dst[i] = sqrt(total)
    }
}
export kernel twice(src: *f32, out2: *mut f32)
    over k in len step 1
{
    out2[k] = src[k] * SCALE
}
"""
URI = "file:///tmp/navigation.ea"
REQUEST_FAILED = -32803


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    """One server for the module, with the navigation document open."""
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    lsp_client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=URI, language_id="ea", version=1, text=SOURCE)))
    yield
    await lsp_client.shutdown_session()


def rng(line: int, start: int, end: int) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=line, character=start), end=lsp.Position(line=line, character=end))


def doc():
    return lsp.TextDocumentIdentifier(uri=URI)


async def definition(client, line, character):
    return await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=doc(), position=lsp.Position(line=line, character=character)))


async def references(client, line, character, declaration=True):
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc(), position=lsp.Position(line=line, character=character),
        context=lsp.ReferenceContext(include_declaration=declaration)))
    return None if found is None else [(loc.uri, loc.range) for loc in found]


async def rename(client, line, character, new_name):
    return await client.text_document_rename_async(lsp.RenameParams(
        text_document=doc(), position=lsp.Position(line=line, character=character), new_name=new_name))


@pytest.mark.parametrize("use, target", [
    ((12, 26), rng(5, 5, 12)),    # call of a function
    ((12, 31), rng(5, 5, 12)),    # cursor just after the name still counts
    ((5, 17), rng(0, 7, 11)),     # struct in a parameter type
    ((11, 23), rng(0, 7, 11)),    # struct literal name
    ((6, 13), rng(1, 4, 5)),      # field access
    ((11, 29), rng(1, 4, 5)),     # field name in a struct literal
    ((19, 25), rng(4, 6, 11)),    # constant
    ((10, 16), rng(8, 31, 32)),   # parameter
    ((13, 24), rng(9, 12, 17)),   # local
    ((13, 12), rng(10, 8, 9)),    # for-loop variable
    ((19, 9), rng(17, 9, 10)),    # kernel loop variable, defined in the header
    ((17, 15), rng(17, 14, 17)),  # kernel range bound: its own definition
    ((9, 13), rng(9, 12, 17)),    # a definition leads to itself
])
async def test_definition(client, use, target):
    assert await definition(client, *use) == lsp.Location(uri=URI, range=target)


@pytest.mark.parametrize("where", [(6, 6), (13, 18), (11, 34), (3, 0), (0, 13)])
async def test_no_definition_for_keywords_intrinsics_punctuation(client, where):
    assert await definition(client, *where) is None


async def test_references(client):
    field_x = [rng(1, 4, 5), rng(6, 13, 14), rng(6, 19, 20), rng(11, 29, 30)]
    assert await references(client, 6, 19) == [(URI, r) for r in field_x]
    assert await references(client, 1, 4, declaration=False) == [(URI, r) for r in field_x[1:]]
    total = [rng(9, 12, 17), rng(12, 8, 13), rng(12, 16, 21), rng(13, 22, 27)]
    assert await references(client, 12, 10) == [(URI, r) for r in total]
    scale = [rng(4, 6, 11), rng(11, 46, 51), rng(19, 23, 28)]
    assert await references(client, 11, 50) == [(URI, r) for r in scale]
    assert await references(client, 18, 0) is None  # a lone brace


async def test_prepare_rename(client):
    result = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=doc(), position=lsp.Position(line=12, character=26)))
    assert result == lsp.PrepareRenamePlaceholder(range=rng(12, 24, 31), placeholder="length2")
    for where, message in (((13, 18), "cannot rename 'sqrt': it is an intrinsic"),
                           ((10, 5), "nothing to rename here")):
        with pytest.raises(JsonRpcException) as err:
            await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
                text_document=doc(), position=lsp.Position(line=where[0], character=where[1])))
        assert err.value.code == REQUEST_FAILED and err.value.message.startswith(message)


@pytest.mark.parametrize("where, new_name, replaced", [
    ((6, 13), "px", [(1, 4, 5), (6, 13, 14), (6, 19, 20), (11, 29, 30)]),
    ((11, 16), "Point", [(0, 7, 11), (5, 16, 20), (11, 15, 19), (11, 22, 26)]),
    ((5, 8), "norm2", [(5, 5, 12), (12, 24, 31)]),
    ((13, 23), "acc", [(9, 12, 17), (12, 8, 13), (12, 16, 21), (13, 22, 27)]),
    ((17, 14), "count", [(17, 14, 17)]),
    ((19, 15), "source", [(16, 20, 23), (19, 14, 17)]),
])
async def test_rename_edits_every_occurrence_and_checks_clean(client, where, new_name, replaced):
    edit = await rename(client, *where, new_name)
    (edits,) = edit.changes.values()
    assert sorted((e.range.start.line, e.range.start.character, e.range.end.character) for e in edits) == replaced
    assert {e.new_text for e in edits} == {new_name}
    renamed = apply_workspace_edit(SOURCE, URI, edit)
    assert analyze(renamed, "renamed.ea").errors == []
    assert renamed.count(new_name) == SOURCE.count(new_name) + len(replaced)


@pytest.mark.parametrize("where, new_name, reason", [
    ((9, 13), "while", "'while' is a keyword"),
    ((9, 13), "f32x4", "'f32x4' is a keyword"),
    ((9, 13), "2x", "'2x' is not a valid identifier"),
    ((9, 13), "a-b", "'a-b' is not a valid identifier"),
    ((9, 13), "", "'' is not a valid identifier"),
    ((9, 13), "n", "'n' is already a parameter in 'run'"),
    ((9, 13), "SCALE", "'SCALE' is already a constant"),
    ((1, 4), "y", "'y' is already a field in 'Vec2'"),
    ((5, 8), "run", "'run' is already a function"),
    ((5, 8), "sqrt", "'sqrt' is an intrinsic; calls to 'sqrt' would call the intrinsic, not this function"),
    ((0, 8), "point", "'point' must start with a capital letter"),
])
async def test_rename_refused(client, where, new_name, reason):
    with pytest.raises(JsonRpcException) as err:
        await rename(client, *where, new_name)
    assert err.value.code == REQUEST_FAILED
    assert reason in err.value.message


async def test_rename_of_intrinsic_refused(client):
    with pytest.raises(JsonRpcException) as err:
        await rename(client, 13, 19, "root")
    assert err.value.code == REQUEST_FAILED
    assert err.value.message == "cannot rename 'sqrt': it is an intrinsic"


async def test_rename_to_same_name_changes_nothing(client):
    edit = await rename(client, 9, 13, "total")
    assert apply_workspace_edit(SOURCE, URI, edit) == SOURCE


async def test_cfg_variants_are_one_name(client):
    uri = "file:///tmp/variants.ea"
    text = ("#[cfg(x86_64)]\nfunc lanes() -> i32 {\n    return 8\n}\n#[cfg(aarch64)]\nfunc lanes() -> i32 {\n"
            "    return 4\n}\nexport func f() -> i32 {\n    return lanes()\n}\n")
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="ea", version=1, text=text)))
    found = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=9, character=12),
        context=lsp.ReferenceContext(include_declaration=True)))
    assert [loc.range for loc in found] == [rng(1, 5, 10), rng(5, 5, 10), rng(9, 11, 16)]
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=5, character=6),
        new_name="width"))
    renamed = apply_workspace_edit(text, uri, edit)
    assert renamed == text.replace("lanes", "width")
    assert analyze(renamed, "variants.ea").errors == []
