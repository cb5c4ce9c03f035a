"""alpha-Wasserstein mechanisms: never under-noise (against exact D_alpha, both orders), orderings, formulas, errors."""

import warnings

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import reference_flint
import rpp
from rpp import GaussianNoise, LaplaceNoise, rules
from rpp.divergence import (
    laplace_rdp_scale,
    laplace_renyi_divergence_bound,
    laplace_shift_divergence,
    log_laplace_shift_integral,
)

E, G, M = rpp.Empirical, rpp.Gaussian, rpp.GaussianMixture
RTOL = 1e-9


# --------------------------------------------------------------------------------------------
# Mironov 2017, Prop. 6
# --------------------------------------------------------------------------------------------


def test_laplace_rdp_derived_symbolically():
    """The shifted-Laplace integral, split at 0 and Delta, equals Mironov's Prop. 6 (t = Delta/b)."""
    y = sp.symbols("y", real=True)
    a = sp.Rational(7, 3)
    t = sp.Rational(3, 2)
    f = lambda lo, hi, e: sp.integrate(sp.exp(e) / 2, (y, lo, hi))
    # l(y - t)^a l(y)^(1-a) with l(z) = e^{-|z|}/2 on the three pieces
    I = (
        f(-sp.oo, 0, -a * (t - y) - (1 - a) * (-y))
        + f(0, t, -a * (t - y) - (1 - a) * y)
        + f(t, sp.oo, -a * (y - t) - (1 - a) * y)
    )
    mironov = a / (2 * a - 1) * sp.exp((a - 1) * t) + (a - 1) / (2 * a - 1) * sp.exp(-a * t)
    assert sp.simplify(I - mironov) == 0
    assert float(sp.log(mironov) / (a - 1)) == pytest.approx(laplace_shift_divergence(1.5, 1.0, 7 / 3).value, rel=1e-14)


def test_laplace_rdp_against_mpmath_all_orders():
    mp.mp.dps = 50
    for a in (0.2, 0.4999999, 0.5, 0.51, 0.9, 1.001, 1.5, 3.0, 50.0, 1e3):
        for t in (1e-6, 0.1, 1.0, 10.0, 300.0):
            am, tm = mp.mpf(a), mp.mpf(t)
            if a == 0.5:
                ref = mp.log((1 + tm / 2) * mp.e ** (-tm / 2)) / (am - 1)
            else:
                ref = mp.log(
                    am / (2 * am - 1) * mp.e ** ((am - 1) * tm) + (am - 1) / (2 * am - 1) * mp.e ** (-am * tm)
                ) / (am - 1)
            assert laplace_shift_divergence(t, 1.0, a).value == pytest.approx(float(ref), rel=1e-11, abs=1e-15)
    assert laplace_shift_divergence(2.0, 1.0, 1.0).value == pytest.approx(2 + np.exp(-2.0) - 1)  # KL
    assert laplace_shift_divergence(2.0, 0.5, np.inf).value == 4.0  # max-divergence
    assert (
        laplace_shift_divergence(0.0, 0.0, 3.0).value == 0.0 and laplace_shift_divergence(1.0, 0.0, 3.0).value == np.inf
    )
    assert np.isfinite(laplace_shift_divergence(1e6, 1e-3, 100.0).value)  # no overflow


def test_laplace_rdp_scale_inverts():
    a = np.array([1.01, 1.5, 3.0, 10.0, 300.0])
    for e in (1e-3, 0.1, 1.0, 10.0):
        b = laplace_rdp_scale(2.0, a, e)
        assert np.all(laplace_shift_divergence(2.0, b, a).value <= e * (1 + 1e-12))
        assert np.all(laplace_shift_divergence(2.0, b * (1 - 1e-9), a).value > e)
    assert laplace_rdp_scale(0.0, 2.0, 1.0) == 0.0 and laplace_rdp_scale(np.inf, 2.0, 1.0) == np.inf


# --------------------------------------------------------------------------------------------
# Never under-noise: 300 random empirical pairs, every method, both noises, both orders
# --------------------------------------------------------------------------------------------


