"""refactor.rewrite code actions: the tuner's transformations, offered where
the live inspect report of a function has a hint one of them answers.

A transformation's site names the hint code it answers (`Site.hint`:
`one-accumulator`, `small-step`, `narrow-vectors`, `mul-add`); it is offered
when the function's report (the same per-function report hover and inlay
hints show, eals/machine.py) has that hint, and the request range meets the
site's construct or the hint's line. Prefetch answers no hint code but a
bottleneck class (its sites say `memory-bound`): it is offered when the
function's main loop is memory-bound and issues no prefetch. Each choice of
a site (unroll ×4 first, then ×2, ×8) is one action, titled by the
transformation ("Unroll ×4 with 4 accumulators"), whose edit is the
rewrite's edits: byte ranges of the analysed text converted to LSP ranges in
the negotiated encoding. Only rewrites that check clean are offered (`apply`
refuses the others). Checking costs an analysis of the rewritten file per
choice, so a client that resolves an action's edit
(`codeAction.resolveSupport` with `edit`, and `dataSupport`) gets the titles
at once and each edit, checked, from `codeAction/resolve`, which answers
RequestFailed with the reason when the rewrite does not check clean."""
from __future__ import annotations

import asyncio
import threading
import weakref

from lsprotocol import types as lsp

from pygls.exceptions import JsonRpcInvalidParams

from ea_compiler.tooling import (Bottleneck, NotApplicable, apply_transform, explain_transforms, find_sites, locate_site,
                                 transform_title)

from ..convert import to_range
from ..machine import machine_code
from ..support import guarded, request_failed
from .inlay import visible_functions

REWRITE = lsp.CodeActionKind.RefactorRewrite
FIRST_CHOICE = 4  # unroll ×4: the middle of its (2, 4, 8) first
MAX_CHOICES = 3  # actions per site
RESOLVE_KEY = "eaRewrite"  # in a lazy action's data: which rewrite to resolve
# The loop-nest restructurings answer no inspect hint: they are offered wherever the request meets
# their loop (their last choice: the largest register tile, with fma where it has one), and where
# they do not apply, a disabled action says why (`ea tune --explain`'s reasons).
NEST = {"tile": "Register-tile the loop nest", "vectorise": "Vectorise the loop nest",
        "interchange": "Interchange loops", "vectorise_sum": "Vectorise the sum"}


def _lines(source, site) -> tuple[int, int]:
    return source.line_of(site.start), source.line_of(max(site.start, site.end - 1))


def _prefetch_wanted(fr) -> int | None:
    """The header line of a memory-bound main loop without prefetches, else None."""
    main = fr.main_loop
    if main is None or main.bottleneck != Bottleneck.MEMORY:
        return None
    if any(m.startswith(("prefetch", "prfm")) for m in main.mix):
        return None
    return main.header_line or main.first_line


def anchor_lines(source, site, fr) -> set[int] | None:
    """The lines where `site` is offered, or None when the report asks nothing of it."""
    first, last = _lines(source, site)
    construct = set(range(first, last + 1))
    if site.transform == "prefetch" or site.hint == Bottleneck.MEMORY:  # a loop's class, not a hint code
        line = _prefetch_wanted(fr)
        return None if line is None else construct | {line}
    if site.hint is None:
        return None
    hinted = [h.line for h in fr.hints if h.code == site.hint]
    if not hinted:
        return None
    inside = [ln for ln in hinted if ln in construct]
    return construct | set(inside or [ln for ln in hinted if ln])


def ordered_choices(choices: tuple) -> list:
    if not choices:
        return [None]
    return sorted(choices, key=lambda c: c != FIRST_CHOICE)[:MAX_CHOICES]


def sites_of(analysis, names: list[str]) -> dict[str, list]:
    """Each named function's transformation sites (only the functions that have some)."""
    found = {name: find_sites(analysis, name) for name in names}
    return {name: sites for name, sites in found.items() if sites}


class Memo:
    """The rewrites of one analysis, by (site, choice): a code action request
    comes with every cursor move, and each rewrite costs an analysis. Requests
    run on several threads: the table of an analysis is taken under the lock,
    so a rewrite computed for an older text never lands in a newer one's."""

    def __init__(self):
        self._lock = threading.Lock()
        self._of: weakref.ref | None = None
        self._done: dict = {}

    def _table(self, analysis) -> dict:
        with self._lock:
            if self._of is None or self._of() is not analysis:
                self._of, self._done = weakref.ref(analysis), {}
            return self._done

    def get(self, analysis, site, choice):
        """The rewrite (checked clean); NotApplicable when the choice does not fit here."""
        done = self._table(analysis)
        key = (site.ident, choice)
        if key not in done:
            try:
                done[key] = apply_transform(analysis, site, choice)
            except NotApplicable as err:
                done[key] = err
        found = done[key]
        if isinstance(found, NotApplicable):
            raise found
        return found


def offered(analysis, sites: dict, reports: dict, request_lines: range) -> list[tuple]:
    """(site, choice) for the sites each function's report asks for whose
    anchor lines meet the requested lines."""
    out = []
    for name, fr in reports.items():
        for site in sites.get(name, ()):
            lines = anchor_lines(analysis.source, site, fr)
            if lines and any(ln in request_lines for ln in lines):
                out += [(site, choice) for choice in ordered_choices(site.choices)]
    return out


