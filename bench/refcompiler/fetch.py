"""Find, or fetch once, the reference Eä compiler (PyPI's `ea-compiler`) and a
loader to run it with.

The wheel's `ea/bin/ea` needs glibc 2.38 or newer; on an older system it runs
under Debian trixie's dynamic loader, with trixie's libc6 unpacked beside it
(only the compiler: the libraries it writes load in any process). Everything
goes to `<repo>/.cache/reference-ea/<version>/` (git-ignored):

    ea/bin/ea                                   from the wheel (never pip-installed: its
                                                top-level package `ea` would shadow ours)
    glibc/usr/lib/x86_64-linux-gnu/...          libc6 of trixie, when the host's is too old

`locate` never raises: it returns a `Reference` or the reason there is none,
so a machine without the network skips the reference column instead of failing.
"""
from __future__ import annotations

import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

VERSION = "1.10.0"
ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "reference-ea"
DEBIAN = "http://deb.debian.org/debian"
PACKAGES = f"{DEBIAN}/dists/trixie/main/binary-amd64/Packages.xz"
LIBDIR = Path("usr/lib/x86_64-linux-gnu")
TIMEOUT = 120


@dataclass(frozen=True)
class Reference:
    """How to run the reference compiler: `command + [file.ea, flags...]`."""
    command: tuple[str, ...]
    version: str
    where: Path


class FetchError(Exception):
    """Why the reference compiler could not be fetched (the message says which step)."""


def binary(folder: Path) -> Path:
    return folder / "ea" / "bin" / "ea"


def loader_command(folder: Path) -> tuple[str, ...]:
    """The command that runs `folder`'s compiler under the glibc unpacked beside it."""
    lib = folder / "glibc" / LIBDIR
    return (str(lib / "ld-linux-x86-64.so.2"), "--library-path", str(lib), str(binary(folder)))


def version_of(command: tuple[str, ...]) -> str | None:
    """`ea --version`'s number, or None when the command does not run."""
    try:
        proc = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    out = proc.stdout.strip()
    return out.removeprefix("ea ").strip() if proc.returncode == 0 and out.startswith("ea ") else None


def usable(folder: Path) -> Reference | None:
    """The compiler in `folder` if it runs: directly, else under the glibc beside it."""
    if not binary(folder).is_file():
        return None
    for command in ((str(binary(folder)),), loader_command(folder)):
        found = version_of(command)
        if found:
            return Reference(command, found, folder)
    return None


def locate(folder: Path | None = None, *, fetch: bool = True, version: str = VERSION,
           fetcher: Callable[[Path, str], None] | None = None) -> Reference | str:
    """The reference compiler cached in `folder` (default: the repo's cache for `version`),
    fetched there first when it is missing and `fetch` is set; else the reason, as text."""
    folder = Path(folder) if folder is not None else CACHE / version
    found = usable(folder)
    if found is not None:
        return found
    if not fetch:
        return f"the reference compiler is not in {folder} (fetching it was not asked for)"
    try:
        (fetcher or download)(folder, version)
    except FetchError as err:
        return f"could not fetch the reference compiler {version}: {err}"
    found = usable(folder)
    return found if found is not None else f"the reference compiler in {folder} does not run (ea --version failed)"


def download(folder: Path, version: str) -> None:
    """Fetch the wheel's binary, and trixie's libc6 if the binary does not run on this system."""
    folder.mkdir(parents=True, exist_ok=True)
    if not binary(folder).is_file():
        _wheel_binary(folder, version)
    if version_of((str(binary(folder)),)) is None and not (folder / "glibc" / LIBDIR / "libc.so.6").is_file():
        _trixie_libc(folder)


def _wheel_binary(folder: Path, version: str) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                               "--only-binary=:all:", "-d", tmp, f"ea-compiler=={version}"],
                              capture_output=True, text=True, timeout=600)
        wheels = list(Path(tmp).glob("ea_compiler-*.whl"))
        if proc.returncode != 0 or not wheels:
            last = (proc.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
            raise FetchError(f"pip download ea-compiler=={version}: {last}")
        try:
            with zipfile.ZipFile(wheels[0]) as whl:
                whl.extract("ea/bin/ea", tmp)
        except (KeyError, zipfile.BadZipFile) as err:
            raise FetchError(f"{wheels[0].name} has no ea/bin/ea ({err})") from None
        target = binary(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        extracted = Path(tmp) / "ea" / "bin" / "ea"
        extracted.chmod(0o755)
        os.replace(extracted, target)


def _get(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:
            return resp.read()
    except OSError as err:
        raise FetchError(f"{url}: {err}") from None


def libc6_filename(packages: str) -> str:
    """The pool path of `Package: libc6` in a Debian Packages index."""
    for stanza in packages.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in stanza.splitlines() if ": " in line and line[0] != " ")
        if fields.get("Package") == "libc6" and "Filename" in fields:
            return fields["Filename"]
    raise FetchError("no libc6 in trixie's Packages index")


def _trixie_libc(folder: Path) -> None:
    if shutil.which("dpkg-deb") is None:
        raise FetchError("dpkg-deb is needed to unpack trixie's libc6 (this system's glibc is too old)")
    try:
        index = lzma.decompress(_get(PACKAGES)).decode("utf-8", "replace")
    except lzma.LZMAError as err:
        raise FetchError(f"{PACKAGES}: {err}") from None
    deb = _get(f"{DEBIAN}/{libc6_filename(index)}")
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        path = Path(tmp) / "libc6.deb"
        path.write_bytes(deb)
        unpacked = Path(tmp) / "glibc"
        proc = subprocess.run(["dpkg-deb", "-x", str(path), str(unpacked)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise FetchError(f"dpkg-deb -x libc6.deb: {proc.stderr.strip()}")
        shutil.rmtree(folder / "glibc", ignore_errors=True)
        os.replace(unpacked, folder / "glibc")
