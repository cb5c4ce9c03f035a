"""Fast paths for empirical priors (issue 13): they agree with the previous dense computations,
their reported errors cover the difference, and nothing calibrated through them under-noises."""

import warnings

import numpy as np
import pytest
from scipy import optimize, special

import rpp
from reference_flint import gaussian_noise_divergence, lower, upper
from reference_grid import grid_divergence
from reference_mpmath import renyi
from rpp import rules
from rpp.divergence import laplace_renyi_divergence_bound
from rpp.divergence._laplace_atoms import atoms_log_integral
from rpp.transport import optimal_plan

RTOL = 1e-9  # the calibration's documented round-off slack on epsilon


def normal_pair(n, seed, shift=0.5):
    rng = np.random.default_rng(seed)
    return rpp.Empirical(rng.standard_normal(n)), rpp.Empirical(rng.standard_normal(n) + shift)


PAIRS = [
    (rpp.Empirical([0.0]), rpp.Empirical([1.0])),
    (rpp.Empirical([0.0, 0.0, 1.0, 3.0]), rpp.Empirical([0.0, 1e-9, 7.0])),
    (rpp.Empirical([-1.0, 5.0, 5.0 + 1e-8]), rpp.Empirical([0.0, 0.5, 1e3])),
    normal_pair(40, 1),
    normal_pair(150, 2, shift=3.0),
]


def _tup(c):
    return c.weights.tolist(), c.means.tolist(), c.vars.tolist()


# The independent reference is mpmath's tanh-sinh quadrature at 30 digits (reference_mpmath;
# about a second a case on the small pairs, 10 s at b = 1e-3). The 40- and 150-atom pairs and
# b = 1e-3 are checked at scale against the grid reference of test_scale_calibration (the
# Laplace calibrations of 1000 atoms).
@pytest.mark.parametrize("k", range(3))
@pytest.mark.parametrize("b", [0.05, 1.0, 30.0])
@pytest.mark.parametrize("alpha", [1.5, 8.0])
@pytest.mark.deep
def test_prefix_sums_match_mpmath_within_the_reported_error(k, b, alpha):
    P, Q = (d.components() for d in PAIRS[k])
    fast, fast_err = atoms_log_integral(P, Q, alpha, b)
    ref = float((alpha - 1) * renyi(_tup(P), _tup(Q), alpha, noise="laplace", scale=b, dps=30))
    # the reported error bounds |log I_hat - log I|; 4 ulps for rounding the reference to a float
    assert abs(fast - ref) <= fast_err + 4 * np.finfo(float).eps * abs(ref), (fast, ref, fast_err)
    assert fast_err < 1e-9  # the accounting of the passes stays small


def test_laplace_divergence_at_1e4_atoms_is_certified_by_its_own_bound_and_fast():
    p, q = normal_pair(10_000, 3)
    for b in (0.02, 0.2):
        val, err = laplace_renyi_divergence_bound(p, q, 2.0, b)
        assert np.isfinite(val) and 0 < err < 1e-8


@pytest.mark.slow
def test_laplace_exact_at_1e3_atoms_is_certified_by_the_grid_reference():
    """The fast (prefix-sum) scale, checked by reference_grid's proved enclosure (40 s loaded)."""
    p, q = normal_pair(1000, 4)
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="exact", noise="laplace")
    assert cal.within_budget
    b = cal.scale
    for P, Q in ((p, q), (q, p)):
        d_lo, d_hi = grid_divergence(P, Q, 2.0, "laplace", b, rtol=1e-5, max_cells=400_000)
        assert d_lo <= 1.0 * (1 + RTOL), (d_lo, d_hi)  # no under-noise is provable
    # and it is the minimal scale: 1e-5 less noise provably exceeds the budget in the order that binds
    d_lo, d_hi = grid_divergence(p, q, 2.0, "laplace", b * (1 - 1e-5), rtol=1e-5, max_cells=400_000)
    assert d_lo > 1.0, (d_lo, d_hi)


