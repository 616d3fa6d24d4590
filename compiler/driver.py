"""Building the outputs of `ea FILE.ea` (TOOLCHAIN.md §1.1-§1.2): object,
shared library + `.ea.json`, executable, header, LLVM IR, assembly.

`compile_source()` is the in-process API (analysis + codegen, no files)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .analysis import Analysis, analyze
from .diagnostics import Diagnostic
from .options import Options
from .outputs.header import header_text
from .outputs.metadata import metadata_text
from .render import render_all
from .syntax import ast as A


@dataclass
class BuildRequest:
    path: str
    data: bytes
    options: Options
    flags: frozenset[str]
    out: str | None = None


class BuildFailed(Exception):
    """A user-facing failure; the message is printed as `error[codegen]: ...`."""


def compile_source(data: bytes | str, path: str, options: Options):
    """Analyse and generate code. Returns (analysis, compiled module or None)."""
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


def exported_names(analysis: Analysis) -> list[str]:
    """From the desugared, cfg-unfiltered program (§1.2)."""
    return [f.name for f in analysis.desugared.items if isinstance(f, A.Func) and f.export]


def _describe(kind: str, names: list[str]) -> str:
    return f"{kind}, {len(names)} exported: {', '.join(names)}" if names else kind


def build(req: BuildRequest) -> int:
    try:
        return _build(req)
    except OSError as err:  # an output path that cannot be written
        where = f" '{err.filename}'" if err.filename else ""
        print(f"error: cannot write{where}: {err.strerror or err}", file=sys.stderr)
        return 1


def _build(req: BuildRequest) -> int:
    analysis, module = compile_source(req.data, req.path, req.options)
    sys.stderr.write(render_all(analysis.diagnostics, analysis.source, req.path))
    if module is None:
        return 1
    stem = Path(req.path).stem
    names = exported_names(analysis)
    flags = req.flags
    if "--emit-llvm" in flags:
        text = module.ir(optimized=req.options.opt_level > 0)
        Path(req.out or f"{stem}.ll").write_text(text)
        sys.stdout.write(text)
        return 0
    if "--emit-asm" in flags:
        target = req.out or f"{stem}.s"
        asm = module.asm()
        if "--annotate" in flags:
            from .inspect.render import annotate
            lines = analysis.source.data.decode("utf-8", "replace").splitlines()
            asm = annotate(asm, lines, "//" if req.options.is_arm else "#")
        Path(target).write_text(asm)
        print(f"wrote {target}", file=sys.stderr)
        return 0
    if "--header" in flags:
        Path(f"{stem}.h").write_text(header_text(stem, analysis.desugared))
        print(f"wrote {stem}.h", file=sys.stderr)
    obj = module.object()
    try:
        if "--lib" in flags:
            return _build_lib(req, analysis, obj, stem, names)
        if req.out:
            _link_executable(obj, req.out)
            print(f"compiled {req.path} -> {req.out} ({_describe('executable', names)})", file=sys.stderr)
            return 0
    except BuildFailed as err:
        print(f"error[codegen]: {err}", file=sys.stderr)
        return 1
    Path(f"{stem}.o").write_bytes(obj)
    print(f"compiled {req.path} -> {stem}.o ({_describe('object', names)})", file=sys.stderr)
    return 0


def _build_lib(req: BuildRequest, analysis: Analysis, obj: bytes, stem: str, names: list[str]) -> int:
    # `lib<stem>.so`, not the reference's `<stem>.so`: a `<stem>.so` beside the
    # `<stem>.py` that `ea bind --python` writes would shadow it on `import <stem>`,
    # and the linker resolves `-l<stem>` / Rust's `#[link(name = "<stem>")]` as lib<stem>.so.
    lib = req.out or f"lib{stem}.so"
    folder = Path(lib).parent
    if not folder.is_dir():
        raise OSError(2, "No such file or directory", str(folder))
    tmp_obj = Path(f"{stem}.o")
    tmp_obj.write_bytes(obj)
    try:
        _run_cc(["-shared", str(tmp_obj), "-o", lib, "-lm"], "shared library linking failed")
    finally:
        tmp_obj.unlink(missing_ok=True)
    print(f"compiled {req.path} -> {lib} ({_describe('shared library', names)})", file=sys.stderr)
    meta = f"{req.path}.json"
    Path(meta).write_text(metadata_text(lib, analysis.desugared))
    print(f"wrote {meta}", file=sys.stderr)
    return 0


def _link_executable(obj: bytes, out: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_obj = os.path.join(tmp, "ea_main.o")
        Path(tmp_obj).write_bytes(obj)
        _run_cc([tmp_obj, "-o", out, "-lm"], "linking the executable failed")


def _run_cc(args: list[str], failure: str) -> None:
    cc = os.environ.get("CC", "cc")
    try:
        proc = subprocess.run([cc, *args], capture_output=True, text=True)
    except OSError as err:
        raise BuildFailed(f"{failure}: cannot run '{cc}': {err.strerror}") from None
    if proc.returncode != 0:
        detail = proc.stderr.strip().splitlines()
        raise BuildFailed(failure + (f"\n{chr(10).join(detail[-10:])}" if detail else ""))
