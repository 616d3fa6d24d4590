"""The typed, desugared program to an LLVM IR module (llvmlite.ir).

Exported functions get external linkage and the C calling convention;
the others are private and always inlined; every function is nounwind.
The functions emitted are those the analysis says the target compiles
(`Analysis.live_functions`: `#[cfg]`, check/liveness.py). With
`only`, the module holds just the named functions and the functions they
call, directly or not (`callee_closure`): a per-function compile, whatever
the rest of the file contains.
"""
from __future__ import annotations

from llvmlite import ir

from ..options import Options
from ..runtime_paths import RuntimePath
from ..symbols import SymbolTable
from ..syntax import ast as A
from ..typesys import model as T
from .debuginfo import DebugInfo
from .emit_exprs import ExprEmitter
from .emit_stmts import StmtEmitter
from .errors import CodegenError
from .ltypes import TypeMap
from .names import local_name


# C library functions the generated code itself calls (println -> printf).
RUNTIME_SYMBOLS = frozenset({"printf"})


class ModuleEmitter:
    def __init__(self, path: str, options: Options, symbols: SymbolTable, decisions, triple: str,
                 data_layout: str):
        self.module = ir.Module(name="ea_module", context=ir.Context())
        self.module.triple = triple
        self.module.data_layout = data_layout
        self.options = options
        self.decisions = decisions  # the checker's: what each call calls
        self.types = TypeMap(self.module)
        self.debug = DebugInfo(self.module, path)
        self.functions: dict[str, tuple[ir.Function, list[T.Type], T.Type]] = {}
        self.const_values = {s.name: s.value for s in symbols.symbols if s.kind == "const"}
        self._strings: dict[str, ir.GlobalVariable] = {}
        self.runtime_paths: dict[str, list[RuntimePath]] = {}  # per function, in source order

    def emit(self, funcs: list[A.Func], only=None) -> ir.Module:
        if only is not None:
            keep = callee_closure(funcs, self.decisions, only)
            funcs = [f for f in funcs if f.name in keep]
        for f in funcs:
            self.declare(f)
        for f in funcs:
            try:
                FuncEmitter(self, f).emit()
            except CodegenError:
                raise
            except Exception as err:  # a bug of ours, reported with the function's location
                raise CodegenError(f"internal compiler error while generating '{f.name}': "
                                   f"{type(err).__name__}", f.name_span) from err
        return self.module

    def declare(self, f: A.Func) -> None:
        params = [p.ty for p in f.params]
        ret = f.ret_ty
        is_main = f.name == "main"
        lret = ir.IntType(32) if is_main and ret is T.VOID else self.types(ret)
        private = not (f.export or is_main)
        # A private function's IR name is free: one named like a runtime symbol is
        # renamed so the runtime's declaration keeps the name (private symbols never
        # reach the object's symbol table).
        name = f"{f.name}.ea" if private and f.name in RUNTIME_SYMBOLS else f.name
        fn = ir.Function(self.module, ir.FunctionType(lret, [self.types(t) for t in params]), name=name)
        fn.attributes.add("nounwind")
        # Calls to a user function named like a C library function (`abs`) must
        # reach it, not the builtin LLVM would substitute by name.
        fn.attributes.add("nobuiltin")
        if private:
            fn.linkage = "private"
            fn.attributes.add("alwaysinline")
        for arg, p, t in zip(fn.args, f.params, params):
            arg.name = local_name(p.name)
            if isinstance(t, T.Pointer) and t.restrict:
                arg.add_attribute("noalias")
        self.functions[f.name] = (fn, params, ret)

    def string_constant(self, text: str) -> ir.GlobalVariable:
        g = self._strings.get(text)
        if g is None:
            data = bytearray(text.encode("utf-8") + b"\0")
            const = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
            g = ir.GlobalVariable(self.module, const.type, name=f".str.{len(self._strings)}")
            g.linkage = "private"
            g.global_constant = True
            g.unnamed_addr = True
            g.initializer = const
            self._strings[text] = g
        return g


def callee_closure(funcs: list[A.Func], decisions, names, calls=None) -> set[str]:
    """`names` and every function they call, directly or through others
    (the callees are the checker's decisions), among `funcs`; `calls` is
    `direct_callees` of `funcs` when the caller already has it. `funcs` may
    be a dict by name (a caller asking for many closures builds it once)."""
    by_name = funcs if isinstance(funcs, dict) else {f.name: f for f in funcs}
    calls = calls if calls is not None else {}
    todo = [n for n in names if n in by_name]
    seen = set(todo)
    while todo:
        name = todo.pop()
        if name not in calls:
            calls[name] = direct_callees(by_name[name], decisions)
        for callee in calls[name]:
            if callee in by_name and callee not in seen:
                seen.add(callee)
                todo.append(callee)
    return seen


def direct_callees(f: A.Func, decisions) -> set[str]:
    """The names of the user functions `f`'s body calls (the checker's decisions)."""
    return decisions.functions_called_within(f.span.start, f.span.end)


class FuncEmitter(ExprEmitter, StmtEmitter):
    def __init__(self, me: ModuleEmitter, f: A.Func):
        self.module_emitter = me
        self.module = me.module
        self.types = me.types
        self.debug = me.debug
        self.func = f
        self.fn, self.param_types, self.ret = me.functions[f.name]
        self.is_main = f.name == "main"
        self.entry = self.fn.append_basic_block("entry")
        self.builder = ir.IRBuilder(self.entry)
        self.scope = self.debug.subprogram(self.fn, f.name, f.span.line)
        self.vars: dict[str, tuple[ir.Value, T.Type]] = {}
        self.let_slots: dict[int, ir.AllocaInstr] = {}  # per `let` statement (StmtEmitter.local)
        self.options = me.options
        self.calls: list[A.Call] = []  # intrinsic calls being lowered, innermost last
        self.nt_static: dict[int, int | None] = {}  # stream_store misalignments fixed by a loop version (ntloop.py)
        self.nt_auto: frozenset[int] = frozenset()  # plain stores lowered as stream_stores (ntauto.py)
        self.nt_peeled = False  # the last versioned loop may start with a peel to alignment (ntpeel.py)

    def record_path(self, path: RuntimePath) -> None:
        """Code that chooses a path when it runs (compiler/runtime_paths.py), once per construct."""
        found = self.module_emitter.runtime_paths.setdefault(self.func.name, [])
        if path not in found:
            found.append(path)
            found.sort(key=lambda p: (p.line or 0, p.what))

    def at(self, span) -> None:
        self.builder.debug_metadata = self.debug.location(span.line, span.col, self.scope)

    def string_constant(self, text: str) -> ir.Value:
        return self.module_emitter.string_constant(text)

    def emit(self) -> None:
        self.at(self.func.span)
        for arg, p, t in zip(self.fn.args, self.func.params, self.param_types):
            self.builder.store(arg, self.local(p.name, t))
        self.block(self.func.body)
        if not self.builder.block.is_terminated:
            self.at(self.func.body.span.at_end())
            self.return_default()
