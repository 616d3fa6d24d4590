"""Target options as written on a command line, shared by `ea`, its
subcommands and the C-harness benchmark (compiler/bench/harness.py): parsing
`--target=CPU`, `--avx512`, `--opt-level=N` ... into Options, and the flag
combinations the compiler rejects (TOOLCHAIN.md §1.1)."""
from __future__ import annotations

from dataclasses import replace

from .options import Options
from .units import parse_bytes


class UsageError(Exception):
    """A command-line mistake: printed as `error: <message>` (or
    `error[<kind>]: ...` where the spec says so), exit 1."""

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        self.kind = kind


# Target options that take a value.
TARGET_VALUE_OPTIONS = ("--opt-level", "--target", "--target-triple", "--stream-threshold")


def joined(args: list[str], value_options: tuple[str, ...]) -> list[str]:
    """`args` with each `--opt value` of the given options written `--opt=value`,
    so parsers see one spelling."""
    out: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg in value_options:
            value = next(rest, None)
            if value is None:
                raise UsageError(f"{arg} needs a value")
            arg = f"{arg}={value}"
        out.append(arg)
    return out


def parse_target_flag(arg: str, opts: Options) -> Options | None:
    """Apply one target flag to `opts`; None if `arg` is not a target flag."""
    if arg.startswith("--opt-level="):
        value = arg.split("=", 1)[1]
        if value not in ("0", "1", "2", "3"):
            raise UsageError("--opt-level must be 0, 1, 2, or 3")
        return replace(opts, opt_level=int(value))
    if arg.startswith("--target="):
        return replace(opts, target_cpu=arg.split("=", 1)[1] or "native")
    if arg.startswith("--stream-threshold="):
        return replace(opts, stream_threshold=_bytes(arg.split("=", 1)[1]))
    if arg.startswith("--target-triple="):
        return replace(opts, target_triple=arg.split("=", 1)[1] or None)
    flag = {"--avx512": "avx512", "--fp16": "fp16", "--dotprod": "dotprod", "--i8mm": "i8mm"}.get(arg)
    if flag is not None:
        return replace(opts, **{flag: True})
    return None


def _bytes(text: str) -> int:
    """`16M`, `512K`, `1G`, `4096`, `0`: a size in bytes."""
    n = parse_bytes(text)
    if n is None:
        raise UsageError(f"--stream-threshold must be a size in bytes (e.g. 16M, 512K, 0 for never), not '{text}'")
    return n


def validate(opts: Options) -> None:
    """Flag combinations the driver rejects (TOOLCHAIN.md §1.1)."""
    if opts.is_arm and opts.avx512:
        raise UsageError("--avx512 is incompatible with ARM target")
    if not opts.is_arm and opts.i8mm:
        raise UsageError("--i8mm is only valid for AArch64 targets")
    if not opts.is_arm and opts.fp16:
        raise UsageError("--fp16 is incompatible with non-ARM target", kind="codegen")
    if opts.target_cpu not in ("", "native"):
        _check_cpu(opts)


def _check_cpu(opts: Options) -> None:
    """LLVM aborts the whole process on some CPU names it does not know: names
    outside our table are tried in a child process first (target_check)."""
    from .codegen.features import known_cpu
    if known_cpu(opts):
        return
    from .target_check import check_target
    problem = check_target(opts)
    if problem:
        raise UsageError(f"--target={opts.target_cpu}: {problem}", kind="codegen")
