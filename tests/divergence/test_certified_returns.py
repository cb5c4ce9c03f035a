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
        c = rpp.renyi_divergence(rpp.Gaussian(mean=m0, var=v0), rpp.Gaussian(mean=m1, var=v1), alpha=a, noise=rpp.GaussianNoise(theta))
        z = mp.mpf(theta) ** 2
        ref = _mp_gauss(m0, mp.mpf(v0) + z, m1, mp.mpf(v1) + z, a)
        assert c.rigorous
        if ref == mp.inf or c.value == np.inf:
            continue
        assert _contains(c, ref), (m0, v0, m1, v1, theta, a, c)
