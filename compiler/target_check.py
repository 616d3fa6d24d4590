"""Is a target one LLVM can generate code for? Checked in a child process.

LLVM does not fail politely on a CPU name it does not know: it prints
`'x' is not a recognized processor for this target` straight to the
process's stderr and, for some names on x86-64, aborts the whole process
(`LLVM ERROR: 64-bit code requested on a subtarget that doesn't support
it!`). Tools that take a CPU name from a user (the TUI's target switcher)
ask here first:

    from ea_compiler.target_check import check_target
    problem = check_target(Options(target_cpu="cortex-a76"))   # str | None

The answer is cached per target for the life of the process; the host's own
target (`native`, no triple, no extra features) is not probed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict

from .options import Options

_CACHE: dict[tuple, str | None] = {}
_TIMEOUT_S = 60


def check_target(options: Options) -> str | None:
    """None when LLVM accepts the target, else a one-line reason."""
    if options.target_cpu in ("", "native") and not options.target_triple and not options.avx512:
        return None
    key = options.key()
    if key not in _CACHE:
        _CACHE[key] = _probe(options)
    return _CACHE[key]


def _probe(options: Options) -> str | None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    try:
        proc = subprocess.run([sys.executable, "-m", "ea_compiler.target_check", json.dumps(asdict(options))],
                              capture_output=True, text=True, timeout=_TIMEOUT_S, env=env)
    except (OSError, subprocess.SubprocessError) as err:
        return f"cannot check the target: {err}"
    lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
    complaints = [ln for ln in lines if "not a recognized" in ln or ln.startswith("LLVM ERROR")]
    if proc.returncode != 0:
        detail = complaints or lines[-1:] or [f"exit status {proc.returncode}"]
        return f"LLVM cannot generate code for this target: {_unique(detail)}"
    if complaints:
        return f"LLVM does not know this target: {_unique(complaints)}"
    return None


def _unique(lines: list[str]) -> str:
    return "; ".join(dict.fromkeys(ln.removeprefix("LLVM ERROR: ") for ln in lines))


def _child(spec: str) -> None:
    """Build a target machine and emit a tiny function with it."""
    import llvmlite.binding as llvm

    from .codegen.target import target_machine, triple
    options = Options(**json.loads(spec))
    tm = target_machine(options)
    module = llvm.parse_assembly(
        f'target triple = "{triple(options)}"\n'
        "define float @probe(float %a, float %b) {\n  %c = fadd float %a, %b\n  ret float %c\n}\n")
    module.data_layout = str(tm.target_data)
    tm.emit_assembly(module)


if __name__ == "__main__":
    try:
        _child(sys.argv[1])
    except Exception as err:  # reported to the parent through stderr and the exit status
        print(f"LLVM ERROR: {str(err).splitlines()[0] if str(err) else type(err).__name__}", file=sys.stderr)
        sys.exit(1)
