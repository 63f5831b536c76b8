"""Edit distance between two argument lists, measured over the structure of their literals.

The distance counts *edit operations*, the same operations the mutators apply, so that a
perturbation produced by one mutation step is at distance 1 from its seed:

* two values of the same type that are equal (``==`` and same exact type): 0;
* values of different types (a type-changing perturbation): 1, the whole subtree replaced;
* numbers, booleans, ``None``: 1 when they differ (one *replace*);
* ``str`` and ``bytes``: Levenshtein distance over characters (insert, delete or replace one
  character each cost 1; Levenshtein 1966, "Binary codes capable of correcting deletions,
  insertions and reversals");
* ``list`` and ``tuple``: the same alignment over elements, where inserting or deleting one
  element costs 1 and replacing an element by another costs their distance, capped at 2
  (a delete plus an insert);
* ``set`` and ``frozenset``: ``max(|a - b|, |b - a|)`` (each operation adds, removes or
  replaces one element);
* ``dict``: the distances of the values under common keys, plus ``max(removed, added)``
  keys; key order is not counted;
* an argument list: the sum over positional and keyword arguments (the count of
  arguments never changes).

Ties are broken by :func:`tie_break`: the summed absolute numeric change, then the length
of the literal, so that ``5 -> 6`` ranks before ``5 -> 1000``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

__all__ = ["value_distance", "args_distance", "levenshtein", "tie_break", "size", "same_value"]

#: alignments longer than this many cells fall back to a cheaper bound (keeps ranking fast)
_MAX_CELLS = 250_000
#: first band half-width of the banded alignment (see :func:`levenshtein`)
_BAND = 8


def same_value(a: Any, b: Any) -> bool:
    """Whether two literal values are the same for distance and shrinking: equal and of the
    same type (``1`` and ``True`` differ), NaN the same as NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - literals compare fine
        return False


def levenshtein(a: Sequence[Any], b: Sequence[Any], sub_cost=None) -> int:
    """Edit distance between two sequences (insert/delete 1, replace ``sub_cost(x, y)``).

    Args:
        a, b: sequences (``str``, ``bytes``, ``list``, ``tuple``).
        sub_cost: function ``(x, y) -> int`` for replacing ``x`` by ``y`` (called only when
            they differ); default 1.

    Returns:
        The minimum total cost (int), exact when ``len(a) * len(b)`` (after removing the
        common prefix and suffix) is at most 250,000 cells.  It is computed in a diagonal
        band of half-width ``k`` (Ukkonen 1985, "Algorithms for approximate string
        matching"): every alignment of cost ``<= k`` stays within the band, so a banded
        result ``<= k`` is exact; otherwise ``k`` doubles.  Near pairs, which the search
        ranks most, cost ``O(k * n)`` instead of ``O(n * m)``.  Longer pairs (long inputs)
        get an upper bound in ``O(n)``: for equal lengths the cost of replacing position by
        position (exact when the differences are replacements only), else
        ``max(len(a), len(b))``.
    """
    # strip the common prefix and suffix: cheap and exact
    i = 0
    while i < len(a) and i < len(b) and same_value(a[i], b[i]):
        i += 1
    j = 0
    while j < len(a) - i and j < len(b) - i and same_value(a[len(a) - 1 - j], b[len(b) - 1 - j]):
        j += 1
    a = a[i:len(a) - j]
    b = b[i:len(b) - j]
    if not a:
        return len(b)
    if not b:
        return len(a)
    n, m = len(a), len(b)
    if n * m > _MAX_CELLS:
        if n != m:
            return max(n, m)
        total = 0
        for x, y in zip(a, b):
            if not same_value(x, y):
                total += 1 if sub_cost is None else sub_cost(x, y)
        return min(total, n)
    k = max(_BAND, abs(n - m))
    while True:
        if 4 * k >= min(n, m):  # the band is most of the table: compute all of it
            return _banded(a, b, max(n, m), sub_cost)
        d = _banded(a, b, k, sub_cost)
        if d <= k:
            return d
        k *= 2


