"""Does the prediction rank `ea tune`'s variants as the measurements do, and
does ordering by it save timed evaluations?

    .venv/bin/python bench/predict_rank.py [--only NAME ...] [--quick] [--json PATH]

For five kernels of bench/tune_kernels/ (blur3, dot_f32, dot_u8, scale_shift,
sum_pf; matmul_ijk is left out: its scalar loop has no step to predict by), each copied
into build/bench/rank/<name>/:
1. `ea tune --fresh --json` (today's search): every timed variant's measured
   time at the suite's largest size against its predicted time
   (compiler/tune/predicted_order.predicted_cycles_at): Kendall tau per kernel
   and over all pairs within kernels;
2. `ea tune --fresh --json --predicted`: the timed evaluations of both runs,
   and whether it reached the same best program.

    .venv/bin/python bench/predict_rank.py --replay build/bench/predict_rank.json

re-predicts the variants of an earlier run (their sources stay in build/bench/rank/) against
the times it measured: tau with the current model, nothing tuned or timed."""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EA = ROOT / ".venv" / "bin" / "ea"
KERNELS = ("blur3", "dot_f32", "dot_u8", "scale_shift", "sum_pf")
OUT = ROOT / "build" / "bench" / "rank"
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def kendall_tau(xs: list[float], ys: list[float]) -> tuple[float | None, int, int]:
    """Kendall's tau-a over the pairs (ties count as neither); (tau, concordant, discordant)."""
    conc = disc = 0
    for (x1, y1), (x2, y2) in itertools.combinations(zip(xs, ys), 2):
        s = (x1 - x2) * (y1 - y2)
        conc += s > 0
        disc += s < 0
    pairs = len(xs) * (len(xs) - 1) // 2
    return ((conc - disc) / pairs if pairs else None), conc, disc


def kendall_tau_b(xs: list[float], ys: list[float]) -> float | None:
    """Tau-b: tau corrected for ties (variants the model predicts equal, such as prefetch distances)."""
    _, conc, disc = kendall_tau(xs, ys)
    pairs = list(itertools.combinations(zip(xs, ys), 2))
    untied_x = sum(1 for (x1, _), (x2, _) in pairs if x1 != x2)
    untied_y = sum(1 for (_, y1), (_, y2) in pairs if y1 != y2)
    return (conc - disc) / (untied_x * untied_y) ** 0.5 if untied_x and untied_y else None


def tune(name: str, predicted: bool, quick: bool, budget: int | None = None) -> dict:
    folder = OUT / f"{name}{'-predicted' if predicted else ''}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for suffix in (".ea", ".bench.toml"):
        shutil.copy(ROOT / "bench" / "tune_kernels" / f"{name}{suffix}", folder / f"{name}{suffix}")
    cmd = [str(EA), "tune", f"{name}.ea", "--fresh", "--json", *(["--predicted"] if predicted else []),
           *(["--quick"] if quick else []), *([f"--budget={budget}"] if budget else [])]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=ENV, timeout=3600)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout), folder=str(folder))


def timed_runs(result: dict) -> int:
    """The worker's timed runs of a tune: its evaluated variants, the second measurements of
    marginal gains included (gate.confirmed)."""
    return result["evaluated"] + result["tally"]["twice"]


def retimed(name: str, result: dict, quick: bool, seconds: float | None = None) -> dict[str, dict[int, float]]:
    """Every timed variant's time per suite size, measured again here with the thread's CPU
    time and all variants of a size in alternating turns (the tuner's wall-clock times on a
    loaded machine are too noisy to rank by): {variant path: {n: ns}}."""
    variants = sorted({str(Path(result["folder"]) / a["variant"]) for a in result["history"]
                       if a.get("times_us") and a.get("variant")})
    return timed(name, variants, quick, seconds)


def timed(name: str, programs: list[str], quick: bool, seconds: float | None = None) -> dict[str, dict[int, float]]:
    """{program path: {n: ns}}: each program's p10 thread CPU time per suite size, all of a size in
    alternating turns."""
    from ea_compiler.bench import load_suite
    from ea_compiler.bench.cycle_run import _checked_call
    from ea_compiler.bench.timing import Budget, measure
    from ea_compiler.loader import load
    spec = load_suite(ROOT / "bench" / "tune_kernels" / f"{name}.bench.toml").benches[0]
    kernels = {v: load(v) for v in programs}
    out: dict[str, dict[int, float]] = {v: {} for v in programs}
    budget = Budget(seconds=seconds or (0.05 if quick else 0.2), min_samples=5, cpu_time=True)
    for n in spec.sizes:
        calls = {v: _checked_call(k, spec, n) for v, k in kernels.items()}
        for v, st in measure(calls, budget).items():
            out[v][n] = st.p10_ns
    return out


