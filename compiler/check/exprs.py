"""Expression typing: names, literals, indexing, fields, literals of
structs and vectors, and calls."""
from __future__ import annotations

import struct

from .. import intrinsics
from ..diagnostics import Label, Suggestion
from ..intrinsics.migrations import migration
from ..syntax import ast as A
from ..typesys import model as T
from ..typesys.vectors import LITERAL_SUFFIXES, VECTORS
from .calls import CTX_CALLS, CallCheck
from .operators import OperatorChecker
from .suggest import conversion_hint, did_you_mean


class ExprChecker(OperatorChecker):
    def expr(self, e: A.Expr, expected: T.Type | None = None) -> T.Type:
        t = self._dispatch[type(e)](self, e, expected)
        e.ty = t
        self.expr_types.append((e.span, t))
        return t

    def record(self, e: A.Expr, t: T.Type) -> None:
        e.ty = t
        self.expr_types.append((e.span, t))

    # ---- leaves ----
    def _int(self, e, expected):
        return T.INT_LIT

    def _float(self, e, expected):
        fmt = _PACKED.get(getattr(expected, "name", None))
        if fmt is not None:
            try:
                struct.pack(fmt, e.value)
            except OverflowError:  # rounds past the type's largest finite value
                self.sink.warning("type", "float-range", f"{e.text} is past the largest {expected.name} "
                                  f"({_LARGEST[expected.name]}): it is infinity", e.span,
                                  notes=[f"{_WIDER[expected.name]} holds it"])
        return T.FLOAT_LIT

    def _bool(self, e, expected):
        return T.BOOL

    def _string(self, e, expected):
        return T.STRING

    def _error(self, e, expected):
        return T.ERROR

    def _paren(self, e, expected):
        return self.expr(e.inner, expected)

    def _name(self, e: A.Name, expected):
        b = self.lookup_var(e.name)
        if b is not None:
            self.symbols.reference(b.symbol, e.span)
            return b.type
        self.report_undefined_variable(e.name, e.span)
        return T.ERROR

    def report_undefined_variable(self, name: str, span) -> None:
        candidates = list(self.scope) + list(self.consts)
        guess = did_you_mean(name, candidates)
        msg = f"undefined variable '{name}'" + (f". Did you mean '{guess}'?" if guess else "")
        sugg = [Suggestion(span, guess, f"rename to '{guess}'")] if guess else []
        notes = []
        if name in self.funcs or intrinsics.lookup(name):
            notes.append(f"'{name}' is a function; call it with {name}(...)")
        self.type_error(msg, span, "undefined-variable", suggestions=sugg, notes=notes)
        self.poison(name)

    # ---- postfix ----
    def _index(self, e: A.Index, expected):
        base = self.expr(e.base)
        idx = self.expr(e.index)
        if base.is_error:
            return T.ERROR
        if not (idx.is_error or T.is_int(idx)):
            self.type_error(f"index must be integer, got {idx}", e.index.span, "index-type",
                            suggestions=self.convert_fix(e.index, "to_i32") if T.is_float(idx) else [])
        if isinstance(base, T.Pointer):
            return base.pointee
        if isinstance(base, T.Vector):
            return base.elem
        return self.type_error(f"cannot index type {base}. Only pointers and vectors support indexing",
                               e.span, "not-indexable")

    def _field(self, e: A.Field, expected):
        base = self.expr(e.base)
        if base.is_error:
            return T.ERROR
        st = base.pointee if isinstance(base, T.Pointer) else base
        if not isinstance(st, T.Struct):
            return self.type_error(f"cannot access field '{e.name}' on type {base}; only structs "
                                   "(and pointers to structs) have fields", e.name_span, "not-a-struct")
        return self.field_type(st, e.name, e.name_span)

    def field_type(self, st: T.Struct, name: str, span) -> T.Type:
        if name in st.fields:
            self.symbols.reference(self.field_symbols.get((st.name, name)), span)
            return st.fields[name]
        guess = did_you_mean(name, st.fields)
        msg = f"struct '{st.name}' has no field '{name}'" + (f". Did you mean '{guess}'?" if guess else "")
        sugg = [Suggestion(span, guess, f"rename to '{guess}'")] if guess else []
        notes = [] if guess else [f"fields of '{st.name}': " + ", ".join(st.fields)] if st.fields else []
        return self.type_error(msg, span, "unknown-field", suggestions=sugg, notes=notes)

    # ---- composite literals ----
    def _struct_lit(self, e: A.StructLit, expected):
        st = self.structs.get(e.name)
        if st is None:
            for f in e.fields:
                self.expr(f.value)
            if not self.first_unknown(e.name):
                return T.ERROR
            guess = did_you_mean(e.name, self.structs)
            msg = f"unknown struct '{e.name}'" + (f". Did you mean '{guess}'?" if guess else "")
            sugg = [Suggestion(e.name_span, guess, f"rename to '{guess}'")] if guess else []
            return self.type_error(msg, e.name_span, "unknown-struct", suggestions=sugg)
        self.symbols.reference(self.struct_symbols.get(e.name), e.name_span)
        seen: set[str] = set()
        for f in e.fields:
            want = st.fields.get(f.name)
            got = self.expr(f.value, want)
            if f.name in seen:
                self.type_error(f"field '{f.name}' is given twice in struct literal of '{e.name}'",
                                f.name_span, "duplicate-field")
                continue
            seen.add(f.name)
            if want is None:
                self.field_type(st, f.name, f.name_span)
            elif not T.compatible(got, want):
                self.type_error(f"field '{f.name}' of '{e.name}' expects {want}, got {got}", f.value.span,
                                "field-type")
        missing = [n for n in st.fields if n not in seen]
        if missing:
            self.type_error(f"struct literal of '{e.name}' is missing field"
                            f"{'s' if len(missing) > 1 else ''} " + ", ".join(f"'{m}'" for m in missing),
                            e.span, "missing-field")
        return st

    def _vector_lit(self, e: A.VectorLit, expected):
        if e.suffix is not None:
            if e.suffix not in LITERAL_SUFFIXES:
                for x in e.elems:
                    self.expr(x)
                return self.type_error(
                    f"'{e.suffix}' cannot be used as a vector literal suffix; declare the type instead: "
                    f"let v: {e.suffix} = [...]", e.suffix_span, "literal-suffix")
            info = VECTORS[e.suffix]
            vt = T.vector(T.SCALARS[info.elem], info.lanes)
        elif isinstance(expected, T.Vector) and e is self.annotated:
            vt = expected
        else:
            return self.bare_array(e, expected)
        if len(e.elems) != vt.lanes:
            for x in e.elems:
                self.expr(x)
            return self.type_error(f"vector expects {vt.lanes} elements, got {len(e.elems)}", e.span,
                                   "vector-literal-count")
        ok = True
        for k, x in enumerate(e.elems):
            t = self.expr(x, vt.elem)
            if ok and not T.compatible(t, vt.elem):
                ok = False
                self.type_error(f"vector element {k} expected {vt.elem}, got {t}", x.span, "vector-element")
        return vt if ok else T.ERROR

    annotated: A.Expr | None = None  # the `let` initialiser being checked

    def initialiser(self, e: A.Expr, declared: T.Type) -> T.Type:
        """Type a `let` initialiser: the one place where a bare `[...]` takes
        the declared vector type (LANGUAGE.md §5.4, annotation form)."""
        self.annotated = A.unparen(e)
        try:
            return self.expr(e, declared)
        finally:
            self.annotated = None

    def bare_array(self, e: A.VectorLit, expected) -> T.Type:
        """`[...]` without a suffix outside a `let` initialiser is an array
        literal, which only shuffle takes (as the reference rules)."""
        for x in e.elems:
            self.expr(x, expected.elem if isinstance(expected, T.Vector) else None)
        if not isinstance(expected, T.Vector):
            return self.type_error("array literals can only be used as shuffle indices", e.span, "array-literal",
                                   notes=["for a vector, add a type suffix ([1.0, 2.0, 3.0, 4.0]f32x4) "
                                          "or use it as a 'let' initialiser with a vector type"])
        if str(expected) in LITERAL_SUFFIXES:
            return self.type_error(
                f"array literals can only be used as shuffle indices; write the vector type after the "
                f"literal: [...]{expected}", e.span, "array-literal",
                suggestions=[Suggestion(e.span.at_end(), str(expected), f"write [...]{expected}")])
        return self.type_error(
            f"array literals can only be used as shuffle indices; bind it to a vector first: "
            f"let v: {expected} = [...]", e.span, "array-literal",
            notes=[f"{expected} has no literal suffix (suffixes: {', '.join(sorted(LITERAL_SUFFIXES))})"])

    # ---- calls ----
    def _call(self, e: A.Call, expected):
        name = e.name
        intr = intrinsics.resolve_call(name, name in self.funcs)
        if intr is not None:
            self.decisions.record_callee(e, intr)
            if name in self.funcs:
                self.warn_intrinsic_wins(e)
            return self.intrinsic_call(intr, e, expected)
        infos = self.funcs.get(name)
        if infos is None:
            types = [self.expr(a) for a in e.args]
            m = migration(name)
            if m is not None:
                self.report_migration(m, e, types)
                return T.ERROR
            if name in self.undefined_funcs:
                return T.ERROR
            self.undefined_funcs.add(name)
            guess = did_you_mean(name, list(self.funcs) + intrinsics.names())
            if guess is None and (other := intrinsics.known_as(name)) is not None:
                guess = other.name
            msg = f"undefined function '{name}'" + (f". Did you mean '{guess}'?" if guess else "")
            sugg = [Suggestion(e.name_span, guess, f"rename to '{guess}'")] if guess else []
            return self.type_error(msg, e.name_span, "undefined-function", suggestions=sugg)
        info = self.pick_variant(infos)
        self.decisions.record_callee(e, info.symbol)
        self.symbols.reference(info.symbol, e.name_span)
        params = info.param_types
        types = [self.expr(a, params[i] if i < len(params) else None) for i, a in enumerate(e.args)]
        if len(e.args) != len(params):
            return self.type_error(f"function '{name}' expects {len(params)} argument"
                                   f"{'' if len(params) == 1 else 's'}, got {len(e.args)}", e.span,
                                   "arity", notes=[f"signature: {info.signature}"])
        for i, (got, want) in enumerate(zip(types, params)):
            if not T.compatible(got, want):
                conv = conversion_hint(got, want)
                msg = f"argument {i + 1} of '{name}': expected {want}, got {got}"
                self.type_error(msg + (f". Use {conv}() to convert" if conv else ""), e.args[i].span,
                                "argument-type", suggestions=self.convert_fix(e.args[i], conv) if conv else [])
        return info.ret

    def warn_intrinsic_wins(self, e: A.Call) -> None:
        """A call by the name of both an intrinsic and a user function calls the
        intrinsic (INTRINSICS.md §0.1): legal, but rarely what the author meant."""
        decl = self.funcs[e.name][0].node
        shadowable = " or ".join(f"'{n}'" for n in sorted(intrinsics.SHADOWABLE))
        self.sink.warning(
            "type", "intrinsic-call", f"this calls the intrinsic '{e.name}', not the function '{e.name}' "
            f"declared at line {decl.name_span.line}: calls resolve to intrinsics before user functions",
            e.name_span, labels=[Label(decl.name_span, "not called by this name")],
            notes=[f"only {shadowable} can be shadowed by a user function; to call yours, rename it "
                   f"(it stays exported as '{e.name}' until you do)"])

    def intrinsic_call(self, intr, e: A.Call, expected) -> T.Type:
        c = CallCheck(self, intr, e, expected)
        result = intr.rule(c)
        c.finish()
        if intr.name in CTX_CALLS:  # a node typed again (with a type from context) is no longer defaulted
            self.decisions.record_context(e, result, not isinstance(expected, T.Vector))
        if result.is_error:
            return result
        if intr.target is not None:
            message = intr.target(c, result)
            if message:
                self.target_error(message, e.span)
        if intr.deprecated:
            self.report_migration(migration(intr.name), e, [c.arg(i) for i in range(c.nargs)])
        return result

    def report_migration(self, m, e: A.Call, types: list[T.Type]) -> None:
        """A call of a removed or renamed intrinsic (error) or of a deprecated
        one (warning), with the documented replacement as the quick fix."""
        text = None
        if not any(t.is_error for t in types):
            text = m.fix([self.source.text_of(a.span) for a in e.args], types)
        sugg = []
        if text is not None:
            sugg = [Suggestion(e.span, text, f"replace with {text}") if m.whole_call
                    else Suggestion(e.name_span, text, f"use {text}")]
        notes = [m.note] if m.note else []
        if m.deprecated:
            self.sink.warning("type", "deprecated", m.message(), e.name_span, suggestions=sugg, notes=notes)
        else:
            self.type_error(m.message(), e.name_span, f"{m.status}-intrinsic", suggestions=sugg, notes=notes)

    def convert_fix(self, e: A.Expr, conv: str | None) -> list[Suggestion]:
        if not conv:
            return []
        if isinstance(e, A.IntLit) and conv in ("to_f32", "to_f64") and e.value >= 0 and e.text.isdigit():
            return [Suggestion(e.span, f"{e.text}.0", f"write {e.text}.0")]
        return [Suggestion(e.span, f"{conv}({self.source.text_of(e.span)})", f"wrap in {conv}(...)")]


ExprChecker._dispatch = {
    A.IntLit: ExprChecker._int, A.FloatLit: ExprChecker._float, A.BoolLit: ExprChecker._bool,
    A.StringLit: ExprChecker._string, A.Name: ExprChecker._name, A.Call: ExprChecker._call,
    A.StructLit: ExprChecker._struct_lit, A.VectorLit: ExprChecker._vector_lit,
    A.Index: ExprChecker._index, A.Field: ExprChecker._field,
    A.Unary: lambda self, e, x: self.check_unary(e, x),
    A.Binary: lambda self, e, x: self.check_binary(e, x),
    A.Paren: ExprChecker._paren, A.ErrorExpr: ExprChecker._error,
}


_PACKED = {"f16": "<e", "f32": "<f"}  # a literal these cannot pack is infinity in that type
_LARGEST = {"f16": "65504", "f32": "3.4028235e38"}
_WIDER = {"f16": "f32", "f32": "f64"}
