"""A didChange range edit applied to the document's text in time that does
not grow with the file.

pygls applies one by rebuilding the whole text line by line in Python (about
1.7 ms on a 10,000-line file, every keystroke). Here each document keeps the
start of each of its lines, so an edit is one splice of the text (in C) and
of the table, whose later lines move lazily (`LineStarts`). The result is pygls' exactly:
where the two could differ (a line break other than `\\n`, which pygls'
`splitlines` also splits at; a non-ASCII line, whose columns count in the
client's units; a position beyond a line or the file, which pygls clamps its
own way), the edit is pygls'.
"""
from __future__ import annotations

import re

from lsprotocol import types as lsp

# Line breaks of str.splitlines besides `\n` (pygls' lines are split at them too).
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_NEWLINE = re.compile("\n")


def apply_change(doc, change) -> None:
    """Apply one content change of a didChange to `doc` (a pygls TextDocument)."""
    if not _splice(doc, change):
        doc.__dict__.pop("_ea_line_starts", None)
        doc.apply_change(change)


def _splice(doc, change) -> bool:
    if not isinstance(change, lsp.TextDocumentContentChangePartial) or not doc._is_sync_kind_incremental:
        return False
    source = doc._source
    if source is None or _OTHER_BREAKS.search(change.text):
        return False
    starts = doc.__dict__.get("_ea_line_starts")
    if starts is None:
        if _OTHER_BREAKS.search(source):
            return False
        starts = LineStarts([0] + [m.end() for m in _NEWLINE.finditer(source)])
    count = len(starts)
    lines = count - 1 if not source or source.endswith("\n") else count  # len(pygls' lines)
    r = change.range
    offsets = []
    for pos in (r.start, r.end):
        if not 0 <= pos.line < lines:
            return False
        line_start = starts.at(pos.line)
        line = source[line_start:starts.at(pos.line + 1) if pos.line + 1 < count else len(source)]
        if not line.isascii() or not 0 <= pos.character <= len(line):
            return False
        offsets.append(line_start + pos.character)
    start, end = offsets
    if start > end:
        return False
    text = change.text
    doc._source = source[:start] + text + source[end:]
    # The lines starting at or before `start` stay, those starting after `end` move (a position just
    # past a line's break is the next line's start).
    first, after = r.start.line + 1, r.end.line + 1
    first += first < count and starts.at(first) <= start
    after += after < count and starts.at(after) <= end
    starts.splice(first, after, [start + m.end() for m in _NEWLINE.finditer(text)], len(text) - (end - start))
    doc._ea_line_starts = starts
    return True


class LineStarts:
    """The start of each line of a text, kept across splices in time that
    does not grow with the file: the lines after an edit move by its change
    of length, and rather than adding that to every later entry at once, the
    entries from `since` on hold their positions `by` bytes back. The next
    splice settles only the entries between `since` and its own line (typing
    moves along a line or two)."""

    def __init__(self, starts: list[int]):
        self.starts, self.since, self.by = starts, len(starts), 0

    def __len__(self) -> int:
        return len(self.starts)

    def at(self, line: int) -> int:
        return self.starts[line] + (self.by if line >= self.since else 0)

    def splice(self, first: int, after: int, made: list[int], by: int) -> None:
        """Lines `first` to `after` (exclusive) replaced by lines starting at
        `made`; the lines from `after` on move by `by` bytes."""
        starts, since = self.starts, self.since
        if since < after:  # entries now before the pending region: give them their shift
            starts[since:after] = [s + self.by for s in starts[since:after]]
        elif after < since:  # entries now in the pending region: hold them back
            starts[after:since] = [s - self.by for s in starts[after:since]]
        self.by += by
        starts[first:after] = made
        self.since = first + len(made)

    def to_list(self) -> list[int]:
        return [self.at(n) for n in range(len(self.starts))]