def bests_together(name: str, plain: dict, guided: dict, quick: bool) -> dict[str, float] | None:
    """The guided search's best over today's search's best, both timed again side by side at each
    size (1.0: as fast; the tuners' own times come from two runs and do not compare)."""
    best = [str(Path(r["folder"]) / (r.get("best_file") or f"{name}.ea")) for r in (plain, guided)]
    if best[0] == best[1]:
        return None
    times = timed(name, best, quick, seconds=1.0)
    return {str(n): times[best[1]][n] / times[best[0]][n] for n in times[best[0]]}


def ranking(name: str, result: dict, rounds: list[dict[str, dict]] | None = None) -> dict:
    """Predicted vs measured time of every timed variant, per suite size (the largest is what
    the tuner scores); measured = the tuner's times, or the mean of `rounds` (retimed) when
    given. With two rounds, also how well the measurement agrees with itself."""
    from ea_compiler.bench import load_suite
    from ea_compiler.options import Options
    from ea_compiler.tune.predicted_order import predicted_cycles_at
    suite = load_suite(ROOT / "bench" / "tune_kernels" / f"{name}.bench.toml")
    rows: dict[int, list[tuple]] = {}  # n -> (predicted, measured, label, (round times))
    seen = set()
    for a in result["history"]:
        times, variant = a.get("times_us") or {}, a.get("variant")
        variant = Path(result["folder"]) / variant if variant else None
        if not times or variant is None or not variant.exists():
            continue
        per_round = [{}]
        if rounds is not None:
            if str(variant) in seen:
                continue
            seen.add(str(variant))
            per_round = [{str(n): ns for n, ns in r.get(str(variant), {}).items()} for r in rounds]
            times = {n: sum(r[n] for r in per_round) / len(per_round) for n in per_round[0]
                     if all(n in r for r in per_round)}
        spec = next((b for b in suite.benches if b.function == a.get("function")), suite.benches[0])
        guesses = predicted_cycles_at(variant.read_text(), f"{name}.ea", Options(), spec.function, spec, spec.sizes)
        for n, guess in guesses.items():
            if guess is not None and str(n) in times:
                rows.setdefault(n, []).append((guess, times[str(n)], a.get("label") or "original",
                                               [r.get(str(n)) for r in per_round]))
    out = {}
    for n, got in sorted(rows.items()):
        pred, meas = [g[0] for g in got], [g[1] for g in got]
        tau, conc, disc = kendall_tau(pred, meas)
        out[n] = {"variants": len(pred), "tau": tau, "tau_b": kendall_tau_b(pred, meas),
                  "concordant": conc, "discordant": disc,
                  "pairs": [(p, m, label) for p, m, label, _ in got]}
        if rounds is not None and len(rounds) == 2:
            out[n].update(agreement(pred, [g[3][0] for g in got], [g[3][1] for g in got]))
    return out


