"""Statement, block and type parsing."""
from __future__ import annotations

import dataclasses

from ..diagnostics import Label, Suggestion
from . import ast as A
from .parse_exprs import PRECEDENCE, ExprParser
from .parser_base import ParseAbort
from .tokens import EOF, IDENT, INT, OPERATORS, SCALAR_TYPE_KINDS, VECTOR_TYPE_KINDS, Token

_LOOP_KINDS = ("While", "ForEach", "For")
STEP_MAX = 2**31 - 1  # a loop variable (a kernel's, a `for`'s) is an i32


class StmtParser(ExprParser):
    # ---- types ----
    def at_type_start(self) -> bool:
        k = self.tok.kind
        return k == "Star" or k == IDENT or k in SCALAR_TYPE_KINDS or k in VECTOR_TYPE_KINDS

    def parse_type(self) -> A.TypeRef:
        tok = self.tok
        if tok.kind == "Star":
            self.advance()
            restrict = self.accept("Restrict") is not None
            mutable = self.accept("Mut") is not None
            if mutable and self.at("Restrict"):
                wrong = self.advance()
                self.error("'restrict' must come before 'mut': write '*restrict mut T'", wrong,
                           "qualifier-order",
                           suggestions=[Suggestion(tok.to(wrong), "*restrict mut", "write '*restrict mut'")])
                restrict = True
            self.enter()
            try:
                inner = self.parse_type()
            finally:
                self.leave()
            return A.PointerType(inner, mutable, restrict, tok.to(inner.span))
        if tok.kind == IDENT or tok.kind in SCALAR_TYPE_KINDS or tok.kind in VECTOR_TYPE_KINDS:
            self.advance()
            return A.NamedType(tok.text, tok)
        self.error(f"expected type (e.g., i32, f32, *mut f32), found '{self.found()}'", tok,
                   "expected-type")
        return A.NamedType("<error>", tok)

    # ---- blocks ----
    def parse_block(self, missing_message: str, owner: str) -> A.Block:
        """`{ stmt* }`. A missing `}` is reported at the opener."""
        open_tok = self.tok
        if open_tok.kind != "LeftBrace":
            self.error(missing_message, open_tok, "expected-token",
                       suggestions=[Suggestion(self.prev.at_end(), " {", "insert '{'")])
            return A.Block([], self.prev.at_end())
        self.advance()
        stmts: list[A.Stmt] = []
        self.enter()
        try:
            while True:
                kind = self.tok.kind
                if kind == "RightBrace":
                    close = self.advance()
                    return A.Block(stmts, open_tok.to(close))
                if kind == EOF or self.at_item_start():
                    self._unclosed(open_tok, owner)
                    return A.Block(stmts, open_tok.to(self.prev))
                start = self.pos
                errors = self.error_count
                depth = self.depth
                try:
                    stmt = self.parse_statement()
                    if stmt is not None:
                        stmts.append(stmt)
                except ParseAbort:
                    self.depth = depth
                if self.error_count != errors or self.pos == start:
                    self.sync_statement(start)
        finally:
            self.leave()

    def _unclosed(self, open_tok: Token, owner: str) -> None:
        here = self.tok
        where = "end of file" if here.kind == EOF else f"'{here.text}'"
        self.error(f"unclosed '{{': the block of {owner} is never closed", open_tok, "unclosed-block",
                   labels=[Label(here, f"expected '}}' before {where}")],
                   suggestions=[Suggestion(self.prev.at_end(), "\n}", "insert the missing '}'")])

    # ---- statements ----
    def parse_statement(self) -> A.Stmt | None:
        tok = self.tok
        kind = tok.kind
        if kind == "Let":
            return self.parse_let()
        if kind == "Return":
            self.advance()
            if self.tok.kind == "RightBrace":
                return A.Return(None, tok)
            value = self.parse_expr()
            return A.Return(value, tok.to(value.span))
        if kind == "If":
            return self.parse_if()
        if kind == "While":
            self.advance()
            cond = self.parse_expr()
            body = self.parse_block("expected '{' after while condition", "this 'while' loop")
            return A.While(cond, body, tok.to(body.span))
        if kind == "ForEach":
            return self.parse_foreach()
        if kind == "For":
            return self.parse_for()
        if kind == "Unroll":
            return self.parse_unroll()
        if kind in ("Func", "Struct", "Const", "Export"):
            what = {"Func": "functions cannot be nested", "Export": "functions cannot be nested",
                    "Struct": "'struct' declarations are only allowed at top level",
                    "Const": "'const' declarations are only allowed at top level"}[kind]
            self.error(what, tok, "item-in-body",
                       notes=["if the enclosing block was meant to end here, add the missing '}'"])
            self.advance()
            return None
        expr = self.parse_expr()
        if isinstance(expr, A.ErrorExpr):
            return None
        if self.at_compound_assignment():
            return self.parse_compound_assignment(expr)
        if self.tok.kind == "Equals":
            self.advance()
            value = self.parse_expr()
            if not _assignable(expr):
                self.error("invalid assignment target", expr.span, "invalid-assignment-target",
                           notes=["assign to a variable (x = e), an element (p[i] = e) or a field (s.f = e)"])
            return A.Assign(expr, value, expr.span.to(value.span))
        if isinstance(expr, A.ErrorExpr):
            return None
        return A.ExprStmt(expr, expr.span)

    def parse_compound_assignment(self, target: A.Expr) -> A.Assign:
        """`s += e`: one error naming what Eä lacks, the statement written out
        as the fix, and the assignment it means, so nothing cascades."""
        op = self.advance()
        self.advance()  # the '='
        value = self.parse_expr()
        span = target.span.to(value.span)
        right = self.text_of(value.span)
        if isinstance(value, A.Binary) and PRECEDENCE.get(OPERATORS.get(value.op, ""), 99) <= PRECEDENCE[op.kind]:
            right = f"({right})"  # `s *= a + b` is `s = s * (a + b)`
        name = self.text_of(target.span)
        fixed = f"{name} = {name} {op.text} {right}"
        certain = _assignable(target) and not any(isinstance(n, A.ErrorExpr) for n in A.walk([target, value]))
        self.error(f"Eä has no compound assignment '{op.text}='", span, "compound-assignment",
                   suggestions=[Suggestion(span, fixed, f"write {fixed}")] if certain else [])
        operand = dataclasses.replace(target)  # its own node: types are stored on nodes
        return A.Assign(target, A.Binary(span, op.text, op, operand, value), span)

    def text_of(self, span) -> str:
        """The source of `span` rebuilt from its tokens (a gap is one space)."""
        out, end = [], None
        for t in self.tokens:
            if t.start >= span.end:
                break
            if t.start >= span.start:
                out.append(("" if end is None or t.start == end else " ") + t.text)
                end = t.end
        return "".join(out)

    def parse_let(self) -> A.Let:
        let_tok = self.advance()
        mutable = self.accept("Mut") is not None
        name = self.tok
        if name.kind != IDENT:
            what = "'splat' is a keyword and cannot name a variable" if name.kind == "Splat" else \
                f"expected variable name after 'let', found '{self.found()}'"
            self.error(what, name, "expected-name")
            if name.kind in ("Splat",) or self.peek().kind == "Colon":
                self.advance()
        else:
            self.advance()
        if not self.accept("Colon"):
            self.error("expected ':' after variable name (type annotation required)", self.tok,
                       "missing-type-annotation",
                       notes=["every 'let' needs a type: let x: f32 = ..."])
            if not self.at_type_start() or self.at("Equals"):
                typ = A.NamedType("<error>", self.tok)
            else:
                typ = self.parse_type()
        else:
            typ = self.parse_type()
        if not self.expect("Equals", f"expected '=' after the type of '{name.text}'"):
            return A.Let(name.text, name, mutable, typ, A.ErrorExpr(self.tok), let_tok.to(typ.span))
        value = self.parse_expr()
        return A.Let(name.text, name, mutable, typ, value, let_tok.to(value.span))

    def parse_if(self) -> A.If:
        # An `else if` ladder is a chain, not nesting: parse it iteratively.
        links = []
        orelse = None
        while True:
            tok = self.advance()
            cond = self.parse_expr()
            then = self.parse_block("expected '{' after if condition", "this 'if'")
            links.append((tok, cond, then))
            if not self.accept("Else"):
                break
            if not self.at("If"):
                orelse = self.parse_block("expected '{' or 'if' after 'else'", "this 'else'")
                break
        for tok, cond, then in reversed(links):
            end = orelse.span if orelse is not None else then.span
            orelse = A.If(cond, then, orelse, tok.to(end))
        return orelse

    def parse_range(self) -> tuple[A.Expr, A.Expr]:
        start = self.parse_expr()
        if not self.expect("DotDot", "expected '..' in range"):
            return start, A.ErrorExpr(self.tok)
        return start, self.parse_expr()

    def parse_foreach(self) -> A.ForEach:
        tok = self.advance()
        open_tok = self.expect("LeftParen", "expected '(' after 'foreach'")
        var = self.tok
        if not self.expect(IDENT, f"expected loop variable name, found '{self.found()}'"):
            var = self.prev
        self.expect("In", "expected 'in' after loop variable")
        start, end = self.parse_range()
        self.expect("RightParen", "expected ')' after range", opener=open_tok)
        body = self.parse_block("expected '{' after foreach range", "this 'foreach' loop")
        return A.ForEach(var.text, var, start, end, body, tok.to(body.span))

    def parse_for(self) -> A.For:
        tok = self.advance()
        var = self.tok
        if not self.expect(IDENT, f"expected loop variable name, found '{self.found()}'"):
            var = self.prev
        self.expect("In", "expected 'in' after loop variable")
        start, end = self.parse_range()
        step = 1
        if self.at_ident("step"):
            self.advance()
            step = self.parse_step()
        body = self.parse_block("expected '{' after for range", "this 'for' loop")
        return A.For(var.text, var, start, end, step, body, tok.to(body.span))

    def parse_step(self) -> int:
        tok = self.tok
        if tok.kind == INT and 0 < int(tok.text) <= STEP_MAX:
            self.advance()
            return int(tok.text)
        if tok.kind == INT and int(tok.text) > STEP_MAX:
            self.error(f"step must be at most {STEP_MAX}: the loop variable is an i32", tok, "bad-step")
            self.advance()
            return 1
        if tok.kind == INT or (tok.kind == "Minus" and self.peek().kind == INT):
            self.error("step must be a positive integer", tok, "bad-step")
        else:
            self.error("step must be a positive integer literal", tok, "bad-step")
        if tok.kind != "LeftBrace":
            self.advance()
        return 1

    def parse_unroll(self) -> A.Unroll | None:
        tok = self.advance()
        self.expect("LeftParen", "expected '(' after 'unroll'")
        count_tok = self.tok
        count = 1
        if self.accept(INT):
            count = int(count_tok.text)
        else:
            self.error(f"expected integer literal unroll count, found '{self.found()}'", count_tok,
                       "expected-token")
        self.expect("RightParen", "expected ')' after unroll count")
        if self.tok.kind not in _LOOP_KINDS:
            self.error("unroll must be followed by a loop (while, foreach, or for)", self.tok,
                       "unroll-without-loop")
            return None
        loop = self.parse_statement()
        return A.Unroll(count, count_tok, loop, tok.to(loop.span))


def _assignable(expr: A.Expr) -> bool:
    if isinstance(expr, A.Name):
        return True
    if isinstance(expr, A.Index):
        return isinstance(expr.base, A.Name)
    return isinstance(expr, A.Field)