def random_pair(rng):
    def one():
        n = int(rng.integers(1, 4))
        if rng.random() < 0.4:
            return E(rng.integers(-3, 4, n).astype(float))
        return E(np.round(rng.normal(0, rng.choice([0.3, 2.0]), n), 3))

    return one(), one()


def random_budget(rng):
    a = float(np.exp(rng.uniform(np.log(1.05), np.log(30))))
    e = float(np.exp(rng.uniform(np.log(0.02), np.log(4))))
    return a, e


LAPLACE_METHODS = ["exact", "w-alpha-tight", "w-alpha", "pierquin"]


def _empirical_cases():
    """The 300 random (pair, budget) cases, always drawn in the same order from one stream."""
    rng = np.random.default_rng(2026)
    cases = []
    for _ in range(300):
        p, q = random_pair(rng)
        a, e = random_budget(rng)
        cases.append((p, q, a, e))
    return cases


@pytest.mark.slow  # > 3 s on 2 cores: runs in make test's second pytest phase
@pytest.mark.parametrize("chunk", range(6))
def test_never_under_noise_300_empirical_pairs_both_noises_both_orders(chunk):
    """300 random empirical pairs in 6 chunks of 50 (so that pytest-xdist can spread them)."""
    for k, (p, q, a, e) in enumerate(_empirical_cases()[50 * chunk : 50 * (chunk + 1)], start=50 * chunk):
        with warnings.catch_warnings():
            warnings.simplefilter("error", rpp.PrivacyWarning)
            lap = {m: rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="laplace") for m in LAPLACE_METHODS}
            gau = rpp.calibrate(p, q, alpha=a, epsilon=e, method="w-alpha", noise="gaussian")
        # calibrate evaluates the certified exact divergence in both orders at the returned scale
        assert all(c.within_budget and c.divergence + c.divergence_error <= e * (1 + RTOL) for c in lap.values())
        assert gau.within_budget and gau.divergence + gau.divergence_error <= e * (1 + RTOL)
        # ordering of the Laplace rules (scales): exact <= tight <= min(w-alpha, pierquin)
        s = {m: c.scale for m, c in lap.items()}
        assert s["exact"] <= s["w-alpha-tight"] * (1 + 1e-7) + 1e-12
        assert s["w-alpha-tight"] <= s["w-alpha"] * (1 + 1e-12) + 1e-300
        assert s["w-alpha-tight"] <= s["pierquin"] * (1 + 1e-12) + 1e-300
        # Gaussian noise: Theorem 2 is the joint-convexity bound with exact pair divergences
        assert rules.w_alpha(p, q, alpha=a, epsilon=e, noise="gaussian", rule="tight") == rules.w_alpha(
            p, q, alpha=a, epsilon=e, noise="gaussian", rule="paper"
        )
        # Theorem 2's scale, plus at most the round-off guard's steps (1e-13, x4: the final check
        # has no slack since issue #34, so the scale may move up by ~1e-11)
        assert gau.scale <= np.sqrt(a * rpp.w_infinity(p, q) ** 2 / (2 * e)) * (1 + 1e-10)
        # the independent judge (arb, tests/reference_flint.py: no rpp arithmetic), both orders, on
        # every third pair: the smallest Laplace scale and the Gaussian w-alpha scale meet the budget.
        # The larger Laplace scales then do too: for b' > b, Laplace(b') is Laplace(b) plus independent
        # noise (its characteristic function (1 + b^2 t^2) / (1 + b'^2 t^2) is that of the mixture
        # (b/b')^2 delta_0 + (1 - (b/b')^2) Laplace(b')), and post-processing only lowers D_alpha.
        if k % 3 == 0:
            for x, y in ((p, q), (q, p)):
                assert reference_flint.upper(reference_flint.laplace_noise_divergence(x, y, a, s["exact"])) <= e
                assert reference_flint.upper(reference_flint.gaussian_noise_divergence(x, y, a, gau.scale**2)) <= e


