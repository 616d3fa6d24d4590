"""`ea tune --predicted`: candidates in the order of their predicted time,
only those predicted faster timed, at most a quarter of them; the prediction of a variant's time
from the model (a faster kernel is predicted faster)."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from ea_compiler.analysis import analyze
from ea_compiler.bench import load_suite
from ea_compiler.options import Options
from ea_compiler.tune.predicted_order import MAX_POINTS, candidates, predicted_cycles, predicted_search, ranked
from ea_compiler.tune.space import Knob, Space, build_space

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from predict_rank import kendall_tau, kendall_tau_b  # noqa: E402

SRC = """const STEP: i32 = 8
export func f(x: *restrict f32, out: *mut f32, n: i32) {
    let mut i: i32 = 0
    while i < n {
        out[i] = x[i] * 2.0
        i = i + STEP
    }
}
"""
HASWELL = Options(target_cpu="haswell", target_triple="x86_64-unknown-linux-gnu")


def space_and_base():
    a = analyze(SRC, "k.ea")
    space = build_space(a, "f", {"STEP": [8, 1, 2, 4, 16, 32]}, {"STEP": 8}, [], None)
    return space, a


def step_of(text: str) -> int:
    return int(re.search(r"STEP: i32 = (\d+)", text).group(1))


def test_candidates_come_fastest_first_and_only_the_promising_are_timed():
    space, base = space_and_base()
    estimate = lambda text: (100.0 / step_of(text),)  # noqa: E731 - a bigger step: predicted faster
    order = [p for p, _ in ranked(space, base, estimate)]
    assert [space.label(p) for p in order] == ["STEP=32", "STEP=16", "STEP=4", "STEP=2", "STEP=1"]
    tried = []
    predicted_search(space, base, lambda text: (float(step_of(text) == 8),), lambda p: tried.append(p) or False,
                     lambda: False)
    assert [space.label(p) for p in tried] == ["STEP=1", "STEP=2"]  # all predicted faster: ceil(5 / 4) caps
    tried.clear()
    wide = build_space(base, "f", {"STEP": [8, *range(1, 8), *range(9, 17)]}, {"STEP": 8}, [], None)
    predicted_search(wide, base, lambda text: (float(step_of(text) == 8),), lambda p: tried.append(p) or False,
                     lambda: False)
    assert len(tried) == 3  # of ceil(15 / 4) = 4: three in a row not accepted end the search
    tried.clear()
    predicted_search(space, base, estimate, lambda p: tried.append(p) or False, lambda: False)
    assert [space.label(p) for p in tried] == ["STEP=32", "STEP=16"]  # only those predicted faster than STEP=8
    tried.clear()
    predicted_search(space, base, estimate, lambda p: tried.append(p) or True, lambda: False)
    assert [space.label(p) for p in tried] == ["STEP=32"]  # once it is the best, STEP=16 is predicted slower
    tried.clear()
    same = lambda text: (1.0 if step_of(text) == 8 else 0.5,)  # noqa: E731 - every candidate predicted alike
    predicted_search(space, base, same, lambda p: tried.append(p) or True, lambda: False)
    assert len(tried) == 1  # the rest are predicted to take exactly the new best's time: not timed
    tried.clear()
    predicted_search(space, base, lambda text: (1.0 + step_of(text) / 1000, 100.0 / step_of(text)),
                     lambda p: tried.append(p) or True, lambda: False)
    # slower at the first size, faster at the second: still timed, in the order of the first
    assert [space.label(p) for p in tried] == ["STEP=16", "STEP=32"]


def test_unpredicted_candidates_go_last():
    space, base = space_and_base()
    order = [p for p, _ in ranked(space, base, lambda text: None if step_of(text) == 32 else (float(step_of(text)),))]
    assert [space.label(p) for p in order] == ["STEP=1", "STEP=2", "STEP=4", "STEP=16", "STEP=32"]


def test_a_huge_space_is_predicted_on_its_single_and_double_changes():
    big = Space([Knob(f"K{i}", "param", (0, 1, 2)) for i in range(6)])  # 729 points
    points = candidates(big)
    changed = [sum(v != 0 for v in p) for p in points]
    assert changed[:12] == [1] * 12 and set(changed[12:]) == {2}
    assert len(points) == 12 + 60  # 6 knobs x 2 values, then C(6, 2) x 2 x 2 pairs
    bigger = Space([Knob(f"K{i}", "param", tuple(range(5))) for i in range(8)])  # 390625 points
    assert len(candidates(bigger)) == MAX_POINTS


def test_a_variant_with_more_accumulators_is_predicted_faster():
    kernels = Path(__file__).resolve().parents[2] / "bench" / "predict_kernels"
    suite = load_suite(kernels / "reductions.bench.toml")
    text = (kernels / "reductions.ea").read_text()
    one = next(b for b in suite.benches if b.function == "sum_acc1")
    four = next(b for b in suite.benches if b.function == "sum_acc4")
    t1 = predicted_cycles(text, "r.ea", HASWELL, "sum_acc1", one, 4096)
    t4 = predicted_cycles(text, "r.ea", HASWELL, "sum_acc4", four, 4096)
    assert t1 is not None and t4 is not None and 0 < t4 < t1
    assert predicted_cycles("export func broken(", "r.ea", HASWELL, "sum_acc1", one, 4096) is None


def test_kendall_tau():
    assert kendall_tau([1, 2, 3], [10, 20, 30])[0] == 1.0
    assert kendall_tau([1, 2, 3], [30, 20, 10])[0] == -1.0
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == (4 / 6, 5, 1)
    assert kendall_tau([1], [2])[0] is None
    assert kendall_tau([1, 1, 2], [1, 2, 3])[0] == 2 / 3  # the tie counts as neither
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == 2 / (2 * 3) ** 0.5


def test_ea_tune_predicted_times_fewer_variants_and_unrolls_the_latency_bound_loop(project):
    """One accumulator of max: the model predicts the unrolled variants faster (the carried
    chain), so they come first; prefetch distances (no predicted gain) are not timed."""
    import json
    import subprocess
    kernel, _ = project
    ea = [str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "ea"), "tune", str(kernel)]
    # The model's default memory figures, not this machine's calibration (`ea bench --calibrate`
    # caches one per CPU under XDG_CACHE_HOME): the order must not depend on the host.
    env = dict(os.environ, XDG_CACHE_HOME=str(kernel.parent / "cache"))
    out = subprocess.run([*ea, "--space", "transforms", "--quick", "--json", "--predicted", "--fresh"],
                         capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    timed = [a for a in doc["history"] if a["times_us"]]
    assert doc["evaluated"] == len(timed)
    # Until the gate accepts a variant the model does not rank (a prefetch distance that beat the
    # noise by luck: the search then goes on from it), only unrolled variants are timed.
    ranked_only = []
    for a in timed:
        ranked_only.append(a)
        if a["outcome"] == "accepted" and "prefetch" in a["label"]:
            break
    assert timed and "unroll" in timed[0]["label"], [(a["label"], a["outcome"]) for a in doc["history"]]
    assert all("unroll" in a["label"] for a in ranked_only), [(a["label"], a["outcome"]) for a in doc["history"]]
    assert not doc["best_label"] or "unroll" in doc["best_label"]


def test_a_loop_bound_by_its_fetches_is_also_predicted_with_the_core_shared(monkeypatch):
    """dot_u8i8's one-accumulator loop and its unrolled x2 variant tie with the core alone at 64K
    (front end against L2); with the core shared the loop's fetches take twice as long, and the
    tuner's medians see that: the unrolled variant is worth timing. (At 1M, in the L3, the
    front-end-bound loop's time overlaps the memory's: a gain with the core alone too.)"""
    from ea_compiler.inspect.predict.memory import DEFAULT
    from ea_compiler.tune.predicted_order import predicted_times, promising
    monkeypatch.setattr("ea_compiler.inspect.predict.load_calibration", lambda: None)  # DEFAULT's figures
    root = Path(__file__).resolve().parents[2] / "bench" / "tune_kernels"
    spec = load_suite(root / "dot_u8.bench.toml").benches[0]
    one = (root / "dot_u8.ea").read_text()
    two = one.replace("""        acc = acc .+ madd_i16(maddubs_i16(load_u8x32(a, i), load_i8x32(w, i)), ones)
        i = i + 32""", """        acc = acc .+ madd_i16(maddubs_i16(load_u8x32(a, i), load_i8x32(w, i)), ones)
        acc = acc .+ madd_i16(maddubs_i16(load_u8x32(a, i + 32), load_i8x32(w, i + 32)), ones)
        i = i + 64""").replace("while i + 32 <= n", "while i + 64 <= n")
    assert two != one
    zen3 = Options(target_cpu="znver3", target_triple="x86_64-unknown-linux-gnu")
    t1, t2 = (predicted_times(text, "dot_u8.ea", zen3, spec.function, spec) for text in (one, two))
    assert DEFAULT.fetch_cycles == 1.0 and len(t1) == len(t2) == 4
    assert not promising(t2[1:2], t1[1:2])  # 64K, the core alone: no gain predicted
    assert t2[0] < t1[0] < t2[0] * 1.05  # 1M: a small one
    assert t1[3] == pytest.approx(2 * t1[1], rel=0.05)  # 64K, shared: the fetches at twice the cycles
    assert promising(t2, t1)
