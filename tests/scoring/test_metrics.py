"""Tests of codemorph.metrics against closed forms and published reference values."""

from __future__ import annotations

import math
import random

import pytest

from codemorph.scoring.metrics import (bootstrap_ci, mean_pass_at_k, pass_at_k, rankdata, spearman, student_t_sf,
                               wilson_interval)


def test_pass_at_k_equals_combinatorial_definition():
    # Chen et al. (2021), eq. (1): 1 - C(n-c, k) / C(n, k)
    for n in range(1, 13):
        for c in range(n + 1):
            for k in range(1, n + 1):
                expected = 1 - math.comb(n - c, k) / math.comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_known_values():
    assert pass_at_k(10, 0, 1) == 0.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)
    assert pass_at_k(10, 6, 5) == 1.0  # fewer than k failures: every draw of 5 has a success


@pytest.mark.parametrize("n,c,k", [(3, 0, 5), (5, 6, 1), (5, -1, 1), (5, 1, 0)])
def test_pass_at_k_rejects_undefined(n, c, k):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)


def test_mean_pass_at_k_skips_problems_with_too_few_generations():
    mean, used = mean_pass_at_k([(10, 3), (1, 1), (10, 0)], 5)
    assert used == 2
    assert mean == pytest.approx(((1 - 21 / 252) + 0.0) / 2)
    assert mean_pass_at_k([(1, 1)], 5) == (None, 0)


def test_wilson_reference_values():
    # Newcombe (1998), Stat. Med. 17:857-872, Table I, example 81/263: 0.2553 to 0.3662
    lo, hi = wilson_interval(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    # 0/10: upper bound z^2/(n+z^2)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    z2 = 1.959963984540054 ** 2
    assert hi == pytest.approx(z2 / (10 + z2))
    # symmetric around 1/2
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(1 - hi)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_student_t_critical_values():
    # two-sided 5% critical values from t tables
    assert 2 * student_t_sf(12.706204736, 1) == pytest.approx(0.05, abs=1e-8)
    assert 2 * student_t_sf(2.228138852, 10) == pytest.approx(0.05, abs=1e-8)
    assert 2 * student_t_sf(2.845339710, 20) == pytest.approx(0.01, abs=1e-8)
    assert student_t_sf(0.0, 7) == pytest.approx(0.5)
    assert student_t_sf(-2.228138852, 10) == pytest.approx(0.975, abs=1e-8)


def test_spearman_reference_example():
    # scipy.stats.spearmanr documentation example
    res = spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])
    assert res.rho == pytest.approx(0.8207826816681233, abs=1e-12)
    assert res.p_value == pytest.approx(0.0885870053135438, abs=1e-9)
    assert res.n == 5


def test_spearman_edge_cases():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]).rho == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]).rho == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]).rho is None  # constant variable
    assert spearman([1, 2], [1, 2]).rho is None  # too few pairs
    with pytest.raises(ValueError):
        spearman([1, 2, 3], [1, 2])


def test_rankdata_averages_ties():
    assert rankdata([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]


def test_bootstrap_is_deterministic_and_sensible():
    rng = random.Random(1)
    data = [rng.random() for _ in range(200)]
    mean = sum(data) / len(data)
    a = bootstrap_ci(data, lambda xs: sum(xs) / len(xs), n_resamples=500, seed=3)
    b = bootstrap_ci(data, lambda xs: sum(xs) / len(xs), n_resamples=500, seed=3)
    c = bootstrap_ci(data, lambda xs: sum(xs) / len(xs), n_resamples=500, seed=4)
    assert a == b
    assert a != c
    assert a[0] < mean < a[1]
    # the standard error of the mean of U(0,1) samples is ~0.0204 for n=200: width ~ 4 * 0.0204
    assert 0.05 < a[1] - a[0] < 0.11
    assert bootstrap_ci([], lambda xs: 0.0) is None
    assert bootstrap_ci([1.0, 2.0], lambda xs: None) is None


def test_bootstrap_resamples_clusters_as_units():
    # two clusters with constant values: every resample mean is 0, 0.5 or 1 of the cluster means
    clusters = [(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)]
    seen = set()
    lo, hi = bootstrap_ci(clusters, lambda cs: (seen.add(sum(sum(c) for c in cs) / 6), sum(sum(c) for c in cs) / 6)[1],
                          n_resamples=200, seed=0)
    assert seen <= {0.0, 0.5, 1.0}
    assert lo == 0.0 and hi == 1.0


def test_mcnemar_exact():
    from codemorph.scoring.metrics import mcnemar_exact

    # b=1, c=9: 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11 / 1024
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)
