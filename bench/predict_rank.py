"""Does the prediction rank `ea tune`'s variants as the measurements do, and
does ordering by it save timed evaluations?

    .venv/bin/python bench/predict_rank.py [--only NAME ...] [--quick] [--json PATH]

For five kernels of bench/tune_kernels/ (blur3, dot_f32, dot_u8, scale_shift,
sum_pf; matmul_ijk is left out: its scalar loop has no step to predict by), each copied
into build/bench/rank/<name>/:
1. `ea tune --fresh --json` (today's search): every timed variant's measured
   time at the suite's largest size against its predicted time
   (compiler/tune/predicted_order.predicted_cycles): Kendall tau per kernel
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


def tune(name: str, predicted: bool, quick: bool) -> dict:
    folder = OUT / f"{name}{'-predicted' if predicted else ''}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for suffix in (".ea", ".bench.toml"):
        shutil.copy(ROOT / "bench" / "tune_kernels" / f"{name}{suffix}", folder / f"{name}{suffix}")
    cmd = [str(EA), "tune", f"{name}.ea", "--fresh", "--json", *(["--predicted"] if predicted else []),
           *(["--quick"] if quick else [])]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=ENV, timeout=3600)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return dict(json.loads(proc.stdout), folder=str(folder))


def retimed(name: str, result: dict, quick: bool) -> dict[str, dict[int, float]]:
    """Every timed variant's time per suite size, measured again here with the thread's CPU
    time and all variants of a size in alternating turns (the tuner's wall-clock times on a
    loaded machine are too noisy to rank by): {variant path: {n: ns}}."""
    from ea_compiler.bench import load_suite
    from ea_compiler.bench.cycle_run import _checked_call
    from ea_compiler.bench.timing import Budget, measure
    from ea_compiler.loader import load
    suite = load_suite(ROOT / "bench" / "tune_kernels" / f"{name}.bench.toml")
    spec = suite.benches[0]
    variants = sorted({str(Path(result["folder"]) / a["variant"]) for a in result["history"]
                       if a.get("times_us") and a.get("variant")})
    kernels = {v: load(v) for v in variants}
    out: dict[str, dict[int, float]] = {v: {} for v in variants}
    budget = Budget(seconds=0.05 if quick else 0.2, min_samples=5, cpu_time=True)
    for n in spec.sizes:
        calls = {v: _checked_call(k, spec, n) for v, k in kernels.items()}
        for v, st in measure(calls, budget).items():
            out[v][n] = st.p10_ns
    return out


def ranking(name: str, result: dict, times: dict[str, dict[int, float]] | None = None) -> dict:
    """Predicted vs measured time of every timed variant, per suite size (the largest is what
    the tuner scores); measured = the tuner's times, or `times` (retimed) when given."""
    from ea_compiler.bench import load_suite
    from ea_compiler.options import Options
    from ea_compiler.tune.predicted_order import predicted_cycles
    suite = load_suite(ROOT / "bench" / "tune_kernels" / f"{name}.bench.toml")
    per_size: dict[int, tuple[list, list]] = {}
    names: dict[int, list[str]] = {}
    retimes, seen = times, set()
    for a in result["history"]:
        times, variant = a.get("times_us") or {}, a.get("variant")
        variant = Path(result["folder"]) / variant if variant else None
        if not times or variant is None or not variant.exists():
            continue
        if retimes is not None:
            if str(variant) in seen:
                continue
            seen.add(str(variant))
            times = {str(n): ns for n, ns in retimes.get(str(variant), {}).items()}
        spec = next((b for b in suite.benches if b.function == a.get("function")), suite.benches[0])
        text = variant.read_text()
        for n in spec.sizes:
            guess = predicted_cycles(text, f"{name}.ea", Options(), spec.function, spec, n)
            if guess is not None and str(n) in times:
                pred, meas = per_size.setdefault(n, ([], []))
                pred.append(guess)
                meas.append(times[str(n)])
                names.setdefault(n, []).append(a.get("label") or "original")
    out = {}
    for n, (pred, meas) in sorted(per_size.items()):
        tau, conc, disc = kendall_tau(pred, meas)
        out[n] = {"variants": len(pred), "tau": tau, "tau_b": kendall_tau_b(pred, meas),
                  "concordant": conc, "discordant": disc,
                  "pairs": list(zip(pred, meas, names[n]))}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=list(KERNELS))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--replay", metavar="JSON", help="re-predict an earlier run's variants against its times")
    args = ap.parse_args()
    if args.replay:
        return replay(Path(args.replay))
    rows, total_conc, total_disc, total_pairs = [], 0, 0, 0
    for name in args.only:
        plain = tune(name, False, args.quick)
        retimed_times = retimed(name, plain, args.quick)
        sizes = ranking(name, plain, retimed_times)
        tuner_sizes = ranking(name, plain)
        rank = sizes[max(sizes)] if sizes else {"variants": 0, "tau": None, "concordant": 0, "discordant": 0}
        retimes = {v: {str(n): ns for n, ns in t.items()} for v, t in retimed_times.items()}
        guided = tune(name, True, args.quick)
        same = guided["diff"] == plain["diff"]
        total_conc += rank["concordant"]
        total_disc += rank["discordant"]
        total_pairs += rank["variants"] * (rank["variants"] - 1) // 2
        row = {"kernel": name, "tau": rank["tau"], "variants_ranked": rank["variants"],
               "tau_per_size": {n: r["tau"] for n, r in sizes.items()},
               "tau_per_size_tuner_times": {n: r["tau"] for n, r in tuner_sizes.items()},
               "evaluated": plain["evaluated"], "evaluated_predicted": guided["evaluated"],
               "best": plain["best_label"], "best_predicted": guided["best_label"], "same_best": same,
               "best_us": plain["best_us"], "best_us_predicted": guided["best_us"], "sizes": sizes,
               "tuned": plain, "retimed": retimes}
        rows.append(row)
        taus = ", ".join(f"{n}: {_t(r['tau'])}/{_t(r['tau_b'])}" for n, r in sizes.items())
        print(f"{name:<12} tau-a/tau-b per size, retimed ({taus}) over {rank['variants']} variants | timed evaluations "
              f"{plain['evaluated']:>2} -> {guided['evaluated']:>2} with --predicted | best "
              f"{plain['best_label'] or 'original'!r} vs {guided['best_label'] or 'original'!r}"
              f" ({'same' if same else 'DIFFERENT'}; {plain['best_us']:.1f} vs {guided['best_us']:.1f} us)",
              flush=True)
    overall = (total_conc - total_disc) / total_pairs if total_pairs else None
    evals = sum(r["evaluated"] for r in rows), sum(r["evaluated_predicted"] for r in rows)
    print(f"\nKendall tau at the scored (largest) size over all within-kernel pairs: {'-' if overall is None else f'{overall:+.2f}'} (goal >= 0.8)")
    print(f"timed evaluations: {evals[0]} today, {evals[1]} with --predicted; "
          f"same best on {sum(r['same_best'] for r in rows)} of {len(rows)} kernels")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"rows": rows, "tau": overall, "evaluations": evals}, indent=1))
    return 0


def replay(path: Path) -> int:
    """tau of an earlier run's variants with the current model, against the times it measured."""
    total_conc = total_disc = total_pairs = 0
    for row in json.loads(path.read_text())["rows"]:
        if "tuned" not in row:
            print(f"{row['kernel']:<12} (recorded without its variants' times: run it again)")
            continue
        sizes = ranking(row["kernel"], row["tuned"], row["retimed"])
        rank = sizes[max(sizes)]
        total_conc += rank["concordant"]
        total_disc += rank["discordant"]
        total_pairs += rank["variants"] * (rank["variants"] - 1) // 2
        taus = ", ".join(f"{n}: {_t(r['tau'])}/{_t(r['tau_b'])}" for n, r in sizes.items())
        print(f"{row['kernel']:<12} tau-a/tau-b per size ({taus}) over {rank['variants']} variants")
    overall = (total_conc - total_disc) / total_pairs if total_pairs else None
    print(f"\nKendall tau at the scored (largest) size over all within-kernel pairs: "
          f"{'-' if overall is None else f'{overall:+.2f}'} (goal >= 0.8)")
    return 0


def _t(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


if __name__ == "__main__":
    sys.exit(main())
