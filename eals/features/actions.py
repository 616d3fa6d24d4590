"""textDocument/codeAction: the compiler's machine-applicable suggestions as quick fixes.

Every suggestion of every diagnostic of the current analysis whose range meets
the request range, or that the client sends in the request's context (Neovim
and VS Code ask with the cursor anywhere on a line and that line's
diagnostics in the context), becomes one quick fix whose WorkspaceEdit replaces the
suggestion's byte span (converted to an LSP range through the document's
SourceFile) with its replacement. A diagnostic with exactly one fix makes it
the preferred fix. The diagnostics come from the server's own analysis of the
current version, so the byte spans always match the text being edited; the
action carries the same LSP diagnostic the push/pull channels publish.
"""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler import Diagnostic, SourceFile
from ea_compiler.tooling import fixes

from ..convert import to_diagnostic, to_range
from ..support import guarded
from .tune_actions import REWRITE, rewrite_actions

QUICKFIX = lsp.CodeActionKind.QuickFix


def _before(a: lsp.Position, b: lsp.Position) -> bool:
    return (a.line, a.character) <= (b.line, b.character)


def overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    """Ranges meet (touching ends count: a cursor right after an error still sees it)."""
    return _before(a.start, b.end) and _before(b.start, a.end)


def wants(kind: str, only: list[str] | None) -> bool:
    """Does the client's `only` filter admit actions of `kind`? (a kind admits its sub-kinds)"""
    if not only:
        return True
    return any(k in ("", kind) or kind.startswith(k + ".") for k in only)


def wants_quickfix(only: list[str] | None) -> bool:
    return wants(QUICKFIX, only)


def _key(d: lsp.Diagnostic) -> tuple:
    r = d.range
    return (r.start.line, r.start.character, r.end.line, r.end.character, d.message)


def quick_fixes(diagnostics: list[Diagnostic], source: SourceFile, uri: str,
                request: lsp.Range, context: list[lsp.Diagnostic] = ()) -> list[lsp.CodeAction]:
    asked = {_key(d) for d in context}
    actions, converted = [], {}
    for fix in fixes(diagnostics):
        d = fix.diagnostic
        if id(d) not in converted:
            converted[id(d)] = to_diagnostic(d, source, uri)
        diagnostic = converted[id(d)]
        if not overlaps(diagnostic.range, request) and _key(diagnostic) not in asked:
            continue
        edit = lsp.TextEdit(range=to_range(source, fix.span), new_text=fix.replacement)
        actions.append(lsp.CodeAction(
            title=fix.title, kind=QUICKFIX, diagnostics=[diagnostic], is_preferred=fix.preferred,
            edit=lsp.WorkspaceEdit(changes={uri: [edit]})))
    return actions


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    # resolve: the rewrites' edits (tune_actions.py) for clients that ask for them so
                    lsp.CodeActionOptions(code_action_kinds=[QUICKFIX, REWRITE], resolve_provider=True))
    @guarded("textDocument/codeAction")
    async def code_action(ls, params: lsp.CodeActionParams):
        only = params.context.only
        if not wants(QUICKFIX, only) and not wants(REWRITE, only):
            return []
        uri = params.text_document.uri
        analysis = await ls.current_analysis(uri)
        if analysis is None:
            return []
        actions = []
        if wants(QUICKFIX, only):
            actions += quick_fixes(analysis.diagnostics, analysis.source, uri, params.range,
                                   params.context.diagnostics or [])
        if wants(REWRITE, only):
            actions += await rewrite_actions(ls, uri, analysis, params.range)
        return actions
