"""Quick fixes over stdio: each kind of compiler suggestion arrives as a code action
with an exact edit, and the file with the edit applied checks clean."""
from __future__ import annotations


import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from ea_compiler import Diagnostic, SourceFile, Suggestion, analyze
from eals.features.actions import quick_fixes, wants_quickfix
from eals.support import apply_text_edits, apply_workspace_edit
from lsp_support import SERVER, open_doc

# name: (text, cursor (line, character), diagnostic code, title, edit ((l, c), (l, c), new text), fixed text)
CASES = {
    "did-you-mean variable": (
        "export func f(a: i32) -> i32 {\n    let total: i32 = a\n    return tota\n}\n", (2, 13),
        "undefined-variable", "rename to 'total'", ((2, 11), (2, 15), "total"),
        "export func f(a: i32) -> i32 {\n    let total: i32 = a\n    return total\n}\n"),
    "did-you-mean function": (
        "func helper(a: i32) -> i32 {\n    return a\n}\nexport func f(a: i32) -> i32 {\n    return helpr(a)\n}\n",
        (4, 11), "undefined-function", "rename to 'helper'", ((4, 11), (4, 16), "helper"),
        "func helper(a: i32) -> i32 {\n    return a\n}\nexport func f(a: i32) -> i32 {\n    return helper(a)\n}\n"),
    "did-you-mean field": (
        "struct P { x: f32 }\nexport func f(p: P) -> f32 {\n    return p.xx\n}\n", (2, 14),
        "unknown-field", "rename to 'x'", ((2, 13), (2, 15), "x"),
        "struct P { x: f32 }\nexport func f(p: P) -> f32 {\n    return p.x\n}\n"),
    "dotted operator": (
        "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n", (1, 13),
        "vector-operator", "use '.+'", ((1, 13), (1, 14), ".+"),
        "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a .+ b\n}\n"),
    "add mut": (  # the error is at the assignment, the fix at the declaration
        "export func f(a: i32) -> i32 {\n    let x: i32 = 0\n    x = a\n    return x\n}\n", (2, 4),
        "immutable-assign", "declare it 'let mut'", ((1, 8), (1, 8), "mut "),
        "export func f(a: i32) -> i32 {\n    let mut x: i32 = 0\n    x = a\n    return x\n}\n"),
    "wrap in to_f32": (
        "export func f(n: i32) -> f32 {\n    let x: f32 = n\n    return x\n}\n", (1, 17),
        "type-mismatch", "wrap in to_f32(...)", ((1, 17), (1, 18), "to_f32(n)"),
        "export func f(n: i32) -> f32 {\n    let x: f32 = to_f32(n)\n    return x\n}\n"),
    "remove semicolon": (
        "export func f(a: i32) -> i32 {\n    return a;\n}\n", (1, 12),
        "unexpected-character", "remove the ';'", ((1, 12), (1, 13), ""),
        "export func f(a: i32) -> i32 {\n    return a\n}\n"),
    "insert brace": (  # reported at the opening brace, inserted after the last token
        "export func f(a: i32) -> i32 {\n    return a\n", (0, 29),
        "unclosed-block", "insert the missing '}'", ((1, 12), (1, 12), "\n}"),
        "export func f(a: i32) -> i32 {\n    return a\n}\n"),
    "insert paren": (
        "export func f(a: f32) -> f32 {\n    return sqrt(a\n}\n", (2, 0),
        "expected-token", "insert ')'", ((1, 17), (1, 17), ")"),
        "export func f(a: f32) -> f32 {\n    return sqrt(a)\n}\n"),
    "exponent literal": (
        "export func f(x: f32) -> f32 {\n    return x * 1e-6\n}\n", (1, 16),
        "exponent-literal", "write 0.000001", ((1, 15), (1, 19), "0.000001"),
        "export func f(x: f32) -> f32 {\n    return x * 0.000001\n}\n"),
    "compound assignment": (
        "export func f(a: f32) -> f32 {\n    let mut s: f32 = 0.0\n    s += a\n    return s\n}\n", (2, 6),
        "compound-assignment", "write s = s + a", ((2, 4), (2, 10), "s = s + a"),
        "export func f(a: f32) -> f32 {\n    let mut s: f32 = 0.0\n    s = s + a\n    return s\n}\n"),
    "name from another library": (
        "export func f(v: f32x8) -> f32 {\n    return reduce_sum(v)\n}\n", (1, 12),
        "undefined-function", "rename to 'reduce_add'", ((1, 11), (1, 21), "reduce_add"),
        "export func f(v: f32x8) -> f32 {\n    return reduce_add(v)\n}\n"),
    "splat an f64 into f32 lanes": (
        "export func f(s: f64) -> f32x8 {\n    let v: f32x8 = splat(s)\n    return v\n}\n", (1, 20),
        "type-mismatch", "convert: to_f32(s)", ((1, 25), (1, 26), "to_f32(s)"),
        "export func f(s: f64) -> f32x8 {\n    let v: f32x8 = splat(to_f32(s))\n    return v\n}\n"),
    "kernel step": (  # reported at the store, the fix is the step on the first line
        "export kernel k(x: *f32, y: *mut f32) over i in n step 16 tail scalar { y[i] = x[i] }\n{\n"
        "    store(y, i, load_f32x8(x, i))\n}\n", (2, 6),
        "kernel-coverage", "step by 8, the lanes the store writes", ((0, 55), (0, 57), "8"),
        "export kernel k(x: *f32, y: *mut f32) over i in n step 8 tail scalar { y[i] = x[i] }\n{\n"
        "    store(y, i, load_f32x8(x, i))\n}\n"),
    "utf-16 columns": (  # é is 1 UTF-16 unit (2 bytes), the emoji 2 units (4 bytes)
        'export func f(a: i32) -> i32 {\n    let total: i32 = a\n    println("\u00e9\U0001F600") return tota\n}\n',
        (2, 27), "undefined-variable", "rename to 'total'", ((2, 26), (2, 30), "total"),
        'export func f(a: i32) -> i32 {\n    let total: i32 = a\n    println("\u00e9\U0001F600") return total\n}\n'),
}


