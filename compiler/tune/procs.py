"""Running a child process the tuner does not trust (the evaluation worker,
the proposer command): in its own session, with a time limit and a cancel
event that are honoured while it runs, its whole process group killed on
either, and its output in files (no pipe can fill up and stall it)."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time

from ..bench.timing import Cancelled


class TimedOut(Exception):
    pass


def run(cmd, *, stdin: bytes = b"", timeout_s: float, cancel: threading.Event | None = None, cwd=None,
        shell: bool = False, keep_stdout: bool = True) -> tuple[int, bytes, bytes]:
    """(return code, stdout, stderr). Raises TimedOut, or Cancelled when `cancel` is set."""
    with tempfile.TemporaryFile() as fin, tempfile.TemporaryFile() as fout, tempfile.TemporaryFile() as ferr:
        fin.write(stdin)
        fin.seek(0)
        proc = subprocess.Popen(cmd, shell=shell, cwd=cwd, stdin=fin,
                                stdout=fout if keep_stdout else subprocess.DEVNULL, stderr=ferr,
                                start_new_session=True)
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    proc.wait(timeout=0.1)
                    break
                except subprocess.TimeoutExpired:
                    pass
                if cancel is not None and cancel.is_set():
                    raise Cancelled
                if time.monotonic() >= deadline:
                    raise TimedOut
        except BaseException:  # the time limit, a cancel or Ctrl-C: nothing of it may run on
            _kill(proc)
            raise
        fout.seek(0)
        ferr.seek(0)
        return proc.returncode, fout.read(), ferr.read()


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
