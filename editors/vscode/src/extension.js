// Eä for VS Code: starts the `eals` language server over stdio for `ea` documents.
// Plain CommonJS, no build step. The server reads its settings from
// initializationOptions and workspace/didChangeConfiguration as {ea: {...}}.
'use strict';

const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { LanguageClient, DidChangeConfigurationNotification } = require('vscode-languageclient/node');

const SECTION = 'ea';
const INLAY_LEVELS = ['off', 'functions', 'lines'];

let client = null;
let output = null;

// The `ea.*` settings in the object shape eals expects (see eals/config.py).
function serverSettings() {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const optLevel = Number(cfg.get('optLevel', 3));
  const inlay = cfg.get('inlayHints', 'functions');
  return {
    ea: {
      target_cpu: String(cfg.get('targetCpu', 'native') || 'native'),
      target_triple: String(cfg.get('targetTriple', '') || ''),
      avx512: Boolean(cfg.get('avx512', false)),
      opt_level: [0, 1, 2, 3].includes(optLevel) ? optLevel : 3,
      inlayHints: INLAY_LEVELS.includes(inlay) ? inlay : 'functions',
    },
  };
}

function workspaceRoot() {
  const folders = vscode.workspace.workspaceFolders;
  return folders && folders.length > 0 ? folders[0].uri.fsPath : undefined;
}

// `ea.serverPath` -> the command to spawn. A bare name is left to PATH; `~` and
// `${workspaceFolder}` are expanded; a relative path with a separator is taken
// relative to the first workspace folder (e.g. `.venv/bin/eals`).
function resolveServerCommand(setting, root) {
  let command = typeof setting === 'string' ? setting.trim() : '';
  if (!command) {
    return 'eals';
  }
  if (root) {
    command = command.split('${workspaceFolder}').join(root);
  }
  if (command === '~' || command.startsWith('~/')) {
    command = path.join(os.homedir(), command.slice(1));
  }
  const hasSeparator = command.includes('/') || command.includes('\\');
  if (hasSeparator && !path.isAbsolute(command) && root) {
    command = path.resolve(root, command);
  }
  return command;
}

function createClient() {
  const root = workspaceRoot();
  const command = resolveServerCommand(
    vscode.workspace.getConfiguration(SECTION).get('serverPath', 'eals'), root);
  // No `transport`: with TransportKind.stdio the client appends `--stdio` to the arguments, which
  // eals rejects; without it the client still speaks LSP over the process's stdin/stdout.
  const serverOptions = {
    command,
    args: [],
    options: root ? { cwd: root } : {},
  };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'ea' },
      { scheme: 'untitled', language: 'ea' },
    ],
    initializationOptions: serverSettings(),
    outputChannel: output,
  };
  return new LanguageClient('ea', 'Eä Language Server', serverOptions, clientOptions);
}

async function startClient() {
  client = createClient();
  try {
    await client.start();
  } catch (err) {
    const message = err && err.message ? err.message : String(err);
    vscode.window.showErrorMessage(
      `Eä: could not start the language server (${message}). ` +
      'Set "ea.serverPath" to the eals executable, e.g. /path/to/repo/.venv/bin/eals.');
  }
}

async function stopClient() {
  const running = client;
  client = null;
  if (running) {
    try {
      await running.stop();
    } catch (_) {
      // A server that never started cannot be stopped; nothing to clean up.
    }
  }
}

async function restartClient() {
  await stopClient();
  await startClient();
}

async function onConfigurationChanged(event) {
  if (!event.affectsConfiguration(SECTION)) {
    return;
  }
  if (event.affectsConfiguration(`${SECTION}.serverPath`)) {
    await restartClient();
    return;
  }
  if (client && client.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings() });
  }
}

async function activate(context) {
  output = vscode.window.createOutputChannel('Eä Language Server');
  context.subscriptions.push(output);
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(onConfigurationChanged));
  context.subscriptions.push(vscode.commands.registerCommand('ea.restartServer', restartClient));
  await startClient();
}

function deactivate() {
  return stopClient();
}

module.exports = {
  activate,
  deactivate,
  // For tests.
  serverSettings,
  resolveServerCommand,
  currentClient: () => client,
};
