"""Compiling from several threads at once (the TUI compiles while a benchmark
loads its kernels) works and gives the same code as one thread at a time."""
from __future__ import annotations

import threading
from pathlib import Path

from ea_compiler import Options, load
from ea_compiler.build import compile_source

ROOT = Path(__file__).resolve().parent.parent


def test_threads_compile_and_load_at_once(tmp_path):
    sources = [p.read_bytes() for p in sorted((ROOT / "examples").glob("*.ea"))]
    (tmp_path / "saxpy.ea").write_bytes((ROOT / "examples" / "saxpy.ea").read_bytes())
    errors: list[BaseException] = []
    results: dict[int, list[str]] = {}

    def compile_all(k: int) -> None:
        try:
            out = []
            for data in sources:
                _, module = compile_source(data, "k.ea", Options(target_cpu="haswell"))
                out.append(module.asm())
                module.ir(optimized=False), module.ir(), module.object()
            results[k] = out
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    def load_saxpy() -> None:
        try:
            for opt in (1, 2, 3, 0):
                load(tmp_path / "saxpy.ea", opt_level=opt)
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=compile_all, args=(k,)) for k in range(3)] + [threading.Thread(target=load_saxpy)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results[0] == results[1] == results[2]  # same code whatever the interleaving
