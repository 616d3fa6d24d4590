"""`.ea.json` metadata (TOOLCHAIN.md §3) and the rules every binding
generator shares (§4.1): pointer detection, length collapsing, outputs
allocated from their `cap`, the extents checked before a call and the
pointers left unchecked (the extension fields `extents`, `extent_terms`,
`unchecked`; `min_lengths` alone in older files). Generators turn an `Api`
into text."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..outputs.bounds.limits import IndexLimit
from ..outputs.bounds.poly import Extent

LENGTH_NAMES = frozenset({"n", "len", "length", "count", "size", "num"})
LENGTH_TYPES = frozenset({"i32", "i64", "u32", "u64"})
SCALARS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "bool")
NUMPY_DTYPES = {"i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
                "u32": "uint32", "i64": "int64", "u64": "uint64", "f32": "float32", "f64": "float64"}


class BindError(Exception):
    """A user-facing failure of `ea bind` (printed as `error: ...`)."""


@dataclass
class Arg:
    name: str
    type: str
    out: bool = False
    cap: str | None = None
    count: str | None = None
    collapsed_from: str | None = None  # name of the pointer whose element count fills it

    @property
    def is_pointer(self) -> bool:
        return self.type.startswith("*")

    @property
    def mutable(self) -> bool:
        return self.type.startswith(("*mut ", "*restrict mut "))

    @property
    def pointee(self) -> str:
        for prefix in ("*restrict mut ", "*restrict ", "*mut ", "*"):
            if self.type.startswith(prefix):
                return self.type[len(prefix):]
        return self.type

    @property
    def auto_out(self) -> bool:
        return self.out and self.cap is not None and self.is_pointer

    @property
    def visible(self) -> bool:
        return self.collapsed_from is None and not self.auto_out


@dataclass(frozen=True)
class Parallel:
    """Extension: how the compiler proved the export may be split into chunks
    (`ea_compiler.outputs.parallel`): over `length`, at multiples of
    `granule`, offsetting the arrays in `split`, combining results by
    `combine` ("none", "sum", "max" or "min")."""
    length: str
    granule: int
    combine: str
    split: tuple[str, ...]


@dataclass
class Export:
    name: str
    args: list[Arg]
    ret: str | None
    # extension: pointer -> the length parameter it provably has at least as many elements as
    # (the extents that are one parameter)
    min_lengths: dict[str, str] = field(default_factory=dict)
    # extension: pointer -> the elements the code may touch, checked before every call
    extents: dict[str, Extent] = field(default_factory=dict)
    # extension: pointer -> why its extent is not provable (the call does not check it)
    unchecked: dict[str, str] = field(default_factory=dict)
    parallel: Parallel | None = None  # extension: the export may be split
    # extension: pointer -> the index values a call must keep in their type (outputs/bounds/limits.py)
    index_limits: dict[str, list[IndexLimit]] = field(default_factory=dict)

    @property
    def visible(self) -> list[Arg]:
        return [a for a in self.args if a.visible]

    @property
    def outputs(self) -> list[Arg]:
        return [a for a in self.args if a.auto_out]

    def signature(self) -> str:
        """The Eä signature, for docstrings: `f(a: *f32, n: i32) -> f32`."""
        params = ", ".join(f"{a.name}: {a.type}" for a in self.args)
        return f"{self.name}({params}) -> {self.ret or 'void'}"

    def length_notes(self) -> list[str]:
        """What the wrapper checks and does not, for docstrings (one line each)."""
        notes = []
        if self.extents:
            notes.append("Lengths checked before the call: " +
                         ", ".join(f"{p} >= {e.text()}" for p, e in self.extents.items()))
        notes += [f"Length not checked: {p} ({why})" for p, why in self.unchecked.items()]
        if self.index_limits:
            pointers: dict = {}  # a limit several pointers share is listed once
            for p, found in self.index_limits.items():
                for lim in found:
                    pointers.setdefault(lim, []).append(p)
            notes.append("Index range checked before the call: " +
                         ", ".join(f"{lim.text()} for {', '.join(ps)}" for lim, ps in pointers.items()))
        return notes


@dataclass
class Struct:
    name: str
    fields: list[tuple[str, str]]


@dataclass
class Api:
    stem: str
    library: str
    exports: list[Export]
    structs: list[Struct] = field(default_factory=list)


def collapse(args: list[Arg], min_lengths: dict[str, str] | None = None) -> None:
    """§4.1: a length argument after a pointer is filled from the element
    count of the nearest preceding pointer, an allocated output included,
    unless that output's cap is computed from this very length. Extension:
    when the metadata says which arrays a kernel indexes up to this length
    (`min_lengths`), the nearest of those — a lookup table passed last must
    not decide how many elements the kernel processes."""
    pointers: list[Arg] = []
    for a in args:
        if a.is_pointer:
            pointers.append(a)
        elif a.name in LENGTH_NAMES and a.type in LENGTH_TYPES:
            usable = [p for p in pointers if not (p.auto_out and re.search(rf"\b{re.escape(a.name)}\b", p.cap))]
            indexed = [p for p in usable if (min_lengths or {}).get(p.name) == a.name]
            if indexed or usable:
                a.collapsed_from = (indexed or usable)[-1].name


def parse_api(text: str, stem: str) -> Api:
    """Parse metadata text; malformed input raises BindError with the reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise BindError(f"invalid JSON at line {err.lineno}: {err.msg}") from None
    if not isinstance(data, dict) or "exports" not in data:
        raise BindError('missing "exports" in JSON')
    exports = []
    for e in data["exports"]:
        if "name" not in e:
            raise BindError('missing "name" in export')
        args = []
        for a in e.get("args", []):
            if "name" not in a or "type" not in a:
                raise BindError('missing "name" in arg' if "name" not in a else 'missing "type" in arg')
            args.append(Arg(a["name"], a["type"], a.get("direction", "in") == "out", a.get("cap"), a.get("count")))
        extents, unchecked = _bounds(e, args)
        min_lengths = {p: x.bare_name for p, x in extents.items() if x.bare_name is not None}
        collapse(args, min_lengths)
        exports.append(Export(e["name"], args, e.get("return_type"), min_lengths, extents, unchecked,
                              _parallel(e.get("parallel"), args, e.get("return_type")), _limits(e, args)))
    structs = [Struct(s["name"], [(f["name"], f["type"]) for f in s.get("fields", [])])
               for s in data.get("structs", [])]
    return Api(stem, data.get("library", f"{stem}.so"), exports, structs)


