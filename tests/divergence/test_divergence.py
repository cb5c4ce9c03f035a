"""Rényi divergences: closed forms and quadrature against independent integration."""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, special, stats

import rpp


def quad_gauss_renyi(m0, v0, m1, v1, a):
    """Independent D_alpha between Gaussians: scipy quad of the log-space integrand."""
    s0, s1 = np.sqrt(v0), np.sqrt(v1)

    def logf(x):
        return a * stats.norm.logpdf(x, m0, s0) + (1 - a) * stats.norm.logpdf(x, m1, s1)

    # centre of the integrand: maximiser of the quadratic exponent
    prec = a / v0 + (1 - a) / v1
    c = (a * m0 / v0 + (1 - a) * m1 / v1) / prec
    shift = logf(c)
    width = 1 / np.sqrt(prec)
    val, _ = integrate.quad(
        lambda x: np.exp(logf(x) - shift), c - 60 * width, c + 60 * width, epsabs=0, epsrel=1e-13, limit=500, points=[c]
    )
    return (np.log(val) + shift) / (a - 1)


def mp_mixture_renyi(P, Q, a, t, dps=30):
    mp.mp.dps = dps

    def dens(M, x):
        return sum(w * mp.npdf(x, m, mp.sqrt(vv + t)) for w, m, vv in zip(M.weights, M.means, M.vars, strict=True))

    pts = sorted(set(float(m) for m in np.concatenate([P.means, Q.means])))
    I = mp.quad(lambda x: dens(P, x) ** a * dens(Q, x) ** (1 - a), [-mp.inf, *pts, mp.inf])
    return float(mp.log(I) / (a - 1))


@pytest.mark.slow  # > 3 s on 2 cores: runs in make test's second pytest phase
def test_gaussian_closed_form_matches_quadrature_random_cases():
    rng = np.random.default_rng(1)
    checked = 0
    while checked < 60:
        m0, m1 = rng.normal(0, 2, 2)
        v0, v1 = np.exp(rng.uniform(-2, 2, 2))
        a = float(np.exp(rng.uniform(np.log(0.05), np.log(30))))
        if a == 1 or (1 - a) * v0 + a * v1 <= 0.05 * max(v0, v1):
            continue
        ref = quad_gauss_renyi(m0, v0, m1, v1, a)
        got = rpp.gaussian_renyi(m0, v0, m1, v1, a).value
        assert got == pytest.approx(ref, rel=1e-10, abs=1e-13), (m0, v0, m1, v1, a)
        checked += 1


def test_gaussian_domain_is_infinite_and_never_nan():
    # sigma_alpha^2 = (1-a) v0 + a v1 <= 0  ->  +inf
    assert rpp.gaussian_renyi(0, 4.0, 0, 1.0, 5).value == np.inf
    assert rpp.gaussian_renyi(0, 5.0, 0, 4.0, 5).value == np.inf  # exactly zero
    assert np.isfinite(rpp.gaussian_renyi(0, 1.0, 0, 4.0, 50).value)
    grid = rpp.gaussian_renyi(0.3, np.linspace(0.1, 10, 50)[:, None], -1, 1.0, np.linspace(1.01, 100, 40)).value
    assert not np.isnan(grid).any() and (grid >= 0).all()


def test_kl_and_max_divergence_limits():
    m0, v0, m1, v1 = 0.2, 0.7, -0.5, 1.9
    kl = rpp.gaussian_renyi(m0, v0, m1, v1, 1).value
    ref_kl = 0.5 * (v0 / v1 + (m0 - m1) ** 2 / v1 - 1 + np.log(v1 / v0))
    assert kl == pytest.approx(ref_kl, rel=1e-14)
    assert rpp.gaussian_renyi(m0, v0, m1, v1, 1 + 1e-7).value == pytest.approx(kl, rel=1e-6)
    dinf = rpp.gaussian_renyi(m0, v0, m1, v1, np.inf).value
    assert rpp.gaussian_renyi(m0, v0, m1, v1, 1e7).value == pytest.approx(dinf, rel=1e-5)
    # max-divergence is sup log p/q: check on a grid
    x = np.linspace(-30, 30, 200001)
    sup = np.max(stats.norm.logpdf(x, m0, np.sqrt(v0)) - stats.norm.logpdf(x, m1, np.sqrt(v1)))
    assert dinf == pytest.approx(sup, rel=1e-8)
    assert rpp.gaussian_renyi(0, 2.0, 1, 1.0, np.inf).value == np.inf
    assert rpp.gaussian_renyi(0, 1.0, 1, 1.0, np.inf).value == np.inf
    assert rpp.gaussian_renyi(1, 1.0, 1, 1.0, np.inf).value == 0.0


