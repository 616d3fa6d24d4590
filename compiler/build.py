"""The in-process compile API: source -> analysis + compiled module, and the
artefacts built from them (TOOLCHAIN.md §1.2): object code, a shared library
or executable linked with `$CC`, the C header and the `.ea.json` metadata.

    from ea_compiler.build import compile_source, link_shared_library
    analysis, module = compile_source(data, "k.ea", Options())
    if module is not None:                 # None: analysis.diagnostics say why
        module.ir(), module.asm(), module.object()

Nothing here prints or knows a command-line flag: the CLI (compiler/cli/),
the loader and the tools call these functions and report as they need."""
from __future__ import annotations

import os
from pathlib import Path

from .analysis import Analysis, analyze
from .diagnostics import Diagnostic
from .options import Options
from .syntax import ast as A

# subprocess, tempfile and the output writers are imported where they are used:
# `ea k.ea` writes an object and needs none of them (start-up is per process).


class LinkError(Exception):
    """`$CC` could not link; the message says what failed, with the linker's last lines."""


def compile_source(data: bytes | str, path: str, options: Options):
    """Analyse and generate code. Returns (analysis, compiled module or None);
    a code generation error is appended to the analysis' diagnostics."""
    from .codegen import CodegenError, generate
    analysis = analyze(data, path, options)
    if analysis.errors:
        return analysis, None
    try:
        return analysis, generate(analysis)
    except CodegenError as err:
        code = "target" if err.user else "internal"
        analysis.diagnostics.append(Diagnostic("error", "codegen", code, str(err), err.span))
        return analysis, None


def compile_functions(analysis: Analysis, names):
    """Generate code for just the functions `names` and their callees, even
    while other functions of the file have errors. Returns (compiled module or
    None, the errors that prevent it): the analysis' errors inside these
    functions or their callees, or outside every function (a broken struct,
    constant or top-level text, which any function may depend on), or the
    code generation error."""
    from .codegen import CodegenError, generate
    blocking = errors_blocking(analysis, names)
    if blocking:
        return None, blocking
    try:
        return generate(analysis, only=names), []
    except CodegenError as err:
        return None, [Diagnostic("error", "codegen", "target" if err.user else "internal", str(err), err.span)]


def errors_blocking(analysis: Analysis, names) -> list[Diagnostic]:
    """The errors of `analysis` that the code of `names` (and their callees) depends on."""
    from .codegen import callee_closure
    funcs = analysis.live_functions
    closure = callee_closure(funcs, analysis.decisions, names)
    mine, others = [], []
    for f in funcs:
        span = (f.origin or f).span
        (mine if f.name in closure else others).append((span.start, span.end))
    for item in analysis.ast.items:  # functions of another architecture are no one's callees
        if isinstance(item, A.Func) and not analysis.is_live(item):
            others.append((item.span.start, item.span.end))

    def inside(span, ranges) -> bool:
        return any(start <= span.start and span.end <= end for start, end in ranges)

    left_out = analysis.left_out or (lambda span: False)  # a focused analysis: the functions it leaves out
    return [d for d in analysis.errors
            if d.span is None or inside(d.span, mine) or not (inside(d.span, others) or left_out(d.span))]


def exported_names(analysis: Analysis, module) -> list[str]:
    """The exported functions the compiled `module` defines, in source order:
    what its object file, and a library linked from it, export (an export of
    another architecture's `#[cfg]` is not there)."""
    defined = module.defined_functions()
    return [f.name for f in analysis.live_functions if f.export and f.name in defined]


def header(analysis: Analysis, stem: str) -> str:
    """The C header (`<stem>.h`) of an analysed file."""
    from .outputs.header import header_text
    return header_text(stem, analysis.desugared)


def metadata(analysis: Analysis, library: str, names: list[str] | None = None) -> str:
    """The `.ea.json` metadata of an analysed file, naming its shared library;
    `names`: the exports it lists (`exported_names`: those the library defines)."""
    from .outputs.metadata import metadata_text
    program = analysis.desugared
    if names is not None:  # of a #[cfg] pair, the variant the library holds
        program = A.Program([i for i in program.items if not isinstance(i, A.Func) or analysis.is_live(i)],
                            program.span)
    return metadata_text(library, program, analysis.decisions, names)


def python_module_name(library: str | Path) -> str | None:
    """The name `import` finds the library `library` under (`k.so` -> `k`), or
    None when that is not a Python module name (`my-kernel.so`) or it is no `.so`."""
    base = Path(library).name
    name = base.split(".", 1)[0]
    return name if base.endswith(".so") and name.isascii() and name.isidentifier() else None


def python_entry(metadata_text: str, source: str | None, library: str | Path, options: Options) -> bytes | None:
    """Object code of `PyInit_<name>` for `library` (ea_compiler.codegen.pymodule):
    linked into it, `import <name>` loads the library as a module with the
    functions of the binding `ea bind --python` writes. None when the name is
    no Python module name or the target is not ELF. Raises BindError when the
    binding cannot be generated (a `cap` naming an unknown constant) or an
    export already has the entry point's name."""
    from .bind.meta import BindError, parse_api
    from .bind.python import module_text
    from .codegen import pymodule
    name = python_module_name(library)
    if name is None or not pymodule.supported(options):
        return None
    api = parse_api(metadata_text, name)
    if f"PyInit_{name}" in {e.name for e in api.exports}:
        raise BindError(f"the library exports a function named PyInit_{name} itself")
    text = module_text(api, source, lib_expr="_ct.CDLL(_os.path.abspath(__file__))")
    return pymodule.module_object(name, text, options)


def link_shared_library(obj: str | Path, out: str | Path,
                        failure: str = "shared library linking failed", extra: bytes | None = None) -> None:
    """Link the object file `obj` (and the object code `extra`, if given: the
    Python entry point) into the shared library `out`; LinkError if `$CC` fails."""
    if extra is None:
        _run_cc(["-shared", str(obj), "-o", str(out), "-lm"], failure)
        return
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        entry = os.path.join(tmp, "ea_python_entry.o")
        Path(entry).write_bytes(extra)
        _run_cc(["-shared", str(obj), entry, "-o", str(out), "-lm"], failure)


def link_executable(obj: bytes, out: str | Path) -> None:
    """Link object code (with its `main`) into the executable `out`; LinkError if `$CC` fails."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tmp_obj = os.path.join(tmp, "ea_main.o")
        Path(tmp_obj).write_bytes(obj)
        _run_cc([tmp_obj, "-o", str(out), "-lm"], "linking the executable failed")


def _run_cc(args: list[str], failure: str) -> None:
    import subprocess
    cc = os.environ.get("CC", "cc")
    try:
        proc = subprocess.run([cc, *args], capture_output=True, text=True)
    except OSError as err:
        raise LinkError(f"{failure}: cannot run '{cc}': {err.strerror}") from None
    if proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()
        raise LinkError(failure + (f"\n{chr(10).join(detail[-10:])}" if detail else ""))


__all__ = ["LinkError", "compile_functions", "compile_source", "errors_blocking", "exported_names", "header",
           "link_executable", "link_shared_library", "metadata", "python_entry", "python_module_name"]