@pytest_lsp.fixture(scope="module", config=SERVER)
async def client(lsp_client: LanguageClient):
    """One server for the module (each test uses its own document URIs)."""
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()


def pos(line: int, character: int) -> lsp.Position:
    return lsp.Position(line=line, character=character)


async def code_actions(client, uri, start, end=None, only=None, context=()):
    end = end or start
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(start=pos(*start), end=pos(*end)),
        context=lsp.CodeActionContext(diagnostics=list(context), only=only)))


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", list(CASES))
async def test_quick_fix_applies_cleanly(client, name):
    text, cursor, code, title, (start, end, new_text), fixed = CASES[name]
    uri = f"file:///tmp/actions-{name.replace(' ', '-')}.ea"
    assert code in [d.code for d in analyze(text, "actions.ea").diagnostics], "the case must start broken"
    open_doc(client, uri, text)
    (action,) = await code_actions(client, uri, cursor, only=[lsp.CodeActionKind.QuickFix])  # not the tuner's
    assert action.title == title
    assert action.kind == lsp.CodeActionKind.QuickFix
    assert action.is_preferred is True
    assert [d.code for d in action.diagnostics] == [code]
    (edit,) = action.edit.changes[uri]
    assert edit.range == lsp.Range(start=pos(*start), end=pos(*end))
    assert edit.new_text == new_text
    result = apply_workspace_edit(text, uri, action.edit)
    assert result == fixed
    after = analyze(result, "actions.ea")
    assert after.errors == [] and code not in [d.code for d in after.diagnostics]


@pytest.mark.asyncio(loop_scope="module")
async def test_only_fixes_of_diagnostics_in_range(client):
    uri = "file:///tmp/two.ea"
    text = ("export func f(a: f32x4, b: f32x4) -> f32x4 {\n    let c: f32x4 = a + b\n"
            "    return c;\n}\n")
    open_doc(client, uri, text)
    assert list(await code_actions(client, uri, (0, 0))) == []  # no error on line 0
    assert [a.title for a in await code_actions(client, uri, (1, 20))] == ["use '.+'"]
    assert [a.title for a in await code_actions(client, uri, (2, 12))] == ["remove the ';'"]
    both = await code_actions(client, uri, (1, 0), (2, 13))
    assert [a.title for a in both] == ["use '.+'", "remove the ';'"]
    # The two edits together also give a clean file.
    edits = [e for a in both for e in a.edit.changes[uri]]
    assert analyze(apply_text_edits(text, edits), "two.ea").errors == []
    # A client asking only for refactorings gets no quick fixes; asking for quick fixes does.
    assert list(await code_actions(client, uri, (1, 20), only=[lsp.CodeActionKind.Refactor])) == []
    assert len(await code_actions(client, uri, (1, 20), only=[lsp.CodeActionKind.QuickFix])) == 1


@pytest.mark.asyncio(loop_scope="module")
async def test_fixes_of_the_diagnostics_the_client_sends(client):
    """Neovim and VS Code ask with the cursor anywhere on the line (here column 0,
    outside the underline) and the line's diagnostics in the context."""
    uri = "file:///tmp/context.ea"
    text = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n"
    open_doc(client, uri, text)
    pulled = await client.text_document_diagnostic_async(lsp.DocumentDiagnosticParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri)))
    (diagnostic,) = pulled.items
    assert diagnostic.range.start.character > 0
    assert list(await code_actions(client, uri, (1, 0))) == []  # the cursor alone does not meet it
    (action,) = await code_actions(client, uri, (1, 0), context=[diagnostic])
    assert action.title == "use '.+'" and list(action.diagnostics) == [diagnostic]


@pytest.mark.asyncio(loop_scope="module")
async def test_document_never_opened_has_no_actions(client):
    assert list(await code_actions(client, "file:///tmp/never-opened.ea", (0, 0))) == []


def test_a_diagnostic_with_several_fixes_prefers_none():
    source = SourceFile("x.ea", "let a = b\n")
    span = source.span(8, 9)
    several = Diagnostic("error", "type", "undefined-variable", "undefined variable 'b'", span,
                         suggestions=[Suggestion(span, "a", "rename to 'a'"), Suggestion(span, "c", "rename to 'c'")])
    one = Diagnostic("error", "type", "undefined-variable", "undefined variable 'b'", span,
                     suggestions=[Suggestion(span, "a", "rename to 'a'")])
    everywhere = lsp.Range(start=pos(0, 0), end=pos(0, 9))
    actions = quick_fixes([several], source, "file:///x.ea", everywhere)
    assert [(a.title, a.is_preferred) for a in actions] == [("rename to 'a'", False), ("rename to 'c'", False)]
    assert [a.is_preferred for a in quick_fixes([one], source, "file:///x.ea", everywhere)] == [True]
    assert quick_fixes([one], source, "file:///x.ea", lsp.Range(start=pos(0, 0), end=pos(0, 7))) == []


def test_kind_filter():
    assert wants_quickfix(None) and wants_quickfix([]) and wants_quickfix(["quickfix"]) and wants_quickfix([""])
    assert not wants_quickfix(["refactor"]) and not wants_quickfix(["quickfix.other"])
