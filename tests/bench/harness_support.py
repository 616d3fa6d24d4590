"""What the C-harness `ea bench` tests share: a benchmark written into a
test's folder (a one-function kernel, a C harness that prints exactly what
the test says, a manifest) and running it in-process."""
from __future__ import annotations

import json
from pathlib import Path

from ea_compiler.bench import harness
from ea_compiler.bench.envinfo import host_arch

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
HOST = host_arch()
OTHER = "aarch64" if HOST == "x86_64" else "x86_64"

KERNEL = "export func add_one(x: i32) -> i32 {\n    return x + 1\n}\n"
# A type error on line 2 (integer + float literal).
BAD_KERNEL = "export func add_one(x: i32) -> i32 {\n    return x + 1.5\n}\n"

# Calls the kernel (so a build that did not link it fails), then writes the
# given bytes to stderr and stdout, then runs `ending`.
_HARNESS = """{prelude}
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int32_t add_one(int32_t x);
static const char out[] = {out};
static const char err[] = {err};
int main(void) {{
    if (add_one(41) != 42) return 99;
    fwrite(err, 1, sizeof err - 1, stderr);
    fwrite(out, 1, sizeof out - 1, stdout);
    {ending}
}}
"""

SMALL = {"kernel": "k_small", "median_ns": 100, "p10_ns": 90, "p90_ns": 120,
         "n_inner": 1000, "n_runs": 11}
LARGE = {"kernel": "k_large", "median_ns": 2000000, "n_runs": 5}


def jsonl(*measurements: dict) -> bytes:
    return "".join(json.dumps(m) + "\n" for m in measurements).encode()


def c_string(data: bytes) -> str:
    """A C string literal of arbitrary bytes (octal escapes throughout)."""
    return '"' + "".join(f"\\{b:03o}" for b in data) + '"'


def make_bench(folder: Path, *, stdout: bytes = jsonl(SMALL, LARGE), stderr: bytes = b"",
               ending: str = "return 0;", prelude: str = "", kernel: str = KERNEL,
               keys: str = "", arch: tuple[str, ...] = ("x86_64", "aarch64")) -> Path:
    """Write kernel, harness and manifest (name "tiny", baseline
    baselines/tiny.json, plus the extra TOML `keys`) into `folder`."""
    (folder / "k.ea").write_text(kernel)
    (folder / "h.c").write_text(_HARNESS.format(prelude=prelude, out=c_string(stdout),
                                                err=c_string(stderr), ending=ending))
    manifest = folder / "tiny.toml"
    manifest.write_text(
        'name = "tiny"\nkernel = "k.ea"\nharness = "h.c"\nbaseline = "baselines/tiny.json"\n'
        f"arch = {json.dumps(list(arch))}\n{keys}")
    return manifest


def bench(capsys, manifest: Path, *args: str) -> tuple[int, str, list[str]]:
    """harness.main in-process: exit code, stdout, stderr lines."""
    code = harness.main(str(manifest), list(args))
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


def baseline_path(folder: Path) -> Path:
    return folder / "baselines" / "tiny.json"
