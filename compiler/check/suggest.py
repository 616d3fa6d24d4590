"""'Did you mean' suggestions and conversion hints."""
from __future__ import annotations

from ..intrinsics import lookup
from ..intrinsics.migrations import migration
from ..typesys import model as T


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance where swapping two adjacent characters counts as
    one edit (optimal string alignment), or limit + 1 once it must exceed
    `limit`. Transpositions are the commonest typo (`f23` for `f32`). Only
    cells within `limit` of the diagonal can stay within it, so the work is
    O(len * limit), not O(len²) (identifiers may be thousands of characters)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    big = limit + 1
    before: list[int] = []
    prev = [j if j <= limit else big for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [big] * (len(b) + 1)
        cur[0] = i if i <= limit else big
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cost = a[i - 1] != b[j - 1]
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, before[j - 2] + 1)
            cur[j] = min(v, big)
        if min(cur) > limit:
            return big
        before, prev = prev, cur
    return min(prev[-1], big)


def did_you_mean(name: str, candidates) -> str | None:
    """The closest candidate within distance 2 (1 for names of <= 3 chars).
    Never for a removed or renamed intrinsic: its near names have other
    semantics, and the migration table says what replaces it."""
    if migration(name) is not None:
        return None
    limit = 1 if len(name) <= 3 else 2
    best = None
    best_d = limit + 1
    for cand in candidates:
        if cand == name:
            continue
        d = edit_distance(name, cand, limit)
        if 1 <= d < best_d:
            best, best_d = cand, d
    return best


def conversion(target: T.Type) -> str | None:
    """The `to_<T>` intrinsic converting a numeric scalar to `target`, if any
    (the reference has i16/i32/i64/f16/f32/f64; u8/i8/u16/u32/u64 are ours)."""
    if isinstance(target, T.Scalar) and lookup(f"to_{target.name}") is not None:
        return f"to_{target.name}"
    return None


def conversion_hint(actual: T.Type, target: T.Type) -> str | None:
    """`to_f32` when `actual` is numeric and `target` is a scalar with a `to_*`."""
    if T.is_numeric(actual) and actual is not target:
        return conversion(target)
    return None
