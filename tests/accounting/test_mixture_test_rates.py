"""rpp.accounting.mixture_test_rates against independent computations: the rates of the likelihood-ratio
test of two Gaussians in closed form at 50 digits (mpmath: the quadratic's roots, the normal masses), and
of two Gaussian mixtures against 10^6 Monte-Carlo draws (5 standard errors) and against mpmath's
quadrature of the densities over the region, its ends found by mpmath's own root finder."""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

from rpp.accounting import laplace_mixture_test_rates, mixture_test_rates
from rpp.priors import Empirical, Gaussian, GaussianMixture


@pytest.fixture(autouse=True)
def _mp_precision():
    with mp.workdps(50):
        yield


def _gauss_rates(mi, vi, mj, vj, t):
    """(P_j(L > t), P_i(L > t)) for N(mi, vi) against N(mj, vj), L = log p_i / p_j, in mpmath.

    L(y) = A y^2 + B y + C: the region {L > t} from the roots of A y^2 + B y + (C - t) (A = 0: a half-line).
    """
    mi, vi, mj, vj, t = (mp.mpf(x) for x in (mi, vi, mj, vj, t))
    A = 1 / (2 * vj) - 1 / (2 * vi)
    B = mi / vi - mj / vj
    C = mj**2 / (2 * vj) - mi**2 / (2 * vi) - mp.log(vi / vj) / 2 - t

    def mass(m, v, lo, hi):
        s = mp.sqrt(v)
        return mp.ncdf((hi - m) / s) - mp.ncdf((lo - m) / s)

    if A == 0:
        r = -C / B
        pieces = [(r, mp.inf)] if B > 0 else [(-mp.inf, r)]
    else:
        disc = B**2 - 4 * A * C
        if disc <= 0:
            pieces = [(-mp.inf, mp.inf)] if A > 0 else []
        else:
            r1, r2 = sorted(((-B - mp.sqrt(disc)) / (2 * A), (-B + mp.sqrt(disc)) / (2 * A)))
            pieces = [(-mp.inf, r1), (r2, mp.inf)] if A > 0 else [(r1, r2)]
    a = sum((mass(mj, vj, lo, hi) for lo, hi in pieces), mp.mpf(0))
    b = sum((mass(mi, vi, lo, hi) for lo, hi in pieces), mp.mpf(0))
    return a, b


@pytest.mark.parametrize(
    ("mi", "vi", "mj", "vj"),
    [(1.0, 1.0, 0.0, 1.0), (0.5, 4.0, 0.0, 1.0), (-2.0, 0.3, 1.0, 2.0), (3.0, 1.0, 3.0, 9.0)],
)
def test_two_gaussians_closed_form(mi, vi, mj, vj):
    thresholds = np.array([-3.0, -1.0, -0.2, 0.0, 0.4, 1.5, 4.0])
    a, b = mixture_test_rates(Gaussian(mean=mi, var=vi), Gaussian(mean=mj, var=vj), threshold=thresholds)
    assert a.shape == b.shape == thresholds.shape
    for k, t in enumerate(thresholds):
        a_ref, b_ref = _gauss_rates(mi, vi, mj, vj, t)
        assert abs(a[k] - float(a_ref)) <= 1e-12 and abs(b[k] - float(b_ref)) <= 1e-12


def test_a_component_split_in_two_changes_nothing():
    whole = GaussianMixture(weights=[0.4, 0.6], means=[0.0, 3.0], vars=[1.0, 2.0])
    split = GaussianMixture(weights=[0.2, 0.2, 0.6], means=[0.0, 0.0, 3.0], vars=[1.0, 1.0, 2.0])
    other = GaussianMixture(weights=[0.5, 0.5], means=[1.0, 2.5], vars=[1.5, 1.0])
    t = np.linspace(-2.0, 2.0, 9)
    for x, y in zip(
        mixture_test_rates(whole, other, threshold=t), mixture_test_rates(split, other, threshold=t), strict=True
    ):
        assert np.allclose(x, y, rtol=0, atol=1e-13)


P_I = GaussianMixture(weights=[0.3, 0.7], means=[0.0, 4.0], vars=[1.0, 2.0])
P_J = GaussianMixture(weights=[0.6, 0.4], means=[1.0, 3.0], vars=[1.5, 1.0])


def _mp_logpdf(law, y):
    c = law.components()
    return mp.log(
        mp.fsum(
            mp.mpf(w) * mp.npdf(y, mp.mpf(m), mp.sqrt(mp.mpf(v)))
            for w, m, v in zip(c.weights, c.means, c.vars, strict=True)
        )
    )


