"""A server shut down while `ea.tune` runs exits at once: the run is cancelled,
not waited for."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from raw_session import RawSession

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_shutdown_cancels_a_running_tune(tmp_path):
    kernel = tmp_path / "reductions.ea"
    shutil.copy(EXAMPLES / "reductions.ea", kernel)
    shutil.copy(EXAMPLES / "reductions.bench.toml", kernel.with_name("reductions.bench.toml"))
    s = RawSession()
    s.initialize({"window": {"workDoneProgress": True}})
    s.send({"id": 1, "method": "workspace/executeCommand",
            "params": {"command": "ea.tune", "arguments": [kernel.as_uri(), "max_f32"]}})
    create = s.until(lambda m: m.get("method") == "window/workDoneProgress/create")
    s.send({"id": create["id"], "result": None})
    s.until(lambda m: m.get("method") == "$/progress" and "search" in m["params"]["value"].get("message", ""))
    started = time.monotonic()
    code, _ = s.close()
    assert code == 0
    assert time.monotonic() - started < 5  # a full tune of max_f32 takes far longer
    assert not kernel.with_name("reductions.tuned.ea").exists()
