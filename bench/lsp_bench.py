"""Language server latency, measured through a real stdio client (a minimal
JSON-RPC client over the pipes of an `eals` process):

- diagnostics: from sending a one-line `didChange` (a range edit that breaks or
  fixes a line) to the `publishDiagnostics` for that version, on a generated
  1,000-line file; p50 and p95 over 200 edits, each waiting for its diagnostics;
- hover on an exported kernel name: cold (first request on a new version, so the
  compiled-code report is built) and cached (same version again);
- completion p95.

    .venv/bin/python bench/lsp_bench.py [--edits N] [--lines N] [--json]

Targets: diagnostics p95 <= 50 ms, cached hover p95 <= 10 ms, completion p95 <= 30 ms.
Hover and completion are skipped, with a note, if the server does not announce them.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
URI = "file:///tmp/lsp_bench.ea"
TARGETS_MS = {"diagnostics": 50.0, "hover cached": 10.0, "completion": 30.0}
GOOD, BAD = "        acc = acc .+ load_f32x4(a, i)", "        acc = acc + load_f32x4(a, i)"


def generate(lines: int) -> list[str]:
    """Ten-line exported functions: loads, a vector loop, a reduction."""
    out: list[str] = []
    while len(out) < lines:
        k = len(out) // 10
        out += [f"export func k{k}(a: *restrict f32, n: i32) -> f32 {{", "    let mut acc: f32x4 = splat(0.0)",
                "    let mut i: i32 = 0", "    while i + 4 <= n {", GOOD, "        i = i + 4", "    }",
                "    return reduce_add(acc)", "}", ""]
    return out[:lines]


class Client:
    """JSON-RPC over the server's stdin/stdout. A reader thread stamps every
    message with its arrival time and answers the server's own requests."""

    def __init__(self, command: list[str]):
        self.proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.inbox: list[tuple[float, dict]] = []
        self.cond = threading.Condition()
        self.write_lock = threading.Lock()
        self.closed = False
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                break
            message = json.loads(stream.read(length))
            stamp = time.perf_counter()
            if "method" in message and "id" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            with self.cond:
                self.inbox.append((stamp, message))
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def send(self, message: dict) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        with self.write_lock:
            sent = time.perf_counter()
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        return sent

    def notify(self, method: str, params) -> float:
        return self.send({"method": method, "params": params})

    def wait(self, match, since: int = 0, timeout: float = 30.0) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for stamp, message in self.inbox[since:]:
                    if match(message):
                        return stamp, message
                if self.closed or time.monotonic() > deadline:
                    raise RuntimeError("the server closed its output" if self.closed else "timed out waiting")
                self.cond.wait(deadline - time.monotonic())

    def request(self, method: str, params, timeout: float = 30.0) -> tuple[float, dict]:
        """(latency in ms, response)."""
        self.next_id += 1
        ident, since = self.next_id, len(self.inbox)
        sent = self.send({"id": ident, "method": method, "params": params})
        stamp, message = self.wait(lambda m: m.get("id") == ident and "method" not in m, since, timeout)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return (stamp - sent) * 1000.0, message

    def change_line(self, version: int, line: int, old: str, new: str) -> float:
        """Replace one line; return ms until its version's diagnostics arrive."""
        since = len(self.inbox)
        sent = self.notify("textDocument/didChange", {
            "textDocument": {"uri": URI, "version": version},
            "contentChanges": [{"range": {"start": {"line": line, "character": 0},
                                          "end": {"line": line, "character": len(old)}}, "text": new}]})
        stamp, _ = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == URI and m["params"].get("version") == version, since)
        return (stamp - sent) * 1000.0

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50_ms": statistics.median(values), "p95_ms": pct(values, 0.95),
            "max_ms": max(values)}


def run(edits: int, lines: int) -> dict:
    client = Client([sys.executable, "-m", "eals.cli"])
    try:
        _, init = client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {
            "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                             "completion": {"completionItem": {"snippetSupport": True}}}}})
        caps = init["result"]["capabilities"]
        client.notify("initialized", {})
        text = generate(lines)
        since = len(client.inbox)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": URI, "languageId": "ea", "version": 1, "text": "\n".join(text) + "\n"}})
        client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"].get("version") == 1, since)
        version, results, notes = 1, {"lines": lines}, []
        diag = []
        for n in range(edits):  # break a line, then fix it, walking through the functions
            line = 10 * ((n // 2) % (lines // 10)) + 4
            old, new = (GOOD, BAD) if n % 2 == 0 else (BAD, GOOD)
            version += 1
            diag.append(client.change_line(version, line, old, new))
        if edits % 2:  # leave the file without errors, so hover shows compiled code
            version += 1
            client.change_line(version, line, BAD, GOOD)
        results["diagnostics"] = summary(diag)

        where = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": len("export func ")}}
        if caps.get("hoverProvider"):
            cold, comment = [], text[9]
            for k in range(3):  # a new text each time: the compiled-code report is rebuilt
                version += 1
                client.change_line(version, 9, comment, f"// cold hover {k}")
                comment = f"// cold hover {k}"
                ms, response = client.request("textDocument/hover", where, timeout=120)
                cold.append(ms)
            if not response.get("result"):
                notes.append("hover on 'k0' returned nothing")
            cached = [client.request("textDocument/hover", where)[0] for _ in range(100)]
            results["hover cold"], results["hover cached"] = summary(cold), summary(cached)
        else:
            notes.append("hover skipped: the server announces no hoverProvider")

        if caps.get("completionProvider"):
            at = {"textDocument": {"uri": URI}, "position": {"line": 4, "character": GOOD.index("load") + 2}}
            times, items = [], None
            for _ in range(100):
                ms, response = client.request("textDocument/completion", at)
                times.append(ms)
                items = response.get("result")
            count = len(items["items"] if isinstance(items, dict) else items or [])
            if not count:
                notes.append("completion after 'lo' returned no items")
            results["completion"] = summary(times)
        else:
            notes.append("completion skipped: the server announces no completionProvider")
        results["notes"] = notes
        return results
    finally:
        client.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=200, help="one-line edits (default 200)")
    ap.add_argument("--lines", type=int, default=1000, help="lines in the generated file (default 1000)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    results = run(max(args.edits, 1), max(args.lines, 10))
    rows = [key for key in ("diagnostics", "hover cold", "hover cached", "completion") if key in results]
    for key in rows:
        target = TARGETS_MS.get(key)
        results[key]["target_p95_ms"] = target
        results[key]["meets_target"] = None if target is None else results[key]["p95_ms"] <= target
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"eals latency over stdio, generated {results['lines']:,}-line file")
    print(f"  {'measure':<14} {'n':>5} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}  target (p95)")
    for key in rows:
        r = results[key]
        target = "-" if r["target_p95_ms"] is None else \
            f"<= {r['target_p95_ms']:.0f} ms: {'ok' if r['meets_target'] else 'over target'}"
        print(f"  {key:<14} {r['n']:>5} {r['p50_ms']:>9.2f} {r['p95_ms']:>9.2f} {r['max_ms']:>9.2f}  {target}")
    for note in results["notes"]:
        print(f"  note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