@pytest.mark.parametrize("delta", [0.5, 1.0, 7.0])
@pytest.mark.parametrize("a, e", [(1.2, 0.1), (2.0, 1.0), (10.0, 0.5), (100.0, 3.0)])
@pytest.mark.deep
def test_point_masses_by_hand(delta, a, e):
    """Deterministic data: every rule is computable by hand."""
    p, q = E([0.0]), E([delta])
    lap = {m: rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="laplace").scale for m in LAPLACE_METHODS}
    mir = laplace_rdp_scale(delta, a, e)  # Renyi DP of the Laplace mechanism
    assert lap["pierquin"] == pytest.approx(mir, rel=1e-12)
    assert lap["w-alpha-tight"] == pytest.approx(mir, rel=1e-12)
    assert lap["exact"] == pytest.approx(mir, rel=1e-8)
    # Theorem 1 as printed: e^{alpha Delta / b} <= e^{(alpha-1) eps}
    assert lap["w-alpha"] == pytest.approx(a * delta / ((a - 1) * e), rel=1e-12)
    # ... which is more than even pure eps-DP needs (b = Delta/eps), hence more than the W_inf baseline
    assert lap["w-alpha"] > delta / e > lap["pierquin"]
    # Gaussian noise: Theorem 2 reduces to the Renyi-DP Gaussian mechanism alpha Delta^2 / (2 sigma^2) <= eps
    for m in ("w-alpha", "w-alpha-tight", "pierquin"):
        sig = rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="gaussian").scale
        ref = np.sqrt(a * delta**2 / (2 * e))
        # never below the exact minimum; above it by the round-off guard only: with no slack in the
        # budget (issue #34) the scale is stepped up (1e-13, x4) until value + error <= epsilon
        assert ref * (1 - 1e-15) <= sig <= ref * (1 + 1e-10)


def test_w_alpha_beats_baseline_only_when_the_coupling_spreads():
    """Mass 1 - eta at distance 0 and eta at distance Delta: Theorem 1 wins iff eta is small enough."""
    a, e, delta = 2.0, 0.5, 1.0
    b_base = laplace_rdp_scale(delta, a, e)
    eta_star = np.expm1((a - 1) * e) / np.expm1(a * delta / b_base)  # crossover, from eq. (12) at b = b_base
    assert 0.1 < eta_star < 0.2
    for n_far in (1, 5, 10, 20, 50, 100):
        p = E(np.zeros(100))
        q = E(np.r_[np.zeros(100 - n_far), np.full(n_far, delta)])
        w = rules.w_alpha(p, q, alpha=a, epsilon=e, noise="laplace", rule="paper")
        eta = n_far / 100
        assert w == pytest.approx(a * delta / np.log1p(np.expm1((a - 1) * e) / eta), rel=1e-12)
        assert (w < b_base) == (eta < eta_star)


def test_convergence_to_w_infinity_over_eps():
    """Remark 1: both the W_alpha rule and the W_inf baseline tend to W_inf / eps as alpha grows."""
    p, q = E([0.0, 0.0, 1.0, 2.0]), E([0.5, 1.0, 1.0, 4.0])
    winf, e = rpp.w_infinity(p, q), 0.7
    for a in (1e3, 1e5):
        assert rules.w_alpha(p, q, alpha=a, epsilon=e, noise="laplace", rule="paper") == pytest.approx(
            winf / e, rel=20 / a
        )
        assert float(laplace_rdp_scale(winf, a, e)) == pytest.approx(winf / e, rel=20 / a)


# --------------------------------------------------------------------------------------------
# Continuous priors
# --------------------------------------------------------------------------------------------


def quad_coupling_moment(p, q, log_cost):
    """Independent: int_0^1 c(F_p^-1(u) - F_q^-1(u)) du by composite Gauss-Legendre in the normal score,
    with the priors' own ppf (bisection in rpp.priors), truncated at |z| = 8.2."""
    x, w = np.polynomial.legendre.leggauss(20)
    edges = np.linspace(-8.2, 8.2, 801)
    mid, half = 0.5 * (edges[1:] + edges[:-1]), 0.5 * np.diff(edges)
    z = (mid[:, None] + half[:, None] * x).ravel()
    u = stats.norm.cdf(z)
    vals = np.exp(log_cost(p.ppf(u) - q.ppf(u)) + stats.norm.logpdf(z)).reshape(mid.size, -1)
    return np.log(np.sum(half * (vals @ w)))


