// Unit tests of src/extension.js with a fake `vscode` (tests/harness.js), and,
// when EA_LS_COMMAND names an eals executable, a check against the real server
// that what the extension sends (initializationOptions, didChangeConfiguration)
// is understood. Run: node --test tests/
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const cp = require('child_process');
const { loadExtension } = require('./harness');
const manifest = require('../package.json');

const DEFAULTS = { target_cpu: 'native', target_triple: '', avx512: false, opt_level: 3, inlayHints: 'functions' };

test('activate starts the server command from ea.serverPath over stdio with the settings', async () => {
  const h = loadExtension({
    settings: { serverPath: '/opt/ea/bin/eals', targetCpu: 'skylake-avx512', avx512: true, optLevel: 2, inlayHints: 'lines' },
  });
  await h.ext.activate(h.context);
  assert.equal(h.state.clients.length, 1);
  const client = h.state.clients[0];
  assert.equal(client.running, true);
  assert.equal(client.serverOptions.command, '/opt/ea/bin/eals');
  // stdio without `transport`: TransportKind.stdio would make the real client append `--stdio`.
  assert.equal(client.serverOptions.transport, undefined);
  assert.deepEqual(client.serverOptions.args, []);
  assert.deepEqual(client.clientOptions.documentSelector.map((s) => s.language), ['ea', 'ea']);
  assert.deepEqual(client.clientOptions.initializationOptions, {
    ea: { target_cpu: 'skylake-avx512', target_triple: '', avx512: true, opt_level: 2, inlayHints: 'lines' },
  });
  assert.ok(h.state.commands.has('ea.restartServer'));
  assert.ok(h.context.subscriptions.length >= 3);
  assert.deepEqual(h.state.errors, []);
});

test('defaults match the contributed configuration', async () => {
  const h = loadExtension();
  assert.deepEqual(h.ext.serverSettings(), { ea: DEFAULTS });
  const props = manifest.contributes.configuration.properties;
  assert.equal(props['ea.serverPath'].default, 'eals');
  assert.equal(props['ea.targetCpu'].default, DEFAULTS.target_cpu);
  assert.equal(props['ea.targetTriple'].default, DEFAULTS.target_triple);
  assert.equal(props['ea.avx512'].default, DEFAULTS.avx512);
  assert.equal(props['ea.optLevel'].default, DEFAULTS.opt_level);
  assert.equal(props['ea.inlayHints'].default, DEFAULTS.inlayHints);
  assert.deepEqual(props['ea.inlayHints'].enum, ['off', 'functions', 'lines']);
  await h.ext.activate(h.context);
  assert.equal(h.state.clients[0].serverOptions.command, 'eals');
});

test('out-of-range settings fall back to the defaults', () => {
  const h = loadExtension({ settings: { optLevel: 7, inlayHints: 'everything', targetCpu: '' } });
  const { ea } = h.ext.serverSettings();
  assert.equal(ea.opt_level, 3);
  assert.equal(ea.inlayHints, 'functions');
  assert.equal(ea.target_cpu, 'native');
});

test('a settings change is sent as workspace/didChangeConfiguration {settings: {ea: ...}}', async () => {
  const h = loadExtension();
  await h.ext.activate(h.context);
  await h.changeSettings({ inlayHints: 'off', targetTriple: 'aarch64-unknown-linux-gnu' });
  assert.equal(h.state.notifications.length, 1);
  const [note] = h.state.notifications;
  assert.equal(note.method, 'workspace/didChangeConfiguration');
  assert.deepEqual(note.params, {
    settings: { ea: { ...DEFAULTS, inlayHints: 'off', target_triple: 'aarch64-unknown-linux-gnu' } },
  });
  assert.equal(h.state.clients.length, 1, 'no restart for ordinary settings');
});

test('changing ea.serverPath restarts the server with the new command', async () => {
  const h = loadExtension({ workspaceRoot: '/home/u/proj' });
  await h.ext.activate(h.context);
  await h.changeSettings({ serverPath: '.venv/bin/eals' });
  assert.equal(h.state.clients.length, 2);
  assert.equal(h.state.clients[0].stopped, true);
  assert.equal(h.state.clients[1].serverOptions.command, path.resolve('/home/u/proj', '.venv/bin/eals'));
  assert.equal(h.state.notifications.length, 0);
  await h.state.commands.get('ea.restartServer')();
  assert.equal(h.state.clients.length, 3);
  assert.equal(h.state.clients[1].stopped, true);
  await h.ext.deactivate();
  assert.equal(h.state.clients[2].stopped, true);
});

