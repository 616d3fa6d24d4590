"""Parameters written back into the source, the space they span with its restrictions, and the
search strategies over it."""
from __future__ import annotations

import pytest

from ea_compiler.analysis import analyze
from ea_compiler.tune import TuneError
from ea_compiler.tune.params import check_params, set_params
from ea_compiler.tune.space import Knob, Space, build_space
from ea_compiler.tune.strategy import choose, search

SRC = """// tuned by the suite
const PF_AHEAD: i32 = 512   // elements
const SCALE: f32 = 2.5
const UNUSED: i32 = 1

export func f(x: *restrict f32, out: *mut f32, n: i32) {
    let mut i: i32 = 0
    while i < n {
        prefetch(x, i + PF_AHEAD)
        out[i] = x[i] * SCALE
        i = i + 1
    }
}
"""


def test_params_are_written_back_as_the_consts_values_and_nothing_else_changes():
    a = analyze(SRC, "k.ea")
    assert check_params(a, {"PF_AHEAD": [0, 256], "SCALE": [1.5]}, "s") == {"PF_AHEAD": 512, "SCALE": 2.5}
    out = set_params(a, {"PF_AHEAD": 256, "SCALE": 1})
    assert out == SRC.replace("= 512   //", "= 256   //").replace("= 2.5", "= 1.0")
    assert analyze(out, "k.ea").ok


@pytest.mark.parametrize("params, message", [
    ({"NOPE": [1]}, "[tune.params] NOPE is not a const of k.ea (consts: PF_AHEAD, SCALE, UNUSED)"),
    ({"PF_AHEAD": [1.5]}, "[tune.params] PF_AHEAD is an integer const: its values must be integers"),
])
def test_params_that_do_not_fit_the_source_are_errors(params, message):
    with pytest.raises(TuneError) as err:
        check_params(analyze(SRC, "k.ea"), params, "s")
    assert str(err.value) == f"s: {message}"


def test_the_space_has_the_params_the_function_uses_with_the_current_value_first():
    a = analyze(SRC, "k.ea")
    space = build_space(a, "f", {"PF_AHEAD": [0, 512, 1024], "UNUSED": [1, 2]}, {"PF_AHEAD": 512, "UNUSED": 1},
                        ["PF_AHEAD <= 512"], None)
    assert [(k.name, k.values) for k in space.knobs] == [("PF_AHEAD", (512, 0, 1024))]
    assert space.size == 3 and space.origin == (512,)
    assert [space.allowed(p) for p in space.points()] == [True, True, False]
    assert space.label((0,)) == "PF_AHEAD=0" and space.label((512,)) == "original"


def grid():
    return Space([Knob("A", "param", (0, 1, 2)), Knob("B", "param", (0, 1, 2, 3))])


def test_exhaustive_tries_every_allowed_point_but_the_original_single_changes_first():
    tried = []
    search(grid(), "exhaustive", 0, lambda p: tried.append(p) or False, lambda: False, first=frozenset({"B"}))
    assert len(tried) == 11 and (0, 0) not in tried and len(set(tried)) == 11
    assert tried[:5] == [(0, 1), (0, 2), (0, 3), (1, 0), (2, 0)]  # one knob changed; B (hinted) first


def test_random_tries_distinct_points_until_told_to_stop():
    tried = []
    search(grid(), "random", 3, lambda p: tried.append(p) or False, lambda: len(tried) >= 5)
    assert len(tried) == 5 and len(set(tried)) == 5 and (0, 0) not in tried


def test_hill_climbing_moves_to_an_accepted_neighbour_and_stops_at_a_local_best():
    # Accept a point only when it is closer to (2, 3) than the current one.
    best = [(0, 0)]

    def try_point(p):
        dist = lambda q: abs(q[0] - 2) + abs(q[1] - 3)  # noqa: E731
        if dist(p) < dist(best[-1]):
            best.append(p)
            return True
        return False
    search(grid(), "local", 1, try_point, lambda: False)
    assert best[-1] == (2, 3)
    assert all(sum(a != b for a, b in zip(p, q)) == 1 for p, q in zip(best, best[1:]))


