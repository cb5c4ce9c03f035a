"""The exhaustive sweeps behind chapter 3 (book/03_gaussian_priors.ipynb), issue #40 item 1.

The chapter keeps one small check per result (a handful to a few hundred points); the sweeps it
used to run in its cells live here, on the same grids and sample sizes. Each judges ``rpp`` by
an independent closed form in numpy (the Rényi divergence between two Gaussians, Def. III.1 of
Yang et al., written out below and compared with scipy quadrature), by a root of that closed form
found with scipy's brentq, or by the closed form of Theorem III.5 written out below; never by
``rpp`` itself.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.stats import norm

from rpp import Gaussian, calibrate
from rpp.rules import closed_form_variance, published_bisection_variance


def renyi_gauss(m0, v0, m1, v1, alpha):
    """D_alpha(N(m0, v0) || N(m1, v1)) in closed form (numpy); +inf off the domain."""
    m0, v0, m1, v1, alpha = np.broadcast_arrays(*map(np.asarray, (m0, v0, m1, v1, alpha)))
    s = alpha * v1 + (1 - alpha) * v0
    out = np.full(s.shape, np.inf)
    ok = s > 0
    out[ok] = alpha[ok] * (m0[ok] - m1[ok]) ** 2 / (2 * s[ok]) - (
        np.log(s[ok]) - (1 - alpha[ok]) * np.log(v0[ok]) - alpha[ok] * np.log(v1[ok])
    ) / (2 * (alpha[ok] - 1))
    return out


def x_star(Delta, delta, alpha, eps):
    """x* of Theorem III.5 of Yang et al. (eq-gauss-closed-form), written out in numpy."""
    A = Delta - 2 * eps * delta
    return alpha / (4 * eps) * (A + np.sqrt(A**2 + 8 * eps * delta**2 / (alpha - 1)))


def minimal_noise(m0, v0, m1, v1, alpha, eps):
    """Smallest theta^2 >= 0 with renyi_gauss(m0, v0 + t, m1, v1 + t) <= eps (brentq)."""

    def g(t):
        return float(renyi_gauss(m0, v0 + t, m1, v1 + t, alpha))

    lo = max(0.0, (alpha - 1) * v0 - alpha * v1)  # below it the divergence is +inf
    if lo == 0.0 and g(0.0) <= eps:
        return 0.0
    hi = 2 * lo + 1.0
    while g(hi) > eps:
        hi *= 2
    lo = lo + 1e-14 * (1 + lo)
    return brentq(lambda t: g(t) - eps, lo, hi, xtol=1e-14, rtol=1e-13)


def test_the_closed_form_judge_agrees_with_quadrature():
    for m0, v0, m1, v1, a in [(0, 1, 2, 1.2, 3), (0, 0.25, 1, 16, 1.5), (1, 3, 0, 0.5, 1.1)]:
        p, q = norm(m0, np.sqrt(v0)), norm(m1, np.sqrt(v1))
        integral = quad(
            lambda y, a=a, p=p, q=q: np.exp(a * p.logpdf(y) + (1 - a) * q.logpdf(y)),
            -np.inf,
            np.inf,
            epsabs=0,
            epsrel=1e-12,
        )[0]
        assert np.isclose(renyi_gauss(m0, v0, m1, v1, a), np.log(integral) / (a - 1), rtol=1e-9)


def test_ch3_published_bisection_sweep_441_points():
    """Algorithm 1 of Yang et al. as published against the exact calibration on the 21 x 21
    grid of chapter 3 (sigma_i^2 = 1, Delta in [0, 10], sigma_j^2 in [0.1, 10], alpha = 3,
    eps = 1): it under-noises at 189 of 441 points, exactly where its right end
    R_0 = alpha Delta / (2 eps) is infeasible, and then returns R_0; the exact calibration of
    ``rpp`` is feasible and minimal everywhere."""
    alpha, eps = 3.0, 1.0
    D_sweep = np.linspace(0, 10, 21)
    r_sweep = np.logspace(-1, 1, 21)
    mu_j = np.sqrt(D_sweep)[:, None]
    pub_v = published_bisection_variance(0.0, 1.0, mu_j, r_sweep[None, :], alpha=alpha, epsilon=eps)
    ex_v = np.array(
        [
            [
                calibrate(
                    Gaussian(mean=0, var=1),
                    Gaussian(mean=np.sqrt(d), var=r),
                    alpha=alpha,
                    epsilon=eps,
                    directed=True,
                ).variance
                for r in r_sweep
            ]
            for d in D_sweep
        ]
    )
    judge = np.array([[minimal_noise(0.0, 1.0, np.sqrt(d), r, alpha, eps) for r in r_sweep] for d in D_sweep])
    div_pub = renyi_gauss(0.0, 1.0 + pub_v, mu_j, r_sweep[None, :] + pub_v, alpha)
    div_ex = renyi_gauss(0.0, 1.0 + ex_v, mu_j, r_sweep[None, :] + ex_v, alpha)
    assert np.all(div_ex <= eps * (1 + 1e-9))
    assert np.allclose(ex_v, judge, rtol=1e-7, atol=1e-9)  # feasible and minimal
    under = div_pub > eps * (1 + 1e-9)
    assert under.sum() == 189 and under.size == 441
    assert np.all(pub_v[under] < ex_v[under])
    equal_var = np.isclose(r_sweep, 1.0)
    assert not under[:, equal_var].any()
    R0 = alpha * D_sweep[:, None] * np.ones_like(r_sweep)[None, :] / (2 * eps)
    g_R0 = renyi_gauss(0.0, 1.0 + R0, mu_j, r_sweep[None, :] + R0, alpha)
    assert np.array_equal(under, g_R0 > eps * (1 + 1e-9))
    assert np.allclose(pub_v[under], R0[under])
    feasible_R0 = g_R0 <= eps * (1 + 1e-9)
    unequal = ~np.broadcast_to(equal_var, feasible_R0.shape)
    assert feasible_R0.sum() == 252 and feasible_R0[unequal].sum() == 231
    assert under[unequal].any()


def test_ch3_closed_form_never_under_noises_100000_cases():
    """Theorem III.5 through ``rpp.rules.closed_form_variance``: on 10^5 random
    parameter sets it equals max(0, x* - sigma_i^2) and the exact divergence there is <= eps."""
    rng = np.random.default_rng(3)
    n = 100_000
    mu_j, s_i, s_j = rng.normal(0, 3, n), rng.uniform(0.01, 10, n), rng.uniform(0.01, 10, n)
    al, ep = rng.uniform(1.01, 30, n), rng.uniform(0.01, 10, n)
    cf = closed_form_variance(0.0, s_i, mu_j, s_j, alpha=al, epsilon=ep)
    assert np.allclose(cf, np.maximum(0, x_star(mu_j**2, s_j - s_i, al, ep) - s_i), rtol=1e-10, atol=1e-12)
    div = renyi_gauss(0.0, s_i + cf, mu_j, s_j + cf, al)
    assert np.all(div <= ep * (1 + 1e-9))
    assert np.max(div / ep) > 1 - 1e-6  # tight somewhere (equal variances come close)


def test_ch3_closed_form_decreases_in_eps_317340_points():
    """Prop. III.6: d x*/d eps < 0 on the 41 x 43 x 6 x 30 grid of chapter 3 (all 317 340
    points have (Delta, delta) != 0), from the derivative of x* taken symbolically from the
    formula written out here; and the exact noise of ``rpp.calibrate`` (both orders) for
    N(0, 0.25), N(1, 16), alpha = 3 is the brentq root and non-increasing on 200 budgets."""
    D_, d_, a_, e_ = sp.symbols("Delta delta alpha epsilon", real=True)
    A = D_ - 2 * e_ * d_
    xs = a_ / (4 * e_) * (A + sp.sqrt(A**2 + 8 * e_ * d_**2 / (a_ - 1)))
    dx_deps = sp.lambdify((D_, d_, a_, e_), sp.diff(xs, e_), "numpy")
    Dg, dg, ag, eg = np.meshgrid(
        np.linspace(0, 20, 41),
        np.linspace(-0.99, 20, 43),
        np.array([1.05, 1.5, 2, 3, 5, 20]),
        np.logspace(-2, 1, 30),
        indexing="ij",
    )
    nonzero = (Dg > 0) | (dg != 0)
    assert nonzero.sum() == 317_340
    assert np.all(dx_deps(Dg, dg, ag, eg)[nonzero] < 0)
    # the same sign from central differences of the numpy formula, away from rounding
    h = 1e-6
    fd = (x_star(Dg, dg, ag, eg * (1 + h)) - x_star(Dg, dg, ag, eg * (1 - h))) / (2 * h * eg)
    assert np.all(fd[nonzero] < 0)

    eps_grid = np.linspace(0.1, 5, 200)
    ex = calibrate(Gaussian(mean=0, var=0.25), Gaussian(mean=1, var=16), alpha=3.0, epsilon=eps_grid).variance
    judge = np.array(
        [max(minimal_noise(0, 0.25, 1, 16, 3.0, e), minimal_noise(1, 16, 0, 0.25, 3.0, e)) for e in eps_grid]
    )
    assert np.allclose(ex, judge, rtol=1e-7, atol=1e-9)
    assert np.all(np.diff(ex) <= 0) and np.all(np.diff(judge) <= 1e-12 * judge[1:])


def test_ch3_condition7_gives_the_sign_in_alpha_750000_points():
    """Prop. III.7: on the 50 x 50 x 60 x 5 grid of chapter 3 (sigma_i^2 = 1), the central
    difference in alpha of ``closed_form_variance`` has the sign condition (7) predicts wherever
    the closed form is positive (55 155 points are clipped at 0, where the difference is 0); the
    factor T = alpha A + (alpha - 2) S of the exact derivative, in numpy, agrees too."""
    Dg, rg, ag, eg = np.meshgrid(
        np.logspace(-2, 2, 50),
        np.logspace(-2, 2, 50),
        np.linspace(1.1, 30, 60),
        np.array([0.1, 0.5, 1.0, 2.0, 5.0]),
        indexing="ij",
    )
    assert Dg.size == 750_000
    dg = rg - 1.0
    cond7 = Dg > 2 * eg * dg + (2 - ag) / (ag - 1) * np.sqrt(2 * eg) * np.abs(dg)
    h = 1e-6
    cf_up = closed_form_variance(0, 1, np.sqrt(Dg), rg, alpha=ag * (1 + h), epsilon=eg)
    cf_down = closed_form_variance(0, 1, np.sqrt(Dg), rg, alpha=ag * (1 - h), epsilon=eg)
    fd = (cf_up - cf_down) / (2 * h * ag)
    cf = closed_form_variance(0, 1, np.sqrt(Dg), rg, alpha=ag, epsilon=eg)
    assert np.allclose(cf, np.maximum(0, x_star(Dg, dg, ag, eg) - 1), rtol=1e-10, atol=1e-12)
    clipped = cf == 0
    assert clipped.sum() == 55_155
    active = ~clipped
    fd_err = 2 * np.finfo(float).eps * np.maximum(cf_up, cf_down) / (2 * h * ag)
    assert np.all(np.abs(fd[active]) > 100 * fd_err[active])
    assert np.array_equal(fd[active] > 0, cond7[active])
    assert np.all(fd[clipped] == 0)
    A = Dg - 2 * eg * dg
    S = np.sqrt(A**2 + 8 * eg * dg**2 / (ag - 1))
    T = ag * A + (ag - 2) * S
    assert np.array_equal(T[active] > 0, cond7[active])


def test_ch3_root_in_domain_20000_cases():
    """Step 6 of Theorem III.5: x* + alpha delta > 0 when delta < 0, on 20 000 random points
    (Delta in [0, 20], delta in [-20, 0], alpha in [1.001, 50], eps in [0.01, 10]), with x*
    written out in numpy; and the identity behind it, S^2 - (Delta + 2 eps delta)^2 =
    8 eps delta (delta - (alpha - 1) Delta) / (alpha - 1), at the same points."""
    rng = np.random.default_rng(5)
    n = 20_000
    Dn, dn = rng.uniform(0, 20, n), -rng.uniform(0, 20, n)
    an, en = rng.uniform(1.001, 50, n), rng.uniform(0.01, 10, n)
    assert np.all(x_star(Dn, dn, an, en) + an * dn > 0)
    S2 = (Dn - 2 * en * dn) ** 2 + 8 * en * dn**2 / (an - 1)
    gap = 8 * en * dn * (dn - (an - 1) * Dn) / (an - 1)
    assert np.allclose(S2 - (Dn + 2 * en * dn) ** 2, gap, rtol=1e-9, atol=1e-9 * S2)
    assert np.all(gap > 0)
