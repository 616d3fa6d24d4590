"""Methods the server does not implement, as real clients send them unasked
(eglot: `textDocument/didSave` on every save): an unknown notification is
ignored and an unknown request answered MethodNotFound, with nothing on stderr
(Neovim records a server's stderr as ERROR lines in lsp.log) and no log message."""
from __future__ import annotations

from raw_session import RawSession

URI = "file:///tmp/unknown.ea"


def test_unknown_methods_are_quiet():
    session = RawSession()
    try:
        session.initialize()
        session.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "ea", "version": 1, "text": "export func f() -> i32 {\n    return 1\n}\n"}}})
        session.send({"method": "textDocument/didSave", "params": {"textDocument": {"uri": URI}}})
        session.send({"method": "workspace/noSuchNotification", "params": {}})
        session.send({"id": 2, "method": "textDocument/documentHighlight", "params": {
            "textDocument": {"uri": URI}, "position": {"line": 0, "character": 12}}})
        assert session.answer(2)["error"]["code"] == -32601  # MethodNotFound
        session.send({"id": 3, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": URI}, "position": {"line": 0, "character": 12}}})
        assert "f()" in session.answer(3)["result"]["contents"]["value"]  # still serving
        code, stderr = session.close()
        assert code == 0 and stderr == b""
        assert not [m for m in session.seen if m.get("method") == "window/logMessage"]
    finally:
        session.proc.kill()
        session.proc.wait()