def _mp_rates(law_i, law_j, t):
    """The rates by mpmath alone: the sign changes of L - t on a grid of step 0.01 over [-40, 45], each
    root refined by mpmath's findroot (anderson), each interval's mass by mpmath quadrature."""
    t = mp.mpf(t)

    def g(y):
        return _mp_logpdf(law_i, y) - _mp_logpdf(law_j, y) - t

    ys = [mp.mpf(-40) + mp.mpf(k) / 100 for k in range(8501)]
    gs = [g(y) for y in ys]
    roots = [
        mp.findroot(g, (ys[k], ys[k + 1]), solver="anderson") for k in range(8500) if (gs[k] > 0) != (gs[k + 1] > 0)
    ]
    edges = [mp.mpf(-60), *roots, mp.mpf(65)]
    inside, a, b = gs[0] > 0, mp.mpf(0), mp.mpf(0)
    for lo, hi in itertools.pairwise(edges):
        if inside:
            a += mp.quad(lambda y: mp.exp(_mp_logpdf(law_j, y)), [lo, hi])
            b += mp.quad(lambda y: mp.exp(_mp_logpdf(law_i, y)), [lo, hi])
        inside = not inside
    return a, b


@pytest.mark.slow
@pytest.mark.parametrize("t", [-1.0, 0.0, 0.7, 2.5])
def test_mixtures_against_mpmath(t):
    with mp.workdps(20):
        a_ref, b_ref = _mp_rates(P_I, P_J, t)
    a, b = mixture_test_rates(P_I, P_J, threshold=t)
    assert abs(a - float(a_ref)) <= 1e-10 and abs(b - float(b_ref)) <= 1e-10


def test_mixtures_against_monte_carlo():
    n = 1_000_000
    rng = np.random.default_rng(7)
    y_i, y_j = P_I.sample(n, rng), P_J.sample(n, rng)
    loss_i = P_I.logpdf(y_i) - P_J.logpdf(y_i)
    loss_j = P_I.logpdf(y_j) - P_J.logpdf(y_j)
    thresholds = np.array([-1.0, 0.0, 0.7, 2.5])
    a, b = mixture_test_rates(P_I, P_J, threshold=thresholds)
    for k, t in enumerate(thresholds):
        for exact, loss in ((a[k], loss_j), (b[k], loss_i)):
            se = math.sqrt(exact * (1 - exact) / n)
            assert abs((loss > t).mean() - exact) <= 5 * se


@pytest.mark.slow
def test_the_region_has_several_pieces():
    # a narrow bump of P_i between two of P_j's: {L > 0} is an interval, {L > -3} more
    law_i = GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[0.5, 0.5])
    law_j = Gaussian(mean=0.0, var=1.0)
    a, b = mixture_test_rates(law_i, law_j, threshold=np.array([-1.0, 0.0, 1.0]))
    assert np.all(np.diff(a) < 0) and np.all(np.diff(b) < 0) and np.all(b >= a)
    with mp.workdps(20):
        for k, t in enumerate([-1.0, 0.0, 1.0]):
            a_ref, b_ref = _mp_rates(law_i, law_j, t)
            assert abs(a[k] - float(a_ref)) <= 1e-10 and abs(b[k] - float(b_ref)) <= 1e-10


def test_validation():
    g = Gaussian(mean=0.0, var=1.0)
    with pytest.raises(TypeError):
        mixture_test_rates(object(), g, threshold=0.0)
    with pytest.raises(ValueError):
        mixture_test_rates(g, g, threshold=math.inf)
    with pytest.raises(ValueError):
        mixture_test_rates(g, g, threshold=0.0, points_per_sd=4)
    with pytest.raises(ValueError):
        mixture_test_rates(Gaussian(mean=0.0, var=1e-12), g, threshold=0.0)


# ---------------------------------------------------------------- discrete priors under Laplace noise


def _mp_laplace_logpdf(atoms, weights, b, y):
    b = mp.mpf(b)
    return mp.log(
        mp.fsum(mp.mpf(w) * mp.exp(-abs(y - mp.mpf(x)) / b) / (2 * b) for x, w in zip(atoms, weights, strict=True))
    )


