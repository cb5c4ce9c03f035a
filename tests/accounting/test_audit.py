"""rpp.accounting._audit against independent computations: Clopper-Pearson ends as roots of binomial tail
sums evaluated with mpmath at 50 digits, binary Rényi divergences written out in mpmath, and brute-force
counting of the attack's rates."""

import math

import mpmath as mp
import numpy as np
import pytest

from rpp.accounting import (
    ThresholdAudit,
    audit_threshold_attack,
    max_true_positive_rate,
    rate_interval,
    renyi_lower_bound,
)


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(50):
        yield


def _binom_tail_ge(k, n, p):
    """P(Bin(n, p) >= k), summed term by term in mpmath."""
    return mp.fsum(mp.binomial(n, m) * p**m * (1 - p) ** (n - m) for m in range(k, n + 1))


def _root(f, lo, hi):
    """Bisection for an increasing f on [lo, hi] with f(lo) <= 0 <= f(hi)."""
    lo, hi = mp.mpf(lo), mp.mpf(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def _cp_mpmath(k, n, c):
    beta = (1 - mp.mpf(c)) / 2
    low = mp.mpf(0) if k == 0 else _root(lambda p: _binom_tail_ge(k, n, p) - beta, 0, 1)
    # upper end: P(Bin(n, p) <= k) = beta, i.e. P(Bin >= k + 1) = 1 - beta, increasing in p
    high = mp.mpf(1) if k == n else _root(lambda p: _binom_tail_ge(k + 1, n, p) - (1 - beta), 0, 1)
    return low, high


@pytest.mark.parametrize(
    ("k", "n", "c"),
    [(0, 10, 0.95), (3, 10, 0.95), (10, 10, 0.95), (5, 100, 0.95), (1, 40, 0.99), (37, 60, 0.8), (200, 400, 0.999)],
)
def test_rate_interval_is_clopper_pearson(k, n, c):
    low, high = rate_interval(successes=k, trials=n, confidence=c)
    ref_low, ref_high = _cp_mpmath(k, n, c)
    # never narrower than the exact interval, and wider only by the documented relative 1e-12 (+ rounding)
    assert low <= ref_low and high >= ref_high
    assert float(ref_low - low) <= 2e-12 * float(ref_low) + 1e-300
    assert float(high - ref_high) <= 2e-12 * float(ref_high) + 1e-15


def test_rate_interval_broadcasts_and_covers():
    low, high = rate_interval(successes=[0, 5, 20], trials=20, confidence=0.9)
    assert low.shape == high.shape == (3,)
    assert low[0] == 0.0 and high[-1] == 1.0
    assert np.all(low <= np.array([0, 5, 20]) / 20) and np.all(np.array([0, 5, 20]) / 20 <= high)
    # coverage of the exact interval, computed exactly over all outcomes for one p
    n, p, c = 30, 0.17, 0.9
    lows, highs = rate_interval(successes=np.arange(n + 1), trials=n, confidence=c)
    pmf = [mp.binomial(n, m) * mp.mpf(p) ** m * (1 - mp.mpf(p)) ** (n - m) for m in range(n + 1)]
    coverage = mp.fsum(w for w, lo, hi in zip(pmf, lows, highs, strict=True) if lo <= p <= hi)
    assert coverage >= c


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"successes": -1, "trials": 10}, "successes"),
        ({"successes": 1.5, "trials": 10}, "successes"),
        ({"successes": 3, "trials": 0}, "trials"),
        ({"successes": 3, "trials": 2.5}, "trials"),
        ({"successes": 11, "trials": 10}, "successes"),
        ({"successes": 3, "trials": 10, "confidence": 1.0}, "confidence"),
        ({"successes": 3, "trials": 10, "confidence": 0.0}, "confidence"),
        ({"successes": float("nan"), "trials": 10}, "successes"),
    ],
)
def test_rate_interval_rejects(kwargs, name):
    with pytest.raises(ValueError, match=name):
        rate_interval(**kwargs)


def _binary_d(p, q, alpha):
    """D_alpha(Bern(p) || Bern(q)) at 50 digits, written out independently."""
    p, q = mp.mpf(p), mp.mpf(q)
    if alpha == math.inf:
        vals = [mp.mpf(0)]
        for x, y in ((p, q), (1 - p, 1 - q)):
            if x > 0:
                vals.append(mp.inf if y == 0 else mp.log(x / y))
        return max(vals)
    a = mp.mpf(alpha)
    s = mp.mpf(0)
    for x, y in ((p, q), (1 - p, 1 - q)):
        if x == 0:
            continue
        if y == 0:
            return mp.inf
        s += x**a * y ** (1 - a)
    return max(mp.mpf(0), mp.log(s) / (a - 1))


@pytest.mark.parametrize("alpha", [1.01, 1.5, 2.0, 3.0, 10.0, 100.0, math.inf])
@pytest.mark.parametrize(
    ("a", "b"), [(0.05, 0.2), (0.2, 0.05), (1e-4, 0.3), (0.4, 0.41), (0.3, 0.3), (0.0, 0.1), (0.1, 1.0)]
)
@pytest.mark.parametrize("both", [True, False])
def test_renyi_lower_bound_against_mpmath(alpha, a, b, both):
    got = renyi_lower_bound(alpha=alpha, false_positive_rate=a, true_positive_rate=b, both_orders=both)
    ref = _binary_d(b, a, alpha)
    if both:
        ref = max(ref, _binary_d(a, b, alpha))
    if ref == mp.inf:
        assert got == math.inf
    else:
        assert got == pytest.approx(float(ref), rel=1e-11, abs=1e-15)