def _parallel(data, args: list[Arg], ret: str | None) -> Parallel | None:
    """The `"parallel"` field, checked against the export's arguments."""
    if data is None:
        return None
    by_name = {a.name: a for a in args}
    try:
        plan = Parallel(data["length"], data["granule"], data["combine"], tuple(data["split"]))
    except (KeyError, TypeError):
        raise BindError('"parallel" must have "length", "granule", "combine" and "split"') from None
    length = by_name.get(plan.length)
    if length is None or length.type not in LENGTH_TYPES:
        raise BindError(f'"parallel": length \'{plan.length}\' is not an integer argument')
    if not (isinstance(plan.granule, int) and not isinstance(plan.granule, bool) and plan.granule > 0):
        raise BindError('"parallel": granule must be a positive integer')
    if plan.combine not in ("none", "sum", "max", "min") or (plan.combine == "none") != (ret is None):
        raise BindError(f'"parallel": combine \'{plan.combine}\' does not fit return type {ret}')
    if ret is not None and ret not in SCALARS[:-1]:
        raise BindError(f'"parallel": cannot combine results of type {ret}')
    for name in plan.split:
        if not (name in by_name and by_name[name].is_pointer):
            raise BindError(f'"parallel": split \'{name}\' is not a pointer argument')
    return plan


def _limits(e: dict, args: list[Arg]) -> dict[str, list[IndexLimit]]:
    """The `"index_limits"` field, checked against the export's arguments."""
    data = e.get("index_limits") or {}
    pointers = {a.name for a in args if a.is_pointer}
    ints = {a.name for a in args if not a.is_pointer and a.type in SCALARS[:8]}
    if not (isinstance(data, dict) and all(p in pointers and isinstance(v, list) for p, v in data.items())):
        raise BindError('"index_limits" must map pointer arguments to lists of limits')
    try:
        limits = {p: [IndexLimit.from_json(x) for x in found] for p, found in data.items()}
    except ValueError as err:
        raise BindError(f'"index_limits": {err}') from None
    for p, found in limits.items():
        for lim in found:
            if not lim.index.names() <= ints:
                raise BindError(f"{e.get('name')}: the index limit of '{p}' ({lim.text()}) uses "
                                f"'{sorted(lim.index.names() - ints)[0]}', which is not an integer argument")
    return limits


def _bounds(e: dict, args: list[Arg]) -> tuple[dict[str, Extent], dict[str, str]]:
    """An export's extents (from `extent_terms`, or from `min_lengths` in
    files written before them) and unchecked pointers, validated."""
    def mapping(key: str, what: str, kind: type = str) -> dict:
        value = e.get(key) or {}
        if not (isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, kind) for k, v in value.items())):
            raise BindError(f'"{key}" must map argument names to {what}')
        return value

    min_lengths = mapping("min_lengths", "length argument names")
    if "extents" in e or "extent_terms" in e:
        texts, terms = mapping("extents", "extent texts"), mapping("extent_terms", "lists of polynomials", list)
        if set(texts) != set(terms):
            raise BindError('"extents" and "extent_terms" must name the same arguments')
        try:
            extents = {p: Extent.from_json(t) for p, t in terms.items()}
        except ValueError as err:
            raise BindError(f'"extent_terms": {err}') from None
    else:
        extents = {p: Extent.of_name(b) for p, b in min_lengths.items()}
    if isinstance(e.get("unchecked"), list):  # a plain list of names is read too
        e = {**e, "unchecked": {p: "not provable" for p in e["unchecked"] if isinstance(p, str)}}
    unchecked = mapping("unchecked", "reasons")
    pointers = {a.name for a in args if a.is_pointer}
    ints = {a.name for a in args if not a.is_pointer and a.type in LENGTH_TYPES | {"i8", "u8", "i16", "u16"}}
    name = e.get("name")
    for p, extent in extents.items():
        if p not in pointers:
            raise BindError(f"{name}: the extent of '{p}', which is not a pointer argument")
        if not extent.names() <= ints:
            other = sorted(extent.names() - ints)[0]
            raise BindError(f"{name}: the extent of '{p}' ({extent.text()}) uses '{other}', "
                            "which is not an integer argument")
    return extents, {p: why for p, why in unchecked.items() if p in pointers}


def read_api(source: str) -> Api:
    """The metadata beside `source` (`<source>.json`), checked for freshness."""
    meta = f"{source}.json"
    try:
        text = Path(meta).read_text()
    except OSError as err:
        raise BindError(f"cannot read '{meta}': {err.strerror or err}\n"
                        f"hint: compile with --lib first to generate JSON metadata: ea {source} --lib") from None
    if os.path.exists(source) and os.path.getmtime(source) > os.path.getmtime(meta):
        raise BindError(f"'{meta}' is older than '{source}'\n"
                        f"hint: recompile to refresh it: ea {source} --lib")
    return parse_api(text, Path(source).stem)
