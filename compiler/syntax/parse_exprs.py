"""Expression parsing by precedence climbing (LANGUAGE.md §2.1)."""
from __future__ import annotations

from ..diagnostics import Suggestion
from . import ast as A
from .parser_base import ParserBase
from .tokens import BIN, FLOAT, HEX, IDENT, NUMBER_KINDS, STRING, VECTOR_TYPE_KINDS

COMPARISONS = frozenset({"EqualEqual", "BangEqual", "Less", "Greater", "LessEqual", "GreaterEqual",
                         "EqualEqualDot", "BangEqualDot", "LessDot", "GreaterDot", "LessEqualDot",
                         "GreaterEqualDot"})
_ADDITIVE = ("Plus", "Minus", "PlusDot", "MinusDot", "AmpDot", "PipeDot", "CaretDot",
             "ShiftLeftDot", "ShiftRightDot", "Amp", "Pipe", "Caret", "ShiftLeft", "ShiftRight")
_MULTIPLICATIVE = ("Star", "Slash", "Percent", "StarDot", "SlashDot")

PRECEDENCE: dict[str, int] = {"PipePipe": 1, "AmpAmp": 2}
PRECEDENCE.update({k: 3 for k in COMPARISONS})
PRECEDENCE.update({k: 4 for k in _ADDITIVE})
PRECEDENCE.update({k: 5 for k in _MULTIPLICATIVE})

I64_MAX = (1 << 63) - 1