@pytest.mark.parametrize("alpha", [1.5, 3.0, 20.0, math.inf])
@pytest.mark.parametrize("a", [1e-3, 0.05, 0.3])
def test_renyi_lower_bound_inverts_the_tradeoff(alpha, a):
    """b*(a) at level eps has lower bound eps: the two functions are inverse (both computed independently)."""
    eps = 0.7
    b_star = max_true_positive_rate(alpha=alpha, epsilon=eps, false_positive_rate=a)
    assert renyi_lower_bound(alpha=alpha, false_positive_rate=a, true_positive_rate=b_star) == pytest.approx(
        eps, rel=1e-8
    )


def test_renyi_lower_bound_broadcasts_and_rejects():
    out = renyi_lower_bound(alpha=[2.0, 3.0], false_positive_rate=0.05, true_positive_rate=[[0.1], [0.2]])
    assert out.shape == (2, 2) and np.all(np.diff(out, axis=0) > 0)
    for kwargs, name in [
        ({"alpha": 1.0, "false_positive_rate": 0.1, "true_positive_rate": 0.2}, "alpha"),
        ({"alpha": 2.0, "false_positive_rate": -0.1, "true_positive_rate": 0.2}, "false_positive_rate"),
        ({"alpha": 2.0, "false_positive_rate": 0.1, "true_positive_rate": 1.2}, "true_positive_rate"),
    ]:
        with pytest.raises(ValueError, match=name):
            renyi_lower_bound(**kwargs)


def test_audit_counts_rates_and_intervals():
    rng = np.random.default_rng(4)
    s_i, s_j = rng.normal(1.0, 1.0, 3000), rng.normal(0.0, 1.0, 2000)
    taus = np.array([-1.0, 0.5, 1.645])
    audit = audit_threshold_attack(scores_i=s_i, scores_j=s_j, thresholds=taus, confidence=0.9)
    assert isinstance(audit, ThresholdAudit) and (audit.n_i, audit.n_j) == (3000, 2000)
    for k, t in enumerate(taus):  # brute-force counts
        assert audit.false_positive_rate[k] == np.count_nonzero(s_j > t) / 2000
        assert audit.true_positive_rate[k] == np.count_nonzero(s_i > t) / 3000
        lo, hi = rate_interval(successes=np.count_nonzero(s_j > t), trials=2000, confidence=0.95)
        assert (audit.false_positive_interval[0][k], audit.false_positive_interval[1][k]) == (lo, hi)
    # the lower bound uses the closest corner of the box, and never exceeds the point estimate's value
    eps_lo = audit.epsilon_lower_bound(alpha=3.0)
    point = renyi_lower_bound(
        alpha=3.0, false_positive_rate=audit.false_positive_rate, true_positive_rate=audit.true_positive_rate
    )
    assert np.all(eps_lo <= point) and np.all(eps_lo > 0)
    corner = renyi_lower_bound(
        alpha=3.0,
        false_positive_rate=audit.false_positive_interval[1],
        true_positive_rate=audit.true_positive_interval[0],
    )
    assert np.array_equal(eps_lo, corner)
    # the exact divergence of N(1, 1) against N(0, 1) at alpha = 3 is 3/2: every lower bound is below it
    assert np.all(eps_lo < 1.5)


def test_audit_overlapping_intervals_give_zero():
    audit = audit_threshold_attack(scores_i=[0.0, 1.0, 2.0], scores_j=[0.5, 1.5, 2.5], thresholds=1.2)
    assert audit.epsilon_lower_bound(alpha=2.0).tolist() == [0.0]
    # a test worse than guessing proves leakage too (flip its answer): the reverse corner is used
    s_i, s_j = np.zeros(5000), np.ones(5000)
    flipped = audit_threshold_attack(scores_i=s_i, scores_j=s_j, thresholds=0.5)
    assert flipped.true_positive_rate[0] == 0.0 and flipped.false_positive_rate[0] == 1.0
    assert flipped.epsilon_lower_bound(alpha=math.inf)[0] > 5


def test_audit_rejects():
    for kwargs, name in [
        ({"scores_i": [], "scores_j": [1.0], "thresholds": 0.0}, "scores_i"),
        ({"scores_i": [1.0, np.inf], "scores_j": [1.0], "thresholds": 0.0}, "scores_i"),
        ({"scores_i": [1.0], "scores_j": [[1.0]], "thresholds": 0.0}, "scores_j"),
        ({"scores_i": [1.0], "scores_j": [1.0], "thresholds": [[0.0]]}, "thresholds"),
        ({"scores_i": [1.0], "scores_j": [1.0], "thresholds": np.nan}, "thresholds"),
        ({"scores_i": [1.0], "scores_j": [1.0], "thresholds": 0.0, "confidence": 1.5}, "confidence"),
    ]:
        with pytest.raises(ValueError, match=name):
            audit_threshold_attack(**kwargs)
    audit = audit_threshold_attack(scores_i=[1.0], scores_j=[0.0], thresholds=0.5)
    with pytest.raises(ValueError, match="alpha"):
        audit.epsilon_lower_bound(alpha=0.5)
