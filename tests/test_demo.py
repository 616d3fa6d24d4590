"""`make demo`'s script runs as the README says: builds every example and calls
three through `import ea`, checking them against NumPy (exit 0)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_demo_script():
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("<ea.Kernel 'fma' funcs=['fma_kernel'")
    assert [line.split(" on ")[0] for line in lines[1:]] == ["fma_kernel", "saxpy", "dot"]