def nest_offered(analysis, sites: dict, request_lines: range) -> list[tuple]:
    """(site, choice) for the loop-nest sites whose construct meets the requested lines."""
    out = []
    for found in sites.values():
        for site in found:
            first, last = _lines(analysis.source, site)
            if site.transform in NEST and any(first <= ln <= last for ln in request_lines):
                out.append((site, site.choices[-1] if site.choices else None))
    return out


def explained(analysis, names: list[str], sites: dict) -> list[lsp.CodeAction]:
    """A disabled action per loop-nest transformation that applies nowhere in a named function,
    its reason as `disabled.reason`."""
    out = []
    for name in names:
        if any(s.transform in NEST for s in sites.get(name, ())):
            continue
        for r in explain_transforms(analysis, name, only=tuple(NEST)).get(name, ()):
            if not r.applies:
                out.append(lsp.CodeAction(title=f"{NEST[r.transform]} (ea tune)", kind=REWRITE,
                                          disabled=lsp.CodeActionDisabled(reason=f"{r.transform}: {r.reason}")))
    return out


def rewrites(analysis, pairs: list[tuple], memo: Memo) -> list:
    """The rewrites of the pairs that apply (each is checked by a fresh analysis:
    this runs off the event loop)."""
    out = []
    for site, choice in pairs:
        try:
            out.append(memo.get(analysis, site, choice))
        except NotApplicable:
            continue  # this choice does not fit here: not offered
    return out


def to_edit(rewrite, source, uri: str) -> lsp.WorkspaceEdit:
    edits = [lsp.TextEdit(range=to_range(source, source.span(e.start, e.end)), new_text=e.text)
             for e in rewrite.edits]
    return lsp.WorkspaceEdit(changes={uri: edits})


def to_action(rewrite, source, uri: str) -> lsp.CodeAction:
    return lsp.CodeAction(title=rewrite.title, kind=REWRITE, edit=to_edit(rewrite, source, uri))


def memo_of(doc) -> Memo:
    if doc.rewrites is None:
        doc.rewrites = Memo()
    return doc.rewrites


async def rewrite_actions(ls, uri: str, analysis, rng: lsp.Range) -> list[lsp.CodeAction]:
    doc = ls.docs.get(uri)
    items = visible_functions(analysis, rng)
    if doc is None or not items:
        return []
    loop = asyncio.get_running_loop()
    # Only functions with a site are compiled for their report: a code action
    # request comes with every cursor move.
    names = [item.name for item in items]
    sites = await loop.run_in_executor(ls.analysis_pool, sites_of, analysis, names)
    lines = range(rng.start.line + 1, rng.end.line + 2)
    disabled = await loop.run_in_executor(ls.analysis_pool, explained, analysis, names, sites) \
        if ls.client.disabled_actions else []
    if not sites:
        return disabled
    found = await machine_code(ls, uri, analysis, list(sites))
    if not found:
        return []  # the text changed meanwhile
    reports = {name: code.report for name, code in found.items() if code.report is not None}
    pairs = nest_offered(analysis, sites, lines) + offered(analysis, sites, reports, lines)
    if ls.client.resolve_action_edit:
        # The edit (and the check it needs: an analysis per rewrite) waits for codeAction/resolve.
        return [lsp.CodeAction(title=transform_title(site, choice), kind=REWRITE,
                               data={RESOLVE_KEY: {"uri": uri, "site": site.ident, "choice": choice}})
                for site, choice in pairs] + disabled
    done = await loop.run_in_executor(ls.analysis_pool, rewrites, analysis, pairs, memo_of(doc))
    return [to_action(rw, analysis.source, uri) for rw in done] + disabled


def _resolve_data(action: lsp.CodeAction) -> dict | None:
    data = action.data.get(RESOLVE_KEY) if isinstance(action.data, dict) else None
    if data is None:
        return None
    ok = (isinstance(data, dict) and isinstance(data.get("uri"), str) and isinstance(data.get("site"), str)
          and data["site"].count(":") >= 2 and isinstance(data.get("choice"), (int, float, str, bool, list, type(None))))
    if not ok:
        raise JsonRpcInvalidParams(message=f"codeAction/resolve: unusable data {action.data!r}")
    return data


async def resolve_rewrite(ls, action: lsp.CodeAction) -> lsp.CodeAction:
    """The edit of a rewrite action, against the document's current text."""
    data = _resolve_data(action)
    if data is None:
        return action  # not one of ours (a quick fix has its edit already)
    uri = data["uri"]
    analysis = await ls.current_analysis(uri)
    doc = ls.docs.get(uri)
    if analysis is None or doc is None:
        raise request_failed(f"{action.title}: the document is not open")

    def work():
        site = locate_site(analysis, data["site"])
        if site is None:
            raise NotApplicable("the code changed: it no longer applies here")
        choice = data["choice"]  # a tile's (mr, nr, W, fused) comes back from JSON as a list
        return memo_of(doc).get(analysis, site, tuple(choice) if isinstance(choice, list) else choice)
    try:
        rewrite = await asyncio.get_running_loop().run_in_executor(ls.analysis_pool, work)
    except NotApplicable as err:
        raise request_failed(f"{action.title}: {err}") from None
    if analysis.source.data != doc.text.encode("utf-8", "surrogatepass"):
        # The edit's ranges are of the analysed text; applied to another they would land wrong.
        raise request_failed(f"{action.title}: the text changed meanwhile; ask for the action again")
    action.edit = to_edit(rewrite, analysis.source, uri)
    return action


def register(server) -> None:
    @server.feature(lsp.CODE_ACTION_RESOLVE)
    @guarded(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls, action: lsp.CodeAction):
        return await resolve_rewrite(ls, action)
