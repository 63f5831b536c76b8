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

__all__ = ["value_distance", "args_distance", "levenshtein", "tie_break", "size"]

#: alignments longer than this many cells fall back to a cheaper bound (keeps ranking fast)
_MAX_CELLS = 250_000


def _same(a: Any, b: Any) -> bool:
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
        The minimum total cost (int).  When ``len(a) * len(b)`` exceeds 250,000 cells the
        result is the cheaper bound ``max(len(a), len(b))`` minus the common prefix/suffix.
    """
    # strip the common prefix and suffix: cheap and exact
    i = 0
    while i < len(a) and i < len(b) and _same(a[i], b[i]):
        i += 1
    j = 0
    while j < len(a) - i and j < len(b) - i and _same(a[len(a) - 1 - j], b[len(b) - 1 - j]):
        j += 1
    a = a[i:len(a) - j]
    b = b[i:len(b) - j]
    if not a:
        return len(b)
    if not b:
        return len(a)
    if len(a) * len(b) > _MAX_CELLS:
        return max(len(a), len(b))
    prev = list(range(len(b) + 1))
    for x_i, x in enumerate(a, 1):
        cur = [x_i] + [0] * len(b)
        for y_j, y in enumerate(b, 1):
            rep = prev[y_j - 1]
            if not _same(x, y):
                rep += 1 if sub_cost is None else sub_cost(x, y)
            cur[y_j] = min(prev[y_j] + 1, cur[y_j - 1] + 1, rep)
        prev = cur
    return prev[-1]


def _element_cost(x: Any, y: Any) -> int:
    return min(2, value_distance(x, y))


def value_distance(a: Any, b: Any) -> int:
    """Edit distance between two literal values (see the module docstring).  Returns an int >= 0."""
    if _same(a, b):
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
