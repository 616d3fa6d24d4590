"""Cross-compilation harness for the AArch64 end-to-end tests.

    out = run_arm(tmp_path, EA_SRC, C_MAIN, "--dotprod")

compiles `k.ea` with `ea --target-triple=aarch64-unknown-linux-gnu [flags]`
(the CLI, as a user would), links `k.o` with the C driver using
`aarch64-linux-gnu-gcc ... -lm` and runs the program under
`qemu-aarch64 -cpu max` (every optional extension qemu emulates is on).
Returns stdout as a list of lines.

The C prelude `C_PRELUDE` gives drivers `pf` (f32, `%.9g`, which round-trips
every float), `pd` (f64, `%.17g`), `pi`/`pu` (integers) and `nl`; any NaN
prints as `nan`. `fmt32`/`fmt64`/`f32s`/`ints`/`line` format expected
values the same way in Python.
"""
from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EA = ROOT / ".venv" / "bin" / "ea"
TRIPLE = "aarch64-unknown-linux-gnu"
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64"
SYSROOT = "/usr/aarch64-linux-gnu"


def tools_missing() -> list[str]:
    """The cross tools that are not on PATH (empty when the qemu tests can run)."""
    return [t for t in (CROSS_CC, QEMU) if shutil.which(t) is None]


def ea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the `ea` CLI; never raises on a non-zero exit."""
    return subprocess.run([str(EA), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def ea_arm(src: str, tmp: Path, *flags: str, name: str = "k") -> subprocess.CompletedProcess:
    """Write `<name>.ea` and compile it for AArch64 (result not checked)."""
    (tmp / f"{name}.ea").write_text(src, encoding="utf-8")
    return ea(f"{name}.ea", f"--target-triple={TRIPLE}", *flags, cwd=tmp)


def build_arm(tmp: Path, src: str, c_main: str, *flags: str, name: str = "k") -> Path:
    """Compile the Eä source and link it with the C driver; return the executable."""
    proc = ea_arm(src, tmp, *flags, name=name)
    if proc.returncode != 0:
        raise AssertionError(f"ea {name}.ea --target-triple={TRIPLE} {' '.join(flags)} "
                             f"failed ({proc.returncode}):\n{proc.stderr}")
    obj = tmp / f"{name}.o"
    assert obj.is_file(), f"ea reported success but wrote no {obj.name}"
    (tmp / f"{name}_main.c").write_text(C_PRELUDE + c_main, encoding="utf-8")
    exe = tmp / f"{name}_prog"
    link = subprocess.run([CROSS_CC, "-O1", "-std=gnu11", f"{name}_main.c", obj.name, "-o", exe.name, "-lm"],
                          cwd=tmp, capture_output=True, text=True, timeout=120)
    if link.returncode != 0:
        raise AssertionError(f"{CROSS_CC} failed:\n{link.stderr}")
    return exe


def qemu(exe: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([QEMU, "-cpu", "max", "-L", SYSROOT, str(exe), *args],
                          cwd=exe.parent, capture_output=True, text=True, timeout=60)


def run_arm(tmp: Path, src: str, c_main: str, *flags: str) -> list[str]:
    """Build, run under qemu, require exit status 0, return the stdout lines."""
    exe = build_arm(tmp, src, c_main, *flags)
    proc = qemu(exe)
    if proc.returncode != 0:
        raise AssertionError(f"program exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc.stdout.splitlines()


C_PRELUDE = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
static void pf(float x) { if (isnan(x)) printf("nan "); else printf("%.9g ", (double)x); }
static void pd(double x) { if (isnan(x)) printf("nan "); else printf("%.17g ", x); }
static void pi(long long x) { printf("%lld ", x); }
static void pu(unsigned long long x) { printf("%llu ", x); }
static void nl(void) { printf("\n"); fflush(stdout); }
"""


# ---- expected values, computed independently of the compiler ----

def f32(x) -> np.float32:
    return np.float32(x)


def fmt32(x) -> str:
    return "%.9g" % float(np.float32(x))


def fmt64(x) -> str:
    return "%.17g" % float(x)


def line(*items) -> str:
    """One driver line: items already formatted as strings, each followed by a space."""
    return "".join(f"{s} " for s in items)


def f32s(values) -> str:
    return line(*(fmt32(v) for v in values))


def ints(values) -> str:
    return line(*(str(int(v)) for v in values))


def round_f32(exact: Fraction) -> np.float32:
    """Round an exact rational to f32 once. The inputs are chosen so that the
    value is exact in f64 (checked), which avoids double rounding."""
    d = float(exact)
    assert Fraction(d) == exact, f"{exact} is not exact in f64; pick other test inputs"
    return np.float32(d)


def fma32(a, b, c) -> np.float32:
    """f32 fused multiply-add: a*b + c with a single rounding."""
    return round_f32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def wrap(v: int, bits: int, signed: bool = True) -> int:
    """Two's-complement wrap of an integer to `bits` bits."""
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def c_array(ctype: str, name: str, values, fmt=str) -> str:
    """A C array definition `static ctype name[] = {...};`."""
    return f"static {ctype} {name}[] = {{{', '.join(fmt(v) for v in values)}}};\n"


def c_float(v) -> str:
    """A C float literal that denotes exactly the f32 value `v`."""
    v = float(np.float32(v))
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "-INFINITY"
    return f"{v.hex()}f"


_MISSING_TOOLS = tools_missing()
needs_qemu = pytest.mark.skipif(
    bool(_MISSING_TOOLS),
    reason=f"AArch64 cross tools not installed ({', '.join(_MISSING_TOOLS)}); "
           "run .ci/system-deps.sh (gcc-aarch64-linux-gnu, qemu-user)")

# qemu feature probe: the ARM-only extensions must be present in `-cpu max`.
PROBE_C = r"""
#include <stdio.h>
#include <sys/auxv.h>
int main(void) {
    unsigned long h = getauxval(AT_HWCAP), h2 = getauxval(AT_HWCAP2);
    printf("asimddp=%d i8mm=%d asimdhp=%d\n", (int)((h >> 20) & 1), (int)((h2 >> 13) & 1),
           (int)((h >> 10) & 1));
    return 0;
}
"""


def probe_features(tmp: Path) -> dict[str, bool]:
    """HWCAP bits qemu reports: asimddp (dotprod), i8mm, asimdhp (fp16 vectors)."""
    (tmp / "probe.c").write_text(PROBE_C)
    subprocess.run([CROSS_CC, "probe.c", "-o", "probe"], cwd=tmp, check=True)
    out = qemu(tmp / "probe").stdout.split()
    return {k: v == "1" for k, v in (item.split("=") for item in out)}


def require(features: dict[str, bool], name: str) -> None:
    if not features.get(name):
        pytest.skip(f"qemu-aarch64 -cpu max does not emulate {name}")