def _mp_laplace_rates(prior_i, prior_j, b, t):
    """The rates by mpmath alone, without the monotonicity the function relies on: sign changes of L - t on
    a grid of step 0.005 over the atoms' span +- 30 b (L is constant beyond the atoms), roots by bisection
    (findroot), masses by mpmath quadrature with the atoms as breakpoints."""
    ci, cj = prior_i.components(), prior_j.components()
    t = mp.mpf(t)

    def g(y):
        return _mp_laplace_logpdf(ci.means, ci.weights, b, y) - _mp_laplace_logpdf(cj.means, cj.weights, b, y) - t

    lo = mp.mpf(float(min(ci.means.min(), cj.means.min()))) - 30 * mp.mpf(b)
    hi = mp.mpf(float(max(ci.means.max(), cj.means.max()))) + 30 * mp.mpf(b)
    n = int((hi - lo) / mp.mpf("0.005")) + 1
    ys = [lo + (hi - lo) * k / n for k in range(n + 1)]
    gs = [g(y) for y in ys]
    roots = [mp.findroot(g, (ys[k], ys[k + 1]), solver="bisect") for k in range(n) if (gs[k] > 0) != (gs[k + 1] > 0)]
    breaks = sorted({mp.mpf(float(x)) for x in (*ci.means, *cj.means)})
    edges = [-mp.inf, *roots, mp.inf]
    inside, a, bb = gs[0] > 0, mp.mpf(0), mp.mpf(0)
    for left, right in itertools.pairwise(edges):
        if inside:
            pts = [left, *(x for x in breaks if left < x < right), right]
            a += mp.quad(lambda y: mp.exp(_mp_laplace_logpdf(cj.means, cj.weights, b, y)), pts)
            bb += mp.quad(lambda y: mp.exp(_mp_laplace_logpdf(ci.means, ci.weights, b, y)), pts)
        inside = not inside
    return a, bb


L_I = Empirical([0.0, 1.0, 2.0, 4.0], weights=[0.1, 0.2, 0.3, 0.4])
L_J = Empirical([0.0, 1.5, 2.0, 3.0], weights=[0.4, 0.3, 0.2, 0.1])


@pytest.mark.slow
@pytest.mark.parametrize("t", [-0.8, -0.1, 0.3, 1.2])
def test_laplace_against_mpmath(t):
    with mp.workdps(20):
        a_ref, b_ref = _mp_laplace_rates(L_I, L_J, 0.7, t)
    a, b = laplace_mixture_test_rates(L_I, L_J, scale=0.7, threshold=t)
    assert abs(a - float(a_ref)) <= 1e-10 and abs(b - float(b_ref)) <= 1e-10


def test_laplace_one_atom_each_closed_form():
    # atoms 1 and 0, b = 2: L = (|y| - |y - 1|) / 2, from -1/2 to 1/2, linear on [0, 1]
    for t in (-0.4, 0.0, 0.25):
        a, b = laplace_mixture_test_rates(Empirical([1.0]), Empirical([0.0]), scale=2.0, threshold=t)
        r = mp.mpf(t) + mp.mpf(1) / 2  # L(y) = y - 1/2 on [0, 1]: the root
        a_ref = mp.exp(-r / 2) / 2  # P(Lap(2) > r)
        b_ref = 1 - mp.exp((r - 1) / 2) / 2  # P(1 + Lap(2) > r)
        assert abs(a - float(a_ref)) <= 1e-15 and abs(b - float(b_ref)) <= 1e-15


def test_laplace_against_monte_carlo():
    n, scale = 1_000_000, 0.7
    rng = np.random.default_rng(11)
    ci, cj = L_I.components(), L_J.components()

    def loss(y):
        def lp(c):
            return np.log(np.exp(-np.abs(y[:, None] - c.means) / scale) @ c.weights / (2 * scale))

        return lp(ci) - lp(cj)

    loss_i = loss(L_I.sample(n, rng) + rng.laplace(0.0, scale, n))
    loss_j = loss(L_J.sample(n, rng) + rng.laplace(0.0, scale, n))
    thresholds = np.array([-0.8, -0.1, 0.3, 1.2])
    a, b = laplace_mixture_test_rates(L_I, L_J, scale=scale, threshold=thresholds)
    for k, t in enumerate(thresholds):
        for exact, loss_s in ((a[k], loss_j), (b[k], loss_i)):
            se = math.sqrt(exact * (1 - exact) / n)
            assert abs((loss_s > t).mean() - exact) <= 5 * se


def test_laplace_validation():
    e = Empirical([0.0, 1.0])
    with pytest.raises(TypeError):
        laplace_mixture_test_rates(object(), e, scale=1.0, threshold=0.0)
    with pytest.raises(ValueError):
        laplace_mixture_test_rates(Gaussian(mean=0.0, var=1.0), e, scale=1.0, threshold=0.0)
    with pytest.raises(ValueError):
        laplace_mixture_test_rates(e, e, scale=0.0, threshold=0.0)
    with pytest.raises(ValueError):
        laplace_mixture_test_rates(e, e, scale=1.0, threshold=math.nan)
