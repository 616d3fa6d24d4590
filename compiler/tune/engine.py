"""The tuning loop: measure the original, search each tuned function's
space (then ask the agent, if there is one), pass every variant through the
gate, keep the best, and measure the best against the original at the end."""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from ..analysis import Analysis, analyze
from ..bench.suite import BenchError, Size, find_suite, load_suite
from ..bench.timing import Cancelled
from ..syntax.tokens import COMMENT, EOF
from . import transforms as T
from .cache import Cache, digest, normalised
from ..cpu_levels import missing_on_host
from .config import TuneConfig, TuneError, read_settings
from ..inspect.model import Bottleneck
from .outcome import REJECTED_FOR_GOOD, Outcome
from .gate import RULES, Evaluation, confirmed, decide, needs_confirming, run_worker
from .judgement import final_verdict, machine_load
from .worker import pin_cpu
from .params import check_params
from .result import Attempt, SizeRow, TuneResult
from .space import build_space, render
from .strategy import choose, search



@dataclass
class Target:
    function: str
    bench: str
    suite: Path


@dataclass
class TuneEvent:
    kind: str  # "baseline", "attempt", "message", "done"
    message: str = ""
    attempt: Attempt | None = None
    best_us: float | None = None
    baseline_us: float | None = None
    evaluated: int = 0
    accepted: int = 0
    rejected: int = 0
    cache_hits: int = 0
    best_source: str | None = None  # the current best kernel (for a live diff)
    speedup: float | None = None  # the best against the original: its accepted steps' ratios multiplied


def tune_targets(kernel) -> list[Target]:
    """The functions of `kernel` its suite benches (none without a readable suite)."""
    path = find_suite(kernel)
    if path is None:
        return []
    try:
        suite = load_suite(path)
    except BenchError:
        return []
    return [Target(b.function, b.name, path) for b in suite.benches]


@dataclass
class _Best:
    text: str
    analysis: Analysis
    key: str  # the cache key of its normalised source
    path: Path  # where the worker loads it from


def tune(cfg: TuneConfig, progress: Callable[[TuneEvent], None] | None = None,
         cancel: threading.Event | None = None) -> TuneResult:
    return _Run(cfg, progress, cancel or threading.Event()).go()


