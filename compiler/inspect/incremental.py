"""`inspect` one function at a time, for editors: a function whose own code
and callees check clean gets its report while other functions of the file
have errors, and a report is compiled again only when the text of the
function, of a function it calls, of the file's declarations (structs,
constants) or the options changed. A function that only moved (lines
inserted above it) keeps its machine code: the source lines its assembly
names are moved with it and the report is read again.

    report = inspect_function(analysis, "k3")   # FunctionReport, or None: no such function
    # InspectError(diagnostics): errors in k3 or in what it calls block it

The unit compiled is an exported function (or `main`) with its callees
(`ea_compiler.build.compile_functions`). A private function is always
inlined, so its report is made from the units of the exported functions
that reach it, as `inspect_module` does for a whole file.
"""
from __future__ import annotations

import hashlib
import re
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass

from ..analysis import Analysis
from ..build import compile_functions, errors_blocking
from ..codegen import callee_closure
from ..codegen.target import describe as describe_target
from ..syntax import ast as A
from .model import FunctionReport
from .runtime import module_paths, relocated

_CACHE: OrderedDict = OrderedDict()  # unit key -> _Unit
_CACHE_SIZE = 1024
_LOCK = threading.Lock()
_GRAPHS: dict = {}  # id(analysis) -> (weak reference to it, its _Graph); analyses are unhashable


class _Graph:
    """The functions of an analysis for its target, who calls whom, and
    the text every unit key is made of."""

    def __init__(self, analysis: Analysis):
        self.funcs = {f.name: f for f in analysis.live_functions}
        self._data = analysis.source.data  # spans are byte offsets into it
        self._decisions, self._calls = analysis.decisions, {}
        self._closures: dict[str, set[str]] = {}  # built on demand: a hover needs one
        declarations = b"\0".join(self._slice(i.span) for i in analysis.ast.items
                                  if not isinstance(i, (A.Func, A.Kernel)))
        self.declarations = hashlib.blake2b(declarations, digest_size=16).digest()

    def _slice(self, span) -> bytes:
        return self._data[span.start:span.end]

    def closure(self, root: str) -> set[str]:
        """`root` and every function it calls, directly or not."""
        found = self._closures.get(root)
        if found is None:
            found = self._closures[root] = callee_closure(self.funcs, self._decisions, [root], self._calls)
        return found

    def unit_key(self, root: str, options_key, bandwidth) -> tuple:
        # No line numbers: a function moved by an edit above it keeps its code (see _relocate).
        parts = sorted((n, hashlib.blake2b(self._slice(self.span(n)), digest_size=16).digest())
                       for n in self.closure(root))
        return root, tuple(parts), self.declarations, options_key, bandwidth

    def span(self, name: str):
        """The function as written (a kernel's text for the function desugared from it)."""
        return (self.funcs[name].origin or self.funcs[name]).span

    def lines(self, root: str) -> dict[str, tuple[int, int]]:
        """First and last line of each function of the unit."""
        return {n: (self.span(n).line, self.span(n).end_line) for n in self.closure(root)}

    def roots_reaching(self, name: str) -> list[str]:
        return [r for r in self.funcs if is_root(self.funcs[r]) and name in self.closure(r)]


def is_root(f: A.Func) -> bool:
    """Exported functions and `main` keep their own machine code; the others are inlined."""
    return f.export or f.name == "main"


def _graph(analysis: Analysis) -> _Graph:
    with _LOCK:
        found = _GRAPHS.get(id(analysis))
    if found is not None and found[0]() is analysis:
        return found[1]
    graph = _Graph(analysis)
    with _LOCK:
        for ident in [i for i, (ref, _) in _GRAPHS.items() if ref() is None]:
            del _GRAPHS[ident]  # analyses no longer alive
        _GRAPHS[id(analysis)] = (weakref.ref(analysis), graph)
    return graph


