"""The C-harness `ea bench`: its options and its manifest checks. All of these
fail (or print usage) before anything is built."""
from __future__ import annotations

from pathlib import Path

import pytest

from ea_compiler.bench.manifest import ManifestError, load_manifest
from ea_compiler.options import Options

from .harness_support import bench, make_bench


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "error: unknown option '--bogus'"),
    # A cross-compiled kernel could not run here: not a bench option.
    (["--target-triple=aarch64-unknown-linux-gnu"],
     "error: unknown option '--target-triple=aarch64-unknown-linux-gnu'"),
    (["--out"], "error: --out needs a value"),
    (["--opt-level=4"], "error: --opt-level must be 0, 1, 2, or 3"),
    (["--fail-on-regression=ten"],
     "error: --fail-on-regression must be a percentage, e.g. --fail-on-regression=10"),
    (["--fail-on-regression=-5"],
     "error: --fail-on-regression must be a percentage, e.g. --fail-on-regression=10"),
    (["--fail-on-regression", "--no-diff"],
     "error: --fail-on-regression needs the baseline diff that --no-diff skips"),
    (["--avx512"] if Options().is_arm else ["--fp16"],
     "error: --avx512 is incompatible with ARM target" if Options().is_arm
     else "error[codegen]: --fp16 is incompatible with non-ARM target"),
])
def test_option_errors(tmp_path, capsys, args, message):
    assert bench(capsys, make_bench(tmp_path), *args) == (1, "", [message])


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_prints_usage_and_exits_0(tmp_path, capsys, flag):
    # Even with a manifest that does not exist.
    code, out, err = bench(capsys, tmp_path / "missing.toml", "--no-diff", flag)
    assert (code, out) == (0, "")
    assert err[0] == "usage: ea bench <manifest.toml> [options]"
    assert any(line.lstrip().startswith("--fail-on-regression[=PCT]") for line in err)


REQUIRED = {"name": '"tiny"', "kernel": '"k.ea"', "harness": '"h.c"',
            "baseline": '"b.json"', "arch": '["x86_64"]'}


def write_manifest(folder: Path, text: str) -> Path:
    path = folder / "m.toml"
    path.write_text(text)
    return path


def lines(**keys: str) -> str:
    return "".join(f"{k} = {v}\n" for k, v in keys.items())


@pytest.mark.parametrize("text, message", [
    (lines(**REQUIRED, wat='"huh"'), "unknown key 'wat'"),
    (lines(**REQUIRED) + "[extra]\nx = 1\n", "unknown key 'extra'"),
    (lines(**{k: v for k, v in REQUIRED.items() if k != "baseline"}),
     "missing required key 'baseline'"),
    (lines(**dict(REQUIRED, name="3")), "'name' must be a string"),
    (lines(**dict(REQUIRED, arch='"x86_64"')), "'arch' must be an array of strings"),
    (lines(**REQUIRED, cc_flags='["-O2", 3]'), "'cc_flags' must be an array of strings"),
    (lines(**dict(REQUIRED, arch="[]")), "'arch' must not be empty"),
    (lines(**dict(REQUIRED, arch='["x86_64", "riscv64"]')),
     "unknown arch 'riscv64' in 'arch' (expected \"x86_64\" or \"aarch64\")"),
    (lines(**dict(REQUIRED, name='"../evil"')),
     "'name' must be letters, digits, '_', '-' or '.' (got '../evil')"),
])
def test_manifest_errors_name_the_file_and_key(tmp_path, capsys, text, message):
    path = write_manifest(tmp_path, text)
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert str(err.value) == f"manifest {path}: {message}"
    # The command reports it as an error, exit 1.
    assert bench(capsys, path) == (1, "", [f"error: manifest {path}: {message}"])


def test_manifest_that_is_not_toml(tmp_path, capsys):
    path = write_manifest(tmp_path, 'name = "x\n')
    code, out, err = bench(capsys, path)
    assert (code, out, len(err)) == (1, "", 1)
    # The rest is tomllib's own wording, which varies between Python versions.
    assert err[0].startswith(f"error: manifest {path}: invalid TOML: ")


def test_manifest_that_cannot_be_read(tmp_path, capsys):
    path = tmp_path / "missing.toml"
    assert bench(capsys, path) == \
        (1, "", [f"error: cannot read '{path}': No such file or directory"])
    path.write_bytes(b'name = "\xff"\n')
    assert bench(capsys, path) == (1, "", [f"error: manifest {path}: not UTF-8 text"])


def test_manifest_paths_and_defaults(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    path = write_manifest(sub, "# a comment\n" + lines(
        **dict(REQUIRED, kernel='"../k.ea"', baseline='"/abs/b.json"',
               arch='["aarch64", "x86_64"]')))
    m = load_manifest(path)
    assert (m.path, m.name, m.kernel, m.harness, m.baseline) == \
        (path, "tiny", tmp_path / "k.ea", sub / "h.c", Path("/abs/b.json"))
    assert (m.arch, m.ea_flags, m.cc_flags) == (("aarch64", "x86_64"), (), ("-O2",))
    m = load_manifest(write_manifest(sub, lines(**REQUIRED, ea_flags='["--avx512"]',
                                                cc_flags="[]")))
    assert (m.ea_flags, m.cc_flags) == (("--avx512",), ())