test('a server that cannot start is reported with a hint about ea.serverPath', async () => {
  const h = loadExtension();
  h.state.startFails = true;
  await h.ext.activate(h.context);
  assert.equal(h.state.errors.length, 1);
  assert.match(h.state.errors[0], /ENOENT/);
  assert.match(h.state.errors[0], /ea\.serverPath/);
});

test('resolveServerCommand', () => {
  const { ext } = loadExtension();
  const r = ext.resolveServerCommand;
  assert.equal(r('eals', '/w'), 'eals');
  assert.equal(r('', '/w'), 'eals');
  assert.equal(r(undefined, '/w'), 'eals');
  assert.equal(r('  /usr/bin/eals ', '/w'), '/usr/bin/eals');
  assert.equal(r('.venv/bin/eals', '/w'), path.resolve('/w', '.venv/bin/eals'));
  assert.equal(r('.venv/bin/eals', undefined), '.venv/bin/eals');
  assert.equal(r('${workspaceFolder}/.venv/bin/eals', '/w'), '/w/.venv/bin/eals');
  assert.equal(r('~/bin/eals', '/w'), path.join(require('os').homedir(), 'bin/eals'));
});

// --- against the real server ------------------------------------------------

const LS = process.env.EA_LS_COMMAND;

test('the real eals understands the initializationOptions and didChangeConfiguration', {
  skip: LS ? false : 'EA_LS_COMMAND not set (path to an eals executable)',
  timeout: 60000,
}, async () => {
  const rpc = require('vscode-jsonrpc/node');
  const h = loadExtension({ settings: { serverPath: LS, inlayHints: 'off' } });
  await h.ext.activate(h.context);
  const { serverOptions, clientOptions } = h.state.clients[0];

  const proc = cp.spawn(serverOptions.command, serverOptions.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const diagnostics = new Map();
  const waiters = [];
  conn.onNotification('textDocument/publishDiagnostics', (p) => {
    diagnostics.set(p.uri, p.diagnostics);
    waiters.splice(0).forEach((w) => w());
  });
  const published = (uri) => new Promise((resolve) => {
    const check = () => (diagnostics.has(uri) ? resolve(diagnostics.get(uri)) : waiters.push(check));
    check();
  });
  conn.listen();
  try {
    const init = await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      initializationOptions: clientOptions.initializationOptions,
    });
    assert.ok(init.capabilities.inlayHintProvider, 'server offers inlay hints');
    await conn.sendNotification('initialized', {});

    const bad = 'file:///tmp/ea-vscode-bad.ea';
    await conn.sendNotification('textDocument/didOpen', { textDocument: {
      uri: bad, languageId: 'ea', version: 1,
      text: 'export func f(a: f32x4, b: f32x4) -> f32x4 {\n    return a + b\n}\n',
    } });
    const diags = await published(bad);
    assert.equal(diags.length, 1);
    assert.match(diags[0].message, /\.\+/);

    const good = 'file:///tmp/ea-vscode-good.ea';
    await conn.sendNotification('textDocument/didOpen', { textDocument: {
      uri: good, languageId: 'ea', version: 1,
      text: 'export func add(a: f32x4, b: f32x4) -> f32x4 {\n    return a .+ b\n}\n',
    } });
    const range = { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } };
    const hintsOff = await conn.sendRequest('textDocument/inlayHint', { textDocument: { uri: good }, range });
    assert.deepEqual(hintsOff || [], [], 'inlayHints "off" from initializationOptions is honoured');

    await h.changeSettings({ inlayHints: 'functions' });
    const [note] = h.state.notifications;
    await conn.sendNotification(note.method, note.params);
    const hintsOn = await conn.sendRequest('textDocument/inlayHint', { textDocument: { uri: good }, range });
    assert.ok(hintsOn && hintsOn.length >= 1, 'inlayHints "functions" from didChangeConfiguration is honoured');
    assert.equal(hintsOn[0].position.line, 0);

    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } finally {
    conn.dispose();
    if (proc.exitCode === null) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => { proc.kill(); resolve(); }, 5000);
        proc.on('exit', () => { clearTimeout(timer); resolve(); });
      });
    }
  }
});
