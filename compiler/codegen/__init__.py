"""Code generation: typed, desugared AST -> LLVM IR -> optimised module ->
assembly / object code, for the target in Options.

    from compiler import analyze
    from compiler.codegen import generate
    module = generate(analyze(text, "k.ea", options))   # raises CodegenError
    module.ir(optimized=False), module.ir(), module.asm(), module.object()

Only call this on an analysis without errors.
"""
from __future__ import annotations

import llvmlite.binding as llvm

from ..analysis import Analysis
from .emit_module import ModuleEmitter
from .errors import CodegenError
from .target import init, target_machine, triple


class CompiledModule:
    """One module through the pipeline; every stage can be printed."""

    def __init__(self, generated_ir: str, options):
        self.options = options
        self.tm = target_machine(options)
        self.module = llvm.parse_assembly(generated_ir)
        self.module.verify()
        self.unoptimized_ir = str(self.module)  # printed by LLVM, like every other stage
        if options.opt_level > 0:
            pto = llvm.PipelineTuningOptions(speed_level=options.opt_level)
            pb = llvm.create_pass_builder(self.tm, pto)
            pb.getModulePassManager().run(self.module, pb)

    def ir(self, optimized: bool = True) -> str:
        return str(self.module) if optimized else self.unoptimized_ir

    # Machine-code emission rewrites the module it is given (CodeGenPrepare),
    # so it works on a copy: every stage stays printable and repeatable.
    def asm(self) -> str:
        return self.tm.emit_assembly(self.module.clone())

    def object(self) -> bytes:
        return self.tm.emit_object(self.module.clone())


def generate(analysis: Analysis) -> CompiledModule:
    """Build, verify and optimise the module of an error-free analysis."""
    init()
    options = analysis.options
    tm = target_machine(options)
    emitter = ModuleEmitter(analysis.path, options, analysis.symbols, triple(options), str(tm.target_data))
    module = emitter.emit(analysis.desugared)
    try:
        return CompiledModule(str(module), options)
    except RuntimeError as err:  # the LLVM verifier: a bug of ours
        raise CodegenError(f"internal compiler error: generated code failed validation \u2014 "
                           f"{str(err).splitlines()[0] if str(err) else 'no detail'}", None) from err


__all__ = ["CodegenError", "CompiledModule", "generate"]