@pytest.mark.parametrize(
    "p, q",
    [
        (G(mean=0.0, var=1.0), G(mean=1.0, var=1.0)),
        (G(mean=0.0, var=1.0), G(mean=0.5, var=2.0)),
        (M(weights=[0.5, 0.5], means=[-1.0, 1.0], vars=[0.3, 1.0]), G(mean=0.0, var=1.5)),
        (
            M(weights=[0.4, 0.6], means=[-2.0, 2.0], vars=[0.5, 0.5]),
            M(weights=[0.3, 0.7], means=[-2.0, 2.5], vars=[0.5, 0.4]),
        ),
    ],
)
def test_continuous_log_moment_matches_quadrature(p, q):
    a, b, sig = 3.0, 0.8, 3.0
    got = rules.w_alpha_log_moment(p, q, alpha=a, noise=LaplaceNoise(scale=b), rule="paper")
    ref = quad_coupling_moment(p, q, lambda d: a * np.abs(d) / b)
    assert got == pytest.approx(ref, rel=1e-6)  # quad truncated at |z| = 8.2: tails are below 1e-15 here
    got = rules.w_alpha_log_moment(p, q, alpha=a, noise=GaussianNoise(scale=sig), rule="paper")
    ref = quad_coupling_moment(p, q, lambda d: a * (a - 1) * d**2 / (2 * sig**2))
    assert got == pytest.approx(ref, rel=1e-6)
    got = rules.w_alpha_log_moment(p, q, alpha=a, noise=LaplaceNoise(scale=b), rule="tight")
    ref = quad_coupling_moment(p, q, lambda d: log_laplace_shift_integral(np.abs(d) / b, a))
    assert got == pytest.approx(ref, rel=1e-6)


def test_gaussian_closed_form_equals_mixture_path():
    """A Gaussian written as a two-component mixture goes through the numerical z-integral."""
    p, q = G(mean=0.3, var=0.8), G(mean=-0.2, var=2.0)
    pm = M(weights=[0.5, 0.5], means=[0.3, 0.3], vars=[0.8, 0.8])
    for noise, s in (("laplace", 0.6), ("gaussian", 4.0)):
        assert rules.w_alpha_log_moment(
            pm, q, alpha=2.5, noise=(GaussianNoise if noise == "gaussian" else LaplaceNoise)(scale=s)
        ) == pytest.approx(
            rules.w_alpha_log_moment(
                p, q, alpha=2.5, noise=(GaussianNoise if noise == "gaussian" else LaplaceNoise)(scale=s)
            ),
            rel=1e-9,
        )


def test_gaussian_noise_divergence_of_the_coupling_integral():
    """x - x' grows like (s_i - s_j) z: the Gaussian-noise condition is +inf for sigma^2 <= a(a-1)(s_i-s_j)^2."""
    p, q = G(mean=0.0, var=1.0), G(mean=0.0, var=4.0)  # s_i - s_j = -1
    a = 3.0
    edge = np.sqrt(a * (a - 1))
    assert rules.w_alpha_log_moment(p, q, alpha=a, noise=GaussianNoise(scale=edge * 0.999)) == np.inf
    assert np.isfinite(rules.w_alpha_log_moment(p, q, alpha=a, noise=GaussianNoise(scale=edge * 1.001)))
    mix = M(weights=[0.5, 0.5], means=[0.0, 1.0], vars=[1.0, 4.0])  # widest component s = 2 against s = 1
    assert rules.w_alpha_log_moment(mix, p, alpha=a, noise=GaussianNoise(scale=edge * 0.99)) == np.inf
    assert np.isfinite(rules.w_alpha_log_moment(mix, p, alpha=a, noise=GaussianNoise(scale=edge * 1.2)))


