"""The server's didChange splice (eals/textsync.py) gives the text pygls'
own line-by-line rebuild gives, for random range edits: ASCII and non-ASCII
text, CRLF and the other line breaks pygls splits at, positions past a line
or the file, empty documents, in the UTF-16 and UTF-8 encodings; and most
edits of a plain file take the splice."""
from __future__ import annotations

import random
import re

import pytest
from lsprotocol import types as lsp
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

from eals import textsync

PIECES = ["a", "bc", " ", "\n", "\n\n", "é", "😋", "\r\n", "\r", "\u2028", "let x: i32 = 1\n", "", "}\n"]


def change(rnd: random.Random, lines: int, pieces: list[str]) -> lsp.TextDocumentContentChangePartial:
    def pos() -> lsp.Position:  # mostly inside the text, sometimes past a line's end or the last line
        return lsp.Position(line=rnd.randint(0, lines if rnd.random() < 0.1 else max(lines - 1, 0)),
                            character=rnd.randint(0, 16 if rnd.random() < 0.1 else 3))
    a, b = pos(), pos()
    if rnd.random() < 0.95:
        a, b = sorted((a, b), key=lambda p: (p.line, p.character))
    return lsp.TextDocumentContentChangePartial(range=lsp.Range(start=a, end=b),
                                                text="".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 3))))


@pytest.mark.parametrize("encoding", [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8])
@pytest.mark.parametrize("seed", range(6))
def test_the_splice_gives_what_pygls_gives(seed, encoding):
    rnd = random.Random(seed)
    pieces = PIECES if seed % 2 else ["a", "bc", " ", "\n", "let x: i32 = 1\n", "}\n"]  # odd seeds: not ASCII
    text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 60)))
    ours = TextDocument("file:///a.ea", text, position_codec=PositionCodec(encoding))
    theirs = TextDocument("file:///a.ea", text, position_codec=PositionCodec(encoding))
    spliced = 0
    for _ in range(300):
        c = change(rnd, len(theirs.lines), pieces)
        textsync.apply_change(ours, c)
        spliced += "_ea_line_starts" in ours.__dict__
        theirs.apply_change(lsp.TextDocumentContentChangePartial(range=c.range, text=c.text))
        assert ours.source == theirs.source
        starts = ours.__dict__.get("_ea_line_starts")
        if starts is not None:  # the table, moved lazily, is the text's
            assert starts.to_list() == [0] + [m.end() for m in re.finditer("\n", ours.source)]
    if seed % 2 == 0:
        assert spliced > 150  # the splice is the common path on a plain file


def test_apply_change_falls_back_to_pygls():
    doc = TextDocument("file:///a.ea", "a\r\nb\n")
    textsync.apply_change(doc, lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line=1, character=0), end=lsp.Position(line=1, character=1)), text="c"))
    assert doc.source == "a\r\nc\n" and "_ea_line_starts" not in doc.__dict__
    textsync.apply_change(doc, lsp.TextDocumentContentChangeWholeDocument(text="x\ny\n"))
    textsync.apply_change(doc, lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line=1, character=1), end=lsp.Position(line=1, character=1)), text="z"))
    assert doc.source == "x\nyz\n" and doc._ea_line_starts.to_list() == [0, 2, 5]