class ExprParser(ParserBase):
    def parse_expr(self, min_prec: int = 1) -> A.Expr:
        left = self.parse_unary()
        prec_of = PRECEDENCE
        while True:
            tok = self.tok
            prec = prec_of.get(tok.kind)
            if prec is None or prec < min_prec or self.at_compound_assignment():
                return left
            self.advance()
            right = self.parse_expr(prec + 1)
            left = A.Binary(left.span.to(right.span), tok.text, tok, left, right)
            if prec == 3 and self.tok.kind in COMPARISONS:
                self.error(f"comparison operators cannot be chained: '{tok.text}' is followed by "
                           f"'{self.tok.text}'; use parentheses or '&&'", self.tok, "chained-comparison")

    def at_compound_assignment(self) -> bool:
        """At `+=`, `.*=`, ...: an operator with `=` right after it (LANGUAGE.md
        has no compound assignment; the statement parser says so)."""
        nxt = self.peek()
        return self.tok.kind in PRECEDENCE and nxt.kind == "Equals" and nxt.start == self.tok.end

    def parse_unary(self) -> A.Expr:
        tok = self.tok
        if tok.kind == "Minus" and self.peek().kind in NUMBER_KINDS:
            self.advance()
            lit = self.parse_number(negative=True)
            lit.span = tok.to(lit.span)
            return lit
        if tok.kind in ("Minus", "Bang"):
            self.enter()
            try:
                self.advance()
                operand = self.parse_unary()
            finally:
                self.leave()
            return A.Unary(tok.to(operand.span), tok.text, operand)
        return self.parse_primary()

    def parse_number(self, negative: bool = False) -> A.Expr:
        tok = self.advance()
        text = ("-" if negative else "") + tok.text
        if tok.kind == FLOAT:
            value = float(tok.text)
            return A.FloatLit(tok, -value if negative else value, text)
        digits = tok.text
        if tok.kind == HEX:
            value = int(digits[2:], 16)
        elif tok.kind == BIN:
            value = int(digits[2:], 2)
        else:
            value = int(digits)
        if negative:
            value = -value
        if not -I64_MAX - 1 <= value <= I64_MAX:
            self.error(f"invalid integer literal: {text}", tok, "invalid-literal",
                       notes=["integer literals must fit in a signed 64-bit integer"])
            value = 0
        return A.IntLit(tok, value, text)

    def parse_primary(self) -> A.Expr:
        tok = self.tok
        kind = tok.kind
        if kind in NUMBER_KINDS:
            return self.parse_number()
        if kind == STRING:
            self.advance()
            return A.StringLit(tok, tok.text[1:-1])
        if kind == "True" or kind == "False":
            self.advance()
            return A.BoolLit(tok, kind == "True")
        if kind == "Splat" or (kind == IDENT and self.peek().kind == "LeftParen"):
            return self.finish_postfix(self.parse_call())
        if kind == IDENT:
            if (names_struct_literal(tok.text) and self.peek().kind == "LeftBrace"
                    and self.peek(2).kind == IDENT and self.peek(3).kind == "Colon"):
                return self.finish_postfix(self.parse_struct_literal())
            return self.parse_postfix()
        if kind == "LeftBracket":
            return self.parse_vector_literal()
        if kind == "LeftParen":
            self.enter()
            try:
                self.advance()
                inner = self.parse_expr()
                close = self.expect("RightParen", "expected ')' after expression", opener=tok, insert=")")
            finally:
                self.leave()
            end = close if close is not None else inner.span
            return self.finish_postfix(A.Paren(tok.to(end), inner))
        self.error(f"expected expression, found '{self.found()}'", tok, "expected-expression")
        return A.ErrorExpr(tok)

    def parse_call(self) -> A.Call:
        name_tok = self.advance()
        open_tok = self.advance()  # '('
        args: list[A.Expr] = []
        self.enter()
        try:
            if self.tok.kind != "RightParen":
                while True:
                    args.append(self.parse_expr())
                    if not self.accept("Comma"):
                        break
                    if self.tok.kind == "RightParen":
                        self.error("trailing comma is not allowed in an argument list", self.prev,
                                   "trailing-comma",
                                   suggestions=[Suggestion(self.prev, "", "remove the trailing ','")])
                        break
            close = self.expect("RightParen", "expected ')' after arguments", opener=open_tok, insert=")")
        finally:
            self.leave()
        end = close if close is not None else (args[-1].span if args else open_tok)
        return A.Call(name_tok.to(end), name_tok.text, name_tok, args)

    def parse_struct_literal(self) -> A.StructLit:
        name_tok = self.advance()
        open_tok = self.advance()  # '{'
        fields: list[A.FieldInit] = []
        self.enter()
        try:
            while self.tok.kind == IDENT:
                fname = self.advance()
                self.expect("Colon", f"expected ':' after field name '{fname.text}'")
                fields.append(A.FieldInit(fname.text, fname, self.parse_expr()))
                self.accept("Comma")
            close = self.expect("RightBrace", "expected '}' after struct literal fields", opener=open_tok)
        finally:
            self.leave()
        end = close if close is not None else self.prev
        return A.StructLit(name_tok.to(end), name_tok.text, name_tok, fields)

    def parse_vector_literal(self) -> A.Expr:
        open_tok = self.advance()
        elems: list[A.Expr] = []
        self.enter()
        try:
            if self.tok.kind != "RightBracket":
                while True:
                    elems.append(self.parse_expr())
                    if not self.accept("Comma"):
                        break
            close = self.expect("RightBracket", "expected ']' after vector elements", opener=open_tok,
                                insert="]")
        finally:
            self.leave()
        end = close if close is not None else self.prev
        suffix = None
        if self.tok.kind in VECTOR_TYPE_KINDS:
            suffix = self.advance()
            end = suffix
        return A.VectorLit(open_tok.to(end), elems, suffix.text if suffix else None, suffix)

    def parse_postfix(self) -> A.Expr:
        tok = self.advance()
        expr: A.Expr = A.Name(tok, tok.text)
        while True:
            if self.tok.kind == "LeftBracket":
                open_tok = self.advance()
                self.enter()
                try:
                    index = self.parse_expr()
                    close = self.expect("RightBracket", "expected ']' after index", opener=open_tok,
                                        insert="]")
                finally:
                    self.leave()
                expr = A.Index(expr.span.to(close or index.span), expr, index)
            elif self.tok.kind == "Dot" and self.peek().kind == IDENT:
                self.advance()
                name = self.advance()
                expr = A.Field(expr.span.to(name), expr, name.text, name)
            else:
                return expr

    def finish_postfix(self, expr: A.Expr) -> A.Expr:
        """Indexing or field access after a call or parentheses is not in the
        language; say so instead of failing on the next token."""
        tok = self.tok
        if (tok.kind == "LeftBracket" or (tok.kind == "Dot" and self.peek().kind == IDENT)) \
                and not tok.first_on_line:
            what = "a call" if isinstance(expr, A.Call) else "a parenthesised expression"
            self.error(f"cannot index or access a field of {what}; bind it to a local with 'let' first",
                       tok, "postfix-after-call")
            if tok.kind == "LeftBracket":
                self.skip_group()
            else:
                self.advance()
                self.advance()
        return expr


def names_struct_literal(name: str) -> bool:
    """`Name { field: ...` reads as a struct literal only when the name starts
    with a capital letter (otherwise `if x { y: ...` would be ambiguous)."""
    return name[:1].isupper()