def test_continuous_calibrations_are_valid_and_ordered():
    for p, q in [
        (G(mean=0.0, var=1.0), G(mean=0.5, var=2.0)),
        (M(weights=[0.5, 0.5], means=[-1.0, 1.0], vars=[0.3, 1.0]), G(mean=0.0, var=1.5)),
    ]:
        a, e = 3.0, 0.5
        lap = {
            m: rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="laplace")
            for m in ("exact", "w-alpha-tight", "w-alpha")
        }
        assert all(c.within_budget for c in lap.values())
        assert lap["exact"].scale <= lap["w-alpha-tight"].scale <= lap["w-alpha"].scale
        g = {m: rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="gaussian") for m in ("exact", "w-alpha")}
        assert all(c.within_budget for c in g.values()) and g["exact"].scale <= g["w-alpha"].scale


def test_gaussian_priors_unequal_variances_baseline_is_infinite():
    cal = rpp.calibrate(
        G(mean=0.0, var=1.0), G(mean=0.5, var=2.0), alpha=2.0, epsilon=1.0, method="pierquin", noise="laplace"
    )
    assert cal.scale == np.inf
    assert np.isfinite(
        rpp.calibrate(
            G(mean=0.0, var=1.0), G(mean=0.5, var=2.0), alpha=2.0, epsilon=1.0, method="w-alpha", noise="laplace"
        ).scale
    )


# --------------------------------------------------------------------------------------------
# The paper's distance form, exponential family, alpha < 1
# --------------------------------------------------------------------------------------------


def test_alpha_wasserstein_distance_form_is_the_same_condition():
    p, q = E([0.0, 1.0, 3.0]), E([0.5, 0.5, 2.0])
    a, e = 2.5, 0.8
    b = rules.w_alpha(p, q, alpha=a, epsilon=e, noise="laplace", rule="paper")
    assert rules.alpha_wasserstein(p, q, alpha=a, noise=LaplaceNoise(scale=b)) <= np.exp((a - 1) * e / a) * (1 + 1e-12)
    assert rules.alpha_wasserstein(p, q, alpha=a, noise=LaplaceNoise(scale=0.99 * b)) > np.exp((a - 1) * e / a)
    s = rules.w_alpha(p, q, alpha=a, epsilon=e, noise="gaussian")
    assert rules.alpha_wasserstein(p, q, alpha=a, noise=GaussianNoise(scale=s)) <= np.exp(e / a) * (1 + 1e-12)
    assert rules.alpha_wasserstein(p, q, alpha=a, noise=GaussianNoise(scale=0.99 * s)) > np.exp(e / a)


def brute_geometric(p, q, a, eta, pad=2000):
    """Independent: sum over a wide integer window in log space (no closed-form tails)."""
    from scipy.special import logsumexp

    y = np.arange(min(p.support.min(), q.support.min()) - pad, max(p.support.max(), q.support.max()) + pad + 1)
    lnorm = np.log((1 - np.exp(-eta)) / (1 + np.exp(-eta)))
    lpmf = lambda d: logsumexp(np.log(d.probs)[None, :] - eta * np.abs(y[:, None] - d.support[None, :]), axis=1) + lnorm
    return logsumexp(a * lpmf(p) + (1 - a) * lpmf(q)) / (a - 1)


def test_two_sided_geometric_exact_and_eq13_valid():
    rng = np.random.default_rng(5)
    for _ in range(40):
        p = E(rng.integers(0, 8, rng.integers(1, 5)).astype(float))
        q = E(rng.integers(0, 8, rng.integers(1, 5)).astype(float))
        a, e = float(rng.uniform(1.1, 8)), float(rng.uniform(0.1, 2))
        eta_w = rng.uniform(0.2, 2.0)
        assert rules.two_sided_geometric_renyi(p, q, alpha=a, scale=1 / eta_w) == pytest.approx(
            brute_geometric(p, q, a, eta_w), rel=1e-9, abs=1e-12
        )
        for rule in ("paper", "sharp"):
            eta = min(
                (1 / rules.exponential_family(p, q, alpha=a, epsilon=e, rule=rule)),
                (1 / rules.exponential_family(q, p, alpha=a, epsilon=e, rule=rule)),
            )
            if np.isfinite(eta):
                worst = max(
                    rules.two_sided_geometric_renyi(p, q, alpha=a, scale=1 / eta),
                    rules.two_sided_geometric_renyi(q, p, alpha=a, scale=1 / eta),
                )
                assert worst <= e * (1 + RTOL)
        assert (1 / rules.exponential_family(p, q, alpha=a, epsilon=e, rule="sharp")) >= (
            1 / rules.exponential_family(p, q, alpha=a, epsilon=e, rule="paper")
        )


