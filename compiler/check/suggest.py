"""'Did you mean' suggestions and conversion hints."""
from __future__ import annotations

from ..typesys import model as T


def levenshtein(a: str, b: str, limit: int) -> int:
    """Edit distance, or limit + 1 once it must exceed `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        best = i
        for j, cb in enumerate(b, 1):
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            cur.append(v)
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev = cur
    return prev[-1]


def did_you_mean(name: str, candidates) -> str | None:
    """The closest candidate within distance 2 (1 for names of <= 3 chars)."""
    limit = 1 if len(name) <= 3 else 2
    best = None
    best_d = limit + 1
    for cand in candidates:
        if cand == name:
            continue
        d = levenshtein(name, cand, limit)
        if 1 <= d < best_d:
            best, best_d = cand, d
    return best


CONVERSIONS = {"i32": "to_i32", "i64": "to_i64", "f32": "to_f32", "f64": "to_f64"}


def conversion_hint(actual: T.Type, target: T.Type) -> str | None:
    """`to_f32` when `actual` is numeric and `target` is i32/i64/f32/f64."""
    if isinstance(target, T.Scalar) and target.name in CONVERSIONS and T.is_numeric(actual) \
            and actual is not target:
        return CONVERSIONS[target.name]
    return None
