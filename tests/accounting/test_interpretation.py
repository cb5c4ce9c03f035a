"""rpp.accounting._interpretation against brute force (a grid of (false-positive, true-positive) pairs whose
binary Rényi divergence is evaluated with mpmath at 50 digits) and exact Gaussian computations."""

import math

import mpmath as mp
import numpy as np
import pytest

from rpp.accounting import (
    max_true_positive_rate,
    odds_moment_bound,
    odds_update_bound,
    posterior_bound,
)


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(50):
        yield


def _binary_d(p, q, alpha):
    """D_alpha(Bern(p) || Bern(q)) at 50 digits (inf where undefined), written out independently."""
    p, q = mp.mpf(p), mp.mpf(q)
    if alpha == math.inf:
        terms = []
        for x, y in ((p, q), (1 - p, 1 - q)):
            if x > 0:
                terms.append(mp.inf if y == 0 else mp.log(x / y))
        return max(terms)
    a = mp.mpf(alpha)
    s = mp.mpf(0)
    for x, y in ((p, q), (1 - p, 1 - q)):
        if x == 0:
            continue
        if y == 0:
            return mp.inf
        s += x**a * y ** (1 - a)
    return mp.log(s) / (a - 1)


def _feasible(a, b, alpha, eps, both):
    ok = _binary_d(b, a, alpha) <= eps
    return ok and (_binary_d(a, b, alpha) <= eps if both else True)


CASES = [(alpha, eps) for alpha in (1.5, 2.0, 5.0, 20.0, math.inf) for eps in (0.1, 1.0, 3.0)]


@pytest.mark.parametrize(("alpha", "eps"), CASES)
@pytest.mark.parametrize("both", [True, False])
def test_tradeoff_against_brute_force_grid(alpha, eps, both):
    fprs = np.array([0.0, 1e-6, 1e-3, 0.01, 0.05, 0.2, 0.5, 0.9, 0.999])
    tprs = np.unique(np.concatenate([np.linspace(0, 1, 401), 1 - np.logspace(-12, -1, 60), np.logspace(-9, -1, 60)]))
    got = max_true_positive_rate(alpha=alpha, epsilon=eps, false_positive_rate=fprs, both_orders=both)
    for a, b_star in zip(fprs, got, strict=True):
        feasible = [b for b in tprs if b >= a and _feasible(a, b, alpha, eps, both)]
        best_on_grid = max(feasible) if feasible else a
        # sound: no feasible pair of the grid has more power than the bound
        assert best_on_grid <= b_star
        # tight: just below the bound the pair is feasible (the bound is attained by a binary mechanism)
        if b_star > a:
            gap = 1e-7 * min(b_star - a, 1 - b_star if b_star < 1 else 1.0)
            below = b_star - max(gap, 4 * np.spacing(b_star))  # a few ulps at least: b is a double
            assert _feasible(a, below, alpha, eps, both)
            if b_star < 1:
                assert not _feasible(a, min(1.0, b_star + 1e-6 * (1 - b_star)), alpha, eps, both)


def test_tradeoff_closed_forms():
    # alpha = inf is the epsilon-DP region (Kairouz, Oh & Viswanath 2015)
    a = np.array([0.0, 0.01, 0.3, 0.7, 1.0])
    e = 0.8
    want = np.minimum(np.minimum(1.0, np.exp(e) * a), 1 - np.exp(-e) * (1 - a))
    assert np.allclose(max_true_positive_rate(alpha=np.inf, epsilon=e, false_positive_rate=a), want, rtol=1e-15)
    # one order only: b = 1 is reachable iff a >= e^-epsilon (H(1) = a^(1 - alpha))
    assert max_true_positive_rate(alpha=3.0, epsilon=1.0, false_positive_rate=0.37, both_orders=False) == 1.0
    assert max_true_positive_rate(alpha=3.0, epsilon=1.0, false_positive_rate=0.36, both_orders=False) < 1.0
    assert max_true_positive_rate(alpha=3.0, epsilon=0.0, false_positive_rate=0.3) == 0.3


