"""Small NumPy suites written into a temporary folder, and `ea bench` runs of them."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EA = [sys.executable, "-c", "import sys; from ea_compiler.cli.main import main; sys.argv[0] = 'ea'; main()"]

FMA = (ROOT / "examples" / "fma.ea").read_text()
# Computes a*b - c: the reference a*b + c must catch it.
WRONG = FMA.replace("fma(a[i], b[i], c[i])", "a[i] * b[i] - c[i]").replace(
    "fma(va, vb, vc)", "va .* vb .- vc")

SUITE = """baseline = "base.json"

[[bench]]
function = "fma_kernel"
name = "fma"
sizes = ["4K", 1000]
bytes_per_element = 16
reference = "a * b + c"
check = "out"
[bench.args]
a = { dtype = "float32" }
b = { dtype = "float32" }
c = { dtype = "float32" }
out = { dtype = "float32", dist = "zeros" }
"""


def write_suite(tmp: Path, kernel: str = FMA, suite: str = SUITE, stem: str = "k") -> Path:
    (tmp / f"{stem}.ea").write_text(kernel)
    path = tmp / f"{stem}.bench.toml"
    path.write_text(suite)
    return path


def ea_bench(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*EA, "bench", *map(str, args)], capture_output=True, text=True, cwd=cwd or ROOT,
                          env={"EA_DEBUG": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                               "COLUMNS": "160", **(env or {})})
