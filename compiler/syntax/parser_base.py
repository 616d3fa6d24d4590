"""Parser plumbing: token cursor, error reporting and resynchronisation.

Recovery strategy: an error inside a statement marks the parser as
recovering; the block loop then skips to the next statement boundary (a
statement keyword, a `}`, a token that starts a new line, or an item
keyword in column 1), skipping bracketed groups whole. Items resynchronise
at the next item keyword. Errors at the same token are reported once.
"""
from __future__ import annotations

from ..diagnostics import DiagnosticSink, Label, Suggestion
from ..source import Span
from .tokens import COMMENT, EOF, IDENT, Token

STMT_START = frozenset({"Let", "Return", "If", "While", "ForEach", "For", "Unroll"})
ITEM_KEYWORDS = frozenset({"Func", "Export", "Struct", "Const", "Hash"})
OPENERS = {"LeftParen": "RightParen", "LeftBracket": "RightBracket", "LeftBrace": "RightBrace"}
CLOSERS = frozenset(OPENERS.values())

MAX_NESTING = 100


class ParseAbort(Exception):
    """Raised to unwind out of a construct nested too deeply."""


class ParserBase:
    def __init__(self, tokens: list[Token], sink: DiagnosticSink):
        # Comments (trivia, when the lexer kept them) are not part of the grammar.
        self.tokens = [t for t in tokens if t.kind != COMMENT]
        self.pos = 0
        self.tok = self.tokens[0]
        self.sink = sink
        self.error_count = 0
        self._last_error_at = -1
        self.depth = 0
        self._too_deep_reported = False

    # ---- cursor ----
    def advance(self) -> Token:
        tok = self.tok
        if tok.kind != EOF:
            self.pos += 1
            self.tok = self.tokens[self.pos]
        return tok

    def peek(self, k: int = 1) -> Token:
        i = self.pos + k
        return self.tokens[i] if i < len(self.tokens) else self.tokens[-1]

    @property
    def prev(self) -> Token:
        return self.tokens[self.pos - 1] if self.pos > 0 else self.tok

    def at(self, kind: str) -> bool:
        return self.tok.kind == kind

    def at_ident(self, text: str) -> bool:
        return self.tok.kind == IDENT and self.tok.text == text

    def accept(self, kind: str) -> Token | None:
        if self.tok.kind == kind:
            return self.advance()
        return None

    def expect(self, kind: str, message: str, opener: Token | None = None,
               insert: str | None = None) -> Token | None:
        """Consume a token of `kind`, or report `message` at the current token."""
        if self.tok.kind == kind:
            return self.advance()
        labels = [Label(opener, f"'{opener.text}' opened here")] if opener is not None else []
        suggestions = []
        if insert is not None:
            suggestions.append(Suggestion(self.prev.at_end(), insert, f"insert '{insert}'"))
        self.error(message, self.tok, "expected-token", labels=labels, suggestions=suggestions)
        return None

    # ---- diagnostics ----
    def error(self, message: str, span: Span, code: str = "syntax", **extra) -> None:
        self.error_count += 1
        if span.start == self._last_error_at:
            return
        self._last_error_at = span.start
        self.sink.error("parse", code, message, span, **extra)

    def found(self) -> str:
        return self.tok.describe()

    # ---- nesting guard ----
    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            if not self._too_deep_reported:
                self._too_deep_reported = True
                self.error(f"nesting is too deep (more than {MAX_NESTING} levels); "
                           "split the expression or block", self.tok, "too-deep")
            raise ParseAbort

    def leave(self) -> None:
        self.depth -= 1

    # ---- resynchronisation ----
    def skip_group(self) -> None:
        """Skip a bracketed group starting at the current opener (iteratively)."""
        stack = []
        while self.tok.kind != EOF:
            kind = self.advance().kind
            if kind in OPENERS:
                stack.append(OPENERS[kind])
            elif kind in CLOSERS:
                while stack and stack[-1] != kind:
                    stack.pop()
                if stack:
                    stack.pop()
                if not stack:
                    return

    def at_item_start(self) -> bool:
        """An item keyword in column 1 (inside a body this means a missing '}')."""
        tok = self.tok
        if tok.col != 1 and tok.kind != EOF:
            return False
        return self.is_item_keyword()

    def is_item_keyword(self) -> bool:
        tok = self.tok
        if tok.kind in ITEM_KEYWORDS:
            return True
        if tok.kind == IDENT:
            nxt = self.peek()
            if tok.text == "kernel" and nxt.kind == IDENT:
                return True
            if tok.text == "static_assert" and nxt.kind == "LeftParen" and tok.col == 1:
                return True
        return False

    def sync_statement(self, start_pos: int) -> None:
        """Skip to the next statement boundary after an error."""
        moved = self.pos > start_pos
        while True:
            tok = self.tok
            kind = tok.kind
            if kind == EOF or kind == "RightBrace" or kind in STMT_START:
                break
            if self.at_item_start():
                break
            if moved and tok.first_on_line and kind not in CLOSERS:
                break
            if kind in OPENERS:
                self.skip_group()
            else:
                self.advance()
            moved = True

    def sync_item(self) -> None:
        """Skip to the next item keyword at top level."""
        while self.tok.kind != EOF:
            if self.is_item_keyword() and (self.tok.first_on_line or self.tok.kind in ITEM_KEYWORDS):
                return
            if self.tok.kind in OPENERS:
                self.skip_group()
            else:
                self.advance()
