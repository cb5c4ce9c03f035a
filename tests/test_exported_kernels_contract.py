"""The kernels exported by issue #37 (one path per name) under the error contract of issue #34, item 5.

Exporting them from their package brought them under ``tests/test_api_fuzz.py`` for the first time;
these are the breaches it found, each pinned by its own case, with the value judged by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rpp
from rpp.divergence import laplace_renyi_divergence, laplace_renyi_divergence_bound, proved_discrete
from rpp.pufferfish import hockey_stick_divergence
from rpp.rules import closed_form_variance, published_bisection_variance


@pytest.fixture(autouse=True)
def _runtime_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


@pytest.mark.parametrize(
    ("args", "bisection"),
    [
        ((1e300, 1.0, -1e300, 1.0, 2.0, 1.0), np.inf),  # (mu_i - mu_j)^2 overflows: R starts at +inf
        ((0.0, 1.0, 0.0, 1e300, 2.0, 1e10), 0.0),  # 2 eps delta overflows; equal means: R starts at 0
    ],
)
def test_the_closed_form_beyond_the_double_range_is_inf_never_zero(args, bisection):
    mi, vi, mj, vj, a, e = args
    assert closed_form_variance(mi, vi, mj, vj, alpha=a, epsilon=e) == np.inf
    # Algorithm 1 as published starts its bracket at R = alpha (mu_i - mu_j)^2 / (2 eps) (it can
    # under-noise: documented); at equal means that is 0, returned as it is
    assert published_bisection_variance(mi, vi, mj, vj, alpha=a, epsilon=e) == bisection


def test_the_hockey_stick_at_an_overflowing_epsilon_keeps_the_mass_where_q_is_zero():
    # delta(eps) = sum max(0, p - e^eps q): with e^eps = inf, the points with q = 0 keep p
    assert hockey_stick_divergence([0.2, 0.3, 0.5], [0.0, 0.5, 0.5], 1e300) == pytest.approx(0.2, abs=0)
    assert hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], 1e300) == 0.0
    assert list(hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], np.array([0.0, 1e300]))) == [0.25, 0.0]


@pytest.mark.parametrize("scale", [5e-324, 1e-300, 1e-151])
def test_a_laplace_scale_too_small_to_compute_is_refused_by_name(scale):
    p, q = rpp.Gaussian(mean=0.0, var=1.0), rpp.Gaussian(mean=1.0, var=1.0)
    for call in (
        lambda: laplace_renyi_divergence_bound(p, q, 2.0, scale),
        lambda: laplace_renyi_divergence(p, q, 2.0, scale),
        lambda: rpp.renyi_divergence(p, q, alpha=2.0, noise=rpp.LaplaceNoise(scale)),
    ):
        with pytest.raises(ValueError, match=r"^scale must be >= "):
            call()
    # two atoms: the divergence, about |x - y| / b, leaves the double range only at 5e-324
    e1, e2 = rpp.Empirical([0.0]), rpp.Empirical([1.0])
    if scale == 5e-324:
        with pytest.raises(ValueError, match=r"^scale is too small for these atoms"):
            laplace_renyi_divergence_bound(e1, e2, 2.0, scale)
    else:  # Mironov 2017, Prop. 6: D_alpha = t + log(...)/(alpha - 1) ~ t = 1/b for large t
        val, err = laplace_renyi_divergence_bound(e1, e2, 2.0, scale)
        assert abs(val - 1 / scale) <= 1e-12 / scale and err < 1e-12 / scale


def test_the_proved_discrete_divergence_refuses_what_it_cannot_enclose():
    e1, e2 = rpp.Empirical([0.0, 1.0]), rpp.Empirical([0.0, 0.0, 1.0])
    with pytest.raises(TypeError, match=r"^prior_i must be an rpp\.Empirical prior"):
        proved_discrete(0.5, e2, 2.0)
    with pytest.raises(TypeError, match=r"^prior_j must be an rpp\.Empirical prior"):
        proved_discrete(e1, rpp.Gaussian(mean=0.0, var=1.0), 2.0)
    with pytest.raises(ValueError, match=r"^alpha"):
        proved_discrete(e1, e2, float("nan"))
    with pytest.raises(ValueError, match=r"^alpha is too large for a proved enclosure"):
        proved_discrete(e1, e2, 1e300)
    c = proved_discrete(e1, e2, 2.0)  # log(3/8 + 3/4), by hand
    assert c.rigorous and c.lower <= np.log(9 / 8) <= c.upper


@pytest.mark.parametrize("alpha", [1e76, 1e100, 1e300])
def test_an_order_beyond_the_atoms_quadrature_is_refused_by_name_not_overflowed(alpha):
    """The quadrature's fourth-derivative bound is about 16 alpha^4 (OverflowError beyond 1.8e76,
    a RuntimeWarning in the curvature beyond 1e154): above 1e75 the order is refused by name (its
    error bound is infinite from about 1e30 anyway)."""
    p, q = rpp.Empirical([0.0, 1.0, 2.0]), rpp.Empirical([0.5, 3.0])
    with pytest.raises(ValueError, match=r"^alpha must be <= 1e\+75"):
        rpp.renyi_divergence(p, q, alpha=alpha, noise=rpp.LaplaceNoise(scale=1.0))
    with pytest.raises(ValueError, match=r"^alpha must be <= 1e\+75"):
        rpp.divergence.binned_laplace_divergence(p, q, scale=1.0, alpha=alpha, rho=1e-3)


def _noisy_atoms_divergence(p_atoms, q_atoms, var, alpha, dps=60):
    """D_alpha of two equally weighted atom sets plus N(0, var), by mpmath quadrature (the judge)."""
    import mpmath as mp

    with mp.workdps(dps):
        s = mp.sqrt(mp.mpf(var))

        def dens(atoms, y):
            return mp.fsum(mp.npdf(y, mp.mpf(a), s) for a in atoms) / len(atoms)

        lo, hi = min(p_atoms + q_atoms) - 40 * s, max(p_atoms + q_atoms) + 40 * s
        pts = mp.linspace(lo, hi, 9)
        integral = mp.quad(lambda y: dens(p_atoms, y) ** alpha * dens(q_atoms, y) ** (1 - alpha), pts)
        return mp.log(integral) / (alpha - 1)


@pytest.mark.parametrize("offset", [0.0, 1e6])  # the pair at 0 and centred far from it
@pytest.mark.parametrize("epsilon", [1e-15, 1e-17])
def test_a_budget_below_the_weights_rounding_is_met_not_refused(epsilon, offset):
    """Two samples, Gaussian noise, epsilon <= 1e-15: the OT rule's condition had an absolute slack of
    16 ulps of |log w| (2.5e-15 here), so no noise was feasible (RuntimeError 'no feasible noise
    found'); its small-psi form log1p(sum pi expm1(psi)) errs relatively. The result is judged at 60
    digits in both orders: D <= epsilon."""
    p, q = [offset, offset + 1.0], [offset, offset + 3.0]
    cal = rpp.calibrate(rpp.Empirical(p), rpp.Empirical(q), alpha=2, epsilon=epsilon)
    assert cal.guaranteed and cal.rigorous and 0 < cal.scale < np.inf
    for a, b in ((p, q), (q, p)):  # both orders of the pair
        assert 0 < _noisy_atoms_divergence(a, b, cal.scale**2, 2) <= epsilon


def test_the_closed_form_root_is_accurate_where_its_two_terms_cancel():
    """b + sqrt(b^2 + c) with b < 0 and b^2 >> c (equal means, var_j > var_i, large epsilon) lost
    digits (up to 9e-12 relative, and below the formula's value in 2 of these 3,000 cases); its
    rationalised form c / (sqrt(b^2 + c) - b) is judged here at 50 digits, within 1e-13."""
    import mpmath as mp

    rng = np.random.default_rng(1)
    worst = 0.0
    with mp.workdps(50):
        for _ in range(3000):
            vi = 10 ** rng.uniform(-8, -2)
            vj = vi * (1 + 10 ** rng.uniform(-1, 3))
            a, e, mj = 1 + 10 ** rng.uniform(-3, 2), 10 ** rng.uniform(0, 6), rng.normal(0, 1e-6)
            b = mp.mpf(mj) ** 2 - 2 * mp.mpf(e) * (mp.mpf(vj) - vi)
            root = b + mp.sqrt(b * b + 8 * mp.mpf(e) * (mp.mpf(vj) - vi) ** 2 / (mp.mpf(a) - 1))
            true = max(mp.mpf(0), mp.mpf(a) / (4 * mp.mpf(e)) * root - vi)
            got = closed_form_variance(0.0, vi, mj, vj, alpha=a, epsilon=e)
            if true > 0:
                worst = max(worst, float(abs(got - true) / true))
            else:
                assert got == 0
    assert worst < 1e-13


@pytest.mark.parametrize("seed", range(4))
def test_tiny_budgets_on_random_samples_are_met_by_mpmath(seed):
    """Random samples of 2-4 equally weighted atoms, alpha in (1.2, 4), epsilon 1e-16 to 1e-13: the
    scale calibrate returns meets the budget in both orders, judged at 60 digits."""
    rng = np.random.default_rng(4100 + seed)
    p = list(np.round(rng.normal(0, 1, rng.integers(2, 5)), 3))
    q = list(np.round(rng.normal(0.5, 1, rng.integers(2, 5)), 3))
    alpha, epsilon = float(rng.uniform(1.2, 4)), float(10 ** rng.uniform(-16, -13))
    cal = rpp.calibrate(rpp.Empirical(p), rpp.Empirical(q), alpha=alpha, epsilon=epsilon)
    assert cal.guaranteed and 0 < cal.scale < np.inf
    for a, b in ((p, q), (q, p)):
        assert _noisy_atoms_divergence(a, b, cal.scale**2, alpha) <= epsilon
