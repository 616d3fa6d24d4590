"""The `ea` command line (TOOLCHAIN.md §1). Status output goes to stderr,
requested data to stdout; user errors exit 1, never with a traceback."""
from __future__ import annotations

import os
import sys

from ..ast_outline import ast_outline
from ..diagnostics import DiagnosticSink
from ..options import Options
from ..render import render_all
from ..source import SourceFile
from ..syntax.lexer import lex, token_dump
from ..syntax.parser import parse
from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from ..version import __version__
from .build_cmd import BuildRequest, build
from .check_cmd import run_check
from .flags import wants_help

USAGE = """usage: ea <file.ea> [options]                compile
       ea check <file.ea|dir>... [options]   report all diagnostics of many files
       ea bind <file.ea|dir>... --python|--rust|--pytorch|--cpp|--cmake   bindings from .ea.json
       ea inspect <file.ea|dir>... [options] what the machine code does, per function/loop/line
       ea bench <file.ea|suite.bench.toml|dir|manifest.toml> [options]  benchmark vs NumPy and bandwidth
       ea --print-target                      print the host CPU name
       ea --version | --help
       ea <command> --help                    the options of check, bind, inspect or bench

options:
  -o <path>            output path         --lib               shared library + .ea.json
  --opt-level N        0..3 (default 3)    --target CPU        LLVM CPU name (default native)
  --target-triple T    cross-compile       --avx512 --fp16 --dotprod --i8mm   target features
  --emit-tokens        print tokens        --emit-ast          print top-level items
  --emit-llvm          print LLVM IR       --emit-asm          write assembly
  --annotate           with --emit-asm: interleave the source lines
  --header             write a C header
An option's value may also be written --opt=value (--opt-level=2, --target=znver4).
"""

_BUILD_FLAGS = {"--lib", "--emit-llvm", "--emit-asm", "--annotate", "--header", "--emit-ast", "--emit-tokens"}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        code = _dispatch(args)
    except UsageError as err:
        print(f"error[{err.kind}]: {err}" if err.kind else f"error: {err}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        # The reader went away (`ea ... | head`): not an error of ours to report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    if argv is None:
        sys.exit(code)
    return code


def _dispatch(args: list[str]) -> int:
    if not args:
        sys.stderr.write(USAGE)
        return 1
    first = args[0]
    if first in ("--help", "-h"):
        sys.stderr.write(USAGE)
        return 0
    if first in ("--version", "-V"):
        print(f"ea {__version__}")
        return 0
    if first == "--print-target":
        from ..codegen.target import host_cpu_name
        print(host_cpu_name())
        return 0
    if first == "check":
        return run_check(args[1:])
    if first == "bind":
        from .bind_cmd import run_bind
        return run_bind(args[1:])
    if first == "inspect":
        from .inspect_cmd import run_inspect
        return run_inspect(args[1:])
    if first == "bench":
        from .bench_cmd import run_bench
        return run_bench(args[1:])
    return _compile(first, args[1:])


def _compile(path: str, rest: list[str]) -> int:
    if wants_help(rest):
        sys.stderr.write(USAGE)
        return 0
    opts = Options()
    flags: set[str] = set()
    out = None
    args = iter(joined(rest, TARGET_VALUE_OPTIONS))
    for arg in args:
        if arg == "-o":
            out = next(args, None)
            if out is None:
                raise UsageError("-o needs a path")
        elif arg in _BUILD_FLAGS:
            flags.add(arg)
        else:
            new = parse_target_flag(arg, opts)
            if new is None:
                raise UsageError(f"unknown option '{arg}'")
            opts = new
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise UsageError(f"cannot read '{path}': {err.strerror or err}") from None
    if "--emit-tokens" in flags:
        return _emit_front(path, data, tokens_only=True)
    if "--emit-ast" in flags:
        return _emit_front(path, data, tokens_only=False)
    validate(opts)
    return build(BuildRequest(path, data, opts, frozenset(flags), out))


def _emit_front(path: str, data: bytes, tokens_only: bool) -> int:
    source = SourceFile(path, data)
    sink = DiagnosticSink()
    tokens = lex(source, sink)
    if tokens_only:
        sys.stdout.write(token_dump(tokens))
    else:
        sys.stdout.write(ast_outline(parse(tokens, sink)))
    sys.stderr.write(render_all(sink.items, source, path))
    return 1 if sink.has_errors else 0
