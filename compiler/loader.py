"""The Python loader: `load()` an Eä file and call its exports on NumPy
arrays, `compile()` it to a library, `clear_cache()`.

`load` compiles in-process to an object file, cached in `__eacache__/`
beside the source, and runs it with LLVM's MCJIT (llvmlite): no C compiler
is needed. Its functions are the generated Python binding (`ea bind
--python`) executed against the JIT's symbols, so signatures and checks are
the same. The cache key covers the source text, compiler version, options
and CPU; entries are written to a temporary folder and renamed into place,
so processes loading the same kernel at once never see a partial entry.

Compiler warnings reach Python's `warnings` as `CompileWarning` (also when
the entry comes from the cache); a `CompileError`'s `str()` carries the
rendered diagnostics. A file without `export` loads with a warning, and
asking it for a function that exists but is not exported is an
AttributeError saying to add `export` (or, for a `#[cfg]` function of the
other architecture, saying which one it is compiled for).
"""
from __future__ import annotations

import builtins
import ctypes
import dataclasses
import functools
import hashlib
import os
import shutil
import tempfile
import warnings
from pathlib import Path

from .bind.meta import parse_api
from .bind.python import module_text
from .options import Options
from .version import __version__

CACHE_DIR = "__eacache__"
# What a cache entry holds beyond the compiler's output, in the key: an entry of an older
# format (metadata without `extents` or `index_limits`, so calls without their checks) is not reused.
ENTRY_FORMAT = b"extents-2"
_LOADED: dict[tuple, "Kernel"] = {}


class CompileError(RuntimeError):
    """The source does not compile; `stderr` has the diagnostics, which `str()` includes."""

    def __init__(self, message: str, stderr: str = "", exit_code: int = 1):
        super().__init__(f"{message}\n{stderr.rstrip()}" if stderr.strip() else message)
        self.stderr = stderr
        self.exit_code = exit_code


class HostCPUError(RuntimeError):
    """The code would use instructions this machine's CPU lacks (it would die of SIGILL)."""


class CompileWarning(UserWarning):
    """A warning of the Eä compiler (the rendered diagnostic is the message)."""


class Kernel:
    """A loaded Eä file: one callable per export."""

    def __init__(self, stem: str, namespace: dict, engine, source: Path | None = None,
                 options: Options | None = None, unchecked: dict[str, list[str]] | None = None, api=None):
        self._stem = stem
        self._api = api  # the metadata (bind.meta.Api): for tools calling the code natively (bench/native_repeat.py)
        self._source = source
        self._options = options
        self._engine = engine  # keeps the JIT-compiled code alive
        self._names = list(namespace["__all__"])
        self._not_callable = dict(namespace.get("__ea_not_callable__", {}))
        # {function: [pointer arguments whose length the call cannot check]} (their docstrings say why)
        self._unchecked = {f: list(ps) for f, ps in (unchecked or {}).items() if ps}
        for name in self._names:
            setattr(self, name, namespace[name])
        for name, value in namespace.items():  # struct classes, for dtypes and records
            if isinstance(value, type) and issubclass(value, ctypes.Structure) and value is not ctypes.Structure:
                setattr(self, name, value)

    def __repr__(self) -> str:
        unchecked = f" unchecked={self._unchecked}" if self._unchecked else ""
        return f"<ea.Kernel '{self._stem}' funcs={self._names}{unchecked}>"

    def __dir__(self):
        return self._names

    def __getattr__(self, name: str):
        # only called for names that are not attributes: say why the function is missing
        if name.startswith("__") or self.__dict__.get("_source") is None:
            raise AttributeError(name)
        file = self._source.name
        if name in self.__dict__.get("_not_callable", {}):
            raise AttributeError(f"'{file}' exports '{name}', but {self._not_callable[name]}")
        if "_missing" not in self.__dict__:  # analysed once, on the first miss
            self._missing = _missing_functions(self._source, self._options or Options())
        why = self._missing.get(name) or (f"exported: {', '.join(self._names)}" if self._names
                                          else "the file exports nothing")
        raise AttributeError(f"'{file}' has no exported function '{name}': {why}")