def _banded(a: Sequence[Any], b: Sequence[Any], k: int, sub_cost) -> int:
    """The cheapest alignment of ``a`` with ``b`` among those whose cells ``(i, j)`` all
    have ``|i - j| <= k`` (Levenshtein's recurrence restricted to that band); with
    ``k >= max(len(a), len(b))`` the exact edit distance."""
    n, m = len(a), len(b)
    inf = 3 * (n + m) + 3  # more than any alignment's cost (callers cap a replace at 2)
    prev = [j if j <= k else inf for j in range(m + 1)]
    cur = [inf] * (m + 1)
    for i in range(1, n + 1):
        lo = max(1, i - k)
        hi = min(m, i + k)
        cur[lo - 1] = i if lo == 1 and i <= k else inf
        x = a[i - 1]
        for jj in range(lo, hi + 1):
            y = b[jj - 1]
            rep = prev[jj - 1]
            if not same_value(x, y):
                rep += 1 if sub_cost is None else sub_cost(x, y)
            c = prev[jj] + 1
            left = cur[jj - 1] + 1
            if left < c:
                c = left
            if rep < c:
                c = rep
            cur[jj] = c
        if hi + 1 <= m:
            cur[hi + 1] = inf  # read as the row above by the next row
        prev, cur = cur, prev
    return prev[m]


def _element_cost(x: Any, y: Any) -> int:
    return min(2, value_distance(x, y))


def value_distance(a: Any, b: Any) -> int:
    """Edit distance between two literal values (see the module docstring).  Returns an int >= 0."""
    if same_value(a, b):
        return 0
    if type(a) is not type(b):
        return 1
    if isinstance(a, (str, bytes)):
        return levenshtein(a, b)
    if isinstance(a, (list, tuple)):
        return levenshtein(a, b, _element_cost)
    if isinstance(a, (set, frozenset)):
        return max(len(a - b), len(b - a))
    if isinstance(a, dict):
        total = 0
        removed = added = 0
        for k, v in a.items():
            if k in b:
                total += value_distance(v, b[k])
            else:
                removed += 1
        for k in b:
            if k not in a:
                added += 1
        return total + max(removed, added)
    return 1


def args_distance(seed: tuple[list, dict], other: tuple[list, dict]) -> int:
    """Distance between two parsed argument lists ``(args, kwargs)`` (as returned by
    :func:`codemorph.inputs.parse_args`): the sum of the per-argument distances.  A
    different number of arguments adds 1 per missing or extra argument."""
    sa, sk = seed
    oa, ok = other
    total = abs(len(sa) - len(oa))
    for x, y in zip(sa, oa):
        total += value_distance(x, y)
    for k in set(sk) | set(ok):
        if k in sk and k in ok:
            total += value_distance(sk[k], ok[k])
        else:
            total += 1
    return total


def _numeric_change(a: Any, b: Any) -> float:
    if type(a) is not type(b):
        return 1.0
    if isinstance(a, bool):
        return float(a != b)
    if isinstance(a, (int, float)):
        try:
            d = abs(float(a) - float(b))
        except OverflowError:
            return 1e18
        return 0.0 if math.isnan(d) else min(d, 1e18)
    if isinstance(a, (list, tuple)):
        return sum(_numeric_change(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return sum(_numeric_change(v, b[k]) for k, v in a.items() if k in b)
    return 0.0


def size(value: Any) -> int:
    """Number of nodes of a literal value: 1 per atom, per character of a string, per container."""
    if isinstance(value, (str, bytes)):
        return 1 + len(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return 1 + sum(size(v) for v in value)
    if isinstance(value, dict):
        return 1 + sum(size(k) + size(v) for k, v in value.items())
    return 1


def tie_break(seed: tuple[list, dict], other: tuple[list, dict], literal: str) -> tuple[float, int]:
    """Secondary ranking key for perturbations at the same edit distance: (summed absolute
    numeric change of arguments at the same positions, length of the literal in characters)."""
    change = sum(_numeric_change(x, y) for x, y in zip(seed[0], other[0]))
    change += sum(_numeric_change(v, other[1][k]) for k, v in seed[1].items() if k in other[1])
    return (change, len(literal))
