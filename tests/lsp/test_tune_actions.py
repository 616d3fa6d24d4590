"""Rewrite code actions (eals/features/tune_actions.py): where a site is offered
given the function's live inspect report, and, over stdio, the actions the
registered transformations give for examples/reductions.ea."""
from __future__ import annotations

from pathlib import Path

from ea_compiler import Options
from ea_compiler.tooling import Site, analyze, inspect_function
from eals.features.tune_actions import anchor_lines, ordered_choices

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HASWELL = Options(target_cpu="haswell", target_triple="x86_64-unknown-linux-gnu")
TEXT = (EXAMPLES / "reductions.ea").read_text()


def loop_site(analysis, function: str, transform: str, hint: str | None) -> Site:
    """A site spanning the `while` loop of `function` (lines of the example)."""
    start = TEXT.index("while", TEXT.index(f"func {function}"))
    end = TEXT.index("    }\n", start) + len("    }")
    return Site(transform, function, 0, analysis.source.line_of(start), start, end, (2, 4, 8), hint)


def line_of(needle: str, after: str) -> int:
    return TEXT[:TEXT.index(needle, TEXT.index(after))].count("\n") + 1


def test_a_site_is_offered_on_its_construct_and_its_hint():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    report = inspect_function(analysis, "max_f32")
    assert "one-accumulator" in [h.code for h in report.hints]
    site = loop_site(analysis, "max_f32", "unroll", "one-accumulator")
    loop = line_of("while", "func max_f32")
    assert anchor_lines(analysis.source, site, report) == set(range(loop, loop + 4))
    assert line_of("best = max(", "func max_f32") in anchor_lines(analysis.source, site, report)


def test_a_site_whose_hint_the_report_lacks_is_not_offered():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    report = inspect_function(analysis, "max_f32")
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "fma", "mul-add"), report) is None
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "unroll", None), report) is None


def test_prefetch_only_for_a_memory_bound_main_loop():
    analysis = analyze(TEXT, "reductions.ea", HASWELL)
    summed = inspect_function(analysis, "sum_f32")
    assert [lp.bottleneck for lp in summed.loops if lp.role == "main"] == ["memory-bound"]
    site = loop_site(analysis, "sum_f32", "prefetch", None)
    loop = line_of("while", "func sum_f32")
    assert anchor_lines(analysis.source, site, summed) == set(range(loop, loop + 5))
    site = loop_site(analysis, "sum_f32", "prefetch", "memory-bound")  # what the prefetch sites say
    assert anchor_lines(analysis.source, site, summed) == set(range(loop, loop + 5))
    latency = inspect_function(analysis, "max_f32")  # latency-bound: prefetching does not help
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "prefetch", None), latency) is None
    assert anchor_lines(analysis.source, loop_site(analysis, "max_f32", "prefetch", "memory-bound"), latency) is None


def test_choices_four_first():
    assert ordered_choices((2, 4, 8)) == [4, 2, 8]
    assert ordered_choices((8, 16)) == [8, 16]
    assert ordered_choices(()) == [None]
    assert ordered_choices((1, 2, 4, 8, 16)) == [4, 1, 2]