class _Run:
    def __init__(self, cfg: TuneConfig, progress, cancel: threading.Event):
        self.cfg, self.progress, self.cancel = cfg, progress, cancel
        self.t0 = time.monotonic()
        missing = missing_on_host(cfg.options)
        if missing:  # every variant would be refused by the loader: say so once
            raise TuneError(f"cannot time variants here: code for these options needs {', '.join(sorted(missing))}, "
                            "which this CPU lacks")
        suite_path = find_suite(cfg.kernel)
        if suite_path is None:
            raise TuneError(f"no benchmark suite for {cfg.kernel}: write {cfg.kernel.stem}.bench.toml beside it "
                            "(see `ea bench --help`); tuning needs its reference and sizes")
        try:
            self.suite = load_suite(suite_path)
        except BenchError as err:
            raise TuneError(str(err)) from None
        self.settings = read_settings(self.suite.tune, str(suite_path), tuple(T.MODULES))
        self.benches = self._chosen_benches()
        self.sizes = {b.name: max(b.sizes) for b in self.suite.benches}
        try:
            self.original = cfg.kernel.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise TuneError(f"cannot read {cfg.kernel}: {err}") from None
        self.analysis = analyze(self.original, str(cfg.kernel), cfg.options)
        if not self.analysis.ok:
            first = self.analysis.errors[0]
            raise TuneError(f"{cfg.kernel}:{first.span.line}:{first.span.col}: the kernel does not compile: "
                            f"{first.message}")
        self.exports = _exports(self.analysis)
        if "params" in cfg.spaces:
            check_params(self.analysis, self.settings.params, str(suite_path))  # before anything is measured
        from ..bench.envinfo import environment
        self.cache = Cache(cfg.kernel, {"env": environment(cfg.options, False), "options": asdict(cfg.options),
                                        "suite": suite_path.read_text(), "quick": cfg.quick, "rules": RULES})
        self.history: list[Attempt] = []
        self.seen: set[str] = set()
        self.evaluated = self.cache_hits = self.accepted = 0
        self.scores: dict[str, float] = {}
        # Per bench: the current best against the original (ratio.py), the accepted steps' ratios multiplied.
        self.chain: dict[str, float] = {}
        self.load_before = machine_load()
        self.last_eval: Evaluation | None = None
        self.edges = True  # verify at the edge lengths too (guarded arrays)
        self.phase_budget: int | None = None
        self.phase_deadline: float | None = None

    def _chosen_benches(self) -> list[str]:
        functions = self.cfg.functions
        known = list(dict.fromkeys(b.function for b in self.suite.benches))
        if not functions:
            return [b.name for b in self.suite.benches]
        unknown = [f for f in functions if f not in known]
        if unknown:
            raise TuneError(f"{self.suite.path}: no benchmark of {', '.join(unknown)} "
                            f"(the suite benches {', '.join(known)})")
        return [b.name for b in self.suite.benches if b.function in functions]

    # -- the run ------------------------------------------------------------------------
    def go(self) -> TuneResult:
        try:
            base = self._baseline()
        except Cancelled:
            raise TuneError("cancelled while measuring the original kernel") from None
        self.best = base
        interrupted = False
        searched = {"params", "transforms"} & set(self.cfg.spaces)
        phases = list(dict.fromkeys(self._function_of(b) for b in self.benches)) if searched else []
        if "agent" in self.cfg.spaces:
            phases.append(None)
        try:
            for left, fn in zip(range(len(phases), 0, -1), phases):
                self._share(left)
                if self._stop():
                    break
                if fn is not None:
                    self._search_function(fn)
                else:
                    from .agent import agent_rounds
                    agent_rounds(self)
        except (KeyboardInterrupt, Cancelled):
            interrupted = True
        interrupted = interrupted or self.cancel.is_set()
        return self._finish(base, interrupted)

    def _function_of(self, bench: str) -> str:
        return next(b.function for b in self.suite.benches if b.name == bench)

    def _share(self, phases_left: int) -> None:
        """This phase's part of what is left of the budget and the time: each function the
        suite benches (and the agent) gets its turn."""
        used = self.evaluated + self.cache_hits
        self.phase_budget = None if self.cfg.budget is None else \
            used + max((self.cfg.budget - used) // phases_left, 1)
        self.phase_deadline = None if self.cfg.time_s is None else \
            time.monotonic() + (self.t0 + self.cfg.time_s - time.monotonic()) / phases_left

    def _stop(self) -> bool:
        if self.cancel.is_set():
            return True
        now = time.monotonic()
        if self.cfg.time_s is not None and (now - self.t0 >= self.cfg.time_s or
                                            self.phase_deadline is not None and now >= self.phase_deadline):
            return True
        used = self.evaluated + self.cache_hits
        return self.cfg.budget is not None and (used >= self.cfg.budget or
                                                self.phase_budget is not None and used >= self.phase_budget)

    def tell(self, kind: str, message: str = "", attempt: Attempt | None = None) -> None:
        if self.progress is None:
            return
        rejected = sum(1 for a in self.history if not a.accepted and a.outcome != Outcome.NOT_APPLICABLE)
        best = getattr(self, "best", None)
        self.progress(TuneEvent(kind, message, attempt, self.best_us, self.baseline_us, self.evaluated,
                                self.accepted, rejected, self.cache_hits, best.text if best else None,
                                self.vs_original if self.baseline_us is not None else None))

    @property
    def vs_original(self) -> float:
        return self.ratio_to_original(self.benches)

    def ratio_to_original(self, benches: list[str]) -> float:
        """The current best against the original at the largest sizes of `benches`: the original's
        times over the best's as the chains of accepted steps put them."""
        if not self.chain:
            return 1.0
        base = {b: self.baseline_eval.benches[b][str(self.sizes[b])]["us"] for b in benches}
        return sum(base.values()) / sum(base[b] / self.chain[b] for b in benches)

    @property
    def best_us(self) -> float | None:
        """The best's time at the largest sizes as the original's over the best's ratio to it: one
        measure of "faster" from the live line to the end (ratio.py)."""
        if self.baseline_us is None:
            return sum(self.scores.values()) if self.scores else None
        return self.baseline_us / self.vs_original

    def _baseline(self) -> _Best:
        self.baseline_us = None
        best = self._as_best(self.original, self.analysis)
        key = digest(best.key, "baseline", self.benches)
        entry = None if self.cfg.fresh else self.cache.get(key)
        if entry is None or entry["outcome"] != Outcome.OK:
            self.tell("message", f"measuring the original {self.cfg.kernel.name}")
            ev = self._evaluate(best.path, None, self.benches, reference=True)
            if ev.outcome == Outcome.CRASHED and ev.facts.get("guarded_crash"):
                # The original itself reaches past its arrays at some edge length (a `tail pad`
                # kernel, whose caller promises padding): the edges are not its inputs.
                self.tell("message", f"the original crashes at an edge length ({ev.reason.split(':')[0]}): "
                                     "checking the suite's sizes only")
                self.edges = False
                ev = self._evaluate(best.path, None, self.benches, reference=True)
            if ev.outcome != Outcome.OK:
                raise TuneError(f"the original kernel cannot be tuned: {ev.outcome}: {ev.reason}")
            self.cache.put(key, {"outcome": ev.outcome, "benches": ev.benches, "facts": ev.facts,
                                 "edges": self.edges})
        else:
            ev = Evaluation(Outcome.OK, "", entry["benches"], entry.get("facts", {}))
            self.edges = entry.get("edges", True)
        self.baseline_eval = ev
        self.last_eval = ev
        self.scores = {b: ev.benches[b][str(self.sizes[b])]["us"] for b in self.benches}
        self.baseline_us = self.best_us
        self.chain = {b: 1.0 for b in self.benches}
        self.noise = max(ev.benches[b][str(self.sizes[b])].get("spread", 0.0) for b in self.benches)
        self.tell("baseline", f"original: {self.baseline_us:.1f} µs at the largest size; "
                              f"{self.load_before.text()}, timing noise ±{self.noise:.1%}")
        return best

    def _as_best(self, text: str, analysis: Analysis) -> _Best:
        key = self.cache.key(normalised(analysis))
        return _Best(text, analysis, key, self.cache.variant_path(key, text))

    def _evaluate(self, candidate: Path, incumbent: Path | None, benches: list[str],
                  reference: bool = False, same_code: bool = True) -> Evaluation:
        return run_worker(self.suite.path, candidate, incumbent, benches, self.cfg.options, self.cfg.quick,
                          self.cfg.eval_timeout_s, reference, self.cancel, self.edges, same_code)

    # -- searching ----------------------------------------------------------------------
    def _search_function(self, fn: str) -> None:
        """Rounds: a space built on the best so far, searched; when the round accepted something,
        the next round's space is built on that new best, so its transformations apply to the
        result of the earlier ones (a sequence: restrict, then tile, then unroll of the tile's loop)."""
        while True:
            accepted = self.accepted
            self._search_round(fn)
            if self.accepted == accepted or self._stop() or self.cfg.predicted:
                return
            self.tell("message", f"{fn}: searching again from the new best")

    def _search_round(self, fn: str) -> None:
        benches = [b for b in self.benches if self._function_of(b) == fn]
        spaces = self.cfg.spaces
        transforms = self._transforms() if "transforms" in spaces else None
        params = {k: v for k, v in self.settings.params.items()} if "params" in spaces else {}
        # The consts as the best has them now: an earlier function's phase may have changed one.
        current = check_params(self.best.analysis, params, str(self.suite.path)) if params else {}
        space = build_space(self.best.analysis, fn, params, current, self.settings.constraints,
                            transforms)
        if not space.knobs:
            self.tell("message", f"{fn}: nothing to tune (no params it uses, no transformation applies)")
            return
        base_analysis = self.best.analysis
        strategy = choose(space, self.cfg.strategy, self.cfg.budget)
        self.tell("message", f"{fn}: {strategy} search over {space.size - 1} variant(s) "
                             f"({', '.join(k.name for k in space.knobs)})")

        def try_point(point: tuple) -> bool:
            label = space.label(point)
            try:
                text, analysis = render(base_analysis, space, point)
            except T.NotApplicable as err:
                self._record(Attempt(len(self.history) + 1, label, Outcome.NOT_APPLICABLE, str(err), function=fn))
                return False
            return self.try_text(text, label, fn, benches, analysis)

        hints = set(self.last_eval.facts.get(fn, {}).get("hints", []))
        if self.last_eval.facts.get(fn, {}).get("bottleneck") == Bottleneck.MEMORY:
            hints.add(Bottleneck.MEMORY)
        first = frozenset(k.name for k in space.knobs if k.site is not None and k.site.hint in hints)
        if self.cfg.predicted:  # order by predicted time, time only the predicted-fastest quarter
            from .predicted_order import predicted_search, predicted_times
            spec = next(b for b in self.suite.benches if b.name == benches[0])
            predicted_search(space, base_analysis, lambda text: predicted_times(
                text, str(self.cfg.kernel), self.cfg.options, fn, spec), try_point, self._stop)
            return
        search(space, strategy, self.cfg.seed, try_point, self._stop, first,
               bounded=self.cfg.budget is not None or self.cfg.time_s is not None)

    def _transforms(self) -> tuple[str, ...]:
        names = [n for n in self.settings.transforms if n in T.MODULES]
        if self.cfg.assume_noalias and "restrict" in T.MODULES and "restrict" not in names:
            names.append("restrict")
        return tuple(names)

    def try_text(self, text: str, label: str, fn: str, benches: list[str], analysis: Analysis | None = None) -> bool:
        """Gate one variant against the current best; True when accepted (it becomes the best).
        `analysis`: the text's, when the caller has it."""
        if analysis is None:
            analysis = analyze(text, str(self.cfg.kernel), self.cfg.options)
        index = len(self.history) + 1
        if not analysis.ok:
            first = analysis.errors[0]
            self._record(Attempt(index, label, Outcome.COMPILE_ERROR,
                                 f"line {first.span.line}:{first.span.col}: {first.message}", function=fn))
            return False
        missing = sorted(self.exports - _exports(analysis))
        if missing:
            self._record(Attempt(index, label, Outcome.WRONG, f"the variant has no exported {', '.join(missing)}",
                                 function=fn))
            return False
        norm = normalised(analysis)
        key = self.cache.key(norm)
        if key == self.best.key or key in self.seen:
            self._record(Attempt(index, label, Outcome.DUPLICATE, "the same program as one already tried "
                                 "(comments and layout aside)", function=fn))
            return False
        self.seen.add(key)
        path = self.cache.variant_path(key, text)
        chained = self.ratio_to_original(benches)
        pair = digest(self.best.key, benches, round(chained, 4))
        entry = None if self.cfg.fresh else self.cache.get(key)
        cached = entry is not None and (entry["outcome"] in REJECTED_FOR_GOOD or pair in entry["decisions"])
        if cached:
            self.cache_hits += 1
            ev = Evaluation(Outcome(entry["outcome"]), entry.get("reason", ""), entry.get("benches", {}),
                            entry.get("facts", {}))
            decision, measurements = entry["decisions"].get(pair), 1
        else:
            ev = self._evaluate(path, self.best.path, benches)
            self.evaluated += 1
            decision, measurements = None, 1
            if ev.outcome == Outcome.OK:
                d = decide(ev, benches, self.sizes, _lines(self.best.analysis), _lines(analysis), chained)
                if needs_confirming(d, ev, benches, self.sizes):
                    again, measurements = self._evaluate(path, self.best.path, benches), 2
                    d = confirmed(d, again, benches, self.sizes)
                    ev = again if d.outcome == Outcome.ACCEPTED else ev  # its ratio was not picked for being high
                decision = {"outcome": d.outcome, "reason": d.reason}
            latest = self.cache.get(key)  # another run may have added decisions while this one measured
            decisions = dict(latest["decisions"]) if latest is not None and ev.outcome == Outcome.OK else {}
            if decision:
                decisions[pair] = decision  # beside the decisions against other bests
            self.cache.put(key, {"outcome": ev.outcome, "reason": ev.reason, "benches": ev.benches,
                                 "facts": ev.facts, "decisions": decisions})
        if ev.outcome != Outcome.OK:
            self._record(Attempt(index, label, ev.outcome, ev.reason, cached=cached, function=fn,
                                 variant=str(path)))
            return False
        times = {n: row["us"] for n, row in ev.benches[benches[0]].items()}
        score = ev.score_us(benches, self.sizes)
        attempt = Attempt(index, label, Outcome(decision["outcome"]), decision["reason"], times, score, cached, fn,
                          str(path), measurements)
        if attempt.accepted:
            self.accepted += 1
            for b in benches:
                self.chain[b] *= ev.benches[b][str(self.sizes[b])]["ratio"]
            self.best = _Best(text, analysis, key, path)
            for b in benches:
                self.scores[b] = ev.benches[b][str(self.sizes[b])]["us"]
            self.last_eval = ev
        self._record(attempt)
        return attempt.accepted

    def _record(self, attempt: Attempt) -> None:
        self.history.append(attempt)
        record = attempt.to_json()
        record.update(kernel=str(self.cfg.kernel), time=time.time())
        self.cache.append_history(record)
        self.tell("attempt", f"{attempt.label}: {attempt.outcome}", attempt)

    # -- the end ------------------------------------------------------------------------
    def _finish(self, base: _Best, interrupted: bool) -> TuneResult:
        before = {fn: f.get("bottleneck", "") for fn, f in self.baseline_eval.facts.items()}
        result = TuneResult(self.cfg.kernel, self.original, self.best.text, self.baseline_us, self.best_us,
                            "", self.evaluated, self.cache_hits, self.accepted, self.history,
                            bottleneck_before=before, bottleneck_after=dict(before), interrupted=interrupted)
        # A label names a point of its function's space, all knobs included: the last one per function.
        last = {a.function: a.label for a in self.history if a.accepted}
        result.best_label = "; ".join(last.values())
        final = self.baseline_eval
        if self.best.key != base.key and interrupted:
            result.note = ("interrupted before the best was measured side by side with the original: "
                           "the table shows the original's times")
        if self.best.key != base.key and not interrupted:
            final = self._final(base)
            if final.outcome != Outcome.OK:
                result.note = (f"the final side-by-side measurement failed ({final.outcome}: {final.reason}): "
                               "the table shows the original's times")
                self.tell("message", result.note)
                final = self.baseline_eval
            else:
                verdict = final_verdict([final.benches[b][str(self.sizes[b])] for b in self.benches])
                if verdict.slower:
                    # Each step won against the one before it, yet side by side with the original the
                    # end result loses at the largest size (noise that added up): keep the original.
                    result.note = ("measured side by side at the end, the best variant was slower than the "
                                   f"original at the largest size ({verdict.ratio:.3f}×, {result.best_label}): "
                                   "the original is kept, nothing is written")
                    self.tell("message", result.note)
                    result.slower_at_end, result.rejected_label = True, result.best_label
                    result.best_source, result.best_label = self.original, ""
                    self.best = base
        result.search_speedup = self.vs_original
        result.noise, result.load_before, result.load_after = self.noise, self.load_before, machine_load()
        result.cpu = pin_cpu()
        for b in self.benches:
            fn = self._function_of(b)
            for n, row in sorted(final.benches[b].items(), key=lambda kv: Size.from_key(kv[0])):
                numpy = self.baseline_eval.benches[b].get(n, {}).get("numpy_us")
                baseline = row.get("incumbent_us", row["us"])
                result.rows.append(SizeRow(fn, b, Size.from_key(n), baseline, row["us"], numpy,
                                           row.get("ratio_lo"), row.get("ratio_hi"),
                                           n == str(self.sizes[b]), row.get("flops")))
        if final is not self.baseline_eval:
            # The figures of the side-by-side measurement; with the original kept, its own.
            largest = [r for r in result.rows if r.largest]
            result.baseline_us = sum(r.baseline_us for r in largest)
            result.best_us = result.baseline_us if result.slower_at_end else sum(r.best_us for r in largest)
            if not result.slower_at_end:
                result.bottleneck_after = {fn: f.get("bottleneck", "") for fn, f in final.facts.items()}
        result.elapsed_s = time.monotonic() - self.t0
        self.tell("done", f"best {result.best_us:.1f} µs, {result.speedup:.2f}× the original")
        return result

    def _final(self, base: _Best) -> Evaluation:
        """The best against the original, measured together at every size."""
        key = digest(self.best.key, "final", base.key, self.benches)
        entry = None if self.cfg.fresh else self.cache.get(key)
        if entry is not None and entry["outcome"] == Outcome.OK:
            return Evaluation(Outcome.OK, "", entry["benches"], entry.get("facts", {}))
        self.tell("message", "measuring the best against the original at every size")
        ev = self._evaluate(self.best.path, base.path, self.benches, same_code=False)  # measured either way
        if ev.outcome != Outcome.OK:
            return ev
        self.cache.put(key, {"outcome": Outcome.OK, "benches": ev.benches, "facts": ev.facts})
        return ev


def _exports(analysis: Analysis) -> set[str]:
    return {f.name for f in analysis.live_functions if f.export}


def _lines(analysis: Analysis) -> int:
    """Lines with code (comments and blank lines do not count)."""
    return len({t.line for t in analysis.tokens if t.kind not in (COMMENT, EOF)})
