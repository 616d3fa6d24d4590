"""The interface intrinsic type rules use to inspect a call."""
from __future__ import annotations

from ..syntax import ast as A
from ..typesys import model as T
from . import widths
from .consteval import ConstError, evaluate


CTX_CALLS = frozenset(("splat", "load", "load_masked"))


def is_ctx_call(e: A.Expr) -> bool:
    """A call whose lane count comes from its expected type (§5.6)."""
    e = A.unparen(e)
    return isinstance(e, A.Call) and (e.name in CTX_CALLS)


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


class CallCheck:
    """One intrinsic call being checked. Arguments are typed lazily so a rule
    can give an argument an expected type (`c.arg(i, expected)`)."""

    def __init__(self, checker, intrinsic, node: A.Call, expected: T.Type | None):
        self.checker = checker
        self.intrinsic = intrinsic
        self.node = node
        self.name = node.name
        self.nodes = node.args
        self.nargs = len(node.args)
        self.expected = expected
        self.options = checker.options
        self._types: list[T.Type | None] = [None] * self.nargs

    def arg(self, i: int, expected: T.Type | None = None) -> T.Type:
        t = self._types[i]
        if t is None:
            t = self._types[i] = self.checker.expr(self.nodes[i], expected)
        return t

    def args(self) -> list[T.Type]:
        return [self.arg(i) for i in range(self.nargs)]

    def only_arg(self) -> T.Type:
        """The argument of a one-argument intrinsic, or ERROR when the arity is
        wrong (reported) or the argument is already in error (quiet)."""
        if self.nargs != 1:
            self.args()
            return self.fail(f"{self.name} expects 1 argument", code="intrinsic-arity")
        return self.arg(0)

    def peer_args(self, first: int = 0) -> list[T.Type]:
        """Type arguments first..end that must share one vector type: the
        context-typed ones (splat, load, load_masked) take the type of the
        others, as a `let` initialiser would (an extension of §5.6)."""
        ctx = [i for i in range(first, self.nargs) if is_ctx_call(self.nodes[i])]
        peer = self.expected if isinstance(self.expected, T.Vector) else None
        for i in range(first, self.nargs):
            if i not in ctx:
                t = self.arg(i)
                if peer is None and isinstance(t, T.Vector):
                    peer = t
        for i in ctx:
            self.arg(i, peer)
        return [self.arg(i) for i in range(self.nargs)]

    def signature_args(self, sigs: list[tuple[list[T.Type], T.Type]]) -> list[T.Type]:
        """Type the arguments of a fixed-signature call: the others first, then
        the context-typed ones with their parameter type in the one signature
        the others (and the expected result) fit. An extension of §5.6, as
        `peer_args`: `madd_i16(x, splat(1))` takes i16x8 ones from x."""
        ctx = [i for i in range(self.nargs) if is_ctx_call(self.nodes[i])]
        rest = [i for i in range(self.nargs) if i not in ctx]
        known = {i: self.arg(i) for i in rest}
        fits = [(params, ret) for params, ret in sigs if len(params) == self.nargs
                and all(T.compatible(known[i], params[i]) for i in rest)]
        if len(fits) > 1 and self.expected is not None:
            fits = [f for f in fits if f[1] is self.expected]
        for i in ctx:
            self.arg(i, fits[0][0][i] if len(fits) == 1 else None)
        return [self.arg(i) for i in range(self.nargs)]

    def blame(self, indices: list[int], want: T.Type | None, other: str, elem: T.Type | None = None):
        """(notes, fixes) naming the argument among `indices` whose type came from
        a context-typed call's default, when one did (widths.py)."""
        return widths.blame(self.checker, [self.nodes[i] for i in indices],
                            want if isinstance(want, T.Vector) else None, other, elem)

    def blame_peers(self, indices: list[int]):
        """`blame` for arguments that must share one vector type: the ones typed
        by a context-typed default should have the type of the others."""
        blamed = [i for i in indices if widths.origin(self.checker, self.nodes[i]) is not None]
        others = [i for i in indices if i not in blamed and isinstance(self._types[i], T.Vector)]
        if not blamed or not others:
            return [], []
        k = others[0]
        return self.blame(blamed, self._types[k],
                          f" but `{self.checker.source.text_of(self.nodes[k].span)}` is {self._types[k]}")

    def compared_type(self, i: int) -> T.Vector | None:
        """The vector type a mask argument compares (`v .> splat(t)`: v's type)."""
        node = A.unparen(self.nodes[i])
        if isinstance(node, A.Binary) and isinstance(node.left.ty, T.Vector):
            return node.left.ty
        return None

    def blamed_span(self, indices: list[int]):
        """The span of the first context-typed default among those arguments."""
        for i in indices:
            call = widths.origin(self.checker, self.nodes[i])
            if call is not None:
                return call.span
        return None

    def arg_span(self, i: int):
        return self.nodes[i].span

    def context_lanes(self) -> int:
        """Lane count from the expected vector type, 4 without one (§5.6)."""
        return self.expected.lanes if isinstance(self.expected, T.Vector) else 4

    def fail(self, message: str, span=None, code: str = "intrinsic-args", notes=None,
             suggestions=None) -> T.Type:
        notes = list(notes or [])
        if code in ("intrinsic-arity", "intrinsic-args") and self.intrinsic.signatures:
            notes.append("accepted: " + self.intrinsic.signature_text())
        return self.checker.type_error(message, span or self.node.span, code, notes=notes,
                                       suggestions=list(suggestions or []))

    def array_literal(self, i: int):
        """[(value or None, span)] for an `[a, b, ...]` argument, else None."""
        if i >= self.nargs:
            return None
        node = self.nodes[i]
        if not isinstance(node, A.VectorLit) or node.suffix is not None:
            self.arg(i)
            return None
        self._types[i] = T.ARRAY
        self.checker.record(node, T.ARRAY)
        out = []
        for x in node.elems:
            self.checker.record(x, T.INT_LIT if isinstance(x, A.IntLit) else T.ERROR)
            out.append((x.value if isinstance(x, A.IntLit) else None, x.span))
        return out

    def const_int(self, i: int, lo: int, hi: int, range_message: str | None = None) -> int | None:
        """Immediate operand i: a compile-time integer in [lo, hi], or None
        (reported with the wording of INTRINSICS.md §0.3; `range_message`
        replaces the range text where the spec words it differently)."""
        t = self.arg(i)
        if t.is_error:
            return None
        try:
            value = evaluate(self.nodes[i], self.checker.const_values)
        except ConstError:
            value = None
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(f"{self.name} requires a compile-time integer constant as {_ORDINALS[i]} argument",
                      self.arg_span(i), code="immediate")
            return None
        if not lo <= value <= hi:
            text = range_message or f"{self.name} immediate must be {lo}..={hi}"
            self.fail(f"{text}, got {value}", self.arg_span(i), code="immediate")
            return None
        return value

    def finish(self) -> None:
        """Type any argument the rule did not look at (for tools and errors)."""
        for i in range(self.nargs):
            if self._types[i] is None:
                self.arg(i)
