"""`inspect` one function at a time, for editors: a function whose own code
and callees check clean gets its report while other functions of the file
have errors, and a report is compiled again only when the text of the
function, of a function it calls, of the file's declarations (structs,
constants) or the options changed.

    report = inspect_function(analysis, "k3")   # FunctionReport, or None: no such function
    # InspectError(diagnostics): errors in k3 or in what it calls block it

The unit compiled is an exported function (or `main`) with its callees
(`ea_compiler.build.compile_functions`). A private function is always
inlined, so its report is made from the units of the exported functions
that reach it, as `inspect_module` does for a whole file.
"""
from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict

from ..analysis import Analysis
from ..build import compile_functions, errors_blocking
from ..codegen import callee_closure
from ..codegen.target import describe as describe_target
from ..syntax import ast as A

_CACHE: OrderedDict = OrderedDict()  # unit key -> FunctionReport of the unit's root
_CACHE_SIZE = 1024
_LOCK = threading.Lock()
_GRAPHS: dict = {}  # id(analysis) -> (weak reference to it, its _Graph); analyses are unhashable


class _Graph:
    """The functions of an analysis for its target, who calls whom, and
    the text every unit key is made of."""

    def __init__(self, analysis: Analysis):
        arch = analysis.options.arch
        self.funcs = {f.name: f for f in analysis.desugared.items
                      if isinstance(f, A.Func) and f.cfg in (None, arch)}
        self._data = analysis.source.data  # spans are byte offsets into it
        self.closures = {name: callee_closure(list(self.funcs.values()), analysis.decisions, [name])
                         for name in self.funcs}
        declarations = b"\0".join(self._slice(i.span) for i in analysis.ast.items
                                  if not isinstance(i, (A.Func, A.Kernel)))
        self.declarations = hashlib.blake2b(declarations, digest_size=16).digest()

    def _slice(self, span) -> bytes:
        return self._data[span.start:span.end]

    def unit_key(self, root: str, options_key, bandwidth) -> tuple:
        # Line numbers are part of the key: reports name source lines.
        parts = sorted((n, (self.funcs[n].origin or self.funcs[n]).span.line,
                        hashlib.blake2b(self._slice((self.funcs[n].origin or self.funcs[n]).span),
                                        digest_size=16).digest())
                       for n in self.closures[root])
        return root, tuple(parts), self.declarations, options_key, bandwidth

    def roots_reaching(self, name: str) -> list[str]:
        return [r for r in self.funcs if is_root(self.funcs[r]) and name in self.closures[r]]


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


def inspect_function(analysis: Analysis, name: str, bandwidth_gbs: float | None = None):
    """The FunctionReport of `name` (None when the file has no such function
    for the target); InspectError when errors in it or its callees block it."""
    graph = _graph(analysis)
    func = graph.funcs.get(name)
    if func is None:
        return None
    if is_root(func):
        return _unit(analysis, graph, name, bandwidth_gbs)
    from . import InspectError, inlined_report
    blocking = errors_blocking(analysis, [name])
    if blocking:
        raise InspectError(blocking, analysis)
    callers, failures = [], []
    for root in graph.roots_reaching(name):
        try:
            callers.append(_unit(analysis, graph, root, bandwidth_gbs))
        except InspectError as err:  # a caller with an error of its own: the others still show its code
            failures.append(err)
    if failures and not callers:
        raise failures[0]
    return inlined_report(func, callers)


def target_description(analysis: Analysis) -> str:
    """The CPU, triple and features code is generated for (`InspectReport.target`)."""
    return describe_target(analysis.options)


def _unit(analysis: Analysis, graph: _Graph, root: str, bandwidth_gbs):
    from . import InspectError, inspect_module
    key = graph.unit_key(root, analysis.options.key(), bandwidth_gbs)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    module, blocking = compile_functions(analysis, [root])
    if module is None:
        raise InspectError(blocking, analysis)
    report = next(r for r in inspect_module(analysis, module, bandwidth_gbs, names=[root]).functions
                  if r.name == root)
    with _LOCK:
        _CACHE[key] = report
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return report


def clear_function_cache() -> None:
    with _LOCK:
        _CACHE.clear()
