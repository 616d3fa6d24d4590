"""Reading LSP messages from a byte stream (stdio or TCP), defensively.

pygls' reader trusts its input: `Content-Length: 99999999999` makes it
allocate that much (MemoryError, the server dies), and a body that is not
JSON is logged but never answered. Here:

- A Content-Length above MAX_BODY (or not a number) is refused: the error is
  logged to the client and the reader resynchronises at the next line that
  starts a header (`Content-Length:`, which may follow the skipped body on
  the same line). The body that followed the bad header
  is skipped, which is the best a reader can do: a stream with a lying
  length has no reliable message boundary, and a header line is the only
  landmark it has. Lines of at most MAX_HEADER bytes are read, so a stream
  with no newline cannot exhaust memory either.
- A body that is not JSON is answered with ParseError (-32700, id null), as
  JSON-RPC requires.
- Each decoded message goes through `EaProtocol.structure`, which answers
  what cannot be deserialised.
"""
from __future__ import annotations

import asyncio
import json
import re
import threading

MAX_BODY = 64 * 1024 * 1024
MAX_HEADER = 4096
_LENGTH = re.compile(rb"content-length:\s*(\S*)\s*$", re.IGNORECASE)


class LineReader:
    """Async line/exact reads from a blocking binary stream, run in a thread,
    with a bounded line length and one line of push-back."""

    def __init__(self, stream, executor=None):
        self.stream = stream
        self.executor = executor
        self.pending: bytes | None = None

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def readline(self) -> bytes:
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        return await self._call(self.stream.readline, MAX_HEADER)

    async def readexactly(self, n: int) -> bytes:
        chunks, left = [], n
        while left:
            chunk = await self._call(self.stream.read, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)


class StreamReaderAdapter(LineReader):
    """The same interface over an asyncio.StreamReader (TCP)."""

    async def readline(self) -> bytes:
        if self.pending is not None:
            line, self.pending = self.pending, None
            return line
        try:
            return await self.stream.readuntil(b"\n")
        except asyncio.LimitOverrunError as err:
            return await self.stream.read(err.consumed)
        except asyncio.IncompleteReadError as err:
            return err.partial

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError as err:
            return err.partial


async def serve(stop: threading.Event, reader: LineReader, protocol, report) -> None:
    """The message loop. `report(message)` logs a transport problem to the client."""
    length: int | None = None
    while not stop.is_set():
        line = await reader.readline()
        if not line:
            return  # end of input
        match = _LENGTH.match(line)
        if match:
            text = match.group(1)
            length = int(text) if text.isdigit() else -1
            if not 0 <= length <= MAX_BODY:
                shown = text[:40].decode("latin-1")
                report(f"eals: refused a message with Content-Length {shown!r} "
                       f"(limit {MAX_BODY} bytes); skipping to the next header")
                length = None
                await _resynchronise(reader)
            continue
        if line.strip() or length is None:
            continue  # another header (Content-Type), or noise between messages
        body = await reader.readexactly(length)
        length = None
        if not body:
            return
        _dispatch(body, protocol, report)


async def _resynchronise(reader: LineReader) -> None:
    """Skip to the next `Content-Length:`; bodies end without a newline, so the
    header can start in the middle of a line."""
    while True:
        line = await reader.readline()
        if not line:
            return
        at = line.lower().find(b"content-length:")
        if at >= 0:
            reader.pending = line[at:]
            return


def _dispatch(body: bytes, protocol, report) -> None:
    try:
        data = json.loads(body)
    except ValueError as err:
        # JSON-RPC: the id is null when it could not be read (lsprotocol's types would omit it).
        protocol._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": f"Parse error: {err}"}})
        return
    message = protocol.structure(data)
    try:
        protocol.handle_message(message)
    except Exception as err:  # pygls handles handler errors itself; this is a last resort
        report(f"eals: could not handle a message: {type(err).__name__}: {err}")
