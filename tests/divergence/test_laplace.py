"""Laplace noise: exact divergences (against independent mpmath/scipy integrals), exact calibration, mechanism."""

import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import rpp
from rpp.divergence import (
    laplace_noisy_logpdf,
    laplace_renyi_divergence,
    laplace_renyi_divergence_bound,
    laplace_shift_divergence,
)
from rpp.noise import LaplaceNoise as LaplaceMechanism
from rpp.sampling import InsecureNoiseWarning

E, G, M = rpp.Empirical, rpp.Gaussian, rpp.GaussianMixture


def mp_atoms_divergence(p, q, alpha, b, dps=40):
    """Independent reference: mpmath quadrature of p^a q^(1-a) for Laplace mixtures at the atoms."""
    mp.mp.dps = dps
    a, b = mp.mpf(alpha), mp.mpf(b)

    def dens(d, y):
        return sum(mp.mpf(w) * mp.e ** (-abs(y - mp.mpf(x)) / b) for x, w in zip(d.support, d.probs, strict=True)) / (
            2 * b
        )

    pts = sorted(set(p.support.tolist()) | set(q.support.tolist()))
    edges = [-mp.inf] + [mp.mpf(x) for x in pts] + [mp.inf]
    integral = mp.quad(lambda y: dens(p, y) ** a * dens(q, y) ** (1 - a), edges)
    return float(mp.log(integral) / (a - 1))


def scipy_smooth_divergence(p, q, alpha, b):
    """Independent integration of p^a q^(1-a) (scipy quad) with the output densities of
    laplace_noisy_logpdf, which test_gaussian_component_density_matches_numerical_convolution
    checks against a numerical convolution."""
    f = lambda y: np.exp(alpha * laplace_noisy_logpdf(p, y, b) + (1 - alpha) * laplace_noisy_logpdf(q, y, b))
    pts = np.concatenate([d.components().means for d in (p, q)])
    val = integrate.quad(f, -80, 80, points=np.unique(pts), limit=500, epsabs=0, epsrel=1e-11)[0]
    return np.log(val) / (alpha - 1)


# --------------------------------------------------------------------------------------------
# Divergence
# --------------------------------------------------------------------------------------------

CASES = [
    ([0.0], [1.0], 3.0, 0.5),
    ([1.0, 2.0, 3.0], [0.0], 0.3, 0.1),
    ([2.0, 3.0, 4.0], [2.0, 3.0], 10.0, 0.1),
    ([0.0, 1.0, 3.0, 4.0], [0.0, 3.0], 10.0, 0.1),
    ([1.0, 2.0, 4.0], [2.0], 3.0, 2.0),
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], 1.5, 0.05),
    ([-1.0, 5.0], [0.0, 0.5, 7.0], 50.0, 1.0),
    ([0.0, 2.0], [0.1, 2.1], 0.7, 3.0),
]


@pytest.mark.parametrize("xp, xq, alpha, b", CASES)
def test_empirical_divergence_matches_mpmath_within_certified_bound(xp, xq, alpha, b):
    p, q = E(xp), E(xq)
    val, err = laplace_renyi_divergence_bound(p, q, alpha, b)
    ref = mp_atoms_divergence(p, q, alpha, b)
    assert err < 1e-9
    assert abs(val - ref) <= err + 1e-15 * abs(ref)


def test_point_masses_closed_form():
    for d, b, a in [(1.0, 0.5, 3.0), (2.0, 3.0, 1.2), (0.3, 0.01, 40.0), (5.0, 1.0, 0.4)]:
        val, err = laplace_renyi_divergence_bound(E([0.0]), E([d]), a, b)
        assert val == pytest.approx(laplace_shift_divergence(d, b, a).value, rel=1e-14)
        assert val == pytest.approx(mp_atoms_divergence(E([0.0]), E([d]), a, b), rel=1e-10)
        assert err < 1e-12 * max(1.0, val) + 1e-14


