// Loads src/extension.js outside VS Code: `vscode` is replaced by a small fake
// (settings, events, commands, messages) and LanguageClient by a recorder, so
// tests can see what the extension would start and send.
'use strict';

const Module = require('module');
const path = require('path');

const EXTENSION = path.join(__dirname, '..', 'src', 'extension.js');

// require(file) with some module names answered by fakes.
function requireWith(file, fakes) {
  const originalLoad = Module._load;
  Module._load = function load(request, parent, isMain) {
    if (Object.prototype.hasOwnProperty.call(fakes, request)) {
      return fakes[request];
    }
    return originalLoad.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve(file)];
    return require(file);
  } finally {
    Module._load = originalLoad;
  }
}

function loadExtension({ settings = {}, workspaceRoot } = {}) {
  const state = {
    settings: { ...settings },
    clients: [],
    notifications: [],
    errors: [],
    commands: new Map(),
    configListeners: [],
    startFails: false,
  };

  const fakeVscode = {
    workspace: {
      workspaceFolders: workspaceRoot ? [{ uri: { fsPath: workspaceRoot } }] : undefined,
      getConfiguration(section) {
        if (section !== 'ea') {
          throw new Error(`unexpected configuration section ${section}`);
        }
        return {
          get(key, fallback) {
            return Object.prototype.hasOwnProperty.call(state.settings, key) ? state.settings[key] : fallback;
          },
        };
      },
      onDidChangeConfiguration(listener) {
        state.configListeners.push(listener);
        return { dispose() {} };
      },
    },
    window: {
      createOutputChannel(name) {
        return { name, appendLine() {}, dispose() {} };
      },
      showErrorMessage(message) {
        state.errors.push(message);
      },
    },
    commands: {
      registerCommand(id, fn) {
        state.commands.set(id, fn);
        return { dispose() {} };
      },
    },
  };

  const DidChangeConfigurationNotification = { type: { method: 'workspace/didChangeConfiguration' } };

  class FakeLanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      this.id = id;
      this.name = name;
      this.serverOptions = serverOptions;
      this.clientOptions = clientOptions;
      this.running = false;
      this.stopped = false;
      state.clients.push(this);
    }
    async start() {
      if (state.startFails) {
        throw new Error('spawn eals ENOENT');
      }
      this.running = true;
    }
    async stop() {
      this.running = false;
      this.stopped = true;
    }
    isRunning() {
      return this.running;
    }
    async sendNotification(type, params) {
      state.notifications.push({ client: this, method: type.method, params });
    }
  }

  const fakeClientModule = { LanguageClient: FakeLanguageClient, DidChangeConfigurationNotification };

  const ext = requireWith(EXTENSION, { vscode: fakeVscode, 'vscode-languageclient/node': fakeClientModule });

  const context = { subscriptions: [] };

  // Change settings and fire onDidChangeConfiguration the way VS Code does.
  async function changeSettings(changes) {
    Object.assign(state.settings, changes);
    const keys = Object.keys(changes).map((k) => `ea.${k}`);
    const event = {
      affectsConfiguration(section) {
        return keys.some((k) => k === section || k.startsWith(`${section}.`));
      },
    };
    for (const listener of state.configListeners) {
      await listener(event);
    }
  }

  return { ext, state, context, changeSettings, DidChangeConfigurationNotification };
}

module.exports = { loadExtension };

// Command line, used by tests/editors/test_vscode.py:
//   node tests/harness.js settings '<settings json>'
//     prints the initializationOptions the extension sends for those `ea.*` settings;
//   node tests/harness.js load <path/to/extension.js>
//     requires that file with the real vscode-languageclient it finds beside it (e.g. in an
//     unpacked .vsix) and only `vscode` faked, and prints its exports.
if (require.main === module) {
  const [command, arg] = process.argv.slice(2);
  if (command === 'settings') {
    const { ext } = loadExtension({ settings: JSON.parse(arg || '{}') });
    process.stdout.write(JSON.stringify(ext.serverSettings()));
  } else if (command === 'load') {
    // Any vscode API the client library touches while loading is an empty class.
    const anything = new Proxy({}, {
      get(target, key) {
        if (!(key in target)) {
          target[key] = class {};
        }
        return target[key];
      },
    });
    const ext = requireWith(path.resolve(arg), { vscode: anything });
    process.stdout.write(JSON.stringify({ exports: Object.keys(ext).sort() }));
  } else {
    process.stderr.write('usage: harness.js settings <json> | load <extension.js>\n');
    process.exit(2);
  }
}
