"""The server under abuse, over raw stdio: absurd Content-Length values, bodies
that are not JSON, params that do not deserialise, an initialize with broken
capabilities, late cancels and refusals. Every request gets an answer, the
session survives, and stderr stays quiet."""
from __future__ import annotations

import pytest

from raw_session import RawSession

ERROR_TEXT = "export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n"
URI = "file:///tmp/abuse.ea"


def open_msg(uri: str = URI, text: str = ERROR_TEXT, version: int = 1) -> dict:
    return {"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "ea", "version": version, "text": text}}}


@pytest.fixture()
def session():
    s = RawSession()
    yield s
    s.proc.kill()
    s.proc.wait()


def hover(msg_id, position) -> dict:
    return {"id": msg_id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": URI}, "position": position}}


def test_absurd_content_length_is_refused_and_the_session_goes_on(session):
    session.initialize()
    session.send(b"Content-Length: 99999999999\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"shutdown\"}")
    logged = session.until(lambda m: m.get("method") == "window/logMessage")
    assert "Content-Length '99999999999'" in logged["params"]["message"] and logged["params"]["type"] == 1
    session.send(b"Content-Length: lots\r\n\r\n{}")
    session.until(lambda m: m.get("method") == "window/logMessage" and "'lots'" in m["params"]["message"])
    session.send(open_msg())
    published = session.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["vector-operator"]
    code, stderr = session.close()
    assert code == 0


def test_a_body_that_is_not_json_is_a_parse_error(session):
    session.initialize()
    session.send(b"Content-Length: 9\r\n\r\n{not json")
    reply = session.until(lambda m: "error" in m)
    assert reply["id"] is None and reply["error"]["code"] == -32700
    session.send({"id": 2, "method": "shutdown"})
    assert session.answer(2)["result"] is None


@pytest.mark.parametrize("params", [
    "str", [], None, {"textDocument": {"uri": URI}, "position": "x"},
    {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}},
    {"textDocument": {"uri": URI}},
], ids=["string", "list", "missing", "position-string", "negative-line", "no-position"])
def test_params_that_do_not_deserialise_are_answered_invalid_params(session, params):
    session.initialize()
    session.send(open_msg())
    message = {"id": 5, "method": "textDocument/hover"}
    if params is not None:
        message["params"] = params
    session.send(message)
    reply = session.answer(5)
    assert reply["error"]["code"] == -32602 and "textDocument/hover" in reply["error"]["message"]
    # Still serving: a good request right after is answered.
    session.send(hover(6, {"line": 1, "character": 12}))
    assert "result" in session.answer(6)
    code, stderr = session.close()
    assert code == 0 and b"Traceback" not in stderr


def test_initialize_with_broken_capabilities_is_answered(session):
    caps = {"textDocument": {"completion": {"completionItem": {"snippetSupport": True}},
                             "hover": {"contentFormat": ["no-such-format"]}},
            "workspace": 42, "experimental": {"anything": [1, 2]}, "general": {"positionEncodings": ["utf-16"]}}
    reply = session.initialize(caps)
    assert "capabilities" in reply["result"]
    session.send(open_msg())
    # The session works: diagnostics are pushed (the client declared no pull support).
    session.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    session.send({"id": 3, "method": "textDocument/completion",
                  "params": {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11}}})
    items = session.answer(3)["result"]["items"]
    fma = next(i for i in items if i["label"] == "fma")
    assert fma["insertText"].startswith("fma(${1:")  # the snippet support that did parse is honoured


def test_refusals_and_late_cancels_are_quiet(session):
    session.initialize()
    session.send(open_msg(text="export func f(x: f32) -> f32 {\n    return sqrt(x)\n}\n"))
    session.until(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    session.send({"id": 4, "method": "textDocument/rename", "params": {
        "textDocument": {"uri": URI}, "position": {"line": 1, "character": 12}, "newName": "root"}})
    reply = session.answer(4)
    assert reply["error"]["code"] == -32803
    session.send({"method": "$/cancelRequest", "params": {"id": 4}})  # already answered
    session.send({"id": 5, "method": "shutdown"})
    session.answer(5)
    assert not [m for m in session.seen if m.get("method") == "window/logMessage"
                and m["params"]["type"] in (1, 2)], "a refusal or a late cancel was logged as an error/warning"
    session.send({"method": "exit"})
    assert session.proc.wait(timeout=10) == 0
    assert session.proc.stderr.read() == b""


def test_a_client_that_pulls_is_not_also_pushed_to(session):
    session.initialize({"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    session.send(open_msg())
    session.send({"id": 8, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": URI}}})
    report = session.answer(8)["result"]
    assert [d["code"] for d in report["items"]] == ["vector-operator"]
    session.send(open_msg("file:///tmp/other.ea", version=1))
    session.send({"id": 9, "method": "textDocument/diagnostic",
                  "params": {"textDocument": {"uri": "file:///tmp/other.ea"}}})
    session.answer(9)
    session.send({"id": 10, "method": "shutdown"})
    session.answer(10)
    assert not [m for m in session.seen if m.get("method") == "textDocument/publishDiagnostics"]


def test_stdio_flag_is_accepted():
    """vscode-languageclient's stdio transport starts the server as `eals --stdio`."""
    import subprocess
    import sys
    from raw_session import ROOT, frame, read_frame
    proc = subprocess.Popen([sys.executable, "-m", "eals.cli", "--stdio"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        proc.stdin.flush()
        assert "capabilities" in read_frame(proc.stdout)["result"]
    finally:
        proc.kill()
        proc.wait()
