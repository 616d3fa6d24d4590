"""`ea bench` with an upstream C-harness manifest (TOOLCHAIN.md §7), end to end:
the kernel is built by our `ea --lib`, the harness by gcc, and the result
JSON, the relayed output and every failure message are checked."""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess

import pytest

from ea_compiler import __version__
from ea_compiler.codegen.target import host_cpu_name

from .harness_support import (BAD_KERNEL, EA, HOST, LARGE, OTHER, SMALL, bench, jsonl,
                              make_bench)

TOP_KEYS = ["schema_version", "name", "eacompute_version", "git_sha", "timestamp", "env",
            "measurements"]
ENV_KEYS = ["os", "arch", "host_cpu", "target_cpu", "target_features", "opt_level", "pinned"]


def test_result_json_schema_and_measurements(tmp_path, capsys):
    # Keys in a scrambled order, one pass-through key of each JSON kind.
    line = {"gbps": 1.5, "n_runs": 7, "kernel": "k_x", "note": "warm", "median_ns": 42,
            "sizes": [1, 2], "ok": True}
    manifest = make_bench(tmp_path, stdout=jsonl(line, LARGE))
    code, out, err = bench(capsys, manifest, "--no-diff")
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == TOP_KEYS
    assert doc["schema_version"] == 1 and doc["name"] == "tiny"
    assert doc["eacompute_version"] == __version__
    assert doc["git_sha"] is None  # tmp_path is not in a git repository
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["timestamp"])
    env = doc["env"]
    assert list(env) == ENV_KEYS
    assert env == {"os": platform.system().lower(), "arch": HOST, "host_cpu": host_cpu_name(),
                   "target_cpu": "native", "target_features": "", "opt_level": 3,
                   "pinned": env["pinned"]}
    assert isinstance(env["pinned"], bool)
    assert doc["measurements"] == [line, LARGE]
    assert list(doc["measurements"][0]) == ["kernel", "median_ns", "n_runs", "gbps", "note",
                                            "sizes", "ok"]
    assert err[0].startswith(f"compiled {tmp_path / 'k.ea'} -> ")
    assert err[1:] == [f"wrote {tmp_path / 'k.ea'}.json"]


def test_out_writes_the_json_to_a_file(tmp_path, capsys):
    manifest = make_bench(tmp_path)
    target = tmp_path / "result.json"
    code, out, err = bench(capsys, manifest, "--no-diff", "--out", str(target))
    assert (code, out) == (0, "")
    assert err[-1] == f"wrote {target}"
    doc = json.loads(target.read_text())
    assert list(doc) == TOP_KEYS and doc["measurements"] == [SMALL, LARGE]


def test_harness_stderr_is_relayed_with_a_prefix(tmp_path, capsys):
    manifest = make_bench(tmp_path, stderr=b"warming up\n\nsize 4096\n")
    code, _, err = bench(capsys, manifest, "--no-diff")
    assert code == 0
    assert err[-3:] == ["[harness] warming up", "[harness] ", "[harness] size 4096"]


@pytest.mark.skipif(not (shutil.which("taskset") and 0 in os.sched_getaffinity(0)),
                    reason="needs taskset and CPU 0")
def test_the_harness_runs_pinned_to_cpu_0(tmp_path, capsys):
    manifest = make_bench(tmp_path, stdout=b"", prelude="#define _GNU_SOURCE\n#include <sched.h>",
                          ending="cpu_set_t set; sched_getaffinity(0, sizeof set, &set);\n"
                                 'printf("{\\"kernel\\": \\"k\\", \\"median_ns\\": 1, '
                                 '\\"cpus\\": %d, \\"on0\\": %d}\\n", CPU_COUNT(&set), '
                                 "CPU_ISSET(0, &set) != 0);\nreturn 0;")
    code, out, _ = bench(capsys, manifest, "--no-diff")
    doc = json.loads(out)
    assert code == 0 and doc["env"]["pinned"] is True
    assert doc["measurements"] == [{"kernel": "k", "median_ns": 1, "cpus": 1, "on0": 1}]


