"""The packaged VS Code extension (the .vsix `vsce package` builds) in a real VS Code extension
host: code-server 4.139.1 (VS Code 1.139's workbench and Node.js extension host, installed into
.cache/vscode-host by .ci/vscode-host.sh, `make vscode-host`), its workbench loaded by Debian's
chromium headless so that the extension host starts. A test-only extension installed beside it
(tests/editors/vscode_probe) opens a file with an error through the editor and reports through the
extension API what the host saw: our extension active, the diagnostic eals published, a hover, and
the diagnostic cleared after an edit. Skipped when code-server, chromium or Node.js is missing.
One host is started for the whole module (about 10 s)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "editors" / "vscode"
PROBE = Path(__file__).resolve().parent / "vscode_probe"
CODE_SERVER = ROOT / ".cache" / "vscode-host" / "code-server"
CHROMIUM = shutil.which("chromium")
VSCE = EXT / "node_modules" / ".bin" / "vsce"
EALS = Path(sys.executable).with_name("eals")

BAD = "export func vadd(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n"
MESSAGE = "cannot use '+' on vectors. Use '.+' for element-wise vector operations"
TIMEOUT_S = 120

pytestmark = [
    pytest.mark.skipif(not CODE_SERVER.exists(),
                       reason="code-server not installed in .cache/vscode-host (make vscode-host)"),
    pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (make system-deps)"),
    pytest.mark.skipif(not shutil.which("node"), reason="Node.js not installed: the .vsix cannot be packaged"),
]


def _package(source: Path, out: Path) -> Path:
    r = subprocess.run([str(VSCE), "package", "--skip-license", "--allow-missing-repository", "-o", str(out)],
                       cwd=source, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """Ends a process started in its own session, with its children (extension host, eals)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    assert EALS.exists(), f"{EALS} missing: the venv must be installed (make test does it)"
    if not VSCE.exists():
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXT, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, f"npm ci failed:\n{r.stdout}\n{r.stderr}"
    tmp = tmp_path_factory.mktemp("vscode-host")
    home, data, extensions, work = (tmp / n for n in ("home", "data", "extensions", "work"))
    for d in (home, data / "User", extensions, work / ".vscode"):
        d.mkdir(parents=True)
    (work / "bad.ea").write_text(BAD)
    (work / ".vscode" / "settings.json").write_text(json.dumps({"ea.serverPath": str(EALS)}))
    (work / "probe.json").write_text(json.dumps({
        "file": "bad.ea", "timeoutMs": 60_000, "hover": [0, 13], "fix": {"range": [1, 13, 1, 14], "text": ".+"}}))
    (data / "User" / "settings.json").write_text(json.dumps({
        "security.workspace.trust.enabled": False, "workbench.startupEditor": "none",
        "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": False, "extensions.autoUpdate": False,
        "chat.disableAIFeatures": True}))
    # code-server keeps state under $HOME/.local and $HOME/.config; the gallery points at a closed
    # local port so that nothing is fetched from outside.
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"), XDG_CACHE_HOME=str(home / ".cache"),
               EXTENSIONS_GALLERY=json.dumps({"serviceUrl": "http://127.0.0.1:9/gallery"}))
    common = ["--config", str(tmp / "config.yaml"), "--user-data-dir", str(data), "--extensions-dir", str(extensions)]

    vsix = _package(EXT, tmp / "ea-vscode.vsix")
    probe = _package(PROBE, tmp / "probe.vsix")
    r = subprocess.run([str(CODE_SERVER), *common, "--install-extension", str(vsix), "--install-extension", str(probe)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "successfully installed" in r.stdout, r.stdout + r.stderr

    port = _free_port()
    server = subprocess.Popen(
        [str(CODE_SERVER), *common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
         "--disable-update-check", "--disable-workspace-trust", str(work)],
        env=env, stdout=open(tmp / "code-server.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)
    browser = None
    result = work / "probe-result.json"
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while "HTTP server listening" not in (tmp / "code-server.log").read_text():
            assert server.poll() is None and time.monotonic() < deadline, (tmp / "code-server.log").read_text()
            time.sleep(0.2)
        browser = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp / 'chromium'}",
             "--remote-debugging-port=0", f"http://127.0.0.1:{port}/?folder={work}"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        while not result.exists() and time.monotonic() < deadline:
            assert server.poll() is None, (tmp / "code-server.log").read_text()
            time.sleep(0.2)
        time.sleep(0.2)  # the probe writes the file in one call; let it finish
    finally:
        for proc in (browser, server):
            if proc is not None:
                _stop(proc)
    logs = "\n".join(p.read_text(errors="replace") for p in sorted((data / "logs").rglob("*.log")))
    assert result.exists(), f"the probe reported nothing within {TIMEOUT_S} s\n{logs[-6000:]}"
    return json.loads(result.read_text()), logs


def test_the_packaged_extension_activates_in_the_real_host(host):
    seen, logs = host
    assert "error" not in seen, seen["error"]
    assert seen["vscodeVersion"] == "1.139.1"
    assert seen["languageId"] == "ea"  # the manifest's language contribution
    assert seen["extension"]["active"] is True
    assert seen["extension"]["path"].endswith("ea-toolchain.ea-vscode-0.1.0")
    assert "couldn't create connection to server" not in logs, logs[-6000:]


def test_diagnostic_from_eals_reaches_the_host(host):
    seen, logs = host
    assert not seen["diagnosticsTimedOut"], logs[-6000:]
    # severity 0 is vscode.DiagnosticSeverity.Error; the range is 0-based (line 2, `a + b`).
    assert seen["diagnostics"] == [{"message": MESSAGE, "source": "ea[type]", "severity": 0,
                                    "code": "vector-operator", "range": [1, 11, 1, 16]}]


def test_hover_and_an_edit_go_through_the_host(host):
    seen, _ = host
    assert len(seen["hover"]) == 1, seen["hover"]
    assert seen["hover"][0].startswith("```ea\nexport func vadd(a: f32x4, b: f32x4) -> f32x4\n```"), seen["hover"]
    assert seen["editApplied"] is True
    assert not seen["afterFixTimedOut"] and seen["diagnosticsAfterFix"] == []
