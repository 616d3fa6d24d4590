#!/usr/bin/env bash
# Installs the Debian packages the test suite needs, when they are missing.
set -euo pipefail
PACKAGES=()   # e.g. gcc-aarch64-linux-gnu qemu-user, added by the issues that need them
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