def agreement(pred: list[float], first: list[float], second: list[float]) -> dict:
    """The measurement against itself: tau between its two rounds (the most any prediction can
    expect), and the prediction's tau over the pairs the measurement resolves: both rounds put
    them in the same order, by more than the two variants' own round-to-round differences."""
    self_tau = kendall_tau(first, second)[0]
    conc = disc = resolved = 0
    for i, j in itertools.combinations(range(len(pred)), 2):
        d1, d2 = first[i] - first[j], second[i] - second[j]
        spread = abs(first[i] - second[i]) + abs(first[j] - second[j])
        if d1 * d2 <= 0 or abs(d1 + d2) / 2 <= spread:
            continue
        resolved += 1
        s = (pred[i] - pred[j]) * d1
        conc += s > 0
        disc += s < 0
    return {"tau_rounds": self_tau, "resolved_pairs": resolved,
            "tau_resolved": (conc - disc) / resolved if resolved else None,
            "concordant_resolved": conc, "discordant_resolved": disc}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=list(KERNELS))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget", type=int, help="each tune evaluates at most this many variants (ea tune --budget)")
    ap.add_argument("--retime-seconds", type=float,
                    help="measuring time per variant and size in each retiming round (default 0.05 with "
                         "--quick, else 0.2)")
    ap.add_argument("--json")
    ap.add_argument("--replay", metavar="JSON", help="re-predict an earlier run's variants against its times")
    args = ap.parse_args()
    if args.replay:
        return replay(Path(args.replay))
    rows, totals = [], Totals()
    for name in args.only:
        plain = tune(name, False, args.quick, args.budget)
        rounds = [retimed(name, plain, args.quick, args.retime_seconds) for _ in range(2)]
        sizes = ranking(name, plain, rounds)
        tuner_sizes = ranking(name, plain)
        rank = totals.add(sizes)
        retimes = [{v: {str(n): ns for n, ns in t.items()} for v, t in r.items()} for r in rounds]
        guided = tune(name, True, args.quick, args.budget)
        same = guided["diff"] == plain["diff"]
        together = None if same else bests_together(name, plain, guided, args.quick)
        row = {"kernel": name, "tau": rank.get("tau"), "variants_ranked": rank.get("variants", 0),
               "tau_per_size": {n: r["tau"] for n, r in sizes.items()},
               "tau_per_size_tuner_times": {n: r["tau"] for n, r in tuner_sizes.items()},
               "evaluated": timed_runs(plain), "evaluated_predicted": timed_runs(guided),
               "best": plain["best_label"], "best_predicted": guided["best_label"], "same_best": same,
               "best_us": plain["best_us"], "best_us_predicted": guided["best_us"], "sizes": sizes,
               "best_predicted_over_best": together,
               "tuned": plain, "retimed": retimes}
        rows.append(row)
        print(f"{line(name, sizes)} | timed evaluations "
              f"{row['evaluated']:>2} -> {row['evaluated_predicted']:>2} with --predicted | best "
              f"{plain['best_label'] or 'original'!r} vs {guided['best_label'] or 'original'!r}"
              f" ({'same' if same else 'DIFFERENT'}; {plain['best_us']:.1f} vs {guided['best_us']:.1f} us"
              f"{'' if together is None else '; side by side ' + ', '.join(f'{n}: {r:.3f}' for n, r in together.items())})",
              flush=True)
    totals.report()
    evals = sum(r["evaluated"] for r in rows), sum(r["evaluated_predicted"] for r in rows)
    print(f"timed evaluations: {evals[0]} today, {evals[1]} with --predicted; "
          f"same best on {sum(r['same_best'] for r in rows)} of {len(rows)} kernels")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"rows": rows, "tau": totals.tau(), "evaluations": evals}, indent=1))
    return 0


class Totals:
    """Pairs within kernels at each kernel's scored (largest) size, summed over kernels."""

    def __init__(self) -> None:
        self.conc = self.disc = self.pairs = 0
        self.resolved = self.conc_resolved = self.disc_resolved = 0

    def add(self, sizes: dict) -> dict:
        rank = sizes[max(sizes)] if sizes else {}
        self.conc += rank.get("concordant", 0)
        self.disc += rank.get("discordant", 0)
        self.pairs += rank.get("variants", 0) * (rank.get("variants", 0) - 1) // 2
        self.resolved += rank.get("resolved_pairs", 0)
        self.conc_resolved += rank.get("concordant_resolved", 0)
        self.disc_resolved += rank.get("discordant_resolved", 0)
        return rank

    def tau(self) -> float | None:
        return (self.conc - self.disc) / self.pairs if self.pairs else None

    def report(self) -> None:
        print(f"\nKendall tau at the scored (largest) size over all within-kernel pairs: {_t(self.tau())} "
              f"(goal >= 0.8)")
        if self.resolved:
            print(f"over the {self.resolved} of {self.pairs} pairs the measurement resolves: "
                  f"{_t((self.conc_resolved - self.disc_resolved) / self.resolved)}")


def line(name: str, sizes: dict) -> str:
    """One kernel's taus per size: predicted vs measured (a/b), the two rounds against each
    other, and the prediction over the pairs the rounds resolve."""
    parts = []
    for n, r in sizes.items():
        text = f"{n}: {_t(r['tau'])}/{_t(r['tau_b'])}"
        if "tau_rounds" in r:
            text += f" rounds {_t(r['tau_rounds'])} resolved {_t(r['tau_resolved'])} ({r['resolved_pairs']})"
        parts.append(text)
    variants = sizes[max(sizes)]["variants"] if sizes else 0
    return f"{name:<12} tau-a/tau-b per size ({', '.join(parts)}) over {variants} variants"


def replay(path: Path) -> int:
    """tau of an earlier run's variants with the current model, against the times it measured."""
    totals = Totals()
    for row in json.loads(path.read_text())["rows"]:
        if "tuned" not in row:
            print(f"{row['kernel']:<12} (recorded without its variants' times: run it again)")
            continue
        rounds = row["retimed"] if isinstance(row["retimed"], list) else [row["retimed"]]
        sizes = ranking(row["kernel"], row["tuned"], rounds)
        totals.add(sizes)
        print(line(row["kernel"], sizes))
    totals.report()
    return 0


def _t(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


if __name__ == "__main__":
    sys.exit(main())
