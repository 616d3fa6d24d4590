"""textDocument/inlayHint: what each function (and, at level "lines", each
source line) compiles to, at the end of its line. Level from
`server.config.inlay_hints` (off / functions / lines). The codegen runs in
the codegen pool (lookup.inspect_report, cached per uri, version and
options); a file with errors gets no hints. Type hints for the widths of
context-typed calls come from inlay_widths, at every level but off."""
from __future__ import annotations

from lsprotocol import types as lsp

from ea_compiler.tooling import ast as A

from ..convert import column
from ..lookup import function_report, inspect_report
from ..support import guarded
from .inlay_widths import width_hints


def register(server) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    @guarded(lsp.TEXT_DOCUMENT_INLAY_HINT, quiet=True)
    async def inlay_hint(ls, params: lsp.InlayHintParams):
        return await _hints(ls, params.text_document.uri, params.range)


def function_label(fr) -> str | None:
    """`12 vec · 4 scalar · 2 fma · 256-bit` (fma only when there are some)."""
    if not fr.exported and not fr.inlined_into:
        return None  # never called: no machine code
    c = fr.counts
    parts = [f"{c.vector} vec", f"{c.scalar} scalar"]
    if c.fma:
        parts.append(f"{c.fma} fma")
    if fr.width_bits:
        parts.append(f"{fr.width_bits}-bit")
    if not fr.exported:
        parts.append("inlined")
    return " · ".join(parts)


async def _hints(ls, uri: str, rng: lsp.Range) -> list[lsp.InlayHint]:
    level = ls.config.inlay_hints
    doc = ls.docs.get(uri)
    if level == "off" or doc is None:
        return []
    version = doc.version
    analysis = await ls.current_analysis(uri)
    if analysis is None or not analysis.ok:
        return []
    widths = width_hints(analysis, rng)
    report = await inspect_report(ls, uri)
    if ls.docs.get(uri) is not doc or doc.version != version:
        return []  # the text changed meanwhile: the client asks again
    if report is None:
        return widths
    source = analysis.source
    arch = ls.config.options().arch
    found: list[tuple[int, int, str]] = []  # (line, order, label)
    for item in analysis.ast.items:
        if isinstance(item, (A.Func, A.Kernel)) and item.cfg in (None, arch):
            fr = function_report(report, item.name)
            label = function_label(fr) if fr is not None else None
            if label:
                found.append((item.name_span.line, 0, label))
    if level == "lines":
        per_line = {}
        for fr in report.functions:
            for ln, rep in fr.lines.items():
                per_line.setdefault(ln, rep)
        found.extend((ln, 1, rep.summary) for ln, rep in per_line.items() if 1 <= ln <= source.line_count)
    hints = []
    for line, _, label in sorted(found):
        if not rng.start.line <= line - 1 <= rng.end.line:
            continue
        end = column(source, line, len(source.line_text(line)) + 1)
        hints.append(lsp.InlayHint(position=lsp.Position(line=line - 1, character=end), label=label,
                                   padding_left=True))
    return sorted(widths + hints, key=lambda h: (h.position.line, h.position.character))