def test_identical_priors_and_no_noise():
    p = E([0.0, 1.0, 1.0, 4.0])
    assert laplace_renyi_divergence_bound(p, E([4.0, 1.0, 0.0, 1.0]), 3.0, 0.7) == (0.0, 0.0)
    # b = 0: the divergence of the priors themselves
    assert laplace_renyi_divergence(E([0.0, 1.0]), E([0.0, 0.0, 1.0]), 2.0, 0.0) == pytest.approx(
        rpp.discrete_renyi_divergence([0.5, 0.5], [2 / 3, 1 / 3], 2.0).value
    )
    assert laplace_renyi_divergence(E([0.0]), E([1.0]), 2.0, 0.0) == np.inf


def test_gaussian_component_density_matches_numerical_convolution():
    for mu, s, b in [(0.0, 1.0, 0.5), (1.0, 0.1, 3.0), (0.0, 3.0, 0.05)]:
        for y in (-5.0, 0.3, 4.0):
            ref = integrate.quad(
                lambda x, mu=mu, s=s, y=y, b=b: stats.norm.pdf(x, mu, s) * np.exp(-abs(y - x) / b) / (2 * b),
                mu - 40 * s,
                mu + 40 * s,
                points=[y],
                limit=400,
            )[0]
            assert np.exp(laplace_noisy_logpdf(G(mean=mu, var=s * s), y, b)) == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize(
    "p, q, alpha, b",
    [
        (G(mean=0.0, var=1.0), G(mean=1.0, var=1.0), 2.0, 0.7),
        (G(mean=0.0, var=1.0), G(mean=0.5, var=2.0), 3.0, 0.5),
        (M(weights=[0.5, 0.5], means=[-1.0, 1.0], vars=[0.3, 1.0]), G(mean=0.0, var=1.5), 5.0, 0.4),
        (E([0.0, 1.0]), G(mean=0.5, var=0.25), 2.0, 1.0),
    ],
)
def test_smooth_divergence_matches_scipy(p, q, alpha, b):
    val, err = laplace_renyi_divergence_bound(p, q, alpha, b)
    ref = scipy_smooth_divergence(p, q, alpha, b)
    assert abs(val - ref) <= err + 1e-9 * max(1.0, abs(ref))
    assert err < 1e-8


def test_divergence_non_increasing_in_scale():
    p, q = E([0.0, 0.5, 2.0, 2.0]), E([0.3, 1.0, 4.0])
    bs = np.geomspace(0.01, 100, 60)
    vals = laplace_renyi_divergence(p, q, 4.0, bs)
    assert np.all(np.diff(vals) <= 1e-12)
    assert vals[0] > 50 and vals[-1] < 1e-4


def test_extreme_scales_stay_finite_and_certified():
    p, q = E(np.linspace(0, 10, 30)), E(np.linspace(0.5, 12, 17))
    for b in (1e-4, 1e4):
        val, err = laplace_renyi_divergence_bound(p, q, 20.0, b)
        assert np.isfinite(val) and np.isfinite(err) and err < 1e-6 * max(1.0, val)


# --------------------------------------------------------------------------------------------
# Calibration: exact method
# --------------------------------------------------------------------------------------------


def random_empirical(rng):
    n = int(rng.integers(1, 5))
    if rng.random() < 0.5:
        return E(rng.integers(-3, 4, n).astype(float))
    return E(np.round(rng.normal(0, 2, n), 2))


def test_exact_laplace_never_under_noise_and_tight_60_pairs():
    rng = np.random.default_rng(11)
    for _ in range(60):
        p, q = random_empirical(rng), random_empirical(rng)
        a = float(np.exp(rng.uniform(np.log(1.05), np.log(40))))
        e = float(np.exp(rng.uniform(np.log(0.02), np.log(5))))
        cal = rpp.calibrate(p, q, alpha=a, epsilon=e, method="exact", noise="laplace")
        assert cal.within_budget and cal.variance == pytest.approx(2 * cal.scale**2)
        for x, y in ((p, q), (q, p)):
            val, err = laplace_renyi_divergence_bound(x, y, a, cal.scale)
            assert val + err <= e * (1 + 1e-9)
        if cal.scale > 0:  # tight: 0.1% less noise breaks the budget in one of the orders
            worst = max(laplace_renyi_divergence_bound(x, y, a, 0.999 * cal.scale)[0] for x, y in ((p, q), (q, p)))
            assert worst > e


