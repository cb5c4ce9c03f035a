"""Tests for rpp.pufferfish._finite: exact privacy quantities on finite spaces."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpp import discrete_renyi_divergence as renyi_divergence_pmf
from rpp.pufferfish import (
    conditional_output_pmf,
    hockey_stick_divergence,
    posterior_odds,
    product_channel,
    pufferfish_epsilon,
    randomized_response,
)


def pmfs(n):
    """Hypothesis strategy: strictly positive probability vectors of length n."""
    return st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n).map(lambda w: np.asarray(w) / np.sum(w))


# ---------------------------------------------------------------- hockey stick


def test_hockey_stick_matches_brute_force_over_events():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    eps = 0.3
    best = 0.0
    for mask in range(1 << 5):
        a = np.array([(mask >> k) & 1 for k in range(5)], dtype=bool)
        best = max(best, p[a].sum() - np.exp(eps) * q[a].sum())
    assert hockey_stick_divergence(p, q, eps) == pytest.approx(best, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(pmfs(4), pmfs(4), st.floats(0.0, 3.0), st.floats(1.1, 10.0))
def test_hockey_stick_below_chernoff_bound(p, q, eps, alpha):
    # delta(eps) <= P(L > eps) <= exp((alpha - 1)(D_alpha - eps))
    delta = hockey_stick_divergence(p, q, eps)
    bound = np.exp((alpha - 1) * (renyi_divergence_pmf(p, q, alpha).value - eps))
    assert delta <= bound * (1 + 1e-12) + 1e-15


def test_hockey_stick_zero_at_max_divergence():
    p, q = [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]
    dmax = renyi_divergence_pmf(p, q, np.inf).value
    assert hockey_stick_divergence(p, q, dmax) == pytest.approx(0.0, abs=1e-15)
    assert hockey_stick_divergence(p, q, dmax * 0.9) > 0
    assert hockey_stick_divergence(p, q, [0.0, dmax]).shape == (2,)
    assert hockey_stick_divergence(p, q, 0.0) == pytest.approx(
        0.5 * np.abs(np.subtract(p, q)).sum()
    )  # total variation at eps = 0


def test_hockey_stick_rejects_negative_epsilon():
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        hockey_stick_divergence([0.5, 0.5], [0.5, 0.5], -0.1)


# ---------------------------------------------------------------- mechanisms


@pytest.mark.parametrize("eps,k", [(0.1, 2), (1.0, 2), (2.5, 4), (50.0, 3)])
def test_randomized_response_is_eps_dp(eps, k):
    K = randomized_response(eps, k)
    assert K.shape == (k, k)
    assert np.allclose(K.sum(axis=1), 1.0)
    worst = max(renyi_divergence_pmf(K[a], K[b], np.inf).value for a in range(k) for b in range(k) if a != b)
    assert worst == pytest.approx(eps, rel=1e-12)


def test_randomized_response_rejects_bad_input():
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        randomized_response(0.0)
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        randomized_response(1.0, k=1)


def test_product_channel_order_and_stochasticity():
    A = randomized_response(1.0)
    B = np.array([[0.9, 0.1], [0.2, 0.8]])
    K = product_channel(A, B)
    assert K.shape == (4, 4)
    # database (x1, x2) = (1, 0) has index 2; output (y1, y2) = (0, 1) has index 1
    assert K[2, 1] == pytest.approx(A[1, 0] * B[0, 1])
    assert np.allclose(K.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="at least one"):
        product_channel()
    with pytest.raises(ValueError, match="row-stochastic"):
        product_channel([[0.5, 0.6], [0.5, 0.5]])


# ---------------------------------------------------------------- Pufferfish


def household(p_a, p_b_given_a1, p_b_given_a0):
    """Prior over (A, B) in {0,1}^2, index = 2*A + B."""
    return np.array(
        [(1 - p_a) * (1 - p_b_given_a0), (1 - p_a) * p_b_given_a0, p_a * (1 - p_b_given_a1), p_a * p_b_given_a1]
    )


A1 = np.array([False, False, True, True])
A0 = ~A1


def test_pufferfish_independent_prior_equals_dp_level():
    eps = 0.7
    K = product_channel(randomized_response(eps), randomized_response(eps))
    prior = household(0.3, 0.4, 0.4)  # B independent of A
    assert pufferfish_epsilon(prior, K, A1, A0) == pytest.approx(eps, rel=1e-12)


def test_pufferfish_perfect_correlation_doubles_leak():
    eps = 0.7
    K = product_channel(randomized_response(eps), randomized_response(eps))
    prior = household(0.3, 1.0, 0.0)  # B = A
    assert pufferfish_epsilon(prior, K, A1, A0) == pytest.approx(2 * eps, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.05, 3.0))
def test_pufferfish_leak_between_eps_and_2eps(p_a, b1, b0, eps):
    K = product_channel(randomized_response(eps), randomized_response(eps))
    leak = pufferfish_epsilon(household(p_a, b1, b0), K, A1, A0)
    assert eps * (1 - 1e-12) <= leak <= 2 * eps * (1 + 1e-12)


def test_conditional_output_pmf_by_hand():
    K = np.array([[1.0, 0.0], [0.5, 0.5]])
    prior = np.array([0.25, 0.75])
    out = conditional_output_pmf(prior, K, np.array([True, True]))
    assert np.allclose(out, [0.25 + 0.375, 0.375])
    with pytest.raises(ValueError, match="positive prior probability"):
        conditional_output_pmf([1.0, 0.0], K, np.array([False, True]))
    with pytest.raises(ValueError, match="boolean mask"):
        conditional_output_pmf(prior, K, [1, 0])


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.05, 3.0))
def test_posterior_odds_bayes_rule(p_a, b1, b0, eps):
    K = product_channel(randomized_response(eps), randomized_response(eps))
    prior = household(p_a, b1, b0)
    prior_odds, post = posterior_odds(prior, K, A1, A0)
    lik = conditional_output_pmf(prior, K, A1) / conditional_output_pmf(prior, K, A0)
    assert np.allclose(post, lik * prior_odds, rtol=1e-12)
    leak = pufferfish_epsilon(prior, K, A1, A0)
    ratio = post / prior_odds
    assert np.all(ratio <= np.exp(leak) * (1 + 1e-12))
    assert np.all(ratio >= np.exp(-leak) * (1 - 1e-12))
    assert np.isclose(np.max(np.abs(np.log(ratio))), leak, rtol=1e-12)


def test_posterior_odds_rejects_overlapping_secrets():
    K = randomized_response(1.0)
    with pytest.raises(ValueError, match="mutually exclusive"):
        posterior_odds([0.5, 0.5], K, np.array([True, True]), np.array([True, False]))


def _exact_odds(prior, K, s_i, s_j, y):
    """P(s_i | y) / P(s_j | y) in exact rationals, from the joint law (None if undefined)."""
    num = sum(prior[x] * K[x][y] for x in range(len(prior)) if s_i[x])
    den = sum(prior[x] * K[x][y] for x in range(len(prior)) if s_j[x])
    if num + den == 0:
        return None
    return float("inf") if den == 0 else num / den


def test_posterior_odds_on_the_support_only():
    """Outputs of probability zero under s_i or s_j are excluded, as the proposition excludes them."""
    from fractions import Fraction as F

    # three databases; the third is in neither secret and is the only one that can output y = 3
    prior = [F(1, 2), F(1, 4), F(1, 4)]
    K = [
        [F(1, 2), F(1, 2), F(0), F(0)],  # s_i
        [F(0), F(1, 4), F(3, 4), F(0)],  # s_j
        [F(0), F(0), F(0), F(1)],  # neither
    ]
    s_i, s_j = np.array([True, False, False]), np.array([False, True, False])
    pf, Kf = [float(p) for p in prior], np.array(K, dtype=float)
    with pytest.raises(ValueError, match="return_support"):
        posterior_odds(pf, Kf, s_i, s_j)
    prior_odds, post, support = posterior_odds(pf, Kf, s_i, s_j, return_support=True)
    assert prior_odds == 2.0
    exact = [_exact_odds(prior, K, s_i, s_j, y) for y in range(4)]
    assert support.tolist() == [e is not None for e in exact] == [True, True, True, False]
    assert post[0] == np.inf and post[2] == 0.0  # P(s_j | y) = 0, then P(s_i | y) = 0
    assert np.isclose(post[1], float(exact[1]), rtol=1e-15) and exact[1] == 4


def test_posterior_odds_return_support_all_positive_is_the_default():
    K = product_channel(randomized_response(0.7), randomized_response(0.7))
    prior = household(0.3, 0.8, 0.1)
    po, post = posterior_odds(prior, K, A1, A0)
    po2, post2, support = posterior_odds(prior, K, A1, A0, return_support=True)
    assert po == po2 and np.array_equal(post, post2) and support.all()
    with pytest.raises(TypeError, match="return_support"):
        posterior_odds(prior, K, A1, A0, return_support="yes")