def test_tradeoff_is_the_power_of_the_best_test_for_a_gaussian_pair():
    """Soundness on a mechanism: the Neyman-Pearson test of N(mu, 1) against N(0, 1) (threshold tests)
    never beats the bound computed from the pair's own divergence."""
    mu, alpha = 1.3, 4.0
    eps = alpha * mu**2 / 2
    for a in (1e-4, 0.01, 0.1, 0.5):
        with mp.workdps(30):
            z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1)  # P_0(Y > z) = a
            power = float(1 - mp.ncdf(z - mu))
        assert power <= max_true_positive_rate(alpha=alpha, epsilon=eps, false_positive_rate=a)


def test_odds_bounds_against_the_exact_gaussian_likelihood_ratio():
    """For N(mu, 1) against N(0, 1), R = exp(mu y - mu^2/2) is lognormal under P_i: E[R^(alpha-1)] and
    P(R > F) are exact (mpmath), and D_alpha = alpha mu^2 / 2."""
    mu, alpha = 0.8, 3.0
    eps = alpha * mu**2 / 2
    with mp.workdps(50):
        m = mp.mpf(mu)
        # under P_i, log R ~ N(mu^2/2, mu^2): E[R^s] = exp(s mu^2/2 + s^2 mu^2/2)
        s = mp.mpf(alpha) - 1
        moment = mp.e ** (s * m**2 / 2 + s**2 * m**2 / 2)
    assert float(moment) == pytest.approx(odds_moment_bound(alpha=alpha, epsilon=eps), rel=1e-13)  # equality
    for beta in (0.5, 0.05, 1e-4):
        factor = odds_update_bound(alpha=alpha, epsilon=eps, probability=beta)
        with mp.workdps(50):
            tail = 1 - mp.ncdf((mp.log(factor) - mp.mpf(mu) ** 2 / 2) / mp.mpf(mu))
        assert tail <= beta
    post = posterior_bound(alpha=alpha, epsilon=eps, prior=0.2, probability=0.05)
    factor = odds_update_bound(alpha=alpha, epsilon=eps, probability=0.05)
    assert post == pytest.approx(0.2 * factor / (0.2 * factor + 0.8), rel=1e-14)
    assert posterior_bound(alpha=alpha, epsilon=eps, prior=0.0, probability=0.05) == 0.0
    assert posterior_bound(alpha=alpha, epsilon=eps, prior=1.0, probability=0.05) == 1.0


def test_a_flag_of_the_wrong_type_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="both_orders"):
        max_true_positive_rate(alpha=2.0, epsilon=1.0, false_positive_rate=0.5, both_orders=1)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: max_true_positive_rate(alpha=1.0, epsilon=1.0, false_positive_rate=0.1), "alpha"),
        (lambda: max_true_positive_rate(alpha=2.0, epsilon=1.0, false_positive_rate=1.5), "false_positive_rate"),
        (lambda: max_true_positive_rate(alpha=2.0, epsilon=-1.0, false_positive_rate=0.5), "epsilon"),
        (lambda: odds_update_bound(alpha=2.0, epsilon=1.0, probability=0.0), "probability"),
        (lambda: posterior_bound(alpha=2.0, epsilon=1.0, prior=2.0, probability=0.1), "prior"),
        (lambda: odds_moment_bound(alpha=2.0, epsilon=np.inf), "epsilon"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_an_odds_factor_beyond_the_float_range_is_inf_without_a_warning():
    """A huge epsilon gives the vacuous bound +inf (and a posterior bound of 1), silently and validly."""
    import warnings

    from rpp.accounting import odds_update_bound, posterior_bound

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert odds_update_bound(alpha=2.0, epsilon=1e3, probability=1e-3) == float("inf")
        assert posterior_bound(alpha=2.0, epsilon=1e3, probability=1e-3, prior=0.5) == 1.0