def inspect_function(analysis: Analysis, name: str, bandwidth_gbs: float | None = None, predict: bool = False):
    """The FunctionReport of `name` (None when the file has no such function
    for the target); InspectError when errors in it or its callees block it.
    `predict`: with its `prediction` (predict/; L1-resident, the host's calibration)."""
    focused = analysis.focus(names=[name])  # after an edit: the unit's items only, until it compiles
    graph = _graph(focused)
    func = graph.funcs.get(name)
    if func is None:
        return None
    if is_root(func):
        return _unit(focused, graph, name, bandwidth_gbs, predict, analysis)
    graph = _graph(analysis)  # a private function's report is its callers': the whole file's
    from . import InspectError, inlined_report
    blocking = errors_blocking(analysis, [name])
    if blocking:
        raise InspectError(blocking, analysis)
    callers, failures = [], []
    for root in graph.roots_reaching(name):
        try:
            callers.append(_unit(analysis, graph, root, bandwidth_gbs, predict))
        except InspectError as err:  # a caller with an error of its own: the others still show its code
            failures.append(err)
    if failures and not callers:
        raise failures[0]
    return inlined_report(func, callers)


def target_description(analysis: Analysis) -> str:
    """The CPU, triple and features code is generated for (`InspectReport.target`)."""
    return describe_target(analysis.options)


@dataclass
class _Unit:
    asm: str  # its `.loc` lines name the source lines in `lines`
    lines: dict[str, tuple[int, int]]
    report: FunctionReport
    paths: dict  # the module's run-time paths per function (runtime.module_paths), at `lines`


def _unit(analysis: Analysis, graph: _Graph, root: str, bandwidth_gbs, predict: bool = False,
          whole: Analysis | None = None) -> FunctionReport:
    """`analysis` may be focused on the unit (`Analysis.focus`): a cache hit
    reads only that; compiling, or reading moved code again, reads `whole`."""
    from . import InspectError, inspect_module
    blocking = errors_blocking(analysis, [root])  # also on a hit: an error may lie outside the unit's text
    if blocking:
        raise InspectError(blocking, whole or analysis)
    key = graph.unit_key(root, analysis.options.key(), bandwidth_gbs) + (predict,)
    lines = graph.lines(root)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
    if hit is not None and hit.lines == lines:
        return hit.report
    analysis = whole or analysis
    if hit is not None:  # the same code, moved: read its machine code again at the new lines
        asm = _relocate(hit.asm, hit.lines, lines)
        moves = _moves(hit.lines, lines)
        paths = {name: relocated(found, moves) for name, found in hit.paths.items()}
    else:
        module, blocking = compile_functions(analysis, [root])
        if module is None:
            raise InspectError(blocking, analysis)
        asm = module.asm()
        paths = module_paths(module, analysis)
    report = next(r for r in inspect_module(analysis, None, bandwidth_gbs, asm=asm, names=[root],
                                            paths=paths, predict=predict).functions if r.name == root)
    with _LOCK:
        _CACHE[key] = _Unit(asm, lines, report, paths)
        _CACHE.move_to_end(key)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return report


_LOC = re.compile(r"^(\s*\.loc\s+\d+\s+)(\d+)", re.M)


def _relocate(asm: str, old: dict[str, tuple[int, int]], new: dict[str, tuple[int, int]]) -> str:
    """`asm` with the source line of every `.loc` directive moved by as many
    lines as the function it lies in moved (line 0, compiler-made code, stays)."""
    moves = _moves(old, new)

    def move(m: re.Match) -> str:
        line = int(m.group(2))
        for first, last, delta in moves:
            if first <= line <= last:
                return m.group(1) + str(line + delta)
        return m.group(0)

    return _LOC.sub(move, asm)


def _moves(old: dict[str, tuple[int, int]], new: dict[str, tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(first, last, by): each function's old lines and how far they moved."""
    return [(first, last, new[name][0] - first) for name, (first, last) in old.items() if new[name][0] != first]


def clear_function_cache() -> None:
    with _LOCK:
        _CACHE.clear()
