"""Small end-to-end harness: compile an Eä source with the `ea` CLI in a
temporary directory, link the object with a C driver, run it, return stdout.

    out = run_c(EA_SRC, C_SRC, tmp_path)            # ea k.ea; cc main.c k.o -o prog -lm; ./prog
    proc = ea("k.ea", "--lib", cwd=tmp_path)          # raw CLI call
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import hostcpu
from ea_compiler.options import Options
from ea_compiler.target_flags import joined, parse_target_flag, TARGET_VALUE_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
_COMPILED_FOR: dict[Path, Options] = {}  # object file -> the target it was compiled for
EA = ROOT / ".venv" / "bin" / "ea"
CC = os.environ.get("CC", "cc")


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run `ea ARGS` in `cwd`; never raises on a non-zero exit."""
    return subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def cc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CC, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def compile_ea(src: str, tmp: Path, *flags: str, name: str = "k") -> Path:
    """Write `<name>.ea` into `tmp` and compile it to `<name>.o`; fail loudly on errors."""
    (tmp / f"{name}.ea").write_text(src, encoding="utf-8")
    proc = ea(f"{name}.ea", *flags, cwd=tmp)
    if proc.returncode != 0:
        raise AssertionError(f"ea {name}.ea {' '.join(flags)} failed ({proc.returncode}):\n{proc.stderr}")
    compiled_for(tmp / f"{name}.o", options_of(flags))
    return tmp / f"{name}.o"


def options_of(flags) -> Options:
    """The target the command-line flags select."""
    opts = Options()
    for arg in joined(list(flags), TARGET_VALUE_OPTIONS):
        opts = parse_target_flag(arg, opts) or opts
    return opts


def compiled_for(obj: Path, options: Options) -> None:
    """Record the target of an object file, which link_and_run asks tests/hostcpu.py about."""
    _COMPILED_FOR[obj.resolve()] = options


def run_c(src: str, c_main: str, tmp: Path, *flags: str, name: str = "k") -> str:
    """Compile `src`, link it with the C driver `c_main`, run, return stdout."""
    return link_and_run(compile_ea(src, tmp, *flags, name=name), c_main, tmp)


def link_and_run(obj: Path, c_main: str, tmp: Path) -> str:
    """`cc main.c OBJ -o prog -lm` in `tmp`, run ./prog, return its stdout
    (the test is skipped where this CPU cannot run the object's code)."""
    hostcpu.require_runnable(_COMPILED_FOR.get(obj.resolve(), Options()))
    (tmp / "main.c").write_text(c_main, encoding="utf-8")
    link = cc("main.c", obj.name, "-o", "prog", "-lm", cwd=tmp)
    if link.returncode != 0:
        raise AssertionError(f"cc failed:\n{link.stderr}")
    run = subprocess.run([str(tmp / "prog")], cwd=tmp, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise AssertionError(f"prog exited {run.returncode}\nstdout:\n{run.stdout}\nstderr:\n{run.stderr}")
    return run.stdout


host_has = hostcpu.has  # tests/hostcpu.py decides what this CPU has


def host_has_vnni() -> bool:
    """The host runs every form of dpbusd/dpwssd (AVX512-VNNI), or the 128/256-bit ones (AVX-VNNI)."""
    return host_has("avx512_vnni") or host_has("avx_vnni")
