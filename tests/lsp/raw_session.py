"""A language-server session over raw stdio bytes, for tests that send what no
well-behaved client library would (bad lengths, bad params, bad JSON) and check
every byte the server writes back."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream) -> dict | None:
    """One strictly framed JSON-RPC message, or None at end of stream."""
    headers = {}
    while True:
        line = stream.readline()
        if not line:
            assert not headers, f"stream ended inside headers {headers}"
            return None
        if line == b"\r\n":
            break
        assert line.endswith(b"\r\n") and b":" in line, f"not a protocol header on stdout: {line!r}"
        name, value = line[:-2].split(b":", 1)
        headers[name.strip().lower()] = value.strip()
    body = stream.read(int(headers[b"content-length"]))
    message = json.loads(body)
    assert message.get("jsonrpc") == "2.0", message
    return message


class RawSession:
    """`eals` in a subprocess; `send` writes messages or raw bytes, `until`
    waits (with a timeout) for a message matching a predicate."""

    def __init__(self, timeout: float = 30):
        self.proc = subprocess.Popen([sys.executable, "-m", "eals.cli"], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.timeout = timeout
        self.messages: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while (m := read_frame(self.proc.stdout)) is not None:
            self.messages.put(m)
        self.messages.put(None)

    def send(self, message: dict | bytes) -> None:
        data = message if isinstance(message, bytes) else frame({"jsonrpc": "2.0", **message})
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def until(self, pred, timeout: float | None = None) -> dict:
        while True:
            try:
                m = self.messages.get(timeout=timeout or self.timeout)
            except queue.Empty:
                raise AssertionError(f"no matching message; seen {self.seen[-5:]}") from None
            if m is None:
                raise AssertionError("server stdout closed early")
            self.seen.append(m)
            if pred(m):
                return m

    def answer(self, msg_id) -> dict:
        return self.until(lambda m: m.get("id") == msg_id and "method" not in m)

    def initialize(self, capabilities: dict | None = None) -> dict:
        self.send({"id": 0, "method": "initialize",
                   "params": {"processId": None, "rootUri": None, "capabilities": capabilities or {}}})
        reply = self.answer(0)
        self.send({"method": "initialized", "params": {}})
        return reply

    def close(self) -> tuple[int, bytes]:
        """Shut down cleanly; the exit code and everything written to stderr."""
        try:
            self.send({"id": "bye", "method": "shutdown"})
            self.answer("bye")
            self.send({"method": "exit"})
            code = self.proc.wait(timeout=10)
        finally:
            self.proc.kill()
        return code, self.proc.stderr.read()
