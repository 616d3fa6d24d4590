// Test-only extension, installed beside the packaged Eä extension in a real VS Code extension host
// (code-server) by tests/editors/test_vscode_host.py. It opens the workspace's probe.json `file`
// through the editor, waits for its diagnostics, asks for a hover, fixes the error with an edit,
// waits for the diagnostics to clear, and writes what it saw to probe-result.json.
'use strict';

const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

function diagnosticsWhen(uri, done, timeoutMs) {
  return new Promise((resolve) => {
    let timer = null;
    const sub = vscode.languages.onDidChangeDiagnostics(() => check());
    function check() {
      const diags = vscode.languages.getDiagnostics(uri);
      if (done(diags)) {
        sub.dispose();
        clearTimeout(timer);
        resolve({ diags, timedOut: false });
      }
    }
    timer = setTimeout(() => {
      sub.dispose();
      resolve({ diags: vscode.languages.getDiagnostics(uri), timedOut: true });
    }, timeoutMs);
    check();
  });
}

function plain(d) {
  return {
    message: d.message,
    source: d.source,
    severity: d.severity,
    code: d.code !== null && typeof d.code === 'object' ? d.code.value : d.code,
    range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character],
  };
}

async function probe(root, spec) {
  const uri = vscode.Uri.file(path.join(root, spec.file));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);
  const first = await diagnosticsWhen(uri, (d) => d.length > 0, spec.timeoutMs);
  const ext = vscode.extensions.getExtension('ea-toolchain.ea-vscode');
  const hovers = await vscode.commands.executeCommand(
    'vscode.executeHoverProvider', uri, new vscode.Position(spec.hover[0], spec.hover[1]));
  const hoverText = (hovers || []).flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(...spec.fix.range), spec.fix.text);
  const applied = await vscode.workspace.applyEdit(edit);
  const after = await diagnosticsWhen(uri, (d) => d.length === 0, spec.timeoutMs);
  return {
    vscodeVersion: vscode.version,
    languageId: doc.languageId,
    extension: ext ? { active: ext.isActive, path: ext.extensionPath } : null,
    diagnostics: first.diags.map(plain),
    diagnosticsTimedOut: first.timedOut,
    hover: hoverText,
    editApplied: applied,
    diagnosticsAfterFix: after.diags.map(plain),
    afterFixTimedOut: after.timedOut,
  };
}

async function activate() {
  const root = vscode.workspace.workspaceFolders[0].uri.fsPath;
  const spec = JSON.parse(fs.readFileSync(path.join(root, 'probe.json'), 'utf8'));
  let result;
  try {
    result = await probe(root, spec);
  } catch (err) {
    result = { error: String(err && err.stack ? err.stack : err) };
  }
  fs.writeFileSync(path.join(root, 'probe-result.json'), JSON.stringify(result, null, 1));
}

module.exports = { activate, deactivate() {} };
