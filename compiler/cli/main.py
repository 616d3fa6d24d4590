"""The `ea` command line (TOOLCHAIN.md §1). Status output goes to stderr,
requested data to stdout; user errors exit 1, never with a traceback.

Start-up is part of every command's cost (build scripts run one process per
file): this module imports nothing of the compiler until a command needs it,
so `ea --version` and `ea --help` load no front end, `ea check` no LLVM."""
from __future__ import annotations

import os
import sys

from ..version import __version__

USAGE = """usage: ea <file.ea> [options]                compile
       ea build <file.ea|dir>... [options]   compile many files in one process, each as `ea <file.ea>`
       ea check <file.ea|dir>... [options]   report all diagnostics of many files
       ea bind <file.ea|dir>... --python|--rust|--pytorch|--cpp|--cmake   bindings from .ea.json
       ea inspect <file.ea|dir>... [options] what the machine code does, per function/loop/line
       ea bench <file.ea|suite.bench.toml|dir|manifest.toml> [options]  benchmark vs NumPy and bandwidth
       ea tune <file.ea> [options]            search for a faster kernel, verified against its bench suite
       ea --print-target                      print the host CPU name (or EA_HOST_CPU's)
       ea --version | --help
       ea <command> --help                    the options of build, check, bind, inspect, bench or tune

options:
  -o <path>            output path         --lib               shared library + .ea.json
  --opt-level N        0..3 (default 3)    --target CPU        LLVM CPU name (default native)
  --target-triple T    cross-compile       --avx512 --fp16 --dotprod --i8mm   target features
  --emit-tokens        print tokens        --emit-ast          print top-level items
  --emit-llvm          print LLVM IR       --emit-asm          write assembly
  --annotate           with --emit-asm: interleave the source lines
  --header             write a C header
  --stream-threshold SIZE  bytes a kernel's loop stores per call from which its vector
                       stores are non-temporal (default: half the last-level cache; 0: never)
An option's value may also be written --opt=value (--opt-level=2, --target=znver4).
environment: EA_HOST_CPU=CPU  treat `native` as that CPU (e.g. haswell), for every command
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    code = _light(args)
    if code is None:
        code = _run(args)
    if argv is None:
        sys.exit(code)
    return code


def _light(args: list[str]) -> int | None:
    """The commands that need nothing but this module; None for the others."""
    if not args:
        sys.stderr.write(USAGE)
        return 1
    if args[0] in ("--help", "-h"):
        sys.stderr.write(USAGE)
        return 0
    if args[0] in ("--version", "-V"):
        print(f"ea {__version__}")
        return 0
    return None


def _run(args: list[str]) -> int:
    from ..target_flags import UsageError
    try:
        return _dispatch(args)
    except UsageError as err:
        print(f"error[{err.kind}]: {err}" if err.kind else f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`ea ... | head`): not an error of ours to report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _dispatch(args: list[str]) -> int:
    from ..cpu_levels import override_problem
    from ..target_flags import UsageError
    problem = override_problem()
    if problem:
        raise UsageError(problem)
    first = args[0]
    if first == "--print-target":
        from ..codegen.target import host_cpu_name
        print(host_cpu_name())
        return 0
    if first == "check":
        from .check_cmd import run_check
        return run_check(args[1:])
    if first == "build":
        from .compile_cmd import run_build
        return run_build(args[1:])
    if first == "bind":
        from .bind_cmd import run_bind
        return run_bind(args[1:])
    if first == "inspect":
        from .inspect_cmd import run_inspect
        return run_inspect(args[1:])
    if first == "bench":
        from .bench_cmd import run_bench
        return run_bench(args[1:])
    if first == "tune":
        from .tune_cmd import run_tune
        return run_tune(args[1:])
    from .compile_cmd import run_compile
    return run_compile(first, args[1:], USAGE)
