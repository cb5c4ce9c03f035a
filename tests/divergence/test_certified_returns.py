"""The public closed forms return rpp.Certified; a rigorous interval contains mpmath at 50 digits.

gaussian_renyi (proved for 1 < alpha < inf: the rounding bounds run both ways), laplace_shift_divergence
(proved for alpha in (1, inf]), discrete_renyi_divergence and the orders without a rounding analysis
(an estimate, rigorous=False), releases_divergence (the max over orders of the intervals).
"""

import mpmath as mp
import numpy as np

import rpp
from rpp.accounting import releases_divergence
from rpp.divergence import laplace_shift_divergence

mp.mp.dps = 50


def _mp_gauss(m0, v0, m1, v1, a):
    m0, v0, m1, v1, a = (x if isinstance(x, mp.mpf) else mp.mpf(float(x)) for x in (m0, v0, m1, v1, a))
    s = (1 - a) * v0 + a * v1
    if s <= 0:
        return mp.inf
    return a * (m0 - m1) ** 2 / (2 * s) + mp.log(s / (v0 ** (1 - a) * v1**a)) / (2 * (1 - a))


def _mp_laplace(t, a):
    t, a = mp.mpf(float(t)), mp.mpf(float(a))
    return mp.log(a / (2 * a - 1) * mp.exp((a - 1) * t) + (a - 1) / (2 * a - 1) * mp.exp(-a * t)) / (a - 1)


def _contains(c, ref):
    lo, up = mp.mpf(float(c.lower)), mp.mpf(float(c.upper))
    return lo <= ref <= up


def test_gaussian_renyi_is_a_proved_interval_above_one():
    rng = np.random.default_rng(22)
    for _ in range(300):
        m0, m1 = rng.normal(0, 5, 2)
        v0, v1 = 10 ** rng.uniform(-6, 6, 2)
        a = 1 + 10 ** rng.uniform(-8, 4)
        c = rpp.gaussian_renyi(m0, v0, m1, v1, a)
        assert isinstance(c, rpp.Certified) and c.rigorous
        ref = _mp_gauss(m0, v0, m1, v1, a)
        if ref == mp.inf:
            assert c.value == np.inf
        else:
            assert _contains(c, ref), (m0, v0, m1, v1, a, c)
            assert c.error <= 1e-6 * max(c.value, 1e-300) + 1e-300  # a tight interval, not a vacuous one


def test_gaussian_renyi_other_orders_are_estimates():
    for a in (0.0, 0.5, 1.0, np.inf):
        c = rpp.gaussian_renyi(0.0, 1.0, 1.0, 2.0, a)
        assert not c.rigorous and c.value >= 0
    arr = rpp.gaussian_renyi(0.0, 1.0, 1.0, 2.0, [2.0, 1.0])
    assert arr.value.shape == (2,) and not arr.rigorous  # one order without a proof: not rigorous


def test_laplace_shift_divergence_is_a_proved_interval_above_one():
    rng = np.random.default_rng(23)
    for _ in range(300):
        t = 10 ** rng.uniform(-8, 3)
        a = 1 + 10 ** rng.uniform(-6, 3)
        c = laplace_shift_divergence(t, 1.0, a)
        assert c.rigorous and _contains(c, _mp_laplace(t, a)), (t, a, c)
    c = laplace_shift_divergence(2.0, 1.0, np.inf)  # max-divergence t
    assert c.rigorous and c.lower <= 2.0 <= c.upper
    assert not laplace_shift_divergence(1.0, 1.0, 0.5).rigorous
    assert not laplace_shift_divergence(1.0, 1.0, 1.0).rigorous


def test_discrete_renyi_divergence_is_an_estimate():
    c = rpp.discrete_renyi_divergence([0.5, 0.5], [0.25, 0.75], 2.0)
    assert not c.rigorous and c.error > 0
    assert _contains(c, mp.log(mp.mpf(4) / 3))


def test_releases_divergence_certified():
    p, q = rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=2, var=1)
    d = releases_divergence(p, q, alpha=3.0, scale=2.0, k=[1, 4])
    assert isinstance(d, rpp.Certified) and d.rigorous and d.value.shape == (2,)
    for k, val in zip((1, 4), d.value, strict=True):
        ref = _mp_gauss(0, 1 + 4.0 / k, 2, 1 + 4.0 / k, 3.0)
        assert abs(val - float(ref)) <= 1e-14
    mix = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 1.0], vars=[1.0, 2.0])
    assert not releases_divergence(mix, q, alpha=3.0, scale=2.0).rigorous  # quadrature: an estimate


