"""What the checker decided about each call, recorded once for every later
stage: the callee (an intrinsic or a user function, INTRINSICS.md §0.1) and,
for a context-typed call (`splat`, `load`, `load_masked`), the type it was
given and whether that was the default of LANGUAGE.md §5.6 (4 lanes, no type
from context). Codegen, the lints and the language server read these through
`Analysis.callee_of` / `Analysis.inferred_type`; none of them resolves a call
again.

Records are keyed by node identity, as `ty` is stored on the node: desugaring
shares the user's expression nodes, so a call from either tree finds its
record. The node is kept with its record so an identity can never be reused.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from ..intrinsics import Intrinsic
from ..symbols import Symbol
from ..syntax import ast as A
from ..typesys import model as T

Callee = Intrinsic | Symbol


@dataclass(frozen=True, slots=True)
class ContextType:
    type: T.Type
    defaulted: bool  # no vector type came from context: the §5.6 default


class Decisions:
    def __init__(self) -> None:
        self._callees: dict[int, tuple[A.Call, Callee]] = {}
        self._context: dict[int, tuple[A.Call, ContextType]] = {}
        self._by_name_start: dict[int, Callee] | None = None  # built on first use
        self._user_calls: tuple[list[int], list[str]] | None = None  # built on first use
        self._by_callee: dict[str, list[A.Call]] | None = None  # built on first use

    # ---- written by the checker ----
    def record_callee(self, call: A.Call, callee: Callee) -> None:
        self._callees[id(call)] = (call, callee)
        self._by_name_start = self._user_calls = self._by_callee = None

    def record_context(self, call: A.Call, t: T.Type, defaulted: bool) -> None:
        """A context-typed call typed (again: the last typing is the one that counts)."""
        self._context[id(call)] = (call, ContextType(t, defaulted))

    # ---- read by everyone ----
    def callee_of(self, call: A.Call) -> Callee | None:
        """The intrinsic or user function `call` calls; None when it calls
        nothing (an undefined name) or was never checked."""
        found = self._callees.get(id(call))
        return found[1] if found is not None and found[0] is call else None

    def intrinsic_of(self, call: A.Call) -> Intrinsic | None:
        callee = self.callee_of(call)
        return callee if isinstance(callee, Intrinsic) else None

    def function_of(self, call: A.Call) -> Symbol | None:
        """The user function `call` calls, if it calls one."""
        callee = self.callee_of(call)
        return callee if isinstance(callee, Symbol) else None

    def intrinsic_named_at(self, offset: int) -> Intrinsic | None:
        for call, callee in self._callees.values():
            if isinstance(callee, Intrinsic) and call.name_span.start <= offset <= call.name_span.end:
                return callee
        return None

    def calls_of(self, name: str) -> list[A.Call]:
        """The calls that reach the user function `name`, in source order."""
        if self._by_callee is None:  # one index: the lints ask for every kernel in turn
            self._by_callee = {}
            for call, callee in self._callees.values():
                if isinstance(callee, Symbol):
                    self._by_callee.setdefault(callee.name, []).append(call)
        return sorted(self._by_callee.get(name, ()), key=lambda c: c.span.start)

    def functions_called_within(self, start: int, end: int) -> set[str]:
        """The user functions called from the byte range [start, end) (a function's text)."""
        if self._user_calls is None:  # one sorted index: a file's functions are asked in turn
            calls = sorted((call.span.start, callee.name) for call, callee in self._callees.values()
                           if isinstance(callee, Symbol))
            self._user_calls = ([s for s, _ in calls], [n for _, n in calls])
        starts, names = self._user_calls
        return set(names[bisect_left(starts, start):bisect_left(starts, end)])

    def callee_named_from(self, start: int) -> Callee | None:
        """The callee of the call whose name starts at byte `start` (a token's
        start, for highlighting: one dictionary lookup per token)."""
        if self._by_name_start is None:
            self._by_name_start = {call.name_span.start: callee for call, callee in self._callees.values()}
        return self._by_name_start.get(start)

    def context_type(self, call: A.Call) -> ContextType | None:
        found = self._context.get(id(call))
        return found[1] if found is not None and found[0] is call else None

    def inferred_type(self, call: A.Call) -> T.Type | None:
        """The type a context-typed call was given; None for any other call."""
        found = self.context_type(call)
        return found.type if found is not None else None

    def defaulted(self, call: A.Call) -> bool:
        """The call is context-typed and took the §5.6 default."""
        found = self.context_type(call)
        return found is not None and found.defaulted

    def context_calls(self) -> list[A.Call]:
        """Every context-typed call checked, in source order."""
        return sorted((call for call, _ in self._context.values()), key=lambda c: c.span.start)
