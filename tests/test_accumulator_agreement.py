"""One definition of an accumulator (compiler/check/accumulators.py): the
`one-accumulator` hint of `ea inspect` and the unroll transformation meant
to answer it (`ea tune`, the language server's code action) agree on every
example and benchmark kernel: where the hint names an accumulator, the
transformation's site at that loop splits that very variable, and every
loop the transformation would split around one float chain is hinted."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ea_compiler import Options, analyze
from ea_compiler.inspect import inspect
from ea_compiler.tune.transforms import find_sites

ROOT = Path(__file__).resolve().parents[1]
KERNELS = sorted(p for folder in ("examples", "bench") for p in (ROOT / folder).rglob("*.ea"))
HASWELL = Options(target_cpu="alderlake")  # AVX2 with VNNI: every example compiles
NAMED = re.compile(r"one register \('(\w+)'\)")
# A loop with the shape of a single float chain (the definition's answer) that
# must be hinted: in the function where one is found, the test below checks it.
LOOP_WITH_ONE_CHAIN = """\
export func sum(x: *restrict f32, n: i32) -> f32 {
    let mut acc: f32x8 = splat(0.0)
    let mut best: f32x8 = splat(0.0)
    let mut i: i32 = 0
    while i + 8 <= n {
        let v: f32x8 = load(x, i)
        acc = fma(v, v, acc)
        i = i + 8
    }
    while i + 8 <= n {
        best = max(best, load(x, i))
        best = best .+ splat(1.0)
        i = i + 8
    }
    return reduce_add(acc) + reduce_add(best)
}
"""


def _agreement(text: str, path: str) -> tuple[dict, dict]:
    """{line: accumulator} of the hints, {line range: accumulators} of the unroll sites."""
    a = analyze(text, path, HASWELL)
    assert a.ok, [d.message for d in a.errors]
    hinted = {}
    for fr in inspect(text, path, HASWELL).functions:
        for h in fr.hints:
            if h.code == "one-accumulator":
                hinted[h.line] = NAMED.search(h.message).group(1)
    sites = {}
    for s in find_sites(a, only={"unroll"}):
        accs = getattr(s, "accumulators", ())
        if accs:
            sites[(s.line, _last_line(a, s.end))] = accs
    return hinted, sites


def _last_line(a, end: int) -> int:
    return a.source.data.count(b"\n", 0, end) + 1


def _check(hinted: dict, sites: dict, floats: dict) -> None:
    for line, name in hinted.items():
        around = [accs for (first, last), accs in sites.items() if first <= line <= last]
        # a hinted chain in a loop the transformation does not take (a kernel's
        # main loop) has no site; where there is one, it splits that variable
        assert all(name in accs for accs in around), (line, name, sites)
    for (first, last), accs in sites.items():
        chains = [n for n in accs if floats.get(n)]
        if len(accs) == 1 and chains:
            assert any(first <= line <= last and hinted[line] == chains[0] for line in hinted), (first, accs, hinted)


def _float_names(text: str, path: str) -> dict:
    from ea_compiler.check.accumulators import accumulators, in_remainder
    from ea_compiler.syntax import ast as A
    a = analyze(text, path, HASWELL)
    out = {}
    for f in a.live_functions:
        loops = [s for s in A.statements(f.body.stmts) if isinstance(s, (A.While, A.ForEach))]
        found = [acc for lp in loops for acc in accumulators(a.decisions, lp.body.stmts)]
        # a remainder loop's chain (the one rule both sides share) is not one the hint names
        out.update({acc.name: acc.is_float and not in_remainder(acc, found) for acc in found})
    return out


def test_the_probe_has_both_answers():
    hinted, sites = _agreement(LOOP_WITH_ONE_CHAIN, "probe.ea")
    assert sorted(hinted.values()) == ["acc"]  # `best` is read twice: not an accumulator for either
    assert list(sites.values()) == [("acc",)]
    _check(hinted, sites, _float_names(LOOP_WITH_ONE_CHAIN, "probe.ea"))


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_hint_and_transformation_agree(path):
    text = path.read_text()
    hinted, sites = _agreement(text, str(path))
    _check(hinted, sites, _float_names(text, str(path)))
