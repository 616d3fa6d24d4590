"""`ea FILE.ea [options]` (TOOLCHAIN.md §1) and `ea build FILE|DIR... [options]`,
which compiles many files in one process (one Python start-up and one LLVM
initialisation for a whole build script) exactly as `ea FILE [options]`
would compile each: the same outputs, messages and order.

Only the options are parsed here at import; the front end, LLVM and the
linker are imported by the paths that need them."""
from __future__ import annotations

import sys
from pathlib import Path

from ..options import Options
from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from .flags import read_sources, wants_help

_BUILD_FLAGS = {"--lib", "--emit-llvm", "--emit-asm", "--annotate", "--header", "--emit-ast", "--emit-tokens"}

BUILD_USAGE = "usage: ea build <file.ea|dir>... [options]"
BUILD_HELP = BUILD_USAGE + """

Compiles each file (a directory means its *.ea files, sorted) as `ea <file.ea>
[options]` would, one after another in one process: the same outputs and the
same messages, in input order. A file that fails does not stop the others;
exit 1 if any failed. The options are those of `ea <file.ea>` (`ea --help`);
-o names one output, so it takes a single input. Two inputs with the same
file name would write the same outputs and are refused before anything is
compiled.
"""


class CompileFlags:
    """The options of one `ea FILE` command line."""

    def __init__(self, rest: list[str], inputs: list[str] | None = None):
        """Parse `rest`; with `inputs`, arguments that are not options are inputs
        (`ea build`), otherwise they are unknown options, as TOOLCHAIN.md §1 says."""
        self.options = Options()
        self.flags: set[str] = set()
        self.out: str | None = None
        args = iter(joined(rest, TARGET_VALUE_OPTIONS))
        for arg in args:
            if arg == "-o":
                self.out = next(args, None)
                if self.out is None:
                    raise UsageError("-o needs a path")
            elif arg in _BUILD_FLAGS:
                self.flags.add(arg)
            elif inputs is not None and not arg.startswith("-"):
                inputs.append(arg)
            else:
                new = parse_target_flag(arg, self.options)
                if new is None:
                    raise UsageError(f"unknown option '{arg}'")
                self.options = new


def run_compile(path: str, rest: list[str], usage: str) -> int:
    """`ea FILE [options]`."""
    if wants_help(rest):
        sys.stderr.write(usage)
        return 0
    flags = CompileFlags(rest)
    return compile_file(path, _read(path), flags)


def run_build(args: list[str]) -> int:
    """`ea build FILE|DIR... [options]`."""
    if wants_help(args):
        sys.stderr.write(BUILD_HELP)
        return 0
    inputs: list[str] = []
    flags = CompileFlags(args, inputs)
    if not inputs:
        print(BUILD_USAGE, file=sys.stderr)
        return 1
    files = read_sources(inputs)
    if flags.out is not None and len(files) > 1:
        raise UsageError("-o names one output: give `ea build` a single input with it")
    _refuse_shared_stems([path for path, data, problem in files if data is not None])
    if not flags.flags & {"--emit-tokens", "--emit-ast"}:
        validate(flags.options)  # once, before any output: the same answer for every file
    failed = 0
    for path, data, problem in files:
        if data is None:
            print(f"error: cannot read '{path}': {problem}", file=sys.stderr)
            failed += 1
            continue
        failed += compile_file(path, data, flags) != 0
    return 1 if failed else 0


def _refuse_shared_stems(paths: list[str]) -> None:
    seen: dict[str, str] = {}
    for path in paths:
        stem = Path(path).stem
        if stem in seen:
            raise UsageError(f"'{seen[stem]}' and '{path}' would write the same outputs "
                             f"(both are named '{stem}'): build them in separate commands")
        seen[stem] = path


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as err:
        raise UsageError(f"cannot read '{path}': {err.strerror or err}") from None


def compile_file(path: str, data: bytes, flags: CompileFlags) -> int:
    """One file, as `ea FILE [options]` compiles it (TOOLCHAIN.md §1.1's precedence)."""
    if "--emit-tokens" in flags.flags:
        return _emit_front(path, data, tokens_only=True)
    if "--emit-ast" in flags.flags:
        return _emit_front(path, data, tokens_only=False)
    validate(flags.options)
    from .build_cmd import BuildRequest, build
    return build(BuildRequest(path, data, flags.options, frozenset(flags.flags), flags.out))


def _emit_front(path: str, data: bytes, tokens_only: bool) -> int:
    from ..ast_outline import ast_outline
    from ..diagnostics import DiagnosticSink
    from ..render import render_all
    from ..source import SourceFile
    from ..syntax.lexer import lex, token_dump
    from ..syntax.parser import parse
    source = SourceFile(path, data)
    sink = DiagnosticSink()
    tokens = lex(source, sink)
    if tokens_only:
        sys.stdout.write(token_dump(tokens))
    else:
        sys.stdout.write(ast_outline(parse(tokens, sink)))
    sys.stderr.write(render_all(sink.items, source, path))
    return 1 if sink.has_errors else 0
