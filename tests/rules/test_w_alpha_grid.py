"""The w-alpha-tight rule on many pairs: the root bracketed on a grid of distances (issue #26).

Rounding every coupled distance up (down) to a grid of 256 points per octave can only raise (lower)
the condition, whose cost grows with |d|: the grid's roots bracket the rule's, which is then found
on every pair.  The rule must return the same scale as the unbracketed search, and the grid's own
scale (the exact search's starting point) must meet the condition on the exact distances.
"""

import importlib

import numpy as np
import pytest

import rpp
from rpp.noise import LaplaceNoise

wa = importlib.import_module("rpp.rules._w_alpha")
emp = importlib.import_module("rpp.rules._empirical")  # the condition on two samples and its grid
costs = importlib.import_module("rpp.rules._costs")


def _pair(n, seed=27, offset=0.0):
    rng = np.random.default_rng(seed)
    return rpp.Empirical(offset + rng.normal(0, 1, n)), rpp.Empirical(offset + rng.standard_t(3, n) * 1.3 + 0.4)


@pytest.mark.parametrize("alpha, epsilon, offset", [(2.0, 1.0, 0.0), (1.01, 0.05, 1e6), (25.0, 4.0, 0.0)])
def test_the_bracketed_rule_is_the_unbracketed_rule(alpha, epsilon, offset, monkeypatch):
    p, q = _pair(25_000, offset=offset)
    kw = dict(alpha=alpha, epsilon=epsilon, noise="laplace", rule="tight")
    bracketed = wa.w_alpha(p, q, **kw)
    monkeypatch.setattr(emp, "GRID_MIN_PAIRS", 10**12)
    plain = wa.w_alpha(p, q, **kw)
    assert bracketed == pytest.approx(plain, rel=1e-13)
    for b in (bracketed, plain):  # both meet the condition as computed on every pair
        lm = wa.w_alpha_log_moment(p, q, alpha=alpha, noise=LaplaceNoise(scale=b), rule="tight")
        assert lm <= (alpha - 1) * epsilon


@pytest.mark.parametrize("alpha, epsilon", [(2.0, 1.0), (1.001, 0.01), (40.0, 0.5)])
def test_the_gridded_scale_meets_the_condition_and_is_within_0_3_percent(alpha, epsilon):
    p, q = _pair(30_000, seed=28)
    rule = wa.w_alpha(p, q, alpha=alpha, epsilon=epsilon, noise="laplace", rule="tight")
    grid = emp.empirical_scale(p, q, alpha, epsilon, "laplace", "tight", grid=True)
    assert rule <= grid <= rule * (1 + 2.8e-3)
    # the condition on the exact distances holds at the grid's scale (each distance is at most its
    # grid point and the cost grows with |d|)
    lm = wa.w_alpha_log_moment(p, q, alpha=alpha, noise=LaplaceNoise(scale=grid), rule="tight")
    assert lm <= (alpha - 1) * epsilon


def test_grid_points_dominate_the_distances_up_and_are_dominated_down_within_one_step():
    rng = np.random.default_rng(5)
    d = np.concatenate([rng.uniform(-1, 1, 5000), [0.0, 1.0, -1.0, 2.0**-40, 1e-300]])
    m = rng.uniform(0, 1, d.size)
    a, step = np.sort(np.abs(d)), 2.0 ** (1 / emp.GRID_STEPS)
    cdf = np.cumsum(m[np.argsort(np.abs(d))])
    for up in (True, False):
        g, mass = emp.gridded(d, m, up)
        assert mass.sum() == pytest.approx(m.sum(), rel=1e-13) and np.all(np.diff(g) > 0)
        cg = np.cumsum(mass)
        # the mass of the distances at most t, at every grid point t: rounded up, the grid holds
        # no more of it (and all of it one step further); rounded down, at least that much
        below = cdf[np.searchsorted(a, g, side="right") - 1]
        within = cdf[np.searchsorted(a, g / step * (1 - 1e-12), side="right") - 1]
        if up:
            assert np.all(cg <= below * (1 + 1e-12)) and np.all(cg >= within * (1 - 1e-12))
        else:
            assert np.all(cg >= below * (1 - 1e-12))


@pytest.mark.parametrize("alpha", [1.001, 1.5, 2.0, 7.0, 100.0])
def test_the_closed_form_of_the_tight_cost_is_within_its_bound_of_mpmath(alpha):
    import mpmath

    rng = np.random.default_rng(int(alpha * 1000))
    d = np.concatenate([[0.0, 1e-300, 1e-12, 1.0], rng.uniform(0, 1, 200), np.geomspace(1e-8, 1, 50)])
    cost = costs.pair_cost("laplace", "tight", alpha)
    for t in (1e-3, 0.7, 30.0):
        val, err = cost.log_closed_form(d, t)
        with mpmath.workdps(60):
            a = mpmath.mpf(alpha)
            for k in range(d.size):
                s = mpmath.mpf(t) * mpmath.mpf(d[k])  # t |d| exactly
                ref = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) * s) + (a - 1) / (2 * a - 1) * mpmath.exp(-a * s))
                assert abs(val[k] - ref) <= err, (alpha, t, d[k], float(val[k] - ref), err)


def test_the_condition_uses_the_closed_form_only_where_its_charge_is_negligible():
    p, q = _pair(25_000)
    d, m = emp.empirical_coupling(p, q)
    dn, _ = costs.normalised(d)
    cost = costs.pair_cost("laplace", "tight", 2.0)
    fast = emp.condition(dn, m, cost, 1.0)
    assert fast.__name__ == "g_fast"
    # close to the accurate condition, and above it (the charge): the root can only move up
    for t in (0.5, 3.0, 20.0):
        accurate = emp.log_moment_of_logs(dn, np.log(m), cost, t) - 1.0
        assert accurate <= fast(t) <= accurate + 1e-13
    near_one = emp.condition(dn, m, costs.pair_cost("laplace", "tight", 1.0001), 1e-4 * 0.01)
    assert near_one.__name__ != "g_fast"  # a condition of order 1e-6: the accurate series
