"""Language server memory under a long editing session: RSS of an `eals`
process before and after N one-character edits (each a `didChange` of a
small document, sent without waiting, as a fast typist's editor does), with a
diagnostics round trip every 500 edits so the server is really working.

    .venv/bin/python bench/lsp_soak.py [--edits 20000] [--json]

Target: RSS after the edits within 10 MB of RSS after the first 500 (pygls 2.1
alone keeps ~2 KB per notification; eals.protocol removes them)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "lsp"))
from raw_session import RawSession  # noqa: E402

URI = "file:///tmp/soak.ea"
TEXT = "export func f(a: f32) -> f32 {\n    return a\n}\n"
TARGET_MB = 10.0


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=20000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    s = RawSession(timeout=120)
    s.initialize()
    s.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": URI, "languageId": "ea", "version": 1, "text": TEXT}}})
    start = None
    for k in range(1, args.edits + 1):
        col = 11 + (k % 2)  # type a character, then delete it
        change = ({"range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 11}},
                   "text": "a"} if k % 2 else
                  {"range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": col}},
                   "text": ""})
        s.send({"method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": k + 1}, "contentChanges": [change]}})
        if k % 500 == 0:
            s.send({"id": k, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": URI}}})
            s.answer(k)
            s.messages.queue.clear()
            s.seen.clear()
            if start is None:
                start = rss_mb(s.proc.pid)
    end = rss_mb(s.proc.pid)
    s.close()
    growth = end - start
    result = {"edits": args.edits, "rss_start_mb": round(start, 1), "rss_end_mb": round(end, 1),
              "growth_mb": round(growth, 1), "target_mb": TARGET_MB, "ok": growth <= TARGET_MB}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"eals RSS after 500 edits {start:.1f} MB, after {args.edits} edits {end:.1f} MB: "
              f"growth {growth:+.1f} MB (target <= {TARGET_MB:.0f} MB) {'ok' if result['ok'] else 'OVER'}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