def _missing_functions(path: Path, options: Options) -> dict[str, str]:
    """Why each function of the file that Python cannot call is missing, by name."""
    from .analysis import analyze
    from .syntax import ast as A
    result = analyze(path.read_bytes(), str(path), options)
    live = {f.name: f for f in result.live_functions}
    why: dict[str, str] = {}
    for f in result.desugared.items:
        if not isinstance(f, A.Func) or (f.name in live and live[f.name].export):
            continue
        if f.name in live:
            why[f.name] = f"'{f.name}' is defined but not exported; add `export` before its `func`/`kernel`"
        else:
            arch = result.liveness.arch_of(f)
            why[f.name] = (f"'{f.name}' is compiled only for {arch} (`#[cfg({arch})]`), and this target is "
                           f"{result.liveness.arch}")
    return why


def _options(target: str, opt_level: int, avx512: bool, stream_threshold: int | None = None) -> Options:
    from .cpu_levels import override_problem
    problem = override_problem()
    if problem:
        raise ValueError(problem)
    return Options(target_cpu=target, opt_level=opt_level, avx512=avx512, stream_threshold=stream_threshold)


def ensure_runnable(opts: Options) -> None:
    """Refuse, before compiling, code this CPU cannot run: the one check every
    in-process run of compiled code passes (`load`, and through it bench and tune)."""
    from .cpu_levels import missing_on_host
    missing = missing_on_host(opts)
    if missing:
        what = "--avx512" if opts.avx512 and opts.target_cpu in ("", "native") else f"target '{opts.target_cpu}'"
        raise HostCPUError(f"cannot run code compiled for {what} here: this CPU lacks "
                           f"{', '.join(sorted(missing))}; ea.compile() and `ea inspect` can still target it")


@functools.cache
def compiler_fingerprint() -> bytes:
    """A hash of the compiler's own source files (name, size, modification time: a stat each, not
    a read): a cache entry (the code and the checks its metadata drives) never outlives the
    compiler that made it, whatever the version string says."""
    h = hashlib.blake2b(digest_size=10)
    root = Path(__file__).resolve().parent
    for file in sorted(root.rglob("*.py")):
        st = file.stat()
        h.update(f"{file.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest().encode()


def _entry(path: Path, opts: Options) -> tuple[Path, bytes]:
    from .codegen.target import cpu_and_features
    source = path.read_bytes()
    cpu, features = cpu_and_features(opts)
    key = hashlib.blake2b(b"\0".join([source, __version__.encode(), repr(opts.key()).encode(),
                                      cpu.encode(), features.encode(), ENTRY_FORMAT, compiler_fingerprint()]),
                          digest_size=10).hexdigest()
    return path.parent / CACHE_DIR / f"{cpu}-{__version__}" / f"{path.stem}-{key}", source


def _build(path: Path, opts: Options) -> Path:
    """The cache entry for `path` (object file + metadata), built if missing."""
    entry, source = _entry(path, opts)
    if (entry / f"{path.stem}.o").exists():
        return entry
    from .build import compile_source, exported_names, metadata
    from .render import render_all
    analysis, module = compile_source(source, str(path), opts)
    if module is None:
        raise CompileError(f"Compilation failed: {path.name}",
                           render_all(analysis.diagnostics, analysis.source, str(path)))
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=entry.parent))
    found = [d for d in analysis.diagnostics if d.severity == "warning"]
    (tmp / "warnings.txt").write_text("\0".join(render_all([d], analysis.source, str(path)) for d in found))
    (tmp / f"{path.stem}.o").write_bytes(module.object())
    names = exported_names(analysis, module)
    (tmp / f"{path.stem}.ea.json").write_text(metadata(analysis, f"{path.stem}.so", names))
    try:
        os.rename(tmp, entry)  # atomic: another process may have won the race
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return entry


def load(path, *, target: str = "native", opt_level: int = 3, avx512: bool = False,
         stream_threshold: int | None = None) -> Kernel:
    """Compile (cached) and load an Eä file; returns a module-like object.
    `stream_threshold`: bytes a kernel's main loop stores per call from which
    its vector stores are non-temporal (None: half the last-level cache; 0: never)."""
    path = Path(path).resolve()
    if not path.exists():
        raise FileNotFoundError(f"no such Eä source: {path}")
    opts = _options(target, opt_level, avx512, stream_threshold)
    ensure_runnable(opts)
    entry, _ = _entry(path, opts)
    hit = _LOADED.get((entry, path.stat().st_mtime_ns))
    if hit is not None:
        return hit
    entry = _build(path, opts)
    api = parse_api((entry / f"{path.stem}.ea.json").read_text(), path.stem)
    _warn(entry, path, api)
    kernel = _jit(entry, api, opts, str(path))
    _LOADED[(entry, path.stat().st_mtime_ns)] = kernel
    return kernel


