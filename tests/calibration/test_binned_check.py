"""calibrate's checks on two large samples with Laplace noise, and rules computed once for both orders (issue #26).

A check that a scale meets its budget first tries the proved enclosure of the samples binned
(rpp.divergence._laplace_binned); it must decide only where it proves the budget met, and the
Calibration must report an interval that contains the samples' own divergence (max over both
orders).  Rules symmetric in the pair (W_inf; costs of |x - y| over the quantile coupling of two
samples: w-alpha, gmm-ot) are computed once: the scale must still be the larger of the two
orders' rules.
"""

import importlib

import numpy as np
import pytest

import rpp
from rpp.noise import LaplaceNoise

search_mod = importlib.import_module("rpp.calibration._search")


def _pair(n, seed=29):
    rng = np.random.default_rng(seed)
    return rpp.Empirical(rng.normal(0, 1, n)), rpp.Empirical(rng.normal(0.5, 1.2, n))


def _own(p, q, scale, alpha):
    """The samples' own proved divergences, both orders: (lower end of the max, upper end of the max)."""
    rs = [LaplaceNoise(scale=scale).divergence(x, y, alpha=alpha) for x, y in ((p, q), (q, p))]
    return max(r.value - r.error for r in rs), max(r.value + r.error for r in rs)


@pytest.mark.parametrize("method", ["pierquin", "w-alpha", "w-alpha-tight"])
def test_a_sufficient_rule_is_checked_on_bins_and_its_interval_holds_the_samples_divergence(method, monkeypatch):
    p, q = _pair(100_000)  # bins of 1/150 b hold about 30 atoms: binned
    binned = []
    orig = search_mod.binned_laplace_divergence
    monkeypatch.setattr(search_mod, "binned_laplace_divergence", lambda *a, **k: binned.append(k) or orig(*a, **k))
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method=method, noise="laplace")
    assert binned and cal.guaranteed and cal.rigorous
    lo, hi = _own(p, q, cal.scale, 2.0)
    assert cal.divergence - cal.divergence_error <= lo and hi <= cal.divergence + cal.divergence_error
    assert cal.divergence + cal.divergence_error <= 1.0
    assert cal.divergence_error <= 1.01e-2  # the binning term: at most 1 % of the budget


def test_exact_reports_the_binding_order_to_its_own_precision():
    p, q = _pair(15_000)
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="exact", noise="laplace")
    lo, hi = _own(p, q, cal.scale, 2.0)
    assert cal.guaranteed and cal.divergence_error < 1e-9  # not widened to the binned order's 1e-2
    assert cal.divergence - cal.divergence_error <= lo and hi <= cal.divergence + cal.divergence_error
    assert hi <= 1.0 and lo > 1.0 - 1e-8  # minimal


def test_no_binning_where_it_cannot_prove_the_budget(monkeypatch):
    # alpha close to 1: a binning term of 1 % of epsilon needs bins far narrower than the atoms' gaps
    p, q = _pair(15_000)
    monkeypatch.setattr(search_mod, "binned_laplace_divergence", lambda *a, **k: pytest.fail("binned"))
    cal = rpp.calibrate(p, q, alpha=1.0001, epsilon=1.0, method="pierquin", noise="laplace")
    assert cal.guaranteed and cal.divergence_error < 1e-6  # the atoms' error, amplified by 1/(alpha - 1)
    # small samples: the atoms themselves
    cal = rpp.calibrate(*_pair(2_000), alpha=2.0, epsilon=1.0, method="w-alpha", noise="laplace")
    assert cal.guaranteed and cal.divergence_error < 1e-8


def test_a_binned_check_that_fails_falls_back_to_the_atoms(monkeypatch):
    # the binned interval is made useless: the checks must then be the samples' own
    p, q = _pair(15_000)
    fake = rpp.Certified(0.5, 10.0, rigorous=True)
    monkeypatch.setattr(search_mod, "binned_laplace_divergence", lambda *a, **k: fake)
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="w-alpha", noise="laplace")
    assert cal.guaranteed and cal.divergence_error < 1e-8
    lo, hi = _own(p, q, cal.scale, 2.0)
    assert cal.divergence == pytest.approx(max(lo, hi), abs=1e-8)


@pytest.mark.parametrize(
    "noise, method",
    [
        ("laplace", "pierquin"),
        ("laplace", "w-alpha-tight"),
        ("gaussian", "w-alpha"),
        ("gaussian", "pierquin"),
        ("gaussian", "gmm-ot"),
        ("gaussian", "gmm-ot-tight"),
    ],
)
def test_a_symmetric_rule_is_computed_once_and_is_the_larger_of_both_orders(noise, method, monkeypatch):
    p, q = _pair(3_000, seed=30)
    entry = search_mod.METHODS[noise][method]
    both = [float(entry.scale(x, y, alpha=3.0, epsilon=0.7)) for x, y in ((p, q), (q, p))]
    calls = []
    rule = entry.scale
    counted = search_mod._Method(
        lambda *a, **k: calls.append(1) or rule(*a, **k), symmetric=entry.symmetric, step_up=entry.step_up
    )
    monkeypatch.setitem(search_mod.METHODS[noise], method, counted)
    cal = rpp.calibrate(p, q, alpha=3.0, epsilon=0.7, method=method, noise=noise)
    assert len(calls) == 1 and cal.within_budget  # (Gaussian noise on samples: an estimate)
    assert both[0] == pytest.approx(both[1], rel=1e-12)  # the rule reads the pair symmetrically
    assert cal.scale >= max(both) * (1 - 1e-12)


@pytest.mark.parametrize("method", ["gmm-ot", "gmm-ot-tight", "w-alpha"])
def test_a_two_sample_rule_is_the_same_in_both_orders_to_the_bit(method):
    # unequal sizes, weights and ties: the quantile coupling of (q, p) is the transpose of (p, q)'s
    rng = np.random.default_rng(31)
    p = rpp.Empirical(np.round(rng.normal(0, 1, 700), 2), weights=rng.uniform(0.1, 1, 700))
    q = rpp.Empirical(rng.normal(0.3, 1.5, 1_100))
    rule = search_mod.METHODS["gaussian"][method].scale
    assert float(rule(p, q, alpha=1.5, epsilon=0.3)) == float(rule(q, p, alpha=1.5, epsilon=0.3))


def test_a_rule_on_two_mixtures_is_still_computed_for_both_orders(monkeypatch):
    p = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 2.0], vars=[0.3, 1.0])
    q = rpp.Gaussian(mean=0.5, var=0.6)
    entry = search_mod.METHODS["gaussian"]["w-alpha"]
    calls = []
    rule = entry.scale
    counted = search_mod._Method(lambda *a, **k: calls.append(1) or rule(*a, **k), symmetric=entry.symmetric)
    monkeypatch.setitem(search_mod.METHODS["gaussian"], "w-alpha", counted)
    rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="w-alpha", noise="gaussian")
    assert len(calls) == 2
