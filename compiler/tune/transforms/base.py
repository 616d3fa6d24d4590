"""What every source-to-source transformation shares: a site (where a
transformation can apply, and the choices it offers), the edits it makes
(byte ranges of the original text), and the rewrite they produce.

A transformation module (`unroll.py`, `widen.py`, ...) provides

    NAME = "unroll"
    HINTS = ("one-accumulator",)          # inspect hint codes it answers
    def sites(analysis, function=None) -> list[Site]
    def edits(analysis, site, choice) -> list[Edit]     # raises NotApplicable
    def title(site, choice) -> str                        # "Unroll ×4 with 4 accumulators"

and touches only the lines it must: everything outside its edits, comments
and layout included, stays byte for byte."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...analysis import Analysis
from ...syntax import ast as A


class NotApplicable(Exception):
    """The transformation cannot apply here (str(err) says why)."""


@dataclass(frozen=True)
class Edit:
    """Replace bytes [start, end) of the UTF-8 source with `text`."""
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Site:
    """One place a transformation can apply. `function` and `index` (the
    site's position among this transformation's sites in that function, in
    source order) identify it across edits elsewhere in the file."""
    transform: str
    function: str
    index: int
    line: int  # 1-based line of the construct (what a code action or hint points at)
    start: int  # byte range of the construct it rewrites
    end: int
    choices: tuple = ()  # the values the knob takes besides "not applied", e.g. (2, 4, 8)
    hint: str | None = None  # the inspect hint code this site answers, if any
    note: str = ""  # what the user must confirm, if anything (e.g. restrict)

    @property
    def ident(self) -> str:
        return f"{self.transform}:{self.function}:{self.index}"


@dataclass(frozen=True)
class Rewrite:
    site: Site
    choice: object
    title: str
    text: str  # the whole rewritten source
    analysis: Analysis = field(repr=False, compare=False)  # of `text` (checked clean)
    edits: tuple[Edit, ...] = field(default=())


def splice(data: bytes, edits: list[Edit]) -> bytes:
    """`data` with the (non-overlapping) edits applied."""
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos:
            raise NotApplicable("overlapping edits")
        out += [data[pos:e.start], e.text.encode()]
        pos = e.end
    out.append(data[pos:])
    return b"".join(out)


def functions(analysis: Analysis, name: str | None = None) -> list:
    """The functions and kernels of the source tree compiled for the target
    (`Analysis.is_live`), optionally only `name`."""
    return [it for it in analysis.ast.items if isinstance(it, (A.Func, A.Kernel))
            and analysis.is_live(it) and (name is None or it.name == name)]


def bodies(item) -> list:
    """The statements of a function's body, then those of a kernel's tail."""
    tails = item.tail_body.stmts if isinstance(item, A.Kernel) and item.tail_body else []
    return item.body.stmts + tails
