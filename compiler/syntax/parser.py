"""Item parsing and the parser's public entry point `parse(tokens, sink)`."""
from __future__ import annotations

from ..diagnostics import DiagnosticSink, Label, Suggestion
from . import ast as A
from .parse_stmts import StmtParser
from .parser_base import ParseAbort
from .tokens import EOF, IDENT, NUMBER_KINDS, STRING, Token


def parse(tokens: list[Token], sink: DiagnosticSink) -> A.Program:
    """Parse a token list (ending in Eof) into a Program; never raises."""
    return ItemParser(tokens, sink).parse_program()


class ItemParser(StmtParser):
    def parse_program(self) -> A.Program:
        items: list[A.Item] = []
        first = self.tok
        while self.tok.kind != EOF:
            start = self.pos
            errors = self.error_count
            try:
                item = self.parse_item()
                if item is not None:
                    items.append(item)
            except ParseAbort:
                self.depth = 0
            if self.error_count != errors or self.pos == start:
                if self.pos == start:
                    self.advance()
                self.sync_item()
        return A.Program(items, first.to(self.tok))

    def parse_item(self) -> A.Item | None:
        cfg = self.parse_cfg() if self.at("Hash") else None
        tok = self.tok
        if tok.kind == "Export":
            self.advance()
            if self.at("Func"):
                return self.parse_func(tok, cfg)
            if self.at_ident("kernel"):
                return self.parse_kernel(tok, cfg)
            self.error(f"expected 'func' or 'kernel' after 'export', found '{self.found()}'", self.tok,
                       "expected-item")
            return None
        if tok.kind == "Func":
            return self.parse_func(None, cfg)
        if tok.kind == "Struct":
            return self.parse_struct(cfg)
        if tok.kind == "Const":
            return self.parse_const(cfg)
        if tok.kind == IDENT and tok.text == "kernel" and self.peek().kind == IDENT:
            return self.parse_kernel(None, cfg)
        if tok.kind == IDENT and tok.text == "static_assert" and self.peek().kind == "LeftParen":
            return self.parse_static_assert(cfg)
        self.error(f"expected declaration (func, kernel, struct, or const), found '{self.found()}'",
                   tok, "expected-item")
        return None

    def parse_cfg(self) -> A.Cfg | None:
        hash_tok = self.advance()
        self.expect("LeftBracket", "expected '[' after '#'")
        attr = self.tok
        if not self.accept(IDENT) or attr.text != "cfg":
            self.error(f"unknown attribute '{attr.text}', expected 'cfg'", attr, "unknown-attribute")
            return None
        self.expect("LeftParen", "expected '(' after 'cfg'")
        target = self.tok
        value = None
        if target.kind == IDENT and target.text in ("x86_64", "aarch64"):
            value = target.text
            self.advance()
        else:
            self.error(f"unknown cfg target '{target.describe()}', expected 'x86_64' or 'aarch64'",
                       target, "unknown-cfg-target")
        self.expect("RightParen", "expected ')' after cfg target")
        self.expect("RightBracket", "expected ']' after attribute", opener=hash_tok)
        return A.Cfg(value, hash_tok.to(self.prev)) if value is not None else None

    def parse_name(self, what: str) -> Token:
        tok = self.tok
        if tok.kind == IDENT:
            return self.advance()
        self.error(f"expected {what} name, found '{self.found()}'", tok, "expected-name")
        return tok

    def parse_func(self, export_tok: Token | None, cfg: A.Cfg | None) -> A.Func:
        func_tok = self.advance()
        name = self.parse_name("function")
        params = self.parse_params()
        ret = None
        if self.accept("Arrow"):
            ret = self.parse_type()
        body = self.parse_block("expected '{' before function body", f"function '{name.text}'")
        start = export_tok or func_tok
        return A.Func(name.text, name, params, ret, body, export_tok is not None, cfg, start.to(body.span))

    def parse_params(self) -> list[A.Param]:
        params: list[A.Param] = []
        open_tok = self.expect("LeftParen", "expected '(' after function name")
        if open_tok is None:
            return params
        if self.tok.kind != "RightParen":
            while True:
                params.append(self.parse_param())
                if not self.accept("Comma"):
                    break
                if self.tok.kind == "RightParen":
                    self.error("trailing comma is not allowed in a parameter list", self.prev,
                               "trailing-comma",
                               suggestions=[Suggestion(self.prev, "", "remove the trailing ','")])
                    break
        self.expect("RightParen", "expected ')' after parameters", opener=open_tok, insert=")")
        return params

    def parse_param(self) -> A.Param:
        first = self.tok
        out = False
        if self.at_ident("out") and self.peek().kind == IDENT and self.peek(2).kind == "Colon":
            self.advance()
            out = True
        name = self.parse_name("parameter")
        if name is self.tok:  # nothing consumed
            return A.Param(name.text, name, A.NamedType("<error>", name), out, None, None, name)
        if not self.accept("Colon"):
            self.error(f"expected ':' after parameter name '{name.text}' (type annotation required)",
                       self.tok, "missing-type-annotation")
        typ = self.parse_type()
        cap = count = None
        end = typ.span
        if self.at("LeftBracket"):
            open_tok = self.advance()
            if self.at_ident("cap"):
                self.advance()
                self.expect("Colon", "expected ':' after 'cap'")
                cap = self.parse_annotation()
                if self.accept("Comma"):
                    if self.at_ident("count"):
                        self.advance()
                        self.expect("Colon", "expected ':' after 'count'")
                        count = self.parse_annotation()
                    else:
                        self.error(f"expected 'count' in output annotation, found '{self.found()}'",
                                   self.tok, "expected-token")
            else:
                self.error("expected 'cap' in output annotation", self.tok, "expected-token")
            close = self.expect("RightBracket", "expected ']' after output annotation", opener=open_tok)
            end = close or self.prev
        return A.Param(name.text, name, typ, out, cap, count, first.to(end))

    def parse_annotation(self) -> A.Annotation | None:
        toks: list[Token] = []
        depth = 0
        while self.tok.kind != EOF:
            kind = self.tok.kind
            if depth == 0 and kind in ("Comma", "RightBracket"):
                break
            if kind in ("LeftParen", "LeftBracket"):
                depth += 1
            elif kind in ("RightParen", "RightBracket"):
                depth -= 1
            elif kind in ("LeftBrace", "RightBrace"):
                break
            toks.append(self.advance())
        if not toks:
            self.error("expected expression in annotation", self.tok, "expected-expression")
            return None
        idents = [(t.text, t) for t in toks if t.text[:1].isalpha() or t.text[:1] == "_"]
        return A.Annotation(" ".join(t.text for t in toks), idents, toks[0].to(toks[-1]))

    def parse_kernel(self, export_tok: Token | None, cfg: A.Cfg | None) -> A.Kernel:
        kernel_tok = self.advance()
        name = self.parse_name("kernel")
        params = self.parse_params()
        var = bound = step_tok = self.tok
        step = 1
        if self.at_ident("over"):
            self.advance()
            var = self.parse_name("loop variable")
            self.expect("In", "expected 'in' after the kernel's loop variable")
            bound = self.parse_name("range bound")
            step_tok = self.tok
            if self.at_ident("step"):
                self.advance()
                step_tok = self.tok
                step = self.parse_step()
            else:
                self.error(f"expected 'step' after the range bound, found '{self.found()}'", self.tok,
                           "expected-token")
        else:
            self.error(f"expected 'over' after kernel parameters, found '{self.found()}'", self.tok,
                       "expected-token",
                       notes=["a kernel header reads: kernel NAME(PARAMS) over i in n step 8"])
        for p in params:
            if p.name == bound.text and bound.kind == IDENT:
                self.error(f"range bound '{bound.text}' collides with parameter name", bound,
                           "bound-collision", labels=[Label(p.name_span, "parameter declared here")])
        tail = None
        tail_body = None
        if self.at_ident("tail"):
            self.advance()
            strategy = self.tok
            if strategy.kind == IDENT and strategy.text in ("scalar", "mask"):
                self.advance()
                tail = strategy.text
                tail_body = self.parse_block(f"expected '{{' after 'tail {tail}'", f"the {tail} tail")
            elif strategy.kind == IDENT and strategy.text == "pad":
                self.advance()
                tail = "pad"
            else:
                self.error("expected tail strategy: 'scalar', 'mask', or 'pad'", strategy,
                           "bad-tail-strategy")
        body = self.parse_block("expected '{' before kernel body", f"kernel '{name.text}'")
        start = export_tok or kernel_tok
        return A.Kernel(name.text, name, params, var.text, var, bound.text, bound, step, step_tok,
                        tail, tail_body, body, export_tok is not None, cfg, start.to(body.span))

    def parse_struct(self, cfg: A.Cfg | None) -> A.StructDecl:
        tok = self.advance()
        name = self.parse_name("struct")
        fields: list[A.FieldDecl] = []
        open_tok = self.expect("LeftBrace", "expected '{' after struct name")
        if open_tok is not None:
            while self.tok.kind == IDENT:
                fname = self.advance()
                self.expect("Colon", f"expected ':' after field name '{fname.text}'")
                ftype = self.parse_type()
                fields.append(A.FieldDecl(fname.text, fname, ftype, fname.to(ftype.span)))
                self.accept("Comma")
            self.expect("RightBrace", "expected '}' after struct fields", opener=open_tok)
        return A.StructDecl(name.text, name, fields, cfg, tok.to(self.prev))

    def parse_const(self, cfg: A.Cfg | None) -> A.ConstDecl:
        tok = self.advance()
        name = self.parse_name("constant")
        self.expect("Colon", "expected ':' after constant name (type annotation required)")
        typ = self.parse_type()
        self.expect("Equals", "expected '=' after constant type")
        negative = self.at("Minus") and self.peek().kind in NUMBER_KINDS
        if self.tok.kind in NUMBER_KINDS or negative:
            value = self.parse_unary()
        else:
            value = A.ErrorExpr(self.tok)
            self.error("const value must be a literal (integer or float)", self.tok, "const-not-literal")
        if self.tok.kind in ("Plus", "Minus", "Star", "Slash", "Percent") and not self.tok.first_on_line:
            self.error("const value must be a literal (integer or float)", self.tok, "const-not-literal",
                       notes=["constant values cannot be expressions; write the computed value"])
        return A.ConstDecl(name.text, name, typ, value, cfg, tok.to(self.prev))

    def parse_static_assert(self, cfg: A.Cfg | None) -> A.StaticAssert:
        tok = self.advance()
        open_tok = self.advance()
        cond = self.parse_expr()
        self.expect("Comma", "expected ',' after static_assert condition")
        msg_tok = self.tok
        if self.accept(STRING):
            message = A.StringLit(msg_tok, msg_tok.text[1:-1])
        else:
            self.error(f"expected message string, found '{self.found()}'", msg_tok, "expected-token")
            message = A.StringLit(msg_tok, "")
        close = self.expect("RightParen", "expected ')' after static_assert message", opener=open_tok)
        return A.StaticAssert(cond, message, cfg, tok.to(close or self.prev))

