"""Code generation: typed, desugared AST -> LLVM IR -> optimised module ->
assembly / object code, for the target in Options.

    from ea_compiler import analyze
    from ea_compiler.codegen import generate
    module = generate(analyze(text, "k.ea", options))   # raises CodegenError
    module.ir(optimized=False), module.ir(), module.asm(), module.object()

Only call this on an analysis without errors. LLVM's global context is not
thread-safe: every use of it here and in the loader holds `LLVM_LOCK`, so
tools may compile from several threads (the TUI's explorer while a
benchmark loads its kernels).
"""
from __future__ import annotations

import threading

import llvmlite.binding as llvm

from ..analysis import Analysis
from .emit_module import ModuleEmitter, callee_closure
from .errors import CodegenError
from .target import init, target_machine, triple

LLVM_LOCK = threading.RLock()


class CompiledModule:
    """One module through the pipeline; every stage can be printed."""

    def __init__(self, generated_ir: str, options):
        with LLVM_LOCK:
            self._build(generated_ir, options)

    def _build(self, generated_ir: str, options) -> None:
        self.options = options
        # Per function: code generation's run-time choices (compiler/runtime_paths.py).
        self.runtime_paths: dict[str, list] = {}
        self.tm = target_machine(options)
        self.module = llvm.parse_assembly(generated_ir)
        self.module.name = "ea_module"  # TOOLCHAIN.md §1.3; parsing names it `<string>`
        self.module.verify()
        self.unoptimized_ir = str(self.module)  # printed by LLVM, like every other stage
        if options.opt_level > 0:
            pto = llvm.PipelineTuningOptions(speed_level=options.opt_level)
            pb = llvm.create_pass_builder(self.tm, pto)
            pb.getModulePassManager().run(self.module, pb)

    def ir(self, optimized: bool = True) -> str:
        if not optimized:
            return self.unoptimized_ir
        with LLVM_LOCK:
            return str(self.module)

    # Machine-code emission rewrites the module it is given (CodeGenPrepare),
    # so it works on a copy: every stage stays printable and repeatable.
    def asm(self) -> str:
        with LLVM_LOCK:
            return self.tm.emit_assembly(self.module.clone())

    def object(self) -> bytes:
        with LLVM_LOCK:
            return self.tm.emit_object(self.module.clone())

    def defined_functions(self) -> set[str]:
        """The functions this module defines with external linkage: the symbols
        its object file (and a library linked from it) exports."""
        with LLVM_LOCK:
            return {f.name for f in self.module.functions
                    if not f.is_declaration and f.linkage == llvm.Linkage.external}


def generate(analysis: Analysis, only=None) -> CompiledModule:
    """Build, verify and optimise the module of an error-free analysis; with
    `only` (function names), just those functions and their callees, which
    need to be free of errors themselves (ea_compiler.build.compile_functions)."""
    init()
    options = analysis.options
    with LLVM_LOCK:
        tm = target_machine(options)
        data_layout = str(tm.target_data)
    emitter = ModuleEmitter(analysis.path, options, analysis.symbols, analysis.decisions, triple(options),
                            data_layout)
    module = emitter.emit(analysis.live_functions, only)
    try:
        compiled = CompiledModule(_source_filename(analysis.path) + str(module), options)
    except RuntimeError as err:  # the LLVM verifier: a bug of ours
        raise CodegenError(f"internal compiler error: generated code failed validation \u2014 "
                           f"{str(err).splitlines()[0] if str(err) else 'no detail'}", None) from err
    except Exception as err:  # llvmlite refusing what we built (once: a half constant it could not print)
        raise CodegenError(f"internal compiler error: the module could not be written out \u2014 "
                           f"{type(err).__name__}: {err}", None) from err
    compiled.runtime_paths = emitter.runtime_paths
    return compiled


def _source_filename(path: str) -> str:
    """The IR line naming the source file, which the assembly's `.file` directive
    repeats; llvmlite does not write one, and LLVM would otherwise say `<string>`."""
    escaped = "".join(chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\{b:02X}"
                      for b in path.encode("utf-8", "surrogateescape"))
    return f'source_filename = "{escaped}"\n'


__all__ = ["LLVM_LOCK", "CodegenError", "CompiledModule", "callee_closure", "generate"]
