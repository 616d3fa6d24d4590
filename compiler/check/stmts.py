"""Statement checking: bindings, assignments, control flow, returns."""
from __future__ import annotations

from ..diagnostics import Suggestion
from ..symbols import Symbol
from ..syntax import ast as A
from ..typesys import model as T
from .scope import Binding
from .suggest import conversion_hint
from .widths import blame, splat_element


class StmtChecker:
    def block(self, block: A.Block) -> None:
        stmts = block.stmts
        for i, s in enumerate(stmts):
            self.stmt(s)
            if isinstance(s, A.Return) and i + 1 < len(stmts):
                # Statements desugaring appended (a loop's step) are not the user's.
                rest = [r for r in stmts[i + 1:] if not getattr(r, "synthetic", False)]
                if rest:
                    self.sink.warning("type", "unreachable", "unreachable code: statements after 'return' "
                                      "are ignored", rest[0].span.to(rest[-1].span))
                return

    def stmt(self, s) -> None:
        self._stmt_dispatch[type(s)](self, s)

    # ---- bindings ----
    def _let(self, s: A.Let) -> None:
        declared = self.resolve_type(s.type, check_target=True)
        s.ty = declared
        got = self.initialiser(s.value, declared)
        if s.name in self.consts:
            self.type_error(f"'{s.name}' is a constant, cannot be used as variable name", s.name_span,
                            "const-shadow")
        elif not (got.is_error or declared.is_error) and not T.compatible(got, declared):
            self.mismatch(f"cannot initialize '{s.name}' of type {declared} with {got}", s.value,
                          got, declared)
        kind = "loop-var" if s.synthetic else "local"
        sym = self.symbols.define(Symbol(s.name, kind, s.name_span, declared, container=self.func_name,
                                         detail=f"let {'mut ' if s.mutable else ''}{s.name}: {declared}"))
        self.scope[s.name] = Binding(declared, s.mutable, kind, sym, s.name_span)

    def mismatch(self, message: str, value: A.Expr, got: T.Type, want: T.Type) -> None:
        conv = conversion_hint(got, want)
        notes = []
        if isinstance(got, T.Mask):
            notes.append("comparison masks have no type name: pass them directly to select(...)")
        width_notes, width_fixes = blame(self, [value], want, "") if isinstance(want, T.Vector) else ([], [])
        if isinstance(want, T.Vector) and not width_fixes:  # `splat(x)` of an f64 where f32x8 is wanted
            width_notes, width_fixes = splat_element(self, value, want)
        self.type_error(message + (f". Use {conv}() to convert" if conv else ""), value.span,
                        "type-mismatch", suggestions=self.convert_fix(value, conv) + width_fixes,
                        notes=notes + width_notes)

    def _assign(self, s: A.Assign) -> None:
        target = s.target
        if isinstance(target, A.Name):
            self._assign_name(s, target)
        elif isinstance(target, A.Index):
            self._assign_index(s, target)
        elif isinstance(target, A.Field):
            self._assign_field(s, target)
        else:  # not assignable: the parser has reported it
            self.expr(target)
            self.expr(s.value)

    def _assign_name(self, s: A.Assign, target: A.Name) -> None:
        b = self.lookup_var(target.name)
        if b is None or b.kind == "const":
            self.expr(s.value)
            if b is not None:
                self.symbols.reference(b.symbol, target.span)
                self.type_error(f"cannot assign to constant '{target.name}'", s.span, "assign-const")
            else:
                self.report_undefined_variable(target.name, target.span)
            return
        self.symbols.reference(b.symbol, target.span)
        target.ty = b.type
        got = self.expr(s.value, b.type)
        if b.type.is_error:
            return
        if not b.mutable:
            if b.kind == "local":
                self.type_error(f"cannot assign to immutable variable '{target.name}'. Declare with "
                                f"'let mut {target.name}' to allow assignment", s.span, "immutable-assign",
                                suggestions=[Suggestion(b.def_span.at_start(), "mut ", "declare it 'let mut'")]
                                if s.synthetic is False else [])
            elif b.kind == "param":
                self.type_error(f"cannot assign to immutable variable '{target.name}'. Declare with "
                                f"'let mut {target.name}' to allow assignment", s.span, "immutable-assign",
                                notes=[f"'{target.name}' is a parameter; parameters are immutable. Copy it: "
                                       f"let mut {target.name}2: {b.type} = {target.name}"])
            else:
                self.type_error(f"cannot assign to loop variable '{target.name}' of a foreach loop",
                                s.span, "immutable-assign")
            return
        if not got.is_error and not T.compatible(got, b.type):
            self.mismatch(f"cannot assign {got} to '{target.name}' of type {b.type}", s.value, got, b.type)

    def _assign_index(self, s: A.Assign, target: A.Index) -> None:
        base = self.expr(target.base)
        idx = self.expr(target.index)
        want = base.pointee if isinstance(base, T.Pointer) else None
        got = self.expr(s.value, want)
        name = target.base.name if isinstance(target.base, A.Name) else "?"
        if base.is_error:
            return
        if not isinstance(base, T.Pointer):
            self.type_error(f"cannot index-assign to non-pointer '{name}'", s.span, "index-assign",
                            notes=["vector lanes cannot be assigned individually"]
                            if isinstance(base, T.Vector) else [])
            return
        target.ty = base.pointee
        if not (idx.is_error or T.is_int(idx)):
            self.type_error(f"index must be integer, got {idx}", target.index.span, "index-type")
        if not base.mutable:
            self.immutable_pointer(f"cannot write through immutable pointer '{name}'. "
                                   "Declare as *mut to allow writes", s.span, name)
            return
        if not got.is_error and not T.compatible(got, base.pointee):
            self.mismatch(f"cannot assign {got} to an element of '{name}' (element type {base.pointee})",
                          s.value, got, base.pointee)

    def _assign_field(self, s: A.Assign, target: A.Field) -> None:
        ft = self.expr(target)
        base = target.base.ty
        got = self.expr(s.value, ft)
        if ft.is_error:
            return
        root = target.base
        while isinstance(root, (A.Field, A.Index)):
            if isinstance(root, A.Index):
                break
            root = root.base
        name = root.name if isinstance(root, A.Name) else ""
        if isinstance(root, A.Index):
            ptr = root.base.ty
            if isinstance(ptr, T.Pointer) and not ptr.mutable:
                base_name = root.base.name if isinstance(root.base, A.Name) else ""
                self.immutable_pointer("cannot assign field through immutable pointer. Declare as *mut to "
                                       "allow writes", s.span, base_name)
                return
        elif isinstance(base, T.Pointer) and not base.mutable:
            self.immutable_pointer("cannot assign field through immutable pointer. Declare as *mut to "
                                   "allow writes", s.span, name)
            return
        elif isinstance(root, A.Name) and not isinstance(root.ty, T.Pointer):
            b = self.lookup_var(name)
            if b is not None and not b.mutable and b.kind != "poison":
                # The reference compiler misses this check (LANGUAGE.md §3.3); we do not.
                sugg = [Suggestion(b.def_span.at_start(), "mut ", "declare it 'let mut'")] \
                    if b.kind == "local" else []
                self.type_error(f"cannot assign to a field of immutable variable '{name}'. Declare with "
                                f"'let mut {name}' to allow assignment", s.span, "immutable-assign",
                                suggestions=sugg)
                return
        if not got.is_error and not T.compatible(got, ft):
            self.mismatch(f"cannot assign {got} to field '{target.name}' of type {ft}", s.value, got, ft)

    def immutable_pointer(self, message: str, span, name: str) -> None:
        b = self.lookup_var(name) if name else None
        sugg = []
        if b is not None and b.kind == "param" and b.type_node is not None \
                and isinstance(b.type_node, A.PointerType):
            t = b.type_node
            fixed = "*" + ("restrict " if t.restrict else "") + "mut " + A.type_text(t.inner)
            sugg = [Suggestion(t.span, fixed, f"declare '{name}' as {fixed}")]
        self.type_error(message, span, "immutable-pointer", suggestions=sugg)

    # ---- control flow ----
    def condition(self, e: A.Expr, what: str) -> None:
        t = self.expr(e)
        if not t.is_error and t is not T.BOOL:
            notes = ["there is no truthiness: compare explicitly, e.g. x != 0"] if T.is_numeric(t) else []
            self.type_error(f"{what} condition must be bool, got {t}", e.span, "condition-type", notes=notes)

    def _if(self, s: A.If) -> None:
        self.condition(s.cond, "if")
        self.block(s.then)
        if isinstance(s.orelse, A.Block):
            self.block(s.orelse)
        elif s.orelse is not None:
            self._if(s.orelse)

    def _while(self, s: A.While) -> None:
        self.condition(s.cond, "while")
        self.block(s.body)

    def _foreach(self, s: A.ForEach) -> None:
        for e, what in ((s.start, "start"), (s.end, "end")):
            t = self.expr(e, T.I32)
            if not (t.is_error or T.is_int(t)):
                self.type_error(f"foreach {what} must be integer, got {t}", e.span, "range-type")
        saved = dict(self.scope)
        sym = self.symbols.define(Symbol(s.var, "loop-var", s.var_span, T.I32, container=self.func_name,
                                         detail=f"foreach {s.var}: i32"))
        self.scope[s.var] = Binding(T.I32, False, "foreach", sym, s.var_span)
        self.block(s.body)
        self.scope = saved

    def _unroll(self, s: A.Unroll) -> None:
        if s.count <= 0:
            self.type_error("unroll count must be greater than 0", s.count_span, "unroll-count")
        self.stmt(s.loop)

    def _return(self, s: A.Return) -> None:
        ret = self.func_ret
        if s.value is None:
            if ret is not T.VOID and not ret.is_error:
                self.type_error(f"function '{self.func_name}' must return {ret}", s.span, "missing-return-value")
            return
        got = self.expr(s.value, ret if ret is not T.VOID else None)
        if got.is_error or ret.is_error:
            return
        if ret is T.VOID:
            self.type_error(f"function '{self.func_name}' has no return type but returns a value", s.value.span,
                            "unexpected-return-value")
        elif not T.compatible(got, ret):
            conv = conversion_hint(got, ret)
            notes, fixes = blame(self, [s.value], ret, "") if isinstance(ret, T.Vector) else ([], [])
            if isinstance(ret, T.Vector) and not fixes:
                notes, fixes = splat_element(self, s.value, ret)
            self.type_error(f"function '{self.func_name}' returns {got} but expected {ret}"
                            + (f". Use {conv}() to convert" if conv else ""), s.value.span,
                            "return-type", suggestions=self.convert_fix(s.value, conv) + fixes, notes=notes)

    def _expr_stmt(self, s: A.ExprStmt) -> None:
        self.expr(s.expr)


StmtChecker._stmt_dispatch = {
    A.Let: StmtChecker._let, A.Assign: StmtChecker._assign, A.If: StmtChecker._if,
    A.While: StmtChecker._while, A.ForEach: StmtChecker._foreach, A.Unroll: StmtChecker._unroll,
    A.Return: StmtChecker._return, A.ExprStmt: StmtChecker._expr_stmt,
}