def test_renyi_divergence_two_gaussians_with_noise_is_a_proved_interval():
    """The lower end is the proved lower bound at the rounded-up noise variance (was value - (upper - value))."""
    rng = np.random.default_rng(24)
    for _ in range(200):
        m0, m1 = rng.normal(0, 5, 2)
        v0, v1 = 10 ** rng.uniform(-4, 4, 2)
        theta = 10 ** rng.uniform(-3, 3)
        a = 1 + 10 ** rng.uniform(-6, 3)
        c = rpp.renyi_divergence(
            rpp.Gaussian(mean=m0, var=v0), rpp.Gaussian(mean=m1, var=v1), alpha=a, noise=rpp.GaussianNoise(theta)
        )
        z = mp.mpf(theta) ** 2
        ref = _mp_gauss(m0, mp.mpf(v0) + z, m1, mp.mpf(v1) + z, a)
        assert c.rigorous
        if ref == mp.inf or c.value == np.inf:
            continue
        assert _contains(c, ref), (m0, v0, m1, v1, theta, a, c)


def test_at_a_floats_distance_from_the_domain_edge_a_finite_value_is_not_reported_infinite():
    # Found by the oracle agreement test (hypothesis): alpha var_j + (1 - alpha) var_i = 1.4e-17 > 0,
    # so D is finite (mpmath: 1756.789982117948...) though rounding cannot bound it from above.
    # Before: +inf with error 0 flagged rigorous, a false enclosure (though on the safe side).
    mp.mp.dps = 60
    a, vi, vj = mp.mpf(1.01), mp.mpf(1.01), mp.mpf(0.010000000000000014)
    vs = a * vj + (1 - a) * vi
    ref = -mp.log(vs / (vi ** (1 - a) * vj**a)) / (2 * (a - 1))
    d = rpp.gaussian_renyi(0.0, 1.01, 0.0, 0.010000000000000014, 1.01)
    assert np.isfinite(d.value) and abs(d.value - float(ref)) <= 1e-9 * float(ref)
    assert d.rigorous and d.error == np.inf and d.upper == np.inf  # only [lower, inf) is proved
    assert d.lower <= float(ref)


def _gauss_mp(mi, vi, mj, vj, a):
    """D_alpha(N(mi, vi) || N(mj, vj)) at 60 digits from the exact float inputs (+inf off the domain)."""
    mp.mp.dps = 60
    mi, vi, mj, vj, a = (mp.mpf(float(x)) for x in (mi, vi, mj, vj, a))
    vs = a * vj + (1 - a) * vi
    if vs <= 0:
        return mp.inf
    return a * (mi - mj) ** 2 / (2 * vs) - mp.log(vs / (vi ** (1 - a) * vj**a)) / (2 * (a - 1))


def test_bounds_contain_mpmath_near_the_domain_edge():
    """lower <= D <= upper a few ulps to 1e-6 (relative) inside the domain's edge alpha v_j = (alpha - 1) v_i."""
    from rpp.divergence import gaussian_divergence_bounds

    checked = 0
    for a in (1.01, 1.5, 3.0, 20.0):
        for vi in (1.01, 2.0, 0.3):
            for r in (0.0, 1e-16, 1e-15, 1e-14, 1e-12, 1e-9, 1e-6):
                vj = (a - 1) / a * vi * (1 + r)
                for mj in (0.0, 0.7):
                    lo, up = gaussian_divergence_bounds(0.0, vi, mj, vj, a, 0.0)
                    ref = _gauss_mp(0.0, vi, mj, vj, a)
                    if ref == mp.inf:
                        assert up == np.inf
                        continue
                    assert lo <= ref <= up, (a, vi, vj, mj, lo, float(ref), up)
                    d = rpp.gaussian_renyi(0.0, vi, mj, vj, a)
                    assert d.lower <= ref <= d.upper, (a, vi, vj, mj, d, float(ref))
                    checked += 1
    assert checked > 100