@given(
    m0=st.floats(-5, 5),
    m1=st.floats(-5, 5),
    lv0=st.floats(-3, 3),
    lv1=st.floats(-3, 3),
    a1=st.floats(1.01, 20),
    a2=st.floats(1.01, 20),
)
def test_gaussian_renyi_is_nondecreasing_in_alpha(m0, m1, lv0, lv1, a1, a2):
    lo, hi = sorted([a1, a2])
    d_lo = rpp.gaussian_renyi(m0, np.exp(lv0), m1, np.exp(lv1), lo).value
    d_hi = rpp.gaussian_renyi(m0, np.exp(lv0), m1, np.exp(lv1), hi).value
    assert d_lo <= d_hi * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("a", [0.3, 2.0, 7.5])
@pytest.mark.parametrize("t", [0.0, 0.4, 5.0])
def test_mixture_quadrature_matches_mpmath(a, t):
    P = rpp.GaussianMixture(weights=[0.2, 0.5, 0.3], means=[-3, 0, 2.5], vars=[0.2, 0.6, 1.3])
    Q = rpp.GaussianMixture(weights=[0.6, 0.4], means=[-1, 2], vars=[0.9, 1.5])
    val, err = rpp.divergence.renyi_divergence_bound(P, Q, a, t)
    ref = mp_mixture_renyi(P, Q, a, t)
    assert abs(val - ref) <= err + 1e-15
    assert err < 1e-10


def test_mixture_of_one_component_matches_closed_form():
    P = rpp.GaussianMixture(weights=[1.0], means=[0.4], vars=[0.3])
    Q = rpp.GaussianMixture(weights=[1.0], means=[-0.2], vars=[0.8])
    for a in [0.5, 2, 4]:
        val, _err = rpp.divergence.renyi_divergence_bound(P, Q, a, 0.1)
        assert val == pytest.approx(rpp.gaussian_renyi(0.4, 0.4, -0.2, 0.9, a).value, rel=1e-11)


def test_mixture_domain_uses_widest_components():
    P = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0, 1], vars=[0.1, 4.0])
    Q = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0, 1], vars=[1.0, 1.0])
    # (1-a)*4 + a*1 <= 0 for a >= 4/3
    assert rpp.renyi_divergence(P, Q, alpha=2.0).value == np.inf
    assert np.isfinite(rpp.renyi_divergence(P, Q, alpha=1.2).value)
    # noise moves it back into the domain: (1-a)(4+t) + a(1+t) > 0 iff t > 3a - 4 = 2  (scale**2 just below 2: sqrt(2.0)**2 rounds above it)
    assert (
        rpp.renyi_divergence(P, Q, alpha=2.0, noise=rpp.GaussianNoise(scale=float(np.nextafter(np.sqrt(2.0), 0)))).value
        == np.inf
    )
    assert np.isfinite(rpp.renyi_divergence(P, Q, alpha=2.0, noise=rpp.GaussianNoise(scale=np.sqrt(2.01))).value)


def test_empirical_divergences():
    E1 = rpp.Empirical([0, 0, 1, 2])
    E2 = rpp.Empirical([0, 1, 1, 2])
    p, q = np.array([0.5, 0.25, 0.25]), np.array([0.25, 0.5, 0.25])
    ref = np.log(np.sum(p**3 * q**-2)) / 2
    assert rpp.renyi_divergence(E1, E2, alpha=3).value == pytest.approx(ref, rel=1e-14)
    assert rpp.renyi_divergence(E1, rpp.Empirical([5.0]), alpha=3).value == np.inf
    assert rpp.renyi_divergence(E1, rpp.Gaussian(mean=0, var=1), alpha=3).value == np.inf
    noisy = rpp.renyi_divergence(E1, E2, alpha=3, noise=rpp.GaussianNoise(scale=np.sqrt(0.5))).value
    mix = rpp.renyi_divergence(E1.convolve(scale=0.5**0.5), E2.convolve(scale=0.5**0.5), alpha=3).value
    assert noisy == pytest.approx(mix, rel=1e-12)
    assert noisy < ref  # post-processing can only decrease the divergence


def test_discrete_renyi_limits():
    p, q = np.array([0.2, 0.3, 0.5]), np.array([0.4, 0.4, 0.2])
    kl = np.sum(p * np.log(p / q))
    assert rpp.discrete_renyi_divergence(p, q, 1).value == pytest.approx(kl)
    assert rpp.discrete_renyi_divergence(p, q, 1 + 1e-8).value == pytest.approx(kl, rel=1e-6)
    assert rpp.discrete_renyi_divergence(p, q, np.inf).value == pytest.approx(np.log(2.5))
    assert rpp.discrete_renyi_divergence(p, [0.5, 0.5, 0.0], 2).value == np.inf


