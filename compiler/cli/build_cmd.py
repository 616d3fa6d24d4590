"""`ea FILE.ea` (TOOLCHAIN.md §1.1-§1.2): write the outputs the flags ask for
(object, shared library + `.ea.json`, executable, header, LLVM IR, assembly)
and report them on stderr. Compiling and linking are ea_compiler.build's."""
from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..analysis import Analysis
from ..build import (LinkError, compile_source, exported_names, header, link_executable, link_shared_library,
                     metadata, python_entry, python_module_name)
from ..options import Options
from ..render import render_all


@dataclass
class BuildRequest:
    path: str
    data: bytes
    options: Options
    flags: frozenset[str]
    out: str | None = None


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
    names = exported_names(analysis, module)  # what the output holds, not what the source declares
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
            from ..inspect.render import annotate
            lines = analysis.source.data.decode("utf-8", "replace").splitlines()
            asm = annotate(asm, lines, "//" if req.options.is_arm else "#")
        Path(target).write_text(asm)
        print(f"wrote {target}", file=sys.stderr)
        return 0
    if "--header" in flags:
        Path(f"{stem}.h").write_text(header(analysis, stem))
        print(f"wrote {stem}.h", file=sys.stderr)
    obj = module.object()
    try:
        if "--lib" in flags:
            return _build_lib(req, analysis, obj, stem, names)
        if req.out:
            link_executable(obj, req.out)
            print(f"compiled {req.path} -> {req.out} ({_describe('executable', names)})", file=sys.stderr)
            return 0
    except LinkError as err:
        print(f"error[codegen]: {err}", file=sys.stderr)
        if "--lib" not in flags and "undefined reference to `main'" in str(err):
            print(f"hint: `-o` names an executable, which needs a `main`; without `-o` the object file is "
                  f"{stem}.o, and `--lib -o {Path(req.out).stem}.so` writes a shared library", file=sys.stderr)
        return 1
    Path(f"{stem}.o").write_bytes(obj)
    print(f"compiled {req.path} -> {stem}.o ({_describe('object', names)})", file=sys.stderr)
    return 0


def _build_lib(req: BuildRequest, analysis: Analysis, obj: bytes, stem: str, names: list[str]) -> int:
    # `<stem>.so` as §1.2 says. `import <stem>` prefers it to the `<stem>.py` of
    # `ea bind --python` beside it, so it is also an extension module with the
    # same functions (build.python_entry).
    from ..bind.meta import BindError
    lib = req.out or f"{stem}.so"
    folder = Path(lib).parent
    if not folder.is_dir():
        raise OSError(2, "No such file or directory", str(folder))
    meta_text = metadata(analysis, lib, names)
    try:
        entry = python_entry(meta_text, req.path, lib, req.options)
    except BindError as err:
        entry = None
        print(f"warning: `import {python_module_name(lib)}` cannot load '{lib}': {err}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="ea-lib-") as tmp:  # not `<stem>.o` here: the user's may exist
        tmp_obj = Path(tmp) / f"{stem}.o"
        tmp_obj.write_bytes(obj)
        link_shared_library(tmp_obj, lib, extra=entry)
    print(f"compiled {req.path} -> {lib} ({_describe('shared library', names)})", file=sys.stderr)
    meta = f"{req.path}.json"
    Path(meta).write_text(meta_text)
    print(f"wrote {meta}", file=sys.stderr)
    return 0
