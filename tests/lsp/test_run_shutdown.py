"""A server shut down while `ea.tune` runs exits at once: the run is cancelled,
not waited for, and nothing is written to stderr (a client logs it as an error),
also for a run in the background (a lens's: its command answered already)."""
from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import pytest
from raw_session import RawSession

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("options", [[], [{"background": True}]], ids=["waited", "background"])
def test_shutdown_cancels_a_running_tune(tmp_path, options):
    kernel = tmp_path / "reductions.ea"
    shutil.copy(EXAMPLES / "reductions.ea", kernel)
    shutil.copy(EXAMPLES / "reductions.bench.toml", kernel.with_name("reductions.bench.toml"))
    s = RawSession()
    s.initialize({"window": {"workDoneProgress": True}})
    s.send({"id": 1, "method": "workspace/executeCommand",
            "params": {"command": "ea.tune", "arguments": [kernel.as_uri(), "max_f32", *options]}})
    create = s.until(lambda m: m.get("method") == "window/workDoneProgress/create")
    s.send({"id": create["id"], "result": None})
    s.until(lambda m: m.get("method") == "$/progress" and "search" in m["params"]["value"].get("message", ""))
    started = time.monotonic()
    code, stderr = s.close()
    assert code == 0
    assert stderr == b""
    assert time.monotonic() - started < 5  # a full tune of max_f32 takes far longer
    assert not kernel.with_name("reductions.tuned.ea").exists()


def test_a_failed_write_is_not_reported_by_more_writes():
    """pygls reports a failed write through the server, which logs to the client:
    with the client gone that write fails too, and so on down to RecursionError
    (megabytes of chained tracebacks on stderr). The report's own log is dropped."""
    from eals.server import create_server

    class Closed:
        writes = 0

        def write(self, data):
            Closed.writes += 1
            raise ValueError("I/O operation on closed file")

    server = create_server()
    server.protocol.set_writer(Closed())
    logging.disable(logging.CRITICAL)  # pygls logs each failed write with its traceback
    try:
        server.log("hello")
    finally:
        logging.disable(logging.NOTSET)
    assert Closed.writes == 1
