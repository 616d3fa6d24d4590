"""What a tuning run is asked to do: the command line's choices
(`TuneConfig`) and the suite's `[tune]` table (`TuneSettings`).

    [tune]
    params = { PF_AHEAD = [0, 128, 256, 512, 1024], UNROLL = [1, 2, 4] }   # or [tune.params]
    constraints = ["UNROLL * PF_AHEAD <= 2048"]   # Python expressions over the params
    transforms = ["unroll", "widen"]              # optional subset (default: all but restrict)
    propose_timeout = 120                         # seconds an agent proposal may take
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..options import Options

SPACES = ("params", "transforms", "agent")
STRATEGIES = ("auto", "exhaustive", "random", "local")
DEFAULT_TRANSFORMS = ("tile", "panels", "kblock", "lines", "vectorise", "interchange", "vectorise_sum", "widen", "fma", "unroll", "prefetch",
                      "prefetch_change", "stream_store", "fast_reduce")
_TUNE_KEYS = {"params", "constraints", "transforms", "propose_timeout"}


class TuneError(Exception):
    """A user-facing problem with the run as a whole; str(err) is the message."""


@dataclass
class TuneConfig:
    kernel: Path
    functions: list[str] | None = None  # None: every function the suite benches
    spaces: tuple[str, ...] = ("params", "transforms")
    strategy: str = "auto"
    budget: int | None = None  # variants evaluated, at most
    time_s: float | None = None  # wall-clock bound
    propose_cmd: str | None = None
    propose_timeout_s: float | None = None  # None: the suite's, else 120
    seed: int = 0
    quick: bool = False
    options: Options = field(default_factory=Options)
    assume_noalias: bool = False  # lets the search add `restrict` (the user confirms no overlap)
    fresh: bool = False  # ignore cached evaluations (they are still written)
    eval_timeout_s: float = 300.0  # one variant's compile + verify + timing
    predicted: bool = False  # try candidates by predicted time, time only the fastest half (predicted_order.py)

    def __post_init__(self):
        self.kernel = Path(self.kernel)
        unknown = [s for s in self.spaces if s not in SPACES]
        if unknown:
            raise TuneError(f"unknown search space {', '.join(unknown)} (known: {', '.join(SPACES)})")
        if self.strategy not in STRATEGIES:
            raise TuneError(f"unknown strategy '{self.strategy}' (known: {', '.join(STRATEGIES)})")
        if "agent" in self.spaces and not self.propose_cmd:
            raise TuneError("the agent space needs a proposer command (--propose-cmd CMD)")
        if self.budget is not None and self.budget < 1:
            raise TuneError("the budget must be at least 1 variant")
        if self.time_s is not None and self.time_s <= 0:
            raise TuneError("the time limit must be positive")


@dataclass
class TuneSettings:
    params: dict[str, list] = field(default_factory=dict)
    constraints: list[str] = field(default_factory=list)
    transforms: tuple[str, ...] = DEFAULT_TRANSFORMS
    propose_timeout_s: float = 120.0


def read_settings(table: dict, where: str, known_transforms) -> TuneSettings:
    """The suite's [tune] table, validated."""
    unknown = sorted(set(table) - _TUNE_KEYS)
    if unknown:
        raise TuneError(f"{where}: [tune]: unknown key '{unknown[0]}' (known: {', '.join(sorted(_TUNE_KEYS))})")
    out = TuneSettings()
    params = table.get("params", {})
    if not isinstance(params, dict):
        raise TuneError(f"{where}: [tune] params must be a table of lists, e.g. UNROLL = [1, 2, 4]")
    for name, values in params.items():
        if not isinstance(values, list) or not values or \
                not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise TuneError(f"{where}: [tune.params] {name} must be a non-empty list of numbers")
        out.params[name] = list(dict.fromkeys(values))
    constraints = table.get("constraints", [])
    if not isinstance(constraints, list) or not all(isinstance(c, str) for c in constraints):
        raise TuneError(f"{where}: [tune] constraints must be a list of expressions (strings)")
    for c in constraints:
        try:
            code = compile(c, f"{where}: constraint", "eval")
        except SyntaxError as err:
            raise TuneError(f"{where}: [tune] constraint {c!r} is not an expression: {err.msg}") from None
        unknown = sorted(set(code.co_names) - set(out.params) - {"min", "max", "abs"})
        if unknown:
            raise TuneError(f"{where}: [tune] constraint {c!r} names {', '.join(unknown)}, not a tuned param "
                            f"(params: {', '.join(out.params) or 'none'})")
    out.constraints = constraints
    if "transforms" in table:
        names = table["transforms"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise TuneError(f"{where}: [tune] transforms must be a list of names")
        bad = [n for n in names if n not in known_transforms]
        if bad:
            raise TuneError(f"{where}: [tune] unknown transform '{bad[0]}' "
                            f"(known: {', '.join(known_transforms)})")
        out.transforms = tuple(names)
    if "propose_timeout" in table:
        value = table["propose_timeout"]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise TuneError(f"{where}: [tune] propose_timeout must be a positive number of seconds")
        out.propose_timeout_s = float(value)
    return out