def test_exponential_family_with_laplace_cost_is_theorem_1():
    p, q = E([0.0, 1.0, 3.0]), E([0.5, 0.5, 2.0])
    eta = 1 / rules.exponential_family(p, q, alpha=2.5, epsilon=0.8)
    assert 1 / eta == pytest.approx(
        rules.w_alpha(p, q, alpha=2.5, epsilon=0.8, noise="laplace", rule="paper"), rel=1e-12
    )
    sqrt_cost = 1 / rules.exponential_family(p, q, alpha=2.5, epsilon=0.8, cost=lambda d: np.sqrt(np.abs(d)))
    assert np.isfinite(sqrt_cost) and sqrt_cost > 0


def test_alpha_below_one_condition_is_sufficient():
    rng = np.random.default_rng(9)
    for _ in range(40):
        p, q = random_pair(rng)
        a, e = float(rng.uniform(0.05, 0.95)), float(np.exp(rng.uniform(np.log(0.05), np.log(3))))
        for rule in ("paper", "sharp"):
            b = max(
                rules.alpha_below_one(p, q, alpha=a, epsilon=e, rule=rule),
                rules.alpha_below_one(q, p, alpha=a, epsilon=e, rule=rule),
            )
            if b == 0:
                continue
            for x, y in ((p, q), (q, p)):
                val, err = laplace_renyi_divergence_bound(x, y, a, b)
                assert val + err <= e * (1 + RTOL)
        assert rules.alpha_below_one(p, q, alpha=a, epsilon=e, rule="sharp") <= rules.alpha_below_one(
            p, q, alpha=a, epsilon=e, rule="paper"
        ) * (1 + 1e-12)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: rules.w_alpha(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0, noise="poisson"), "noise must be one of"),
        (
            lambda: rules.w_alpha(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0, rule="sharp", noise="gaussian"),
            "rule must be one of",
        ),
        (
            lambda: rules.w_alpha(E([0.0]), G(mean=1.0, var=1.0), alpha=2.0, epsilon=1.0, noise="laplace"),
            "two rpp.Empirical samples or two continuous",
        ),
        (lambda: rules.w_alpha(E([0.0]), E([1.0]), alpha=0.5, epsilon=1.0, noise="laplace"), "alpha"),
        (lambda: rules.w_alpha(E([0.0]), E([1.0]), alpha=2.0, epsilon=0.0, noise="laplace"), "epsilon"),
        (lambda: rules.w_alpha_log_moment(E([0.0]), E([1.0]), alpha=2.0, noise=LaplaceNoise(scale=-1.0)), "scale"),
        (
            lambda: 1 / rules.exponential_family(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0, cost=lambda d: d + 1),
            "metric",
        ),
        (lambda: 1 / rules.exponential_family(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0, rule="tight"), "rule"),
        (lambda: rules.two_sided_geometric_renyi(E([0.5]), E([1.0]), alpha=2.0, scale=1 / 1.0), "integer"),
        (lambda: rules.alpha_below_one(E([0.0]), E([1.0]), alpha=2.0, epsilon=1.0), "alpha must be in"),
        (lambda: laplace_rdp_scale(1.0, 1.0, 1.0), "alpha"),
        (lambda: laplace_shift_divergence(-1.0, 1.0, 2.0).value, "sensitivity"),
    ],
)
def test_clear_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_wrong_prior_type_is_a_type_error():
    with pytest.raises(TypeError, match="prior_i must be"):
        rules.w_alpha([0.0], E([1.0]), alpha=2.0, epsilon=1.0, noise="laplace")


