"""NumPy benchmark suites: the `<stem>.bench.toml` file beside a kernel.

    kernel = "fma.ea"                  # optional: defaults to <stem>.ea beside the file
    baseline = "baselines/fma.json"    # optional: for --update-baseline / regression checks

    [[bench]]
    function = "fma_kernel"            # the exported function, called through the loader
    name = "fma"                       # optional: defaults to the function name
    sizes = ["64K", "1M", "16M"]       # n to sweep; K = 1024, M = 1024²
    bytes_per_element = 16             # bytes moved per element of n (GB/s = this * n / time)
    reference = "a * b + c"            # NumPy expression: checked against, and timed as the baseline
    check = "out"                      # what to compare: an argument's value after the call, or "return"
    rtol = 1e-6                        # optional tolerances (numpy.allclose); defaults 1e-5 / 1e-6
    max_mismatch = 0.005               # optional: the fraction of values allowed beyond rtol/atol (default 0)
    verify = "np.abs(got - expected).max() < 0.1"   # optional: a custom check instead of rtol/atol
    flops_per_element = 2              # optional: floating-point operations per element of n (GFLOP/s)
    loop_elements = "n * n"            # optional: elements the main loop covers per call (default n),
                                       # for cycles per iteration (`ea bench --cycles`)
    loop_step = 8                      # optional: elements per main-loop iteration, where the machine
                                       # code does not show it (a loop of scalar or libm code)
    cycle_sizes = { L1 = [64, 128] }   # optional: the sizes of each class instead of those chosen by
                                       # working set (L1: two sizes, the slope between them; DRAM: one)
    seed = 1                           # optional
    [bench.args]                       # one entry per parameter, in any order
    a = { dtype = "float32", dist = "uniform", low = -1, high = 1 }
    out = { dtype = "float32", dist = "zeros" }
    alpha = 0.5                        # a scalar argument
    w = "isqrt(n)"                     # a string is an expression in n

Several named sizes per bench (sizes.py): `sizes = [{m = 256, n = 128, k = 64}, ...]`;
the parameters are names in every expression, array lengths are expressions of them
(`length = "m * k"`), and `bytes = "4 * (m*k + k*n + m*n)"` / `flops = "2 * m * n * k"`
give the work of one call where "per element" has no meaning (`*_per_element` multiply
a size's `n`). At least one of bytes_per_element, bytes, flops_per_element, flops.
`verify` sees the arguments after the call by name, `got` (what `check` names),
`expected` (the reference's value) and the size's parameters; it must be true.

Array entries: `dtype` (a NumPy dtype name, or a struct of the kernel such as
"Particle"), `dist` (uniform | normal | integers | zeros | ones | full),
`low`/`high` (uniform, integers), `mean`/`std` (normal), `value` (full),
`length` (an expression in n; default "n"), `shape` (a list of expressions),
`seed`. A suite (or a `[[bench]]`) may have a `prelude`: Python statements
run once, whose names (helper functions for a reference, say) expressions
can use. Expressions see the size (`n`, or the named parameters), `np` (or `numpy`),
`isqrt` and the arguments defined before them; the reference sees the arguments as they were before the call. A suite
file is code, like a Makefile: only run suites you trust.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .sizes import Size, as_size, parse_size, parse_sizes, size_label  # noqa: F401 - re-exported


class BenchError(Exception):
    """A user-facing problem with a suite or a run; str(err) is the message."""


DISTS = ("uniform", "normal", "integers", "zeros", "ones", "full")
_ARRAY_KEYS = {"dtype", "dist", "low", "high", "mean", "std", "value", "length", "shape", "seed"}
_BENCH_KEYS = {"function", "name", "sizes", "bytes_per_element", "bytes", "flops_per_element", "flops",
               "reference", "check", "rtol", "atol", "max_mismatch", "verify", "seed", "args", "prelude",
               "loop_elements", "loop_step", "cycle_sizes"}
_WORK_KEYS = ("bytes_per_element", "bytes", "flops_per_element", "flops")
_SUITE_KEYS = {"kernel", "baseline", "history", "bench", "prelude", "tune"}


@dataclass
class ArraySpec:
    dtype: np.dtype | str  # a str names a struct of the kernel, resolved when the kernel is loaded
    dist: str = "uniform"
    low: float | None = None
    high: float | None = None
    mean: float = 0.0
    std: float = 1.0
    value: float = 0.0
    length: str = "n"
    shape: list[str] | None = None
    seed: int | None = None


@dataclass
class BenchSpec:
    name: str
    function: str
    sizes: list[Size]
    bytes_per_element: float | None
    reference: str
    check: str = "return"
    rtol: float = 1e-5
    atol: float = 1e-6
    max_mismatch: float = 0.0  # the fraction of values allowed to differ beyond rtol/atol
    verify: str = ""  # a custom check expression (replaces rtol/atol/max_mismatch)
    bytes: str = ""  # bytes moved by one call, an expression of the size
    flops_per_element: float | None = None
    flops: str = ""  # floating-point operations of one call, an expression of the size
    seed: int = 1
    prelude: str = ""  # the suite's prelude, then the bench's own
    loop_elements: str = "n"  # expression in n: the elements the main loop covers per call
    loop_step: int | None = None  # elements per main-loop iteration, when inspect cannot tell
    cycle_sizes: dict[str, list[int]] | None = None  # "L1": [small, large], "DRAM": [n]
    args: dict[str, ArraySpec | float | int | str] = field(default_factory=dict)


@dataclass
class Suite:
    path: Path
    kernel: Path
    benches: list[BenchSpec]
    baseline: Path | None = None
    history: Path | None = None
    tune: dict = field(default_factory=dict)  # the raw [tune] table; `ea tune` validates it

    @property
    def name(self) -> str:
        return self.path.name.removesuffix(".toml").removesuffix(".bench")


def find_suite(path) -> Path | None:
    """The suite for `path`: the file itself if it is a .toml, else `<stem>.bench.toml` beside it."""
    path = Path(path)
    if path.suffix == ".toml":
        return path if path.exists() else None
    candidate = path.with_name(f"{path.stem}.bench.toml")
    return candidate if candidate.exists() else None


def load_suite(path) -> Suite:
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as err:
        raise BenchError(f"cannot read '{path}': {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise BenchError(f"{path}: invalid TOML: {err}") from None
    where = str(path)
    _no_unknown(data, _SUITE_KEYS, where)
    base = path.parent
    kernel = base / _string(data.get("kernel", path.name.removesuffix(".toml").removesuffix(".bench") + ".ea"),
                            f"{where}: kernel")
    if not kernel.exists():
        raise BenchError(f"{where}: kernel file '{kernel}' does not exist")
    benches_raw = data.get("bench")
    if not isinstance(benches_raw, list) or not benches_raw or not all(isinstance(b, dict) for b in benches_raw):
        raise BenchError(f"{where}: needs at least one [[bench]] table")
    prelude = _code(data.get("prelude", ""), f"{where}: prelude")
    benches = [_bench(b, f"{where}: [[bench]] #{i + 1}", prelude) for i, b in enumerate(benches_raw)]
    names = [b.name for b in benches]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise BenchError(f"{where}: benchmark names must be unique (repeated: {', '.join(dupes)}); set `name`")
    baseline = base / _string(data["baseline"], f"{where}: baseline") if "baseline" in data else None
    history = base / _string(data["history"], f"{where}: history") if "history" in data \
        else base / ".ea-bench" / f"{path.name.removesuffix('.toml')}.history.jsonl"
    tune = data.get("tune", {})
    if not isinstance(tune, dict):
        raise BenchError(f"{where}: [tune] must be a table")
    return Suite(path, kernel, benches, baseline, history, tune)


def _bench(raw: dict, where: str, prelude: str) -> BenchSpec:
    _no_unknown(raw, _BENCH_KEYS, where)
    for key in ("function", "sizes", "reference"):
        if key not in raw:
            raise BenchError(f"{where}: missing required key '{key}'")
    function = _string(raw["function"], f"{where}: function")
    where = f"{where.rsplit(':', 1)[0]}: [[bench]] {raw.get('name', function)}"
    if not any(key in raw for key in _WORK_KEYS):
        raise BenchError(f"{where}: missing required key 'bytes_per_element' (or bytes, flops_per_element, "
                         "flops: the work of one call, for GB/s or GFLOP/s)")
    sizes = parse_sizes(raw["sizes"], where, BenchError)
    for key in ("bytes_per_element", "flops_per_element"):
        if key in raw and "n" not in sizes[0].names:
            raise BenchError(f"{where}: '{key}' multiplies the size's n, which these sizes do not have "
                             f"({', '.join(sizes[0].names)}): write {key.split('_')[0]} = \"...\" as an expression")
    spec = BenchSpec(
        name=_string(raw.get("name", function), f"{where}: name"), function=function, sizes=sizes,
        bytes_per_element=_optional(raw, "bytes_per_element", where),
        reference=_expression(raw["reference"], f"{where}: reference"),
        check=_string(raw.get("check", "return"), f"{where}: check"),
        rtol=_number(raw.get("rtol", 1e-5), f"{where}: rtol"),
        atol=_number(raw.get("atol", 1e-6), f"{where}: atol"),
        max_mismatch=_fraction(raw.get("max_mismatch", 0.0), f"{where}: max_mismatch"),
        verify=_expression(raw["verify"], f"{where}: verify") if "verify" in raw else "",
        bytes=_expression(raw["bytes"], f"{where}: bytes") if "bytes" in raw else "",
        flops_per_element=_optional(raw, "flops_per_element", where),
        flops=_expression(raw["flops"], f"{where}: flops") if "flops" in raw else "",
        seed=int(_number(raw.get("seed", 1), f"{where}: seed")),
        loop_elements=_expression(str(raw.get("loop_elements", "n")), f"{where}: loop_elements"),
        loop_step=int(_number(raw["loop_step"], f"{where}: loop_step", positive=True)) if "loop_step" in raw else None,
        prelude="\n".join(filter(None, [prelude, _code(raw.get("prelude", ""), f"{where}: prelude")])))
    if "cycle_sizes" in raw:
        spec.cycle_sizes = _cycle_sizes(raw["cycle_sizes"], f"{where}: cycle_sizes")
    for a, b in (("bytes_per_element", "bytes"), ("flops_per_element", "flops")):
        if a in raw and b in raw:
            raise BenchError(f"{where}: give '{a}' or '{b}', not both")
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise BenchError(f"{where}: 'args' must be a table of the function's parameters")
    for name, value in args.items():
        spec.args[name] = _arg(value, f"{where}: args.{name}")
    if spec.check != "return" and spec.check not in spec.args:
        raise BenchError(f"{where}: check = '{spec.check}' is not one of the arguments "
                         f"({', '.join(spec.args) or 'none'}) nor \"return\"")
    return spec


def _cycle_sizes(raw, where: str) -> dict[str, list[int]]:
    wanted = {"L1": 2, "DRAM": 1}
    if not isinstance(raw, dict) or not raw or set(raw) - set(wanted):
        raise BenchError(f"{where}: expected a table such as {{ L1 = [64, 128], DRAM = [\"16M\"] }}")
    out = {}
    for key, sizes in raw.items():
        try:
            out[key] = [parse_size(s) for s in sizes] if isinstance(sizes, list) else []
        except ValueError:
            out[key] = []
        if len(out[key]) != wanted[key] or (key == "L1" and out[key][0] >= out[key][1]):
            raise BenchError(f"{where}: {key} takes {'two increasing sizes' if key == 'L1' else 'one size'}")
    return out


def _arg(value, where: str):
    if isinstance(value, bool):
        raise BenchError(f"{where}: expected a number, an expression string or an array table")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return _expression(value, where)
    if not isinstance(value, dict):
        raise BenchError(f"{where}: expected a number, an expression string or an array table")
    _no_unknown(value, _ARRAY_KEYS, where)
    if "dtype" not in value:
        raise BenchError(f"{where}: missing 'dtype' (e.g. \"float32\", \"uint8\")")
    name = _string(value["dtype"], f"{where}: dtype")
    try:
        dtype = np.dtype(name)
    except TypeError:
        if not name.isidentifier():
            raise BenchError(f"{where}: unknown dtype {name!r}") from None
        dtype = name  # a struct of the kernel, checked when it is loaded
    dist = _string(value.get("dist", "uniform"), f"{where}: dist")
    if dist not in DISTS:
        raise BenchError(f"{where}: unknown dist '{dist}' (one of {', '.join(DISTS)})")
    spec = ArraySpec(dtype, dist, length=_expression(str(value.get("length", "n")), f"{where}: length"))
    for key in ("low", "high", "mean", "std", "value"):
        if key in value:
            setattr(spec, key, _number(value[key], f"{where}: {key}"))
    if "shape" in value:
        if not isinstance(value["shape"], list) or not value["shape"]:
            raise BenchError(f"{where}: 'shape' must be a non-empty list of expressions")
        spec.shape = [_expression(str(s), f"{where}: shape") for s in value["shape"]]
    if "seed" in value:
        spec.seed = int(_number(value["seed"], f"{where}: seed"))
    return spec


def _optional(raw: dict, key: str, where: str) -> float | None:
    return _number(raw[key], f"{where}: {key}", positive=True) if key in raw else None


def _fraction(value, where: str) -> float:
    value = _number(value, where)
    if not 0 <= value < 1:
        raise BenchError(f"{where}: expected a fraction of the values, at least 0 and below 1 (e.g. 0.005)")
    return value


def _no_unknown(table: dict, known: set[str], where: str) -> None:
    for key in table:
        if key not in known:
            raise BenchError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(known))})")


def _string(value, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise BenchError(f"{where}: expected a non-empty string")
    return value


def _number(value, where: str, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (positive and value <= 0):
        raise BenchError(f"{where}: expected a {'positive ' if positive else ''}number")
    return value


def _expression(text, where: str) -> str:
    text = _string(text, where)
    try:
        compile(text, where, "eval")
    except SyntaxError as err:
        raise BenchError(f"{where}: not a valid expression: {text!r} ({err.msg})") from None
    return text


def _code(text, where: str) -> str:
    if text == "":
        return ""
    text = _string(text, where)
    try:
        compile(text, where, "exec")
    except SyntaxError as err:
        raise BenchError(f"{where}: line {err.lineno}: {err.msg}") from None
    return text


def namespace(size) -> dict:
    """What expressions in a suite can use at `size` (a Size, or a count n)."""
    return {**as_size(size).env(), "np": np, "numpy": np, "isqrt": math.isqrt}
