#!/usr/bin/env bash
# Installs the Debian packages the test suite needs, when they are missing.
set -euo pipefail
PACKAGES=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user neovim tmux emacs-nox elpa-eglot elpa-lsp-mode)   # AArch64 cross-compile + user-mode emulation (tests/e2e/test_aarch64*.py); neovim (tests/editors/test_nvim.py); tmux (tests/tui: ea-tui in a real terminal); emacs-nox with eglot and lsp-mode (tests/editors/test_emacs.py)
# chromium drives code-server headless; g++, make, pkg-config and the -dev packages build VS Code's native
# modules when .ci/vscode-host.sh installs code-server (tests/editors/test_vscode_host.py)
# llvm-16 ships llvm-mca-16, the machine model behind `ea inspect`'s predicted cycles per iteration
# (compiler/inspect/predict/mca.py, which also takes llvm-mca-14; tests/test_predict.py pins their figures)
PACKAGES+=(llvm-16)
PACKAGES+=(chromium g++ make pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # Recommends would double the count (212 packages instead of 101 on a fresh Debian 12: mail, printing,
  # samba and desktop packages) and none of the tests uses them.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
