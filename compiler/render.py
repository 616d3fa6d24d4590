"""Rendering diagnostics for the terminal (TOOLCHAIN.md §9.1 layout) and JSON.

    k.ea:2:12  error[type]: cannot use '*' on vectors. Use '.*' for element-wise vector operations
        return a * b
               ^^^^^
      = help: use '.*'

The caret line copies the tabs of the source line and counts wide
characters twice, so carets line up under the code in a terminal.
"""
from __future__ import annotations

import unicodedata

from .diagnostics import Diagnostic
from .source import SourceFile, Span


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(prefix: str) -> str:
    """Whitespace that covers `prefix` on screen (tabs kept as tabs)."""
    return "".join("\t" if c == "\t" else " " * _width(c) for c in prefix)


_LONG_LINE = 200  # longer source lines are shown as a window around the span
_WINDOW_BEFORE = 60
_WINDOW_AFTER = 100


def _visible(text: str) -> str:
    """Control characters would act on the terminal: show each as one '?'."""
    return "".join(c if c == "\t" or c.isprintable() else "?" for c in text)


def snippet(source: SourceFile, span: Span) -> list[str]:
    """The source line of `span` and its underline (two lines), or nothing.
    Long lines are cut to a window around the span, marked with '...'."""
    if not 1 <= span.line <= source.line_count:
        return []
    text = source.line_text(span.line)
    start = span.col - 1
    end = span.end_col - 1 if span.end_line == span.line else len(text)
    end = max(min(end, start + _WINDOW_AFTER), start + 1)
    left = ""
    if len(text) > _LONG_LINE and start > _WINDOW_BEFORE:
        cut = start - _WINDOW_BEFORE
        text, start, end, left = text[cut:], start - cut, end - cut, "..."
    right = ""
    if len(text) > _LONG_LINE and len(text) > end + _WINDOW_AFTER:
        text, right = text[: end + _WINDOW_AFTER], "..."
    text = _visible(text)
    marked = text[start:end]
    carets = max(_width(marked.replace("\t", " ")), 1)
    return ["    " + left + text + right, "    " + " " * len(left) + _pad(text[:start]) + "^" * carets]


# TOOLCHAIN.md §8 prints what the checker's target rules find (kind "target")
# under the kind `codegen`, with the layout of §9.1 for codegen errors.
_PRINTED_KIND = {"target": "codegen"}


def render(d: Diagnostic, source: SourceFile | None, path: str) -> str:
    kind = _PRINTED_KIND.get(d.kind, d.kind)
    head = f"{d.severity}[{kind}]: {d.message}"
    if d.span is None:
        lines = [head]
    elif kind == "codegen":
        # §9.1: target errors print only their message; the position follows
        # on its own line so tools grepping `error[codegen]: ...` still match.
        lines = [head, f"  --> {path}:{d.span.line}:{d.span.col}"]
        if source is not None:
            lines += snippet(source, d.span)
    else:
        lines = [f"{path}:{d.span.line}:{d.span.col}  {head}"]
        if source is not None:
            lines += snippet(source, d.span)
    for label in d.labels:
        lines.append(f"  {path}:{label.span.line}:{label.span.col}: {label.message}")
        if source is not None and (d.span is None or label.span.line != d.span.line) \
                and source.line_text(label.span.line).strip():
            lines += ["  " + s for s in snippet(source, label.span)]
    for note in d.notes:
        lines.append(f"  = note: {note}")
    for s in d.suggestions:
        lines.append(f"  = help: {s.title}")
    return "\n".join(lines)


def render_all(diagnostics: list[Diagnostic], source: SourceFile | None, path: str) -> str:
    return "".join(render(d, source, path) + "\n" for d in diagnostics)