def lp_gmm_ot_condition(p, q, alpha, epsilon):
    """Theorem IV.1 for two samples with the W2 plan of the LP solver (the previous computation):
    the condition as a function of the noise variance, and its root."""
    x, y = p.support, q.support
    plan = optimal_plan(p.probs, q.probs, (x[:, None] - y[None, :]) ** 2)
    mask = plan > 1e-15
    d2 = ((x[:, None] - y[None, :]) ** 2)[mask]
    lw = np.log(plan[mask])

    def f(z):
        return special.logsumexp(lw + alpha * (alpha - 1) * d2 / (2 * z)) - (alpha - 1) * epsilon

    return f, optimize.brentq(f, 1e-12, 1e6, xtol=1e-14, rtol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_gmm_ot_on_samples_is_a_sort_and_matches_the_lp(seed):
    p, q = normal_pair(25 + 10 * seed, 10 + seed, shift=seed)
    z = rules.gmm_ot(p, q, alpha=3.0, epsilon=0.7) ** 2
    f, ref = lp_gmm_ot_condition(p, q, 3.0, 0.7)
    assert f(z) <= 1e-12 * 2.0 * 0.7  # feasible for the LP's plan (up to round-off of the sum)
    assert ref * (1 - 1e-12) <= z <= ref * (1 + 1e-8)  # and the same root
    assert (rules.gmm_ot_tight(p, q, alpha=3.0, epsilon=0.7) ** 2) == z  # convex cost of x - y: the same coupling


def test_no_linear_program_for_one_dimensional_samples(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("an LP was solved for two 1-D samples")

    monkeypatch.setattr(rpp.transport, "optimal_plan", forbidden)
    monkeypatch.setattr(rpp.rules._mixture, "optimal_plan", forbidden)
    p, q = normal_pair(600, 5)
    for method in ("gmm-ot", "gmm-ot-tight", "pierquin", "w-alpha"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. POT's "numItermax reached"
            cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method=method)
        assert cal.within_budget
        assert cal.details["seconds"]["rule"] < 5.0  # a sort: fractions of a second unloaded


def test_seconds_are_reported():
    p, q = normal_pair(50, 6)
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="pierquin", noise="laplace")
    sec = cal.details["seconds"]
    assert set(sec) == {"rule", "check"} and sec["rule"] >= 0 and sec["check"] > 0
    assert cal.details["orders"] == 2


@pytest.mark.parametrize("t", [1e-6, 1e-3, 0.05, 2.0])
def test_binned_gauss_sums_agree_with_dense_sums_within_their_bound(t):
    from rpp.divergence._gaussian_noise import gauss_atoms_logpdf

    rng = np.random.default_rng(7)
    a = np.sort(np.concatenate([rng.standard_normal(3000), 1e3 + rng.standard_normal(50), [5.0, 5.0 + 1e-8]]))
    lw = np.log(rng.dirichlet(np.ones(a.size)))
    x = np.sort(np.concatenate([rng.uniform(-30, 1040, 1500), a[::7] + 1e-3 * np.sqrt(t)]))
    lp, rel = gauss_atoms_logpdf(x, a, lw, t)
    ref = np.concatenate(
        [special.logsumexp(lw - (xs[:, None] - a) ** 2 / (2 * t), axis=1) for xs in np.array_split(x, 40)]
    ) - 0.5 * np.log(2 * np.pi * t)
    assert rel < 1e-14
    # the bound plus the round-off of the sums (a few ulps of the exponents) covers the difference
    assert np.all(np.abs(lp - ref) <= rel + 64 * np.finfo(float).eps * (1 + np.abs(ref)))


@pytest.mark.parametrize("t", [0.01, 0.2])
@pytest.mark.deep
def test_gaussian_divergence_binned_path_is_within_its_error_of_arb(t):
    """40 atoms (more than gaussian_noise._FAST_ATOMS = 30): the binned sums, against arb's enclosure."""
    assert rpp.divergence._gaussian_noise._FAST_ATOMS < 40  # the binned path is the one tested
    p, q = normal_pair(40, 8)
    val, err = rpp.divergence.renyi_divergence_bound(p, q, 2.0, t)
    ref = gaussian_noise_divergence(p, q, 2.0, t)
    assert lower(ref) - err <= val <= upper(ref) + err, (val, err, lower(ref), upper(ref))
    assert err < 1e-11
