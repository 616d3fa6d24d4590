"""The sizes a benchmark sweeps: one count `n` per size (`sizes = ["64K", 1000]`), or
several named parameters per size (`sizes = [{m = 256, n = 256, k = 256}, ...]`), which
the bench's expressions (array lengths, scalar arguments, the reference, `flops`, `bytes`)
see by name.

A size is written in results by its key: the count in plain digits for a one-`n`
size (`65536`), `m=256,n=256,k=256` for named parameters; shown by its label: the
count exactly as a binary unit where that is short and exact (`64K`, `16M`), else
in digits (`250000`, `16000000`, never `15625K`)."""
from __future__ import annotations

import math
import re

from ..units import parse_bytes

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Names an expression already has: a size parameter may not hide them.
RESERVED = {"np", "numpy", "isqrt", "math"}


def parse_size(value) -> int:
    """4096, "4K", "16M" -> elements (binary units)."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(value)
        return value
    n = parse_bytes(str(value))
    if not n:
        raise ValueError(value)
    return n


def count_label(n: int) -> str:
    """`64K`, `16M`, `1000`, `250000`, `16000000`: a binary unit only when the count
    in it is a whole number below 1024, so the label reads as the suite wrote it."""
    for unit in ("G", "M", "K"):
        scale = _UNITS[unit]
        if n >= scale and n % scale == 0 and (n // scale < 1024 or unit == "G"):
            return f"{n // scale}{unit}"
    return str(n)


class Size(int):
    """One point of a bench's sweep: its parameters, in the suite's order. As a number it is
    its magnitude (the product of the parameters: what orders sizes, so the largest size is
    `max(sizes)`), which for a one-`n` size is n itself: code written for counts keeps working."""
    params: tuple[tuple[str, int], ...]

    def __new__(cls, params) -> "Size":
        params = tuple((str(name), int(value)) for name, value in params)
        obj = super().__new__(cls, math.prod(v for _, v in params))
        obj.params = params
        return obj

    @classmethod
    def of(cls, n: int) -> "Size":
        return cls((("n", int(n)),))

    @classmethod
    def from_key(cls, key: str) -> "Size":
        """The inverse of `key`."""
        if key.isdigit():
            return cls.of(int(key))
        return cls(tuple(part.split("=") for part in key.split(",")))

    @property
    def single(self) -> bool:
        """A one-`n` size (the original suite format)."""
        return len(self.params) == 1 and self.params[0][0] == "n"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.params)

    def env(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def magnitude(self) -> int:
        return int(self)

    @property
    def key(self) -> str:
        if self.single:
            return str(self.params[0][1])
        return ",".join(f"{name}={value}" for name, value in self.params)

    @property
    def label(self) -> str:
        if self.single:
            return count_label(self.params[0][1])
        return ",".join(f"{name}={count_label(value)}" for name, value in self.params)

    def to_json(self):
        return self.params[0][1] if self.single else self.env()

    def with_all(self, value: int) -> "Size":
        """Every parameter set to `value` (the edge lengths `ea tune` checks)."""
        return Size((name, int(value)) for name, _ in self.params)

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        return f"Size({', '.join(f'{k}={v}' for k, v in self.params)})"

    def __eq__(self, other) -> bool:
        if isinstance(other, Size):
            return self.params == other.params
        if isinstance(other, int):
            return self.single and int(self) == other
        return NotImplemented

    def __ne__(self, other) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return int.__hash__(self) if self.single else hash(self.params)

    def __reduce__(self):
        return (Size, (self.params,))


def as_size(value) -> Size:
    return value if isinstance(value, Size) else Size.of(int(value))


def size_label(size) -> str:
    """How a size (a Size or a count) is shown."""
    return size.label if isinstance(size, Size) else count_label(int(size))


def size_key(size) -> str:
    return size.key if isinstance(size, Size) else str(int(size))


def parse_sizes(raw, where: str, error) -> list[Size]:
    """The `sizes` list of a bench: counts (`["64K", 1000]`) or tables of named counts
    (`[{m = 64, n = 32}, ...]`, every table with the same names). `error(message)`
    makes the exception to raise."""
    if not isinstance(raw, list) or not raw:
        raise error(f"{where}: 'sizes' must be a non-empty list such as [\"64K\", \"16M\"] "
                    "or [{m = 256, n = 256}, ...]")
    if not any(isinstance(s, dict) for s in raw):
        out = []
        for s in raw:
            try:
                out.append(Size.of(parse_size(s)))
            except ValueError:
                raise error(f"{where}: bad size {s!r} (a positive count, optionally with K, M or G)") from None
        return out
    if not all(isinstance(s, dict) for s in raw):
        raise error(f"{where}: 'sizes' mixes counts and tables: write every size as a table "
                    "such as {m = 256, n = 256}")
    names = list(raw[0])
    out = []
    for s in raw:
        if not s:
            raise error(f"{where}: a size table needs at least one parameter, e.g. {{n = 1024}}")
        if list(s) != names:
            raise error(f"{where}: every size must name the same parameters in the same order "
                        f"({', '.join(names)}); got {', '.join(s)}")
        params = []
        for name, value in s.items():
            if not _NAME.fullmatch(name) or name in RESERVED:
                raise error(f"{where}: size parameter {name!r} must be an identifier other than "
                            f"{', '.join(sorted(RESERVED))}")
            try:
                params.append((name, parse_size(value)))
            except ValueError:
                raise error(f"{where}: bad size {name} = {value!r} (a positive count, optionally with "
                            "K, M or G)") from None
        out.append(Size(params))
    return out
