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

wa = importlib.import_module("rpp.rules.w_alpha")


def _pair(n, seed=27, offset=0.0):
    rng = np.random.default_rng(seed)
    return rpp.Empirical(offset + rng.normal(0, 1, n)), rpp.Empirical(offset + rng.standard_t(3, n) * 1.3 + 0.4)


@pytest.mark.parametrize("alpha, epsilon, offset", [(2.0, 1.0, 0.0), (1.01, 0.05, 1e6), (25.0, 4.0, 0.0)])
def test_the_bracketed_rule_is_the_unbracketed_rule(alpha, epsilon, offset, monkeypatch):
    p, q = _pair(25_000, offset=offset)
    kw = dict(alpha=alpha, epsilon=epsilon, noise="laplace", rule="tight")
    bracketed = wa.w_alpha(p, q, **kw)
    monkeypatch.setattr(wa, "_GRID_MIN_PAIRS", 10**12)
    plain = wa.w_alpha(p, q, **kw)
    assert bracketed == pytest.approx(plain, rel=1e-13)
    for b in (bracketed, plain):  # both meet the condition as computed on every pair
        lm = wa.w_alpha_log_moment(p, q, alpha=alpha, noise=LaplaceNoise(scale=b), rule="tight")
        assert lm <= (alpha - 1) * epsilon


@pytest.mark.parametrize("alpha, epsilon", [(2.0, 1.0), (1.001, 0.01), (40.0, 0.5)])
def test_the_gridded_scale_meets_the_condition_and_is_within_0_3_percent(alpha, epsilon):
    p, q = _pair(30_000, seed=28)
    rule = wa.w_alpha(p, q, alpha=alpha, epsilon=epsilon, noise="laplace", rule="tight")
    grid = wa._gridded_scale(p, q, alpha, epsilon, "laplace", "tight")
    assert rule <= grid <= rule * (1 + 2.8e-3)
    # the condition on the exact distances holds at the grid's scale (each distance is at most its
    # grid point and the cost grows with |d|)
    lm = wa.w_alpha_log_moment(p, q, alpha=alpha, noise=LaplaceNoise(scale=grid), rule="tight")
    assert lm <= (alpha - 1) * epsilon


def test_grid_points_dominate_the_distances_up_and_are_dominated_down_within_one_step():
    rng = np.random.default_rng(5)
    d = np.concatenate([rng.uniform(-1, 1, 5000), [0.0, 1.0, -1.0, 2.0**-40, 1e-300]])
    m = rng.uniform(0, 1, d.size)
    a, step = np.sort(np.abs(d)), 2.0 ** (1 / wa._GRID_STEPS)
    cdf = np.cumsum(m[np.argsort(np.abs(d))])
    for up in (True, False):
        g, mass = wa._gridded(d, m, up)
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
