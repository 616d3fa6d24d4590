"""The README's workflow, run exactly as documented: every fenced `sh` block
after a `<!-- readme-test -->` marker, in order, in one temporary folder, in
a shell that first activates the environment as the README says
(`. .venv/bin/activate` from the repository). A `text` block right after a
command block is the output it must print. A marker may name the tools a
block needs (`<!-- readme-test: needs rustc cargo -->`): without them the
block and the ones after it are skipped. The test fails as soon as the
README and the behaviour diverge."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ACTIVATE = ". .venv/bin/activate"

_BLOCK = re.compile(r"<!-- readme-test(?:: needs ([^>]*?))? -->\n```sh\n(.*?)```\n(?:\n```text\n(.*?)```\n)?",
                    re.S)


def blocks() -> list[tuple[list[str], str, str | None]]:
    """(tools needed, commands, expected stdout or None), in README order."""
    return [((needs or "").split(), code, expected) for needs, code, expected in _BLOCK.findall(README.read_text())]


def test_readme_has_the_workflow_blocks():
    found = blocks()
    assert len(found) >= 5
    workflow = found[0][1]
    assert "ea k.ea --lib" in workflow and "ea bind k.ea --python" in workflow and "import numpy as np, k" in workflow
    assert "import numpy as np, ea" in workflow
    assert f"```sh\n{ACTIVATE}\n```" in README.read_text()  # how to activate, as this test does


def test_readme_workflow_runs_as_documented(tmp_path):
    for needs, code, expected in blocks():
        missing = [tool for tool in needs if shutil.which(tool) is None]
        if missing:
            pytest.skip(f"README block needs {', '.join(missing)}:\n{code}")
        script = f"cd {ROOT}\n{ACTIVATE}\ncd {tmp_path}\nset -e\n{code}"
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, \
            f"README block failed:\n{code}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        if expected is not None:
            assert done.stdout == expected, f"README block printed other output:\n{code}"
