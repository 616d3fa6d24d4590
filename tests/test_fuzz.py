"""Seeded fuzzing: mutated examples through `analyze`, the code generator and the `ea` CLI.

Each mutant is a file of examples/*.ea with 1-5 random edits: token deletions,
duplications and swaps, splices from another example, a token repeated hundreds
of times (long lines), an identifier lengthened to thousands of characters
everywhere it occurs, byte flips, inserted non-ASCII text or invalid UTF-8, truncation. Mutant `i` depends only on the
seed and `i`, so a failure names the mutant that reproduces it. Checked:
`analyze` never raises (EA_DEBUG=1 lets compiler bugs propagate) and reports no
internal error, spans stay inside the file; mutants that analyse clean (a third
of them with every declared name lengthened past 1,000 characters) compile to
machine code for several targets without an internal error; the CLI on a few
mutants exits 0 or 1, with errors printed, never a traceback or a signal.

The default run takes a few seconds. A long run:
    EA_FUZZ_SEED=1 EA_FUZZ_MUTANTS=20000 EA_FUZZ_COMPILES=1000 EA_FUZZ_CLI=20 \\
        EA_FUZZ_LONG_NAME=3000 .venv/bin/pytest tests/test_fuzz.py -s
prints how many mutants were clean and the slowest ones.
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.diagnostics import DiagnosticSink
from ea_compiler.build import compile_source
from ea_compiler.source import SourceFile
from ea_compiler.syntax.lexer import lex

ROOT = Path(__file__).resolve().parent.parent
EA = ROOT / ".venv" / "bin" / "ea"
EXAMPLES = {p.name: p.read_bytes() for p in sorted((ROOT / "examples").glob("*.ea"))}
SEED = int(os.environ.get("EA_FUZZ_SEED", "11"))
MUTANTS = int(os.environ.get("EA_FUZZ_MUTANTS", "1000"))
COMPILES = int(os.environ.get("EA_FUZZ_COMPILES", "30"))
CLI_RUNS = int(os.environ.get("EA_FUZZ_CLI", "3"))
# Longest identifier a mutant makes. Kept short by default: the checker's "did you
# mean" edit distance is quadratic in the length of a misspelt name.
LONG_NAME = int(os.environ.get("EA_FUZZ_LONG_NAME", "1500"))
TARGETS = [Options(opt_level=0), Options(), Options(avx512=True, opt_level=1),
           Options(target_triple="aarch64-unknown-linux-gnu", dotprod=True, i8mm=True, fp16=True, opt_level=2)]
NON_ASCII = [s.encode() for s in ("é", "😀", "\u200b", "λ", "\u00a0", "中文", "\ufeff", "ﬁ")] + \
    [b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf0\x9f"]


def _chunks(data: bytes) -> list[bytes]:
    """The file as token-sized chunks: each token with the text that follows it."""
    tokens = lex(SourceFile("x.ea", data), DiagnosticSink())
    starts = [0] + [t.start for t in tokens[1:-1]] + [len(data)]
    return [data[a:b] for a, b in zip(starts, starts[1:]) if b > a]


CHUNKS = {name: _chunks(data) for name, data in EXAMPLES.items()}
NAMES = sorted(CHUNKS)


def _token_edit(rng: random.Random, chunks: list[bytes]) -> None:
    n = len(chunks)
    i = rng.randrange(n + 1)
    j = min(n, i + rng.randint(1, 12))
    op = rng.choice(("delete", "duplicate", "splice", "swap", "delete", "duplicate", "splice", "swap",
                     "repeat", "lengthen"))
    if op == "delete":
        del chunks[i:j]
    elif op == "repeat" and i < n:  # long lines and long files: the places quadratic work hides
        chunks[i:i + 1] = [chunks[i].rstrip(b"\n") or b" "] * rng.randint(50, 400)
    elif op == "lengthen" and i < n:  # very long identifiers
        ident = rng.choice([c for c in chunks if c[:1].isalpha()] or [b"x"])
        word = ident.split()[0] if ident.split() else b"x"
        longer = word + b"_" * rng.randint(LONG_NAME // 4, LONG_NAME)
        chunks[:] = [c.replace(word, longer, 1) if c.split()[:1] == [word] else c for c in chunks]
    elif op == "duplicate":
        k = rng.randrange(n + 1)
        chunks[k:k] = chunks[i:j] * rng.randint(1, 3)
    elif op == "splice":
        other = CHUNKS[rng.choice(NAMES)]
        a = rng.randrange(len(other))
        chunks[i:i] = other[a:a + rng.randint(1, 40)]
    elif j < n:
        chunks[i], chunks[j] = chunks[j], chunks[i]


def _byte_edit(rng: random.Random, data: bytes) -> bytes:
    op = rng.choice(("flip", "flip", "non_ascii", "truncate"))
    if not data:
        return rng.choice(NON_ASCII)
    i = rng.randrange(len(data))
    if op == "flip":
        value = data[i] ^ (1 << rng.randrange(8)) if rng.random() < 0.5 else rng.randrange(256)
        return data[:i] + bytes([value]) + data[i + 1:]
    if op == "non_ascii":
        return data[:i] + rng.choice(NON_ASCII) + data[i:]
    return data[:i]


def mutant(index: int) -> tuple[str, bytes]:
    """Mutant `index` of the run with seed SEED: (the example it came from, its bytes)."""
    rng = random.Random(f"{SEED}:{index}")
    name = rng.choice(NAMES)
    chunks = list(CHUNKS[name])
    token_edits, byte_edits = rng.randint(0, 3), rng.randint(0, 2)
    if token_edits + byte_edits == 0:
        token_edits = 1
    for _ in range(token_edits):
        _token_edit(rng, chunks)
    data = b"".join(chunks)
    for _ in range(byte_edits):
        data = _byte_edit(rng, data)
    return name, data


def lengthened(data: bytes, length: int) -> bytes:
    """`data` with every name it declares (functions, parameters, fields, typed lets)
    `length` characters longer, at each occurrence: the same program with long names."""
    tokens = lex(SourceFile("x.ea", data), DiagnosticSink())
    declared = {t.text for t, after in zip(tokens, tokens[1:]) if t.kind == "Identifier" and after.text == ":"}
    declared |= {after.text for t, after in zip(tokens, tokens[1:]) if t.kind == "Func" and after.kind == "Identifier"}
    out, pos = [], 0
    for t in tokens:
        if t.kind == "Identifier" and t.text in declared:
            out += [data[pos:t.end], b"_" * length]
            pos = t.end
    return b"".join(out) + data[pos:]


def _debug_analyze(data: bytes, path: str, options: Options = Options()):
    old = os.environ.get("EA_DEBUG")
    os.environ["EA_DEBUG"] = "1"
    try:
        return analyze(data, path, options)
    finally:
        if old is None:
            del os.environ["EA_DEBUG"]
        else:
            os.environ["EA_DEBUG"] = old


def _span_ok(span, size: int) -> bool:
    return span is None or (0 <= span.start <= span.end <= size and 1 <= span.line <= span.end_line
                            and span.col >= 1 and span.end_col >= 1)


def _where(index: int, name: str) -> str:
    return f"mutant {index} of {name} (EA_FUZZ_SEED={SEED}; tests/test_fuzz.py:mutant({index}))"


@cache
def analysed() -> tuple[list[int], list[str]]:
    """Every mutant through `analyze`: (indices of clean mutants, failures)."""
    clean, failures, times = [], [], []
    for index in range(MUTANTS):
        name, data = mutant(index)
        start = time.perf_counter()
        try:
            result = _debug_analyze(data, name)
        except Exception as err:  # noqa: BLE001 - the failure is the finding
            failures.append(f"{_where(index, name)}: {type(err).__name__}: {err}")
            continue
        times.append((time.perf_counter() - start, index, len(data)))
        for d in result.diagnostics:
            if d.kind == "internal" or not _span_ok(d.span, len(data)):
                failures.append(f"{_where(index, name)}: {d.code} {d.span!r}: {d.message}")
        if not result.errors and data not in EXAMPLES.values():
            clean.append(index)
    times.sort(reverse=True)
    print(f"\nfuzz: {MUTANTS} mutants (seed {SEED}), {len(clean)} analyse clean; slowest: "
          + ", ".join(f"#{i} {t * 1000:.0f} ms ({n} bytes)" for t, i, n in times[:3]), file=sys.stderr)
    return clean, failures


def test_mutants_through_analyze():
    _, failures = analysed()
    assert not failures, "\n".join(failures[:10])


def test_clean_mutants_compile_to_machine_code():
    clean, _ = analysed()
    assert len(clean) >= min(COMPILES, MUTANTS // 100), "too few mutants analyse clean to exercise codegen"
    failures = []
    for k, index in enumerate(clean[:COMPILES]):
        name, data = mutant(index)
        options = TARGETS[k % len(TARGETS)]
        where = _where(index, name)
        if k % 3 == 1:  # names past LLVM's 1024-byte limit on local value names
            data = lengthened(data, 1000 + 37 * k)
            where += f" with names lengthened by {1000 + 37 * k}"
        try:
            analysis, module = compile_source(data, name, options)
            if module is not None:
                module.object()
        except Exception as err:  # noqa: BLE001
            failures.append(f"{where} on {options}: {type(err).__name__}: {err}")
            continue
        for d in analysis.diagnostics:
            # The only error a clean analysis may still produce is a target one
            # (from the checker's target rules, or from codegen).
            if d.is_error and not (d.kind in ("target", "codegen") and d.code == "target"):
                failures.append(f"{where} on {options}: {d.kind}/{d.code}: {d.message}")
    assert not failures, "\n".join(failures[:10])


def _cli_mutants() -> list[int]:
    """A few mutants for the CLI: clean ones and ones with errors, alternating."""
    clean, _ = analysed()
    dirty = [i for i in range(MUTANTS) if i not in set(clean)]
    picked = []
    for k in range(CLI_RUNS):
        pool = clean if k % 2 == 0 and clean else dirty
        if pool:
            picked.append(pool[(k // 2) % len(pool)])
    return picked


@pytest.mark.parametrize("command", [["check"], ["--lib", "-o", "libm.so"]], ids=["check", "compile"])
def test_cli_on_mutants(tmp_path, command):
    for index in _cli_mutants():
        name, data = mutant(index)
        path = tmp_path / f"m{index}.ea"
        path.write_bytes(data)
        args = [str(EA), "check", path.name] if command == ["check"] else [str(EA), path.name, *command]
        proc = subprocess.run(args, cwd=tmp_path, capture_output=True, timeout=120)
        err = proc.stderr.decode("utf-8", "replace")
        where = _where(index, name)
        assert proc.returncode in (0, 1), f"{where}: exit {proc.returncode}\n{err[-2000:]}"
        assert "Traceback" not in err and "internal compiler error" not in err, f"{where}\n{err[-2000:]}"
        if proc.returncode == 1:
            assert "error" in err, f"{where}: exit 1 without an error message"
        elif command != ["check"]:
            assert (tmp_path / "libm.so").is_file(), where
