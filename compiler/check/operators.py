"""Typing of unary and binary operators (LANGUAGE.md §5.5, §5.7)."""
from __future__ import annotations

from ..diagnostics import Suggestion
from ..syntax import ast as A
from ..typesys import model as T
from .suggest import conversion
from .widths import blame, origin, splat_element

COMPARE = frozenset("== != < > <= >=".split())
BITWISE = frozenset("& | ^ << >>".split())
LOGICAL = frozenset(("&&", "||"))
DOT_ARITH = frozenset(".+ .- .* ./".split())
DOT_BITWISE = frozenset(".& .| .^ .<< .>>".split())
DOT_COMPARE = frozenset(".== .!= .< .> .<= .>=".split())
DOTTED = DOT_ARITH | DOT_BITWISE | DOT_COMPARE


class OperatorChecker:
    def check_binary(self, e: A.Binary, expected) -> T.Type:
        spine = A.left_spine(e)
        bottom = spine[-1]
        # §5.6: the left operand is typed first; a vector left operand gives
        # the right one its expected type.
        lt = self.expr(bottom.left, expected)
        rt = self.expr(bottom.right, lt if isinstance(lt, T.Vector) else expected)
        t = self.binary_type(bottom, lt, rt)
        for b in reversed(spine[:-1]):
            self.record(b.left, t)  # the previous spine node; `expr` records `e` itself
            rt = self.expr(b.right, t if isinstance(t, T.Vector) else expected)
            t = self.binary_type(b, t, rt)
        return t

    def binary_type(self, b: A.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        if lt.is_error or rt.is_error:
            return T.ERROR
        op = b.op
        if op in DOTTED:
            return self._dotted(b, lt, rt)
        lv, rv = isinstance(lt, (T.Vector, T.Mask)), isinstance(rt, (T.Vector, T.Mask))
        if op in LOGICAL:
            if lt is T.BOOL and rt is T.BOOL:
                return T.BOOL
            return self.type_error(f"logical operators require bool operands, got {lt} and {rt}", b.span,
                                   "operand-types")
        if lv and rv and op != "%":
            dotted = "." + op
            return self.type_error(
                f"cannot use '{op}' on vectors. Use '{dotted}' for element-wise vector operations", b.span,
                "vector-operator",
                suggestions=[Suggestion(b.op_span, dotted, f"use '{dotted}'")])
        if lv or rv:
            vec, other = (lt, rt) if lv else (rt, lt)
            notes = []
            if T.is_numeric(other):
                notes.append(f"use splat(...) to broadcast the scalar to a {vec}")
            if op in BITWISE:
                return self.type_error(f"bitwise operators require integer operands, got {lt} and {rt}",
                                       b.span, "operand-types", notes=notes)
            return self.type_error(f"binary operations require numeric operands, got {lt} and {rt}",
                                   b.span, "operand-types", notes=notes)
        if op in COMPARE and op in ("==", "!=") and lt is T.BOOL and rt is T.BOOL:
            return T.BOOL
        if op in BITWISE:
            if not (T.is_int(lt) and T.is_int(rt)):
                return self.type_error(f"bitwise operators require integer operands, got {lt} and {rt}",
                                       b.span, "operand-types")
        unified = self.unify(b, lt, rt)
        if unified.is_error:
            return unified
        return T.BOOL if op in COMPARE else unified

    def unify(self, b: A.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        if not (T.is_numeric(lt) and T.is_numeric(rt)):
            return self.type_error(f"binary operations require numeric operands, got {lt} and {rt}",
                                   b.span, "operand-types")
        if T.is_int(lt) != T.is_int(rt):
            lit = b.right if T.is_literal(rt) else b.left if T.is_literal(lt) else None
            sugg = []
            if isinstance(lit, A.IntLit) and lit.value >= 0:
                sugg = [Suggestion(lit.span, f"{lit.value}.0", f"write {lit.value}.0")]
            return self.type_error(f"cannot mix integer and float in binary operation: {lt} and {rt}",
                                   b.span, "mixed-int-float", suggestions=sugg)
        if T.is_literal(lt) and T.is_literal(rt):
            return T.I32 if lt is T.INT_LIT else T.F64
        if T.is_literal(lt):
            return rt
        if T.is_literal(rt) or lt is rt:
            return lt
        conv = conversion(lt)
        return self.type_error(f"mismatched types in binary operation: {lt} and {rt}", b.span,
                               "mismatched-types",
                               notes=[f"there are no implicit conversions; convert one side, e.g. {conv}(...)"]
                               if conv else [])

    def _dotted(self, b: A.Binary, lt: T.Type, rt: T.Type) -> T.Type:
        op = b.op
        if not (isinstance(lt, T.Vector) and isinstance(rt, T.Vector)):
            notes = ["use splat(x) to broadcast a scalar to every lane"] \
                if isinstance(lt, T.Vector) or isinstance(rt, T.Vector) else []
            return self.type_error(f"binary vector operations require vector operands, got {lt} and {rt}",
                                   b.span, "operand-types", notes=notes)
        if lt.lanes != rt.lanes:
            hint = ""
            if 4 in (lt.lanes, rt.lanes):
                hint = (f" (hint: load() defaults to width 4; use load_{lt.elem}x{max(lt.lanes, rt.lanes)}"
                        "(ptr, i) for wider vectors)")
            notes, fixes = self.blame_operand(b, lt, rt)
            return self.type_error(f"vector width mismatch: {lt.lanes} vs {rt.lanes}{hint}", b.span,
                                   "vector-width", notes=notes, suggestions=fixes)
        if lt.elem is not rt.elem:
            notes, fixes = self.blame_operand(b, lt, rt)
            return self.type_error(f"vector element type mismatch: {lt.elem} vs {rt.elem}", b.span,
                                   "vector-element", notes=notes, suggestions=fixes)
        if op in DOT_BITWISE and not lt.elem.is_integer:
            return self.type_error(f"bitwise vector ops require integer element type, got {lt.elem}",
                                   b.span, "operand-types")
        if op in DOT_COMPARE:
            return T.mask(lt.lanes)
        return lt

    def blame_operand(self, b: A.Binary, lt: T.Vector, rt: T.Vector):
        """Notes and fix naming the operand whose type came from a context-typed
        call's default (widths.py), when exactly one side's did."""
        sides = ((b.left, b.right, rt), (b.right, b.left, lt))
        for mine, other, other_t in sides:
            if origin(self, mine) is not None and origin(self, other) is None:
                return blame(self, [mine], other_t, f" but `{self.source.text_of(other.span)}` is {other_t}")
        for mine, _, other_t in sides:
            notes, fixes = splat_element(self, mine, other_t)
            if notes:
                return notes, fixes
        return [], []

    def check_unary(self, e: A.Unary, expected) -> T.Type:
        t = self.expr(e.operand, expected)
        if t.is_error:
            return t
        if e.op == "!":
            if t is T.BOOL:
                return t
            return self.type_error(f"'!' requires bool operand, got {t}", e.span, "operand-types")
        if T.is_numeric(t) or isinstance(t, T.Vector):
            return t
        return self.type_error(f"unary '-' requires numeric or vector operand, got {t}", e.span,
                               "operand-types")
