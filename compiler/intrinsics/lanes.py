"""Lane movement: shuffle and select."""
from __future__ import annotations

from ..typesys import model as T
from .table import Intrinsic

FAMILY = "lanes"


def _shuffle(c) -> T.Type:
    if c.nargs not in (2, 3):
        c.args()
        return c.fail("shuffle expects 2 arguments (vector, [indices]) or 3 (a, b, [indices])",
                      code="intrinsic-arity")
    vecs = [c.arg(i) for i in range(c.nargs - 1)]
    indices = c.array_literal(c.nargs - 1)
    if any(v.is_error for v in vecs):
        return T.ERROR
    v = vecs[0]
    if not isinstance(v, T.Vector):
        return c.fail(f"shuffle expects a vector, got {v}", c.arg_span(0))
    if len(vecs) == 2 and vecs[1] is not v:
        return c.fail(f"shuffle operands must have the same type, got {v} and {vecs[1]}", c.arg_span(1))
    if indices is None:
        return c.fail("shuffle indices argument must be [index, ...] array literal", c.arg_span(c.nargs - 1))
    if len(indices) != v.lanes:
        return c.fail(f"shuffle indices length {len(indices)} != vector width {v.lanes}",
                      c.arg_span(c.nargs - 1))
    limit = v.lanes * len(vecs)
    for k, (value, span) in enumerate(indices):
        if value is None:
            return c.fail(f"shuffle index {k} must be integer literal", span)
        if not 0 <= value < limit:
            return c.fail(f"shuffle index {k} out of range: {value} (must be in [0, {limit}))", span)
    return v


def _select(c) -> T.Type:
    if c.nargs != 3:
        c.args()
        return c.fail("select expects 3 arguments (mask, a, b)", code="intrinsic-arity")
    m, a, b = c.peer_args(1)
    if m.is_error or a.is_error or b.is_error:
        return T.ERROR
    if not isinstance(a, T.Vector) or a is not b:
        return c.fail(f"select operands must be vectors of the same type, got {a} and {b}", c.arg_span(1))
    if not isinstance(m, T.Mask) or m.lanes != a.lanes:
        return c.fail(f"select mask must be bool vector matching operand width, got {m}. "
                      "Use comparison operators (.>, .==) to create a mask", c.arg_span(0))
    return a


INTRINSICS = [
    Intrinsic("shuffle", ("v", "indices"), ("(TxN, [N int literals in 0..N]) -> TxN",
                                             "(TxN, TxN, [N int literals in 0..2N]) -> TxN"),
              "Rearrange lanes: r[k] = v[indices[k]] (with two vectors, indices >= N pick from b).",
              _shuffle, FAMILY, "CORE (v0.1)"),
    Intrinsic("select", ("mask", "a", "b"), ("(bool mask xN, TxN, TxN) -> TxN",),
              "Per lane: mask[k] ? a[k] : b[k]; the mask comes from a dotted comparison.",
              _select, FAMILY, "CORE (v0.1)"),
]
