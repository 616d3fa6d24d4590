"""What the connected client can do, read once from its `initialize` capabilities.

Features consult this object instead of assuming a capability: a client that
did not declare snippet support gets plain-text completions, a client that
pulls diagnostics is not also sent pushed ones (Neovim >= 0.10 would show
every diagnostic twice), and so on. Missing or partial capabilities mean
"not supported", as the LSP specification says."""
from __future__ import annotations

from dataclasses import dataclass

from lsprotocol import types as lsp


def _get(obj, path: str):
    for name in path.split("."):
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


@dataclass(frozen=True)
class ClientFeatures:
    snippets: bool = False
    label_details: bool = False
    markdown_docs: bool = False
    deprecated_tag: bool = False
    deprecated_flag: bool = False
    pull_diagnostics: bool = False
    diagnostic_refresh: bool = False
    inlay_refresh: bool = False
    work_done_progress: bool = False  # server-initiated $/progress (window/workDoneProgress/create)
    resolve_action_edit: bool = False  # codeAction/resolve fills in `edit` (and `data` comes back)
    disabled_actions: bool = False  # shows a code action's `disabled.reason`

    @classmethod
    def from_capabilities(cls, caps: lsp.ClientCapabilities | None) -> "ClientFeatures":
        item = _get(caps, "text_document.completion.completion_item")
        docs = _get(item, "documentation_format") or []
        tags = _get(item, "tag_support.value_set") or []
        return cls(
            snippets=bool(_get(item, "snippet_support")),
            label_details=bool(_get(item, "label_details_support")),
            markdown_docs=lsp.MarkupKind.Markdown in docs,
            deprecated_tag=lsp.CompletionItemTag.Deprecated in tags,
            deprecated_flag=bool(_get(item, "deprecated_support")),
            pull_diagnostics=_get(caps, "text_document.diagnostic") is not None,
            diagnostic_refresh=bool(_get(caps, "workspace.diagnostics.refresh_support")),
            inlay_refresh=bool(_get(caps, "workspace.inlay_hint.refresh_support")),
            work_done_progress=bool(_get(caps, "window.work_done_progress")),
            resolve_action_edit="edit" in (_get(caps, "text_document.code_action.resolve_support.properties") or [])
            and bool(_get(caps, "text_document.code_action.data_support")),
            disabled_actions=bool(_get(caps, "text_document.code_action.disabled_support")),
        )