def _warn(entry: Path, path: Path, api=None) -> None:
    """The compiler's warnings, and (given the loaded `api`) a file Python cannot call anything of."""
    recorded = entry / "warnings.txt"
    text = recorded.read_text() if recorded.exists() else ""
    for message in filter(None, text.split("\0")):
        warnings.warn(message.rstrip(), CompileWarning, stacklevel=3)
    if api is not None and not api.exports:
        warnings.warn(f"'{path.name}' exports no function: nothing can be called from Python; "
                      "add `export` before the functions to call", CompileWarning, stacklevel=3)


def _jit(entry: Path, api, opts: Options, source: str) -> Kernel:
    import llvmlite.binding as llvm

    from .codegen import LLVM_LOCK
    from .codegen.target import init, new_target_machine
    init()
    stem = api.stem
    symbols = type("JitLibrary", (), {})()
    with LLVM_LOCK:
        # The engine owns (and frees) its target machine: give it a fresh one.
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine(opts))
        engine.add_object_file(llvm.ObjectFileRef.from_data((entry / f"{stem}.o").read_bytes()))
        engine.finalize_object()
        for e in api.exports:
            address = engine.get_function_address(e.name)
            if not address:  # a cache entry whose object and metadata disagree
                raise ImportError(f"{entry / (stem + '.o')} has no symbol {e.name!r} that {stem}.ea.json beside it "
                                  f"lists; clear the cache and load again: ea.clear_cache({source!r})")
            # argtypes/restype are set by the binding, as on a CDLL's functions
            setattr(symbols, e.name, ctypes.CFUNCTYPE(None)(address))
    namespace: dict = {"__ea_lib__": symbols, "__name__": f"ea_kernel_{stem}"}
    code = builtins.compile(module_text(api, source, lib_expr="__ea_lib__"), f"<ea binding {stem}>", "exec",
                            dont_inherit=True)
    exec(code, namespace)
    from .loader_fast import fast_functions
    fast = fast_functions(api, entry, engine, namespace, LLVM_LOCK,
                          lambda: new_target_machine(dataclasses.replace(opts, opt_level=0)))
    return Kernel(stem, {**namespace, **fast}, engine, Path(source), opts,
                  {e.name: list(e.unchecked) for e in api.exports}, api)


def compile(path, *, emit_asm: bool = False, emit_llvm: bool = False, target: str = "native",
            opt_level: int = 3, avx512: bool = False, lib: bool = True) -> Path:
    """Compile without loading; returns the main artefact in the cache folder:
    the shared library (needs a C compiler to link), the object, or the
    assembly / LLVM IR."""
    path = Path(path).resolve()
    if not path.exists():
        raise FileNotFoundError(f"no such Eä source: {path}")
    opts = _options(target, opt_level, avx512)
    entry = _build(path, opts)
    _warn(entry, path)
    if emit_asm or emit_llvm:
        from .build import compile_source
        _, module = compile_source(path.read_bytes(), str(path), opts)
        out = entry / (f"{path.stem}.s" if emit_asm else f"{path.stem}.ll")
        out.write_text(module.asm() if emit_asm else module.ir())
        return out
    if not lib:
        return entry / f"{path.stem}.o"
    library = entry / f"{path.stem}.so"
    if not library.exists():
        from .bind.meta import BindError
        from .build import LinkError, link_shared_library, python_entry
        tmp = entry / f".{path.stem}.{os.getpid()}.so"
        try:  # importable as a module too, as `ea k.ea --lib` makes it
            python = python_entry((entry / f"{path.stem}.ea.json").read_text(), str(path), library, opts)
        except BindError as err:
            python = None
            warnings.warn(f"`import {path.stem}` cannot load '{library}': {err}", CompileWarning, stacklevel=2)
        try:
            link_shared_library(entry / f"{path.stem}.o", tmp, "linking the shared library failed", python)
        except LinkError as err:
            raise CompileError(f"Compilation failed: {path.name}", f"error[codegen]: {err}") from None
        os.replace(tmp, library)
    return library


def clear_cache(path=None) -> None:
    """Delete `__eacache__`: in the current folder (None), beside a file, or inside a folder."""
    where = Path.cwd() if path is None else Path(path)
    target = where / CACHE_DIR if where.is_dir() else where.parent / CACHE_DIR
    shutil.rmtree(target, ignore_errors=True)
    _LOADED.clear()


def compiler_version() -> str:
    """The compiler's version (what `ea --version` prints, without `ea `): it runs in-process."""
    return __version__
