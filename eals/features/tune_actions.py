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
refuses the others)."""
from __future__ import annotations

import asyncio
import weakref

from lsprotocol import types as lsp

from ea_compiler.tooling import NotApplicable, apply_transform, find_sites

from ..convert import to_range
from ..machine import machine_code
from .inlay import visible_functions

REWRITE = lsp.CodeActionKind.RefactorRewrite
FIRST_CHOICE = 4  # unroll ×4: the middle of its (2, 4, 8) first
MAX_CHOICES = 3  # actions per site
MEMORY_BOUND = "memory-bound"  # what prefetch answers: the main loop's bottleneck class


def _lines(source, site) -> tuple[int, int]:
    return source.line_of(site.start), source.line_of(max(site.start, site.end - 1))


def _prefetch_wanted(fr) -> int | None:
    """The header line of a memory-bound main loop without prefetches, else None."""
    main = next((lp for lp in fr.loops if lp.role == "main"), None)
    if main is None or main.bottleneck != "memory-bound":
        return None
    if any(m.startswith(("prefetch", "prfm")) for m in main.mix):
        return None
    return main.header_line or main.first_line


def anchor_lines(source, site, fr) -> set[int] | None:
    """The lines where `site` is offered, or None when the report asks nothing of it."""
    first, last = _lines(source, site)
    construct = set(range(first, last + 1))
    if site.transform == "prefetch" or site.hint == MEMORY_BOUND:  # a loop's class, not a hint code
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
    comes with every cursor move, and each rewrite costs an analysis."""

    def __init__(self):
        self._of: weakref.ref | None = None
        self._done: dict = {}

    def get(self, analysis, site, choice):
        """The rewrite, or None when the choice does not apply here."""
        if self._of is None or self._of() is not analysis:
            self._of, self._done = weakref.ref(analysis), {}
        key = (site.ident, choice)
        if key not in self._done:
            try:
                self._done[key] = apply_transform(analysis, site, choice)
            except NotApplicable:
                self._done[key] = None  # this choice does not fit here: not offered
        return self._done[key]


def rewrites(analysis, sites: dict, reports: dict, request_lines: range, memo: Memo | None = None) -> list:
    """The rewrites to offer: the sites each function's report asks for whose
    anchor lines meet the requested lines. Each rewrite is checked by a fresh
    analysis, so this runs off the event loop."""
    memo = memo or Memo()
    out = []
    for name, fr in reports.items():
        for site in sites.get(name, ()):
            lines = anchor_lines(analysis.source, site, fr)
            if not lines or not any(ln in request_lines for ln in lines):
                continue
            out += [rw for choice in ordered_choices(site.choices)
                    if (rw := memo.get(analysis, site, choice)) is not None]
    return out


def to_action(rewrite, source, uri: str) -> lsp.CodeAction:
    edits = [lsp.TextEdit(range=to_range(source, source.span(e.start, e.end)), new_text=e.text)
             for e in rewrite.edits]
    return lsp.CodeAction(title=rewrite.title, kind=REWRITE, edit=lsp.WorkspaceEdit(changes={uri: edits}))


async def rewrite_actions(ls, uri: str, analysis, rng: lsp.Range) -> list[lsp.CodeAction]:
    items = visible_functions(analysis, analysis.options.arch, rng)
    if not items:
        return []
    loop = asyncio.get_running_loop()
    # Only functions with a site are compiled for their report: a code action
    # request comes with every cursor move.
    sites = await loop.run_in_executor(ls.analysis_pool, sites_of, analysis, [item.name for item in items])
    if not sites:
        return []
    found = await machine_code(ls, uri, analysis, list(sites))
    if not found:
        return []  # the text changed meanwhile
    reports = {name: code.report for name, code in found.items() if code.report is not None}
    request_lines = range(rng.start.line + 1, rng.end.line + 2)
    doc = ls.docs.get(uri)
    if doc is None:
        return []
    if doc.rewrites is None:
        doc.rewrites = Memo()
    memo = doc.rewrites
    done = await loop.run_in_executor(ls.analysis_pool, rewrites, analysis, sites, reports, request_lines, memo)
    return [to_action(rw, analysis.source, uri) for rw in done]