def test_vectorised_gaussian_renyi_divergence():
    P, Q = rpp.Gaussian(mean=0, var=1), rpp.Gaussian(mean=1, var=2)
    scales = np.sqrt([0.0, 1.0, 3.0])  # a noise object has one scale: vectorised over alpha
    a = np.array([2.0, 5.0])
    out = np.stack(
        [rpp.renyi_divergence(P, Q, alpha=a, noise=rpp.GaussianNoise(scale=s)).value for s in scales], axis=1
    )
    assert out.shape == (2, 3)
    assert out[1, 2] == pytest.approx(rpp.gaussian_renyi(0, 4, 1, 5, 5).value)


@pytest.mark.parametrize(
    "bad", [dict(alpha=-0.5), dict(alpha=-1.0), dict(alpha=np.nan), dict(scale=-1.0), dict(scale=np.nan)]
)
def test_bad_input_raises(bad):
    kw = dict(alpha=2.0, scale=0.0) | bad
    with pytest.raises(ValueError, match=r"alpha|scale"):
        rpp.renyi_divergence(
            rpp.Gaussian(mean=0, var=1),
            rpp.Gaussian(mean=1, var=1),
            alpha=kw["alpha"],
            noise=rpp.GaussianNoise(scale=kw["scale"]),
        )


def test_bad_distributions_raise():
    with pytest.raises(ValueError, match="var"):
        rpp.Gaussian(mean=0, var=0)
    with pytest.raises(ValueError, match="var"):
        rpp.Gaussian(mean=0, var=-1)
    with pytest.raises(ValueError, match="mean"):
        rpp.Gaussian(mean=np.nan, var=1)
    with pytest.raises(ValueError, match="weights must sum to 1"):
        rpp.GaussianMixture(weights=[0.5, 0.6], means=[0, 1], vars=[1, 1])
    with pytest.raises(ValueError, match="weights"):
        rpp.GaussianMixture(weights=[-0.5, 1.5], means=[0, 1], vars=[1, 1])
    with pytest.raises(ValueError, match="same length"):
        rpp.GaussianMixture(weights=[0.5, 0.5], means=[0], vars=[1, 1])
    with pytest.raises(ValueError, match="empty"):
        rpp.Empirical([])
    with pytest.raises(ValueError, match="atoms"):
        rpp.Empirical([1.0, np.inf])
    with pytest.raises(TypeError, match="prior_i must be"):
        _ = rpp.renyi_divergence("not a prior", rpp.Gaussian(mean=0, var=1), alpha=2).value
    with pytest.raises(TypeError, match="mean"):
        rpp.Gaussian(mean="zero", var=1)


def test_mixture_sampling_and_quantiles_are_consistent():
    M = rpp.GaussianMixture(weights=[0.3, 0.7], means=[-2, 1], vars=[0.5, 1.0])
    u = np.array([0.01, 0.3, 0.5, 0.9])
    assert np.allclose(M.cdf(M.ppf(u)), u, atol=1e-12)
    x = M.sample(200_000, rng=0)
    assert np.mean(x) == pytest.approx(M.mean, abs=0.02)
    assert np.var(x) == pytest.approx(M.var, rel=0.02)
    assert special.logsumexp(M.logpdf(np.linspace(-20, 20, 40001))) + np.log(0.001) == pytest.approx(0, abs=1e-8)


def test_error_covers_mpmath_just_above_the_gaussian_domain_edge():
    """Chapter 4's pair at the edge s = 0 (theta^2 = 17.75 for alpha = 3): the tails of
    p_j^3 p_i^-2 decay only exponentially there.  The geometric breakpoints used to start at
    s_eff / 4, which goes to infinity at the edge, so one huge panel held the tail mass and
    GL20 and GL10 missed it alike (-9.4e-10 against a reported 6.7e-14).  Now the reported
    error covers the difference to mpmath at 50 digits."""
    P_i = rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[0.25, 0.25])
    P_j = rpp.Gaussian(mean=0.0, var=9.25)
    mp.mp.dps = 50
    for z in (17.75 * (1 + 1e-15), 17.75 * (1 + 1e-9), 17.75 * (1 + 1e-4), 18.5):
        val, err = rpp.divergence.renyi_divergence_bound(P_j, P_i, 3.0, z)
        vi, vj = mp.mpf(0.25) + mp.mpf(z), mp.mpf(9.25) + mp.mpf(z)

        def f(y, vi=vi, vj=vj):
            pi = (mp.npdf(y, -3, mp.sqrt(vi)) + mp.npdf(y, 3, mp.sqrt(vi))) / 2
            return mp.npdf(y, 0, mp.sqrt(vj)) ** 3 / pi**2

        ref = float(mp.log(mp.quad(f, [-mp.inf, -400, -100, -30, 0, 30, 100, 400, mp.inf])) / 2)
        assert abs(val - ref) <= err, (z, val - ref, err)
