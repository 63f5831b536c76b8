"""Statistics used to score and compare model predictions.

Everything here is pure Python (no numpy/scipy) and deterministic: the bootstrap takes
an explicit seed, so the same data and seed give the same interval on every machine.

* :func:`pass_at_k` -- the unbiased pass@k estimator of Chen et al. (2021),
  "Evaluating Large Language Models Trained on Code", computed in the numerically stable
  product form used by their code and by CRUXEval's harness.
* :func:`wilson_interval` -- Wilson (1927) score interval for a binomial proportion.
* :func:`bootstrap_ci` -- percentile bootstrap interval (Efron & Tibshirani 1993,
  "An Introduction to the Bootstrap", ch. 13), resampling whole clusters when asked.
* :func:`mcnemar_exact` -- exact (binomial) McNemar test for paired binary outcomes
  (McNemar 1947, Psychometrika 12:153-157).
* :func:`exception_confusion` -- confusion matrix and per-class precision/recall/F1 of
  exception answers.
* :func:`spearman` -- Spearman's rank correlation with average ranks for ties and a
  two-sided p-value from Student's t distribution with n - 2 degrees of freedom.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

__all__ = [
    "pass_at_k",
    "mean_pass_at_k",
    "wilson_interval",
    "bootstrap_ci",
    "rankdata",
    "spearman",
    "SpearmanResult",
    "student_t_sf",
    "mcnemar_exact",
    "exception_confusion",
    "NO_EXCEPTION",
]

T = TypeVar("T")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate of pass@k for one problem.

    Chen et al. (2021), "Evaluating Large Language Models Trained on Code", eq. (1):
    ``1 - C(n - c, k) / C(n, k)``, evaluated as ``1 - prod(1 - k / i for i in n-c+1..n)``
    (their numerically stable form, the same as CRUXEval's ``utils_general.pass_at_k``).

    Args:
        n: number of generations scored for the problem (>= k, >= 1).
        c: number of those judged correct (0 <= c <= n).
        k: the k of pass@k (>= 1).

    Returns:
        A probability in [0, 1]: the chance that at least one of k generations drawn
        without replacement from the n is correct.

    Raises:
        ValueError: when ``k < 1``, ``n < k`` (the estimator is undefined: CRUXEval's code
            would silently return 1.0 there), or ``c`` is outside ``0..n``.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} generations per problem, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be within 0..n={n}, got {c}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int, zeros: int = 0) -> tuple[float | None, int]:
    """Mean pass@k over problems, skipping problems with fewer than ``k`` generations.

    Args:
        counts: ``(n, c)`` per problem.
        k: the k of pass@k.
        zeros: problems without any generation that count as failed at every ``k`` (pass@k
            0, whatever ``k``): rows without a prediction scored as wrong.

    Returns:
        ``(mean, problems used)``, the ``zeros`` included; the mean is ``None`` when no
        problem has ``n >= k`` and ``zeros`` is 0.
    """
    vals = [pass_at_k(n, c, k) for n, c in counts if n >= k] + [0.0] * zeros
    if not vals:
        return None, 0
    return math.fsum(vals) / len(vals), len(vals)


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (Wilson 1927, JASA 22:209-212).

    Args:
        successes: number of successes (0..n); a float is accepted (the sum of per-row
            scores when rows have several generations).
        n: number of trials; ``n == 0`` gives the uninformative interval ``(0.0, 1.0)``.
        z: standard-normal quantile; the default gives a 95% interval.

    Returns:
        ``(low, high)`` within [0, 1].

    Raises:
        ValueError: when ``successes`` is outside ``0..n``.
    """
    if n == 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exact bounds at the edges
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def bootstrap_ci(data: Sequence[T], statistic: Callable[[Sequence[T]], float | None], *,
                 n_resamples: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap confidence interval of ``statistic(data)``.

    Efron & Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13.  ``data`` is
    resampled with replacement ``n_resamples`` times (each item is one sampling unit: pass
    clusters, e.g. all rows derived from one original program, to keep them together);
    the interval is given by the ``(1-level)/2`` and ``(1+level)/2`` quantiles (linear
    interpolation) of the statistic over the resamples.

    Args:
        data: the sampling units (any objects ``statistic`` understands).
        statistic: maps a resample (a list) to a float, or ``None`` when undefined on it
            (such resamples are dropped).
        n_resamples: number of bootstrap resamples.
        seed: seed of the :class:`random.Random` used; same seed, same interval.
        level: coverage, in (0, 1).

    Returns:
        ``(low, high)``, or ``None`` when ``data`` is empty or every resample was undefined.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    items = list(data)
    if not items:
        return None
    rng = random.Random(seed)
    m = len(items)
    stats = []
    for _ in range(n_resamples):
        sample = [items[rng.randrange(m)] for _ in range(m)]
        s = statistic(sample)
        if s is not None and not math.isnan(s):
            stats.append(s)
    if not stats:
        return None
    stats.sort()
    return _quantile(stats, (1 - level) / 2), _quantile(stats, (1 + level) / 2)


def _quantile(sorted_vals: Sequence[float], q: float) -> float:
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    frac = pos - lo
    return sorted_vals[lo] * (1 - frac) + sorted_vals[hi] * frac


def rankdata(values: Sequence[float]) -> list[float]:
    """1-based ranks of ``values``, tied values getting the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = (i + j) / 2 + 1
        for t in range(i, j + 1):
            ranks[order[t]] = avg
        i = j + 1
    return ranks


@dataclass(frozen=True)
class SpearmanResult:
    """Spearman's rho, its two-sided p-value and the number of pairs used.

    ``rho`` and ``p_value`` are ``None`` when undefined (fewer than 3 pairs, or one of
    the variables is constant).
    """

    rho: float | None
    p_value: float | None
    n: int


def spearman(x: Sequence[float], y: Sequence[float]) -> SpearmanResult:
    """Spearman rank correlation of paired samples ``x`` and ``y``.

    Pearson correlation of the average ranks (Spearman 1904); the p-value is two-sided,
    from ``t = rho * sqrt((n - 2) / (1 - rho^2))`` with n - 2 degrees of freedom (the
    approximation scipy.stats.spearmanr uses).

    Raises:
        ValueError: when ``x`` and ``y`` differ in length.
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length ({len(x)} != {len(y)})")
    n = len(x)
    if n < 3:
        return SpearmanResult(None, None, n)
    rx, ry = rankdata(x), rankdata(y)
    mx, my = math.fsum(rx) / n, math.fsum(ry) / n
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = math.fsum((a - mx) ** 2 for a in rx)
    syy = math.fsum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return SpearmanResult(None, None, n)
    rho = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    if abs(rho) >= 1.0:
        return SpearmanResult(rho, 0.0, n)
    df = n - 2
    t = rho * math.sqrt(df / (1 - rho * rho))
    return SpearmanResult(rho, min(1.0, 2 * student_t_sf(abs(t), df)), n)


def student_t_sf(t: float, df: float) -> float:
    """Survival function P(T > t) of Student's t distribution with ``df`` degrees of freedom.

    Uses the regularized incomplete beta function: for t >= 0,
    ``P(T > t) = I_{df/(df+t^2)}(df/2, 1/2) / 2`` (Abramowitz & Stegun 26.7.1).
    """
    if df <= 0:
        raise ValueError(f"df must be > 0, got {df}")
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return tail if t >= 0 else 1.0 - tail


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by Lentz's continued fraction
    (Press et al., "Numerical Recipes", 3rd ed., sec. 6.4)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(ln_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln_front) * _betacf(b, a, 1 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 3e-15:
            break
    return h


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar test (McNemar 1947, Psychometrika 12:153-157).

    Args:
        b: pairs where the first classifier is right and the second wrong.
        c: pairs where the first is wrong and the second right.

    Returns:
        The p-value ``min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``;
        1.0 when there are no discordant pairs.

    Raises:
        ValueError: negative counts.
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts must be >= 0, got {b}, {c}")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = math.fsum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


#: the label of "the call returns" (actual) / "the answer is a value" (predicted) in
#: :func:`exception_confusion`
NO_EXCEPTION = "(returns)"


def exception_confusion(pairs: Sequence[tuple[str | None, str | None]]) -> dict:
    """Confusion matrix and per-class precision, recall and F1 of exception answers.

    Args:
        pairs: one ``(actual, predicted)`` per generation: ``actual`` the exception class the
            call raises (``None``: it returns), ``predicted`` the class the answer names
            (``None``: the answer is a value; see
            :func:`codemorph.scoring.predictions.predicted_exception`).

    Returns:
        ``{"labels": [...], "matrix": {actual: {predicted: count}}, "classes": {T: {"precision",
        "recall", "f1", "support", "predicted"}}, "false_exceptions": n, "missed_exceptions": n}``.
        Labels are the classes seen on either side plus :data:`NO_EXCEPTION`; a class's
        precision counts every answer naming it (also on rows that return), its recall every
        row raising it; a ratio with a zero denominator is ``None``.  ``false_exceptions``:
        answers naming an exception on a row that returns; ``missed_exceptions``: value
        answers on a row that raises.  Standard definitions (e.g. Manning, Raghavan & Schütze
        2008, "Introduction to Information Retrieval", sec. 8.3 and 13.6).
    """
    matrix: dict[str, dict[str, int]] = {}
    labels: set[str] = {NO_EXCEPTION}
    for actual, predicted in pairs:
        a, p = actual or NO_EXCEPTION, predicted or NO_EXCEPTION
        labels.update((a, p))
        row = matrix.setdefault(a, {})
        row[p] = row.get(p, 0) + 1
    ordered = sorted(labels - {NO_EXCEPTION}) + [NO_EXCEPTION]
    classes = {}
    for t in ordered[:-1]:
        tp = matrix.get(t, {}).get(t, 0)
        support = sum(matrix.get(t, {}).values())
        predicted = sum(r.get(t, 0) for r in matrix.values())
        prec = tp / predicted if predicted else None
        rec = tp / support if support else None
        f1 = (2 * prec * rec / (prec + rec) if prec and rec else (0.0 if prec is not None and rec is not None else None))
        classes[t] = {"precision": prec, "recall": rec, "f1": f1, "support": support, "predicted": predicted}
    false_exc = sum(n for p, n in matrix.get(NO_EXCEPTION, {}).items() if p != NO_EXCEPTION)
    missed = sum(r.get(NO_EXCEPTION, 0) for a, r in matrix.items() if a != NO_EXCEPTION)
    return {"labels": ordered,
            "matrix": {a: {p: matrix.get(a, {}).get(p, 0) for p in ordered} for a in ordered},
            "classes": classes, "false_exceptions": false_exc, "missed_exceptions": missed}