def test_without_taskset_the_run_is_not_pinned(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, out, _ = bench(capsys, make_bench(tmp_path), "--no-diff")
    assert code == 0 and json.loads(out)["env"]["pinned"] is False


def test_manifest_flags_reach_ea_cc_and_the_env(tmp_path, capsys):
    # --header makes ea say "wrote k.h"; the harness only compiles with -DFROM_MANIFEST.
    manifest = make_bench(tmp_path, prelude="#ifndef FROM_MANIFEST\n#error no cc_flags\n#endif",
                          keys='ea_flags = ["--header", "--opt-level=1"]\n'
                               'cc_flags = ["-O1", "-DFROM_MANIFEST"]\n')
    code, out, err = bench(capsys, manifest, "--no-diff", "--target=generic")
    assert code == 0
    assert "wrote k.h" in err
    env = json.loads(out)["env"]
    assert (env["target_cpu"], env["opt_level"]) == ("generic", 1)


def test_cc_flags_default_to_O2(tmp_path, capsys):
    manifest = make_bench(tmp_path, prelude="#ifndef __OPTIMIZE__\n#error not optimised\n#endif")
    assert bench(capsys, manifest, "--no-diff")[0] == 0


def test_cc_from_the_environment(tmp_path, capsys, monkeypatch):
    cc = tmp_path / "my-cc"
    cc.write_text('#!/bin/sh\nexec gcc -DFROM_CC_ENV "$@"\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    manifest = make_bench(tmp_path, prelude="#ifndef FROM_CC_ENV\n#error not $CC\n#endif")
    assert bench(capsys, manifest, "--no-diff")[0] == 0


@pytest.mark.skipif(HOST != "x86_64", reason="scatter and --avx512 are x86 only")
def test_target_flags_are_forwarded_to_the_kernel_build(tmp_path, capsys):
    scatter = "export func put(p: *mut f32, idx: i32x8, v: f32x8) {\n    scatter(p, idx, v)\n}\n"
    manifest = make_bench(tmp_path, kernel=scatter + "\n" + "export func add_one(x: i32) -> i32 {"
                                                            "\n    return x + 1\n}\n")
    code, out, err = bench(capsys, manifest, "--no-diff")
    assert (code, out) == (1, "")
    assert err[:2] == ["error: ea --lib failed:",
                       "error[codegen]: scatter requires AVX-512 for hardware support; compile "
                       "with --avx512 or write a scalar loop explicitly"]
    code, out, _ = bench(capsys, manifest, "--no-diff", "--avx512")
    assert code == 0
    assert json.loads(out)["env"]["target_features"] == "+avx512f,+avx512vl,+avx512bw"


# ---- failures -------------------------------------------------------------------------

def test_ea_lib_failure_shows_the_diagnostics(tmp_path, capsys):
    code, out, err = bench(capsys, make_bench(tmp_path, kernel=BAD_KERNEL))
    assert (code, out) == (1, "")
    assert err == ["error: ea --lib failed:",
                   f"{tmp_path / 'k.ea'}:2:12  error[type]: cannot mix integer and float in "
                   "binary operation: i32 and float literal",
                   "        return x + 1.5",
                   "               ^^^^^^^"]


def test_cc_failure_shows_the_compiler_output(tmp_path, capsys):
    code, out, err = bench(capsys, make_bench(tmp_path, prelude='#error "harness is broken"'))
    assert (code, out) == (1, "")
    assert err[2] == "error: cc failed:"  # after ea's two status lines
    assert any(line.endswith('error: #error "harness is broken"') for line in err[3:])


def test_harness_exit_code_with_the_last_20_stderr_lines(tmp_path, capsys):
    lines = [f"line {i}" for i in range(1, 26)]
    manifest = make_bench(tmp_path, stderr="\n".join(lines).encode() + b"\n",
                          ending="return 3;")
    code, out, err = bench(capsys, manifest)
    assert (code, out) == (1, "")
    assert err[2:27] == [f"[harness] {line}" for line in lines]
    assert err[27:] == ["error: harness exited with code 3", *lines[5:]]


def test_harness_killed_by_a_signal(tmp_path, capsys):
    code, _, err = bench(capsys, make_bench(tmp_path, ending="abort();"))
    assert code == 1 and err[-1] == "error: harness was killed by SIGABRT"


@pytest.mark.parametrize("stdout, message", [
    (jsonl(SMALL) + b"\nnot json\n",
     "malformed harness output line 3 (Expecting value: line 1 column 1 (char 0)): not json"),
    (b'{"kernel": "k"}\n', "malformed harness output line 1 (missing 'median_ns'): "
                           '{"kernel": "k"}'),
    (b"", "harness printed no measurements"),
])
def test_bad_harness_output(tmp_path, capsys, stdout, message):
    code, out, err = bench(capsys, make_bench(tmp_path, stdout=stdout))
    assert (code, out) == (1, "")
    assert err[-1] == f"error: {message}"


def test_skipped_on_an_architecture_not_listed(tmp_path, capsys):
    # Nothing is built: the kernel and harness files need not even exist.
    manifest = tmp_path / "other.toml"
    manifest.write_text('name = "elsewhere"\nkernel = "none.ea"\nharness = "none.c"\n'
                        f'baseline = "b.json"\narch = ["{OTHER}"]\n')
    assert bench(capsys, manifest, "--update-baseline") == \
        (0, "", [f"skipped: elsewhere (not applicable on {HOST})"])
    assert not (tmp_path / "b.json").exists()


def test_through_the_ea_command_line(tmp_path):
    """`ea bench <manifest>` dispatches here; exit 3 passes through."""
    manifest = make_bench(tmp_path)
    baseline = tmp_path / "baselines" / "tiny.json"
    baseline.parent.mkdir()
    # The same build and kernels, each baseline median half the current one.
    doc = {"env": {"arch": HOST, "target_features": "", "opt_level": 3},
           "measurements": [dict(m, median_ns=m["median_ns"] // 2) for m in (SMALL, LARGE)]}
    baseline.write_text(json.dumps(doc))
    proc = subprocess.run([str(EA), "bench", str(manifest), "--fail-on-regression"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert json.loads(proc.stdout)["measurements"] == [SMALL, LARGE]
    assert proc.stderr.splitlines()[-1] == "WARNING: 2 regressions exceed 10% threshold."
