"""Shared by the unroll and fma tests: apply one transformation at a site,
check the lines it did not touch, and run the original and the rewritten
source side by side through `ea.load`."""
from __future__ import annotations

import difflib
from pathlib import Path

import numpy as np

import ea
from ea_compiler.analysis import analyze
from ea_compiler.tune.transforms import MODULES, Rewrite, Site, apply, find_sites


def sites(src: str, transform: str, function: str | None = None) -> list[Site]:
    return find_sites(analyze(src, "t.ea"), function, only=(transform,))


def rewrite(src: str, transform: str, function: str, choice, index: int = 0) -> Rewrite:
    a = analyze(src, "t.ea")
    site = [s for s in find_sites(a, function, only=(transform,))][index]
    return apply(a, site, choice)


def rewrite_each(src: str, transform: str, functions, choice) -> str:
    """The source with the first site of each function rewritten in turn."""
    for name in functions:
        src = rewrite(src, transform, name, choice).text
    return src


def edits_of(src: str, transform: str, function: str, choice, index: int = 0):
    """What the module's `edits` answers for a site of `function` (raises NotApplicable)."""
    a = analyze(src, "t.ea")
    site = find_sites(a, function, only=(transform,))[index]
    return MODULES[transform].edits(a, site, choice)


def changed_lines(before: str, after: str) -> list[tuple[str, list[str], list[str]]]:
    """The line-level differences: (kind, old lines, new lines)."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def load_pair(tmp_path: Path, before: str, after: str):
    """Both sources compiled and loaded (each in a folder of its own)."""
    out = []
    for name, text in (("before", before), ("after", after)):
        d = tmp_path / name
        d.mkdir()
        p = d / "k.ea"
        p.write_text(text)
        out.append(ea.load(str(p)))
    return out


def lengths(step: int, zero: bool = True) -> list[int]:
    """The edge lengths around a step, and two large ones."""
    ns = [0, 1, step - 1, step, step + 1, 4 * step - 1, 4 * step + 3, 1000, 1003]
    return sorted({n for n in ns if n >= (0 if zero else 1)})


def random_f32(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-10.0, 10.0, n).astype(np.float32)


def random_i32(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-1000, 1000, n).astype(np.int32)

def variant(body: str, params: str = "x: *restrict f32, n: i32", before: str = "", after: str = "") -> str:
    return f"""\
export func f({params}) -> f32 {{
    let mut acc: f32x8 = splat(0.0)
    let mut i: i32 = 0{before}
    {body}{after}
    return reduce_add(acc)
}}
"""