def test_auto_enumerates_small_spaces_and_climbs_large_ones():
    assert choose(grid(), "auto", None) == "exhaustive"
    big = Space([Knob(str(i), "param", (0, 1, 2)) for i in range(6)])
    assert choose(big, "auto", None) == "local"
    assert choose(big, "auto", 1000) == "exhaustive"
    assert choose(grid(), "random", None) == "random"


def test_the_local_search_tries_the_knobs_inspect_points_at_first():
    tried = []
    search(grid(), "local", 5, lambda p: tried.append(p) or False, lambda: False, first=frozenset({"B"}))
    assert [p[0] for p in tried[:3]] == [0, 0, 0] and {p[1] for p in tried[:3]} == {1, 2, 3}
    # none accepted: the restarts go on to the points two changes away until the space is spent
    assert len(tried) == 11 and set(tried[5:]) == {p for p in grid().points() if p[0] and p[1]}


def test_the_local_search_restarts_past_a_local_best_until_the_budget_is_spent():
    # (1, 1) is a local best (no single change from it is accepted), but (2, 3), two changes away, is.
    accepted = {(1, 0), (1, 1), (2, 3)}
    moves, tried = [], []

    def try_point(p):
        tried.append(p)
        if p in accepted and (not moves or p > moves[-1]):
            moves.append(p)
            return True
        return False
    search(grid(), "local", 0, try_point, lambda: False)
    assert moves[-1] == (2, 3) and (1, 1) in moves
    tried.clear()
    search(grid(), "local", 0, lambda p: tried.append(p) or False, lambda: len(tried) >= 7)
    assert len(tried) == 7  # stopped by the budget, not at the first local best (5 neighbours)


def test_a_constraint_sees_every_tuned_param_even_those_another_function_uses():
    a = analyze(SRC, "k.ea")
    space = build_space(a, "f", {"PF_AHEAD": [0, 1024], "UNUSED": [1, 2]}, {"PF_AHEAD": 512, "UNUSED": 2},
                        ["PF_AHEAD * UNUSED <= 1024"], None)
    assert [k.name for k in space.knobs] == ["PF_AHEAD"] and space.fixed == {"UNUSED": 2}
    assert [space.allowed(p) for p in space.points()] == [True, True, False]


def test_a_constraint_naming_no_tuned_param_is_refused_before_the_run():
    from ea_compiler.tune.config import read_settings
    with pytest.raises(TuneError) as err:
        read_settings({"params": {"A": [1]}, "constraints": ["A * B <= 4"]}, "s", ())
    assert str(err.value) == "s: [tune] constraint 'A * B <= 4' names B, not a tuned param (params: A)"


def test_param_values_are_read_as_the_parser_reads_them():
    a = analyze(SRC.replace("= 512", "= 0x200").replace("= 2.5", "= -2.5"), "k.ea")
    assert check_params(a, {"PF_AHEAD": [0], "SCALE": [1.0]}, "s") == {"PF_AHEAD": 512, "SCALE": -2.5}


def test_an_unbounded_local_search_ends_after_its_random_restarts_miss():
    from ea_compiler.tune.strategy import UNBOUNDED_RESTARTS
    big = Space([Knob(str(i), "param", (0, 1, 2, 3)) for i in range(8)])  # 65,536 points
    tried = []
    search(big, "local", 0, lambda p: tried.append(p) or False, lambda: False, bounded=False)
    one, two = 8 * 3, 28 * 9  # one change from the origin; then two changes
    assert len(tried) == one + two + UNBOUNDED_RESTARTS
    assert all(sum(v != 0 for v in p) > 2 for p in tried[one + two:])  # the restarts: random points
    tried.clear()
    search(big, "local", 0, lambda p: tried.append(p) or False, lambda: len(tried) >= 400)
    assert len(tried) == 400  # with a budget the restarts go on until it is spent