def test_pierquin_laplace_on_mixtures_explains():
    with pytest.raises(ValueError, match="w_infinity"):
        rpp.calibrate(
            M(weights=[0.5, 0.5], means=[0.0, 1.0], vars=[1.0, 1.0]),
            G(mean=0.0, var=1.0),
            alpha=2.0,
            epsilon=1.0,
            method="pierquin",
            noise="laplace",
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=4),
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=4),
    st.floats(1.01, 50.0),
    st.floats(0.01, 5.0),
)
# found by hypothesis: atoms 1.9e-165 apart make the proved error term (6.8e-11) exceed the
# 1e-9 relative slack; the rule is still valid (value - error <= epsilon), and calibrate's
# check, which needs value + error <= epsilon, steps such a scale up.
@example(xp=[0.0, 1.0], xq=[1.0, 1.87e-165], a=1.01, e=0.0625)
@pytest.mark.deep
def test_property_w_alpha_rules_valid(xp, xq, a, e):
    """Each rule's scale satisfies its condition, and is not refuted by the proved enclosure
    of the exact divergence (Laplace noise on atoms: value +- error contains D_alpha); a rule
    is refuted only when the enclosure lies above epsilon, i.e. value - error > epsilon."""
    p, q = E(np.array(xp)), E(np.array(xq))
    for rule in ("paper", "sharp", "tight"):
        b = rules.w_alpha(p, q, alpha=a, epsilon=e, noise="laplace", rule=rule)
        assert (
            rules.w_alpha_log_moment(p, q, alpha=a, noise=LaplaceNoise(scale=b), rule=rule)
            <= (a - 1) * e * (1 + 1e-12) + 1e-300
        )
        if b > 0:
            val, err = laplace_renyi_divergence_bound(p, q, a, b)
            assert val - err <= e * (1 + RTOL)
    for method in ("w-alpha", "w-alpha-tight"):  # calibrate's own check: value + error <= epsilon
        cal = rpp.calibrate(p, q, alpha=a, epsilon=e, method=method, noise="laplace")
        assert cal.within_budget and cal.divergence + cal.divergence_error <= e * (1 + RTOL)


def test_gaussian_noise_ordering_exact_below_theorem_2_below_baseline():
    rng = np.random.default_rng(17)
    for _ in range(8):
        p, q = random_pair(rng)
        a, e = random_budget(rng)
        s = {
            m: rpp.calibrate(p, q, alpha=a, epsilon=e, method=m, noise="gaussian").scale
            for m in ("exact", "w-alpha-tight", "w-alpha", "pierquin")
        }
        assert s["exact"] <= s["w-alpha-tight"] * (1 + 1e-7) + 1e-12
        assert s["w-alpha-tight"] == s["w-alpha"] <= s["pierquin"] * (1 + 1e-12)


@pytest.mark.parametrize(
    "noise, rule", [("laplace", "paper"), ("laplace", "sharp"), ("laplace", "tight"), ("gaussian", "paper")]
)
def test_empirical_w_alpha_scale_is_scale_free_down_to_subnormal_distances(noise, rule):
    """The condition depends on |x - x'| / b only: tiny and huge distances (even 2.2e-309,
    where 1/|x - x'| overflows; found by the property test above) give the same ratio."""
    ratios = []
    for w in (2.225073858507203e-309, 1e-200, 1e-160, 1.0, 1e150):
        p, q = E(np.array([0.0, w])), E(np.array([w, 3 * w]))
        b = rules.w_alpha(p, q, alpha=2.0, epsilon=1.0, noise=noise, rule=rule)
        assert rules.w_alpha_log_moment(
            p, q, alpha=2.0, noise=(GaussianNoise if noise == "gaussian" else LaplaceNoise)(scale=b), rule=rule
        ) <= 1.0 * (1 + 1e-12)
        ratios.append(b / w)
    np.testing.assert_allclose(ratios, ratios[3], rtol=1e-12)
