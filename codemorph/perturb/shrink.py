"""Shrinking a found input toward the seed input.

In the manner of Hypothesis' shrinker (MacIver et al., "Hypothesis: A new approach to
property-based testing", JOSS 2019) a found input is repeatedly replaced by a *simpler*
candidate that still shows the wanted behaviour; here "simpler" means closer to the seed
input under :func:`codemorph.perturb.distance.args_distance`, so the reported input differs
from the original benchmark input as little as possible.

:func:`toward` proposes, for one found argument list, candidates each strictly closer to
the seed: one edit of the alignment between the seed and the found value undone (for
strings, lists and tuples), one key or element restored (dicts, sets), a number moved back
to the seed's value or half-way to it.  :func:`shrink` drives the loop: it asks a
``check`` callback (which runs candidates in the sandbox, a batch at a time) which
candidates still hit the target and keeps the closest, until no candidate is closer or
the execution budget is spent.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

from codemorph.perturb.distance import same_value, args_distance, value_distance

__all__ = ["toward", "shrink", "alignment"]


def alignment(a: Sequence[Any], b: Sequence[Any], nested: bool) -> list[tuple[str, Any, Any]]:
    """An optimal edit script turning sequence ``a`` into ``b``: a list of
    ``("keep", x, y)``, ``("sub", x, y)``, ``("del", x, None)``, ``("ins", None, y)``.
    Replacement costs :func:`value_distance` capped at 2 when ``nested`` (elements of a
    list), else 1 (characters)."""
    n, m = len(a), len(b)
    if n * m > 40_000:  # cheap fallback: positional alignment
        ops: list[tuple[str, Any, Any]] = []
        for i in range(max(n, m)):
            if i < n and i < m:
                ops.append(("keep" if same_value(a[i], b[i]) else "sub", a[i], b[i]))
            elif i < n:
                ops.append(("del", a[i], None))
            else:
                ops.append(("ins", None, b[i]))
        return ops

    def cost(x: Any, y: Any) -> int:
        if same_value(x, y):
            return 0
        return min(2, value_distance(x, y)) if nested else 1

    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        dp[i][0] = i
    for j in range(m + 1):
        dp[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            dp[i][j] = min(dp[i - 1][j] + 1, dp[i][j - 1] + 1, dp[i - 1][j - 1] + cost(a[i - 1], b[j - 1]))
    ops = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and dp[i][j] == dp[i - 1][j - 1] + cost(a[i - 1], b[j - 1]):
            ops.append(("keep" if same_value(a[i - 1], b[j - 1]) else "sub", a[i - 1], b[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and dp[i][j] == dp[i - 1][j] + 1:
            ops.append(("del", a[i - 1], None))
            i -= 1
        else:
            ops.append(("ins", None, b[j - 1]))
            j -= 1
    ops.reverse()
    return ops


#: a string or container longer than this (seed or found) is shrunk through at most
#: :data:`LONG_EDITS` of its edits (spread over the alignment) per round, so one round
#: costs ``O(n)`` candidates of size ``n`` at most 60 times, not ``n`` times (no CRUXEval
#: input comes near: its longest string or container has 54 items)
LONG_SHRINK = 100
#: edits undone one at a time per round on a long value (see :data:`LONG_SHRINK`)
LONG_EDITS = 48


def _seq_candidates(seed: Any, found: Any) -> Iterator[Any]:
    is_str = isinstance(found, (str, bytes))
    ops = alignment(seed, found, nested=not is_str)
    edits = [k for k, op in enumerate(ops) if op[0] != "keep"]
    if max(len(seed), len(found)) > LONG_SHRINK and len(edits) > LONG_EDITS:
        step = len(edits) / LONG_EDITS
        few = [edits[int(i * step)] for i in range(LONG_EDITS)]
    else:
        few = edits

    def build(undo: set[int], inner: dict[int, Any] | None = None) -> Any:
        parts: list = []
        for k, (kind, x, y) in enumerate(ops):
            if kind == "keep":
                parts.append(y)
            elif k in undo:
                if kind in ("sub", "del"):
                    parts.append(x)
            elif inner and k in inner:
                parts.append(inner[k])
            elif kind in ("sub", "ins"):
                parts.append(y)
        if isinstance(found, str):
            return "".join(parts)
        if isinstance(found, bytes):
            return bytes(parts)
        return type(found)(parts)

    if len(edits) > 1:  # big jumps first: undo half of the edits
        half = len(edits) // 2
        yield build(set(edits[:half]))
        yield build(set(edits[half:]))
    for k in few:
        yield build({k})
    if not is_str:
        for k in few:
            kind, x, y = ops[k]
            if kind == "sub":
                for c in toward_value(x, y):
                    yield build(set(), {k: c})


def toward_value(seed: Any, found: Any) -> Iterator[Any]:
    """Candidates between ``seed`` and ``found`` (single values), each closer to ``seed``
    than ``found`` is, or equally close but numerically nearer."""
    if same_value(seed, found):
        return
    if type(seed) is not type(found):
        yield seed
        return
    if isinstance(found, bool):
        yield seed
    elif isinstance(found, int):
        yield seed
        mid = (seed + found) // 2
        if mid not in (seed, found):
            yield mid
        step = 1 if found > seed else -1
        if found - step != seed:
            yield found - step
    elif isinstance(found, float):
        yield seed
        mid = (seed + found) / 2
        if mid not in (seed, found):
            yield mid
    elif isinstance(found, (str, bytes, list, tuple)):
        yield from _seq_candidates(seed, found)
    elif isinstance(found, dict):
        for k in found:  # remove added keys
            if k not in seed:
                yield {kk: vv for kk, vv in found.items() if kk != k}
        for k, v in seed.items():  # restore removed keys, at their seed position
            if k not in found:
                out = {}
                for kk in seed:
                    if kk == k:
                        out[kk] = v
                    elif kk in found:
                        out[kk] = found[kk]
                for kk in found:
                    out.setdefault(kk, found[kk])
                yield out
        for k, v in found.items():
            if k in seed and not same_value(seed[k], v):
                for c in toward_value(seed[k], v):
                    out = dict(found)
                    out[k] = c
                    yield out
    elif isinstance(found, (set, frozenset)):
        for x in found - seed:
            yield type(found)(found - {x})
        for x in seed - found:
            yield type(found)(found | {x})
    else:
        yield seed


def toward(seed: tuple[list, dict], found: tuple[list, dict]) -> list[tuple[list, dict]]:
    """Candidate argument lists between ``seed`` and ``found``, deduplicated, closest to the
    seed first (by :func:`args_distance`).  Every candidate is strictly closer to ``seed``
    than ``found`` or numerically nearer at the same distance."""
    sa, sk = seed
    fa, fk = found
    out: list[tuple[list, dict]] = []
    if len(sa) == len(fa):
        for i, (s, f) in enumerate(zip(sa, fa)):
            for c in toward_value(s, f):
                out.append((fa[:i] + [c] + fa[i + 1:], fk))
    for k in fk:
        if k in sk:
            for c in toward_value(sk[k], fk[k]):
                out.append((fa, {**fk, k: c}))
    base = args_distance(seed, found)
    seen: set[str] = set()
    ranked = []
    for c in out:
        key = repr(c)
        if key in seen:
            continue
        seen.add(key)
        d = args_distance(seed, c)
        if d <= base:
            ranked.append((d, len(ranked), c))
    ranked.sort(key=lambda t: (t[0], t[1]))
    return [c for _, _, c in ranked]


def shrink(seed: tuple[list, dict], found: tuple[list, dict],
           check: Callable[[list[tuple[list, dict]]], list[bool]], budget: int = 200,
           batch: int = 24) -> tuple[tuple[list, dict], int]:
    """Shrink ``found`` toward ``seed`` while ``check`` accepts it.

    Args:
        seed, found: parsed argument lists ``(args, kwargs)``.
        check: called with a list of candidates, returns one bool per candidate (True when
            the candidate still shows the wanted behaviour); it runs them in the sandbox.
        budget: most candidates to check, in executions.
        batch: most candidates per call of ``check``.

    Returns:
        ``(shrunk input, executions used)``.  The shrunk input is ``found`` itself when no
        candidate was accepted; otherwise it is strictly closer to ``seed`` (or, at the
        same distance, numerically nearer).
    """
    used = 0
    current = found
    tried: set[str] = set()
    while used < budget:
        cands = [c for c in toward(seed, current) if repr(c) not in tried][: min(batch, budget - used)]
        if not cands:
            break
        for c in cands:
            tried.add(repr(c))
        ok = check(cands)
        used += len(cands)
        accepted = [c for c, good in zip(cands, ok) if good]
        if not accepted:
            break
        # candidates come closest first: take the first accepted one
        current = accepted[0]
    return current, used
