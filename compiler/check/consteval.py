"""Constant evaluation for static_assert, cap checks and immediates (§3.5)."""
from __future__ import annotations

from ..syntax import ast as A


class ConstError(Exception):
    def __init__(self, message: str, span):
        super().__init__(message)
        self.message = message
        self.span = span


def evaluate(expr: A.Expr, consts: dict[str, object]):
    """Value of a constant expression (int, float or bool); raises ConstError."""
    if isinstance(expr, (A.IntLit, A.FloatLit, A.BoolLit)):
        return expr.value
    if isinstance(expr, A.Paren):
        return evaluate(expr.inner, consts)
    if isinstance(expr, A.Name):
        if expr.name in consts:
            return consts[expr.name]
        raise ConstError(f"'{expr.name}' is not a compile-time constant", expr.span)
    if isinstance(expr, A.Unary):
        v = evaluate(expr.operand, consts)
        if expr.op == "-" and not isinstance(v, bool):
            return -v
        if expr.op == "!" and isinstance(v, bool):
            return not v
        raise ConstError("expression is not a compile-time constant", expr.span)
    if isinstance(expr, A.Binary):
        return _binary(expr, consts)
    raise ConstError("expression is not a compile-time constant", expr.span)


def _binary(expr: A.Binary, consts):
    spine = A.left_spine(expr)
    value = evaluate(spine[-1].left, consts)
    for b in reversed(spine):
        value = _apply(b, value, evaluate(b.right, consts))
    return value


def _apply(b: A.Binary, x, y):
    try:
        return _operate(b, x, y)
    except (OverflowError, ValueError):  # an integer too large for a float, a shift by a huge amount
        raise ConstError("constant expression out of range", b.span) from None


def _operate(b: A.Binary, x, y):
    op = b.op
    if isinstance(x, bool) or isinstance(y, bool):
        if isinstance(x, bool) and isinstance(y, bool) and op in ("&&", "||", "==", "!="):
            return {"&&": x and y, "||": x or y, "==": x == y, "!=": x != y}[op]
        raise ConstError("expression is not a compile-time constant", b.span)
    both_int = isinstance(x, int) and isinstance(y, int)
    if op in ("+", "-", "*"):
        return x + y if op == "+" else x - y if op == "-" else x * y
    if op in ("/", "%"):
        if y == 0:
            raise ConstError("division by zero in constant expression", b.span)
        if both_int:
            q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
            return q if op == "/" else x - q * y
        if op == "/":
            return x / y
        raise ConstError("expression is not a compile-time constant", b.span)
    if op in ("==", "!=", "<", ">", "<=", ">="):
        return {"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]
    if both_int and op in ("&", "|", "^", "<<", ">>"):
        if op in ("<<", ">>") and not 0 <= y < 64:
            raise ConstError(f"shift amount {y} out of range in constant expression", b.span)
        return x & y if op == "&" else x | y if op == "|" else x ^ y if op == "^" else x << y if op == "<<" else x >> y
    if both_int and op in ("&&", "||"):
        return (x != 0 and y != 0) if op == "&&" else (x != 0 or y != 0)
    raise ConstError("expression is not a compile-time constant", b.span)