def test_exact_laplace_spot_checks_against_mpmath():
    for xp, xq, a, e in [([0.0, 1.0], [0.5, 2.0, 2.0], 3.0, 0.3), ([0.0], [1.0, 3.0], 10.0, 1.0)]:
        p, q = E(xp), E(xq)
        b = rpp.calibrate(p, q, alpha=a, epsilon=e, method="exact", noise="laplace").scale
        worst = max(mp_atoms_divergence(x, y, a, b) for x, y in ((p, q), (q, p)))
        assert worst <= e * (1 + 1e-9) and worst > e * (1 - 1e-6)


def test_exact_laplace_zero_noise_when_priors_close_enough():
    p, q = E([0.0, 1.0]), E([0.0, 1.0, 1.0])
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, method="exact", noise="laplace")
    assert cal.scale == 0.0 and cal.within_budget


def test_exact_laplace_gaussian_priors():
    p, q = G(mean=0.0, var=1.0), G(mean=0.5, var=2.0)
    cal = rpp.calibrate(p, q, alpha=3.0, epsilon=0.5, method="exact", noise="laplace")
    assert cal.within_budget and 0 < cal.scale
    worst = max(laplace_renyi_divergence(x, y, 3.0, 0.999 * cal.scale) for x, y in ((p, q), (q, p)))
    assert worst > 0.5


# --------------------------------------------------------------------------------------------
# Mechanism and errors
# --------------------------------------------------------------------------------------------


def test_laplace_mechanism_release():
    mech = LaplaceMechanism(2.0)
    assert mech.variance == 8.0
    with pytest.warns(InsecureNoiseWarning):  # reproducible noise is flagged
        out = mech.release(np.zeros(200_000), insecure_seed=1).value
        assert np.array_equal(
            mech.release(np.zeros(5), insecure_seed=3).value, mech.release(np.zeros(5), insecure_seed=3).value
        )
    assert abs(out.var() - 8.0) < 0.15 and abs(np.median(out)) < 0.05
    assert LaplaceMechanism(0.0).release(1.5).value == 1.5
    with pytest.raises(ValueError, match="scale"):
        LaplaceMechanism(-1.0)
    with pytest.raises(ValueError, match="x"):
        mech.release([np.nan])


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(alpha=1.0, scale=1.0), "alpha"),
        (dict(alpha=-2.0, scale=1.0), "alpha"),
        (dict(alpha=2.0, scale=-1.0), "scale"),
        (dict(alpha=2.0, scale=np.nan), "scale"),
    ],
)
def test_divergence_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        laplace_renyi_divergence_bound(E([0.0]), E([1.0]), kw["alpha"], kw["scale"])


def test_bad_prior_type():
    with pytest.raises(TypeError, match="p must be"):
        laplace_renyi_divergence_bound([0.0, 1.0], E([1.0]), 2.0, 1.0)


def test_calibrate_laplace_registered():
    assert {"exact", "w-alpha", "w-alpha-tight", "pierquin"} <= set(rpp.methods("laplace"))
    with pytest.raises(ValueError, match="method must be one of"):
        rpp.calibrate(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0, method="gmm-ot", noise="laplace")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=4),
    st.lists(st.integers(-5, 5), min_size=1, max_size=4),
    st.floats(1.05, 30.0),
    st.floats(0.05, 3.0),
)
def test_property_exact_calibration_is_certified(xp, xq, a, e):
    p, q = E(np.array(xp, float)), E(np.array(xq, float))
    with warnings.catch_warnings():
        warnings.simplefilter("error", rpp.PrivacyWarning)
        cal = rpp.calibrate(p, q, alpha=a, epsilon=e, method="exact", noise="laplace")
    assert cal.within_budget and cal.divergence + cal.divergence_error <= e * (1 + 1e-9)
