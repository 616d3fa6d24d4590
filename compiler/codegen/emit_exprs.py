"""Expression lowering. Types come from the checker (`e.ty`), and so does what
each call calls (its recorded decisions, check/decisions.py); literals are
materialised with the width of their context (LANGUAGE.md §5.5)."""
from __future__ import annotations

from llvmlite import ir

from ..intrinsics import Intrinsic
from ..syntax import ast as A
from ..typesys import model as T
from .divide import divide
from .literals import float_constant, materialised
from .lower import lowering
from .names import local_name

_CMP = {"==": "==", "!=": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
_FCMP = {"==": "oeq", "!=": "one", "<": "olt", ">": "ogt", "<=": "ole", ">=": "oge"}


class ExprEmitter:
    def expr(self, e: A.Expr, want: T.Type | None = None) -> ir.Value:
        b = self.builder
        prev = b.debug_metadata
        self.at(e.span)
        value = self._dispatch[type(e)](self, e, want)
        b.debug_metadata = prev
        return value

    def ty_of(self, e: A.Expr, want: T.Type | None = None) -> T.Type:
        return materialised(e.ty, want)

    # ---- leaves ----
    def _int(self, e: A.IntLit, want):
        t = self.ty_of(e, want)
        if t.is_float:  # an integer literal in float context cannot pass the checker
            return float_constant(self.types(t), float(e.value))
        bits = t.bits
        return ir.Constant(self.types(t), e.value & ((1 << bits) - 1))

    def _float(self, e: A.FloatLit, want):
        return float_constant(self.types(self.ty_of(e, want)), e.value)

    def _bool(self, e: A.BoolLit, want):
        return ir.Constant(ir.IntType(1), int(e.value))

    def _paren(self, e: A.Paren, want):
        return self.expr(e.inner, want)

    def _name(self, e: A.Name, want):
        if e.name in self.vars:
            slot, t = self.vars[e.name]
            return self.builder.load(slot, typ=self.types(t), name=local_name(e.name))
        value = self.module_emitter.const_values[e.name]
        t = e.ty
        if isinstance(t, T.Scalar) and t.is_float:
            return float_constant(self.types(t), float(value))
        return ir.Constant(self.types(t), int(value) & ((1 << t.bits) - 1))

    # ---- places (addresses) ----
    def place(self, e: A.Expr) -> tuple[ir.Value, T.Type]:
        """The address of an assignable expression and the type stored there."""
        if isinstance(e, A.Name):
            return self.vars[e.name]
        if isinstance(e, A.Paren):
            return self.place(e.inner)
        if isinstance(e, A.Index):
            base_t = e.base.ty
            base = self.expr(e.base)
            idx = self.index64(e.index)
            elem = base_t.pointee
            return self.gep(base, [idx], self.types(elem)), elem
        if isinstance(e, A.Field):
            base_t = e.base.ty
            if isinstance(base_t, T.Pointer):
                ptr, st = self.expr(e.base), base_t.pointee
            else:
                ptr, st = self.place(e.base)
            k = list(st.fields).index(e.name)
            zero = ir.Constant(ir.IntType(32), 0)
            addr = self.gep(ptr, [zero, ir.Constant(ir.IntType(32), k)], self.types(st))
            return addr, st.fields[e.name]
        raise AssertionError(f"not a place: {type(e).__name__}")

    def gep(self, ptr: ir.Value, indices: list[ir.Value], etype: ir.Type) -> ir.Value:
        """getelementptr over `etype`. llvmlite types a GEP on a typed pointer
        (our allocas) from the pointer itself, and mistypes it if also given
        a source element type, so pass that only for opaque pointers."""
        if ptr.type.is_opaque:
            return self.builder.gep(ptr, indices, source_etype=etype)
        return self.builder.gep(ptr, indices)

    def index64(self, e: A.Expr) -> ir.Value:
        v = self.expr(e, T.I64)
        return self.convert_int(v, self.ty_of(e, T.I64), T.I64)

    def convert_int(self, v: ir.Value, src: T.Type, dst: T.Scalar) -> ir.Value:
        src = materialised(src, dst)
        if src.bits == dst.bits:
            return v
        if src.bits > dst.bits:
            return self.builder.trunc(v, self.types(dst))
        if src.is_unsigned:
            return self.builder.zext(v, self.types(dst))
        return self.builder.sext(v, self.types(dst))

    def _index(self, e: A.Index, want):
        base_t = e.base.ty
        if isinstance(base_t, T.Vector):
            vec = self.expr(e.base)
            return self.builder.extract_element(vec, self.index64(e.index))
        ptr, t = self.place(e)
        return self.builder.load(ptr, typ=self.types(t))

    def _field(self, e: A.Field, want):
        base_t = e.base.ty
        if isinstance(base_t, T.Struct) and not isinstance(e.base, (A.Name, A.Index, A.Field)):
            value = self.expr(e.base)
            return self.builder.extract_value(value, list(base_t.fields).index(e.name))
        ptr, t = self.place(e)
        return self.builder.load(ptr, typ=self.types(t))

    # ---- composite literals ----
    def _struct_lit(self, e: A.StructLit, want):
        st = e.ty
        value = ir.Constant(self.types(st), ir.Undefined)
        given = {f.name: f.value for f in e.fields}
        for k, (name, ft) in enumerate(st.fields.items()):
            value = self.builder.insert_value(value, self.expr(given[name], ft), k)
        return value

    def _vector_lit(self, e: A.VectorLit, want):
        vt = e.ty
        value = ir.Constant(self.types(vt), ir.Undefined)
        for k, x in enumerate(e.elems):
            value = self.builder.insert_element(value, self.expr(x, vt.elem), ir.Constant(ir.IntType(32), k))
        return value

    # ---- operators ----
    def _unary(self, e: A.Unary, want):
        t = self.ty_of(e, want)
        v = self.expr(e.operand, t)
        if e.op == "!":
            return self.builder.not_(v)
        elem = t.elem if isinstance(t, T.Vector) else t
        if elem.is_float:
            return self.builder.fneg(v)
        return self.builder.neg(v)

    def _binary(self, e: A.Binary, want):
        spine = A.left_spine(e)
        bottom = spine[-1]
        if bottom.op in ("&&", "||"):
            acc = self._logical(bottom)
        else:
            acc = self._binop(bottom, self.expr(bottom.left, self.operand_type(bottom, want)), want)
        for b in reversed(spine[:-1]):
            if b.op in ("&&", "||"):
                acc = self._logical(b, acc)
            else:
                acc = self._binop(b, acc, want)
        return acc

    def operand_type(self, b: A.Binary, want) -> T.Type:
        """The type both operands are materialised at."""
        lt, rt = b.left.ty, b.right.ty
        if b.ty is T.BOOL or isinstance(b.ty, T.Mask):
            if T.is_literal(lt) and T.is_literal(rt):
                return T.I32 if lt is T.INT_LIT else T.F64
            return rt if T.is_literal(lt) else lt
        return materialised(b.ty, want)

    def _binop(self, b: A.Binary, lv: ir.Value, want) -> ir.Value:
        t = self.operand_type(b, want)
        rv = self.expr(b.right, t)
        self.at(b.span)
        op = b.op.lstrip(".") if b.op.startswith(".") and b.op != "." else b.op
        elem = t.elem if isinstance(t, T.Vector) else t
        bld = self.builder
        vector = isinstance(t, T.Vector)
        if op in _CMP:
            if elem.is_float:
                return bld.fcmp_ordered(_FCMP[op], lv, rv)
            if elem.is_unsigned:
                return bld.icmp_unsigned(op, lv, rv)
            return bld.icmp_signed(op, lv, rv)
        if elem.is_float:
            return {"+": bld.fadd, "-": bld.fsub, "*": bld.fmul, "/": bld.fdiv, "%": bld.frem}[op](lv, rv)
        flags = [] if vector else (["nuw"] if elem.is_unsigned else ["nsw"])
        if op in ("+", "-", "*"):
            return {"+": bld.add, "-": bld.sub, "*": bld.mul}[op](lv, rv, flags=flags)
        if op in ("/", "%"):
            return divide(bld, op, lv, rv, elem.is_unsigned)
        if op == "<<":
            return bld.shl(lv, rv)
        if op == ">>":
            return bld.lshr(lv, rv) if elem.is_unsigned else bld.ashr(lv, rv)
        return {"&": bld.and_, "|": bld.or_, "^": bld.xor}[op](lv, rv)

    def _logical(self, b: A.Binary, left: ir.Value | None = None) -> ir.Value:
        """Short-circuit `&&` / `||` with a phi."""
        bld = self.builder
        if left is None:
            left = self.expr(b.left)
        left_bb = bld.block
        rhs_bb = self.fn.append_basic_block("logic.rhs")
        end_bb = self.fn.append_basic_block("logic.end")
        if b.op == "&&":
            bld.cbranch(left, rhs_bb, end_bb)
        else:
            bld.cbranch(left, end_bb, rhs_bb)
        bld.position_at_end(rhs_bb)
        right = self.expr(b.right)
        right_bb = bld.block
        bld.branch(end_bb)
        bld.position_at_end(end_bb)
        phi = bld.phi(ir.IntType(1))
        phi.add_incoming(ir.Constant(ir.IntType(1), int(b.op == "||")), left_bb)
        phi.add_incoming(right, right_bb)
        return phi

    # ---- calls ----
    def _call(self, e: A.Call, want):
        callee = self.module_emitter.decisions.callee_of(e)
        if isinstance(callee, Intrinsic):
            self.calls.append(e)
            try:
                return lowering(callee)(self, e, want)
            finally:
                self.calls.pop()
        fn, param_types, ret = self.module_emitter.functions[callee.name]
        args = [self.expr(a, t) for a, t in zip(e.args, param_types)]
        return self.builder.call(fn, args)


ExprEmitter._dispatch = {
    A.IntLit: ExprEmitter._int, A.FloatLit: ExprEmitter._float, A.BoolLit: ExprEmitter._bool,
    A.Name: ExprEmitter._name, A.Call: ExprEmitter._call, A.StructLit: ExprEmitter._struct_lit,
    A.VectorLit: ExprEmitter._vector_lit, A.Index: ExprEmitter._index, A.Field: ExprEmitter._field,
    A.Unary: ExprEmitter._unary, A.Binary: ExprEmitter._binary, A.Paren: ExprEmitter._paren,
}
