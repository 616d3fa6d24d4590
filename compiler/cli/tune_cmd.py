"""`ea tune`: search for a faster version of a kernel, verified against its
bench suite's reference. Exit codes: 0 done (faster or not), 1 error,
3 the best found was slower than the original measured side by side at the
end (nothing written), 130 interrupted (what was found so far is reported;
a re-run resumes from the cache)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..target_flags import TARGET_VALUE_OPTIONS, UsageError, joined, parse_target_flag, validate
from .flags import HELP_FLAGS, wants_help

USAGE = """usage: ea tune <file.ea> [options]
Searches variants of the kernel (const values, source transformations, agent proposals),
verifies each against the suite beside it (<stem>.bench.toml) at every size and at edge
lengths, times it against the best so far, and keeps it only when it is faster at the
largest size beyond the noise. The best is written to <stem>.tuned.ea (or in place with --apply).

  --function NAME       tune this function (repeatable; default: every function the suite benches)
  --space LIST          params,transforms,agent (default: params,transforms, plus agent with --propose-cmd)
  --strategy S          auto | exhaustive | random | local (default auto: exhaustive for small spaces)
  --budget N            evaluate at most N variants
  --time SECONDS        stop after this long
  --propose-cmd CMD     a command that reads a prompt on stdin and prints a whole kernel
  --propose-timeout S   seconds a proposal may take (default: the suite's, else 120)
  --seed N              seed of the random and local searches (default 0)
  --assume-noalias      let the search add `restrict` (you confirm callers never pass overlapping arrays)
  --quick               short measurements (smoke runs)
  --fresh               measure again even what the cache knows
  --predicted           time only variants predicted faster than the best so far, fastest first,
                        in one round; stop after 3 in a row are not accepted or a quarter are tried
                        (compiler/tune/predicted_order.py)
  --apply               rewrite the kernel in place (the original is kept as <stem>.ea.orig)
  --json                print the result JSON instead of the table
  --explain             list per function which transformations apply, and why the others do not
                        (nothing is measured; with --assume-noalias, as the search would see it)
  --no-diff             do not print the diff
  target options as for `ea`: --target CPU --avx512 --opt-level N ...
  -h, --help            this help
An option's value may also be written --opt=value.

Exit status: 0 done (a faster kernel written, or none found), 1 error, 3 the best variant
was slower than the original when measured side by side at the end (nothing written),
130 interrupted (a re-run resumes from the cache).
"""

_VALUES = ("--function", "--space", "--strategy", "--budget", "--time", "--propose-cmd", "--propose-timeout",
           "--seed")
_SWITCHES = {"--assume-noalias": "assume_noalias", "--quick": "quick", "--fresh": "fresh",
             "--predicted": "predicted"}


def run_tune(args: list[str]) -> int:
    if not args or args[0] in HELP_FLAGS or wants_help(args):
        sys.stderr.write(USAGE)
        return 0 if args else 1
    from ..tune import TuneError
    explain = "--explain" in args
    try:
        cfg, apply, as_json, show_diff = _parse([a for a in args if a != "--explain"])
    except TuneError as err:
        raise UsageError(str(err)) from None
    if explain:
        return _explain(cfg)
    from .tune_view import run
    return run(cfg, apply=apply, as_json=as_json, show_diff=show_diff)


def _parse(args: list[str]):
    from ..options import Options
    from ..tune import TuneConfig
    kernel = Path(args[0])
    if kernel.suffix != ".ea":
        raise UsageError(f"ea tune takes an .ea file, got '{args[0]}'")
    kw: dict = {"functions": [], "options": Options()}
    spaces = None
    apply = as_json = False
    show_diff = True
    for arg in joined(args[1:], _VALUES + TARGET_VALUE_OPTIONS):
        name, eq, value = arg.partition("=")
        if name in _VALUES and not eq:
            raise UsageError(f"{name} needs a value")
        if name == "--function":
            kw["functions"].append(value)
        elif name == "--space":
            spaces = tuple(s.strip() for s in value.split(",") if s.strip())
        elif name == "--strategy":
            kw["strategy"] = value
        elif name in ("--budget", "--seed"):
            if not value.isdigit():
                raise UsageError(f"{name} takes a whole number")
            kw[name[2:]] = int(value)
        elif name in ("--time", "--propose-timeout"):
            try:
                seconds = float(value)
            except ValueError:
                raise UsageError(f"{name} takes seconds, e.g. {name}=60") from None
            kw["time_s" if name == "--time" else "propose_timeout_s"] = seconds
        elif name == "--propose-cmd":
            kw["propose_cmd"] = value
        elif arg in _SWITCHES:
            kw[_SWITCHES[arg]] = True
        elif arg == "--apply":
            apply = True
        elif arg == "--json":
            as_json = True
        elif arg == "--no-diff":
            show_diff = False
        else:
            new = parse_target_flag(arg, kw["options"])
            if new is None:
                raise UsageError(f"unknown option '{arg}'")
            kw["options"] = new
    validate(kw["options"])
    if spaces is None:
        spaces = ("params", "transforms") + (("agent",) if kw.get("propose_cmd") else ())
    kw["functions"] = kw["functions"] or None
    return TuneConfig(kernel=kernel, spaces=spaces, **kw), apply, as_json, show_diff


def _explain(cfg) -> int:
    from ..analysis import analyze
    from ..tune.explain import explain_text
    try:
        text = cfg.kernel.read_text()
    except (OSError, UnicodeDecodeError) as err:
        sys.stderr.write(f"error: cannot read {cfg.kernel}: {err}\n")
        return 1
    analysis = analyze(text, str(cfg.kernel), cfg.options)
    if not analysis.ok:
        first = analysis.errors[0]
        sys.stderr.write(f"{cfg.kernel}:{first.span.line}:{first.span.col}: error: {first.message}\n")
        return 1
    sys.stdout.write(explain_text(analysis, cfg.assume_noalias))
    return 0
