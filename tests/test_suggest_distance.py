"""The 'did you mean' distance: banded to `limit` around the diagonal (names
may be thousands of characters), equal to the full optimal-string-alignment
distance clamped to limit + 1."""
from __future__ import annotations

import random

from ea_compiler.check.suggest import edit_distance


def full_osa(a: str, b: str) -> int:
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


def mutate(rng: random.Random, s: str) -> str:
    s = list(s)
    for _ in range(rng.randint(0, 4)):
        op = rng.randrange(4)
        i = rng.randrange(len(s) + 1)
        if op == 0:
            s.insert(i, rng.choice("ab_1"))
        elif op == 1 and i < len(s):
            del s[i]
        elif op == 2 and i < len(s):
            s[i] = rng.choice("ab_1")
        elif op == 3 and i + 1 < len(s):
            s[i], s[i + 1] = s[i + 1], s[i]
    return "".join(s)


def test_banded_distance_equals_the_full_one_clamped():
    rng = random.Random(11)
    for _ in range(3000):
        a = "".join(rng.choice("ab_1") for _ in range(rng.randint(0, 12)))
        b = mutate(rng, a)
        for limit in (1, 2, 3):
            assert edit_distance(a, b, limit) == min(full_osa(a, b), limit + 1), (a, b, limit)


def test_long_names_are_compared_within_the_band():
    base = "x" * 4000
    assert edit_distance(base + "yz", base + "zy", 2) == 1
    assert edit_distance(base, "q" + base[1:], 2) == 1
    assert edit_distance(base, "qq" + base[3:] + "q", 2) == 3  # beyond the limit: limit + 1
