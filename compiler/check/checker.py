"""The type checker's driver: declarations first (structs, constants,
static_assert, signatures, out/cap annotations), then function bodies.

It never stops at an error. Cascades are suppressed: an expression whose
type could not be determined has the poison type `ERROR`, which every rule
accepts silently, and an undefined name or unknown type is reported once per
function (a vector-shaped unknown type, `u32x8`, is then checked as that
shape rather than poisoned).
"""
from __future__ import annotations

from ..diagnostics import DiagnosticSink, Label, Suggestion
from ..options import Options
from ..source import SourceFile
from ..symbols import Symbol, SymbolTable
from ..syntax import ast as A
from ..typesys import model as T
from ..typesys.vectors import VECTORS, target_error, vector_shape
from .consteval import ConstError, evaluate
from .decisions import Decisions
from .exprs import ExprChecker
from .lints import run_lints
from .liveness import Liveness
from .scope import Binding, FuncInfo
from .stmts import StmtChecker
from .suggest import did_you_mean

CONST_TYPES = frozenset("i8 u8 i16 u16 i32 u32 i64 u64 f32 f64".split())


class Checker(ExprChecker, StmtChecker):
    def __init__(self, source: SourceFile, options: Options, sink: DiagnosticSink, symbols: SymbolTable):
        self.source = source
        self.base_options = self.options = options
        self.liveness = Liveness(options)  # which items the target compiles, and for which target each is checked
        self.sink = sink
        self.symbols = symbols
        self.structs: dict[str, T.Struct] = {}
        self.struct_symbols: dict[str, Symbol] = {}
        self.field_symbols: dict[tuple[str, str], Symbol] = {}
        self.consts: dict[str, Binding] = {}
        self.const_values: dict[str, object] = {}
        self.funcs: dict[str, list[FuncInfo]] = {}
        self.expr_types: list = []
        self.scope: dict[str, Binding] = {}
        self.undefined_funcs: set[str] = set()
        self.decisions = Decisions()  # what each call means (read by codegen and the tools)
        # Unknown type names reported, per function (as undefined names): a
        # function's own errors are what keep it from being compiled alone.
        self.unknown_types: set[tuple[int, str]] = set()
        self.owner = 0  # id() of the function being declared or checked, 0 outside
        self.func_name = ""
        self.func_ret: T.Type = T.VOID

    # ---- reporting ----
    def type_error(self, message: str, span, code: str, **extra) -> T.Type:
        self.sink.error("type", code, message, span, **extra)
        return T.ERROR

    def target_error(self, message: str, span) -> None:
        """What the target cannot do (a vector type, an intrinsic): printed as
        `error[codegen]`, the kind TOOLCHAIN.md §8 gives target checks."""
        self.sink.error("target", "target", message, span)

    def poison(self, name: str) -> None:
        """Bind an undefined name to ERROR so its other uses stay quiet."""
        self.scope[name] = Binding(T.ERROR, True, "poison", None, None)

    def first_unknown(self, name: str) -> bool:
        """Whether `name` is an unknown type or struct not yet reported in this function."""
        key = (self.owner, name)
        if key in self.unknown_types:
            return False
        self.unknown_types.add(key)
        return True

    def lookup_var(self, name: str) -> Binding | None:
        b = self.scope.get(name)
        return b if b is not None else self.consts.get(name)

    # ---- driver ----
    def run(self, program: A.Program) -> None:
        funcs, infos = self.declare(program)
        for f, info in zip(funcs, infos):
            self.check_func(f, info)
        run_lints(self, program)

    def declare(self, program: A.Program) -> tuple[list[A.Func], list[FuncInfo]]:
        """Everything before the bodies: structs, constants, static_asserts,
        signatures. The bodies are then checked one by one, in order (the
        incremental analysis re-checks one of them alone)."""
        items = program.items
        structs = [i for i in items if isinstance(i, A.StructDecl)]
        for s in structs:
            self.declare_struct(s)
        for s in structs:
            self.define_struct_fields(s)
        self.check_struct_cycles()
        for c in items:
            if isinstance(c, A.ConstDecl):
                self.declare_const(c)
        for a in items:
            if isinstance(a, A.StaticAssert):
                self.static_assert(a)
        self.liveness.warn_ignored(program, self.sink)
        funcs = [f for f in items if isinstance(f, A.Func)]
        return funcs, [self.declare_func(f) for f in funcs]

    # ---- types ----
    def resolve_type(self, t: A.TypeRef, check_target: bool = False) -> T.Type:
        if isinstance(t, A.PointerType):
            inner = self.resolve_type(t.inner, check_target=False)
            return T.ERROR if inner.is_error else T.pointer(inner, t.mutable, t.restrict)
        name = t.name
        if name in T.SCALARS:
            return T.SCALARS[name]
        if name in VECTORS:
            info = VECTORS[name]
            v = T.vector(T.SCALARS[info.elem], info.lanes)
            if check_target:
                self.check_vector_target(v, t.span)
            return v
        st = self.structs.get(name)
        if st is not None:
            self.symbols.reference(self.struct_symbols.get(name), t.span)
            return st
        shape = vector_shape(name)
        # A vector spelling the language lacks is checked as that shape after
        # the report: a call then still says what it accepts (`u32x8` to
        # wmul_u64_hi: `expects (u32x4, u32x4), got (u32x8, u32x8)`).
        recovered = T.vector(T.SCALARS[shape[0]], shape[1]) if shape else T.ERROR
        if name == "<error>" or not self.first_unknown(name):
            return recovered
        guess = did_you_mean(name, list(self.structs) + list(T.SCALARS) + list(VECTORS))
        msg = f"unknown type '{name}'" + (f". Did you mean '{guess}'?" if guess else "")
        if shape:
            same = [v for v, info in VECTORS.items() if info.elem == shape[0]]
            notes = [f"{name} is not a vector type of Eä ({shape[0]} vectors: {', '.join(same)}); "
                     f"its uses are checked as {shape[1]} lanes of {shape[0]}"]
        elif guess:
            notes = []
        else:
            notes = ["types are i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64 bool, vectors like "
                     "f32x8, pointers like *mut f32, or a declared struct"]
        sugg = [Suggestion(t.span, guess, f"rename to '{guess}'")] if guess else []
        self.type_error(msg, t.span, "unknown-type", notes=notes, suggestions=sugg)
        return recovered

    def check_vector_target(self, v: T.Type, span) -> None:
        if isinstance(v, T.Vector) and v.spelled:
            message = target_error(v.name, self.options.is_arm, self.options.fp16)
            if message:
                self.target_error(message, span)

    # ---- declarations ----
    def declare_struct(self, s: A.StructDecl) -> None:
        if s.name in self.structs:
            self.type_error(f"duplicate struct '{s.name}'", s.name_span, "duplicate",
                            labels=[Label(self.structs[s.name].decl.name_span, "first declared here")])
            return
        self.structs[s.name] = T.Struct(s.name, s)
        self.struct_symbols[s.name] = self.symbols.define(
            Symbol(s.name, "struct", s.name_span, self.structs[s.name], detail=f"struct {s.name}"))

    def define_struct_fields(self, s: A.StructDecl) -> None:
        st = self.structs.get(s.name)
        if st is None or st.decl is not s:
            return
        for f in s.fields:
            ft = self.resolve_type(f.type)
            if f.name in st.fields:
                self.type_error(f"duplicate field '{f.name}' in struct '{s.name}'", f.name_span, "duplicate")
                continue
            if ft is st:
                self.type_error(f"struct '{s.name}' cannot contain itself by value; use a pointer", f.type.span,
                                "recursive-struct")
                ft = T.ERROR
            st.fields[f.name] = ft
            self.field_symbols[(s.name, f.name)] = self.symbols.define(
                Symbol(f.name, "field", f.name_span, ft, container=s.name, detail=f"{s.name}.{f.name}: {ft}"))

    def check_struct_cycles(self) -> None:
        """A struct that contains itself by value, through other structs, has
        no finite size."""
        done: set[str] = set()
        for root in self.structs.values():
            path: list[tuple[T.Struct, str]] = []
            stack = [(root, iter(root.fields.items()))]
            on_path = {root.name}
            while stack:
                st, fields = stack[-1]
                for fname, ft in fields:
                    if not isinstance(ft, T.Struct) or ft.name in done:
                        continue
                    if ft.name in on_path:
                        if ft is root:
                            via = " -> ".join(f"{s.name}.{f}" for s, f in path + [(st, fname)])
                            decl = next(f for f in st.decl.fields if f.name == fname)
                            self.type_error(f"struct '{root.name}' contains itself by value ({via}); "
                                            "use a pointer", decl.type.span, "recursive-struct")
                            st.fields[fname] = T.ERROR
                        continue
                    path.append((st, fname))
                    on_path.add(ft.name)
                    stack.append((ft, iter(ft.fields.items())))
                    break
                else:
                    stack.pop()
                    on_path.discard(st.name)
                    if path:
                        path.pop()
            done.add(root.name)

    def declare_const(self, c: A.ConstDecl) -> None:
        t = self.resolve_type(c.type)
        value = c.value.value if isinstance(c.value, (A.IntLit, A.FloatLit)) else None
        if not t.is_error and str(t) not in CONST_TYPES:
            self.type_error(f"const type must be a scalar numeric type, got {t}", c.type.span, "const-type")
            t = T.ERROR
        elif isinstance(c.value, A.FloatLit) and isinstance(t, T.Scalar) and t.is_integer:
            self.type_error(f"const value is a float literal but declared type is {t}", c.value.span,
                            "const-value")
        elif isinstance(value, int) and isinstance(t, T.Scalar) and t.is_float:
            value = float(value)
        if c.name in self.consts:
            first = self.consts[c.name].def_span
            self.type_error(f"duplicate constant '{c.name}'", c.name_span, "duplicate",
                            labels=[Label(first, "first declared here")])
            return
        c.value.ty = t
        sym = self.symbols.define(Symbol(c.name, "const", c.name_span, t, value=value,
                                         detail=f"const {c.name}: {t} = {c.value.text if value is not None else '?'}"))
        self.consts[c.name] = Binding(t, False, "const", sym, c.name_span)
        if value is not None:
            self.const_values[c.name] = value

    def static_assert(self, a: A.StaticAssert) -> None:
        self.scope = {}
        # Typed for tools only: constant evaluation gives the diagnostics.
        sink, self.sink = self.sink, DiagnosticSink()
        self.expr(a.cond)
        self.sink = sink
        try:
            value = evaluate(a.cond, self.const_values)
        except ConstError as err:
            self.type_error(err.message, err.span, "not-constant")
            return
        if not isinstance(value, bool):
            self.type_error("static_assert condition must evaluate to a boolean", a.cond.span, "static-assert")
        elif not value:
            self.type_error(f"static assertion failed: {a.message.value}", a.span, "static-assert")

    def declare_func(self, f: A.Func) -> FuncInfo:
        self.options = self.liveness.options_of(f)
        self.owner = id(f)
        params = [self.resolve_type(p.type, check_target=True) for p in f.params]
        ret = self.resolve_type(f.ret, check_target=True) if f.ret is not None else T.VOID
        self.options = self.base_options
        self.owner = 0
        f.ret_ty = ret
        for p, t in zip(f.params, params):
            p.ty = t
        kind = "kernel" if f.origin is not None else "function"
        shown = [f"{p.name}: {A.type_text(p.type)}" for p in f.params]
        signature = f"{'export ' if f.export else ''}func {f.name}({', '.join(shown)})" + \
            (f" -> {A.type_text(f.ret)}" if f.ret is not None else "")
        sym = self.symbols.define(Symbol(f.name, kind, f.name_span, ret, detail=signature))
        info = FuncInfo(f, params, ret, sym, signature)
        others = self.funcs.setdefault(f.name, [])
        for other in others:
            if not self.liveness.may_share_name(other.node, f):
                self.type_error(f"duplicate function '{f.name}'", f.name_span, "duplicate",
                                labels=[Label(other.node.name_span, "first defined here")],
                                notes=["two definitions may share a name only with opposite "
                                       "#[cfg(x86_64)] / #[cfg(aarch64)] attributes"])
                break
        others.append(info)
        self.check_out_params(f, params)
        return info

    def pick_variant(self, infos: list[FuncInfo]) -> FuncInfo:
        for info in infos:
            if self.liveness.compiled_for(info.node, self.options.arch):
                return info
        return infos[0]

    def check_out_params(self, f: A.Func, types: list[T.Type]) -> None:
        inputs = {p.name for p in f.params if not p.out}
        for p, t in zip(f.params, types):
            if p.cap is not None and not p.out:
                self.sink.warning("type", "cap-without-out", f"'[cap: ...]' on parameter '{p.name}' has no "
                                  "effect without 'out'", p.cap.span,
                                  suggestions=[Suggestion(p.name_span.at_start(), "out ", "mark it 'out'")])
            if not p.out:
                continue
            if isinstance(t, T.Pointer) and not t.mutable:
                self.type_error(f"'out' parameter '{p.name}' must be *mut pointer, got immutable pointer",
                                p.type.span, "out-param",
                                suggestions=[Suggestion(p.type.span, "*mut " + A.type_text(p.type.inner)
                                                        if isinstance(p.type, A.PointerType) else "",
                                                        "make it *mut")])
            elif not isinstance(t, T.Pointer) and not t.is_error:
                self.type_error(f"'out' parameter '{p.name}' must be a *mut pointer type, got {t}",
                                p.type.span, "out-param")
            for ann in (p.cap,):
                if ann is None:
                    continue
                for name, span in ann.idents:
                    if name not in inputs and name not in self.consts:
                        self.type_error(f"cap expression references unknown identifier '{name}' (must be a "
                                        "preceding input parameter or constant)", span, "cap-ident")

    # ---- bodies ----
    def check_func(self, f: A.Func, info: FuncInfo) -> None:
        self.options = self.liveness.options_of(f)
        self.owner = id(f)
        self.func_name = f.name
        self.func_ret = info.ret
        self.scope = {}
        self.undefined_funcs = set()
        origin = f.origin
        for p, t in zip(f.params, info.param_types):
            is_bound = origin is not None and p.name == origin.bound and p is f.params[-1]
            sym = self.symbols.define(Symbol(p.name, "param", p.name_span, t, container=f.name,
                                             detail=f"{p.name}: {t}" + ("  (kernel range bound)" if is_bound else "")))
            self.scope[p.name] = Binding(t, False, "param", sym, p.name_span, p.type)
        self.block(f.body)
        self.options = self.base_options
        self.owner = 0
