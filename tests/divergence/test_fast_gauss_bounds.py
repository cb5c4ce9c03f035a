"""The proved path's fast Gauss transform (issue #34: the cost of proving many atoms), judged by mpmath.

``rpp.divergence._fast_gauss_bounds.GaussSum`` returns an interval for ``log sum_k w_k N(x; mu_k, s^2)``
from bins, Taylor moments and outward rounding, at a cost per point that does not grow with the
atoms.  The judge is independent of rpp: the sum of every term in mpmath at 40 digits, at the
**worst corners of the inputs' uncertainty** (each true mean at ``m_k +- eta_k``, each weight at an
end of its log interval, the variance at either end), so the interval must hold every input it
claims to cover, not only the floats.  End to end, the convexity bounds built on it (``fast_min``
forces it on few atoms) are judged by the mpmath integral of ``tests/divergence/test_convex_proved``,
and a calibration of 2,000 atoms by an independent float quadrature.
"""

import itertools
import math

import flint
import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, special
from test_convex_proved import _random_pair, judge

import rpp
from rpp._lib.arb import precision
from rpp.divergence import _proved as proved
from rpp.divergence._fast_gauss_bounds import GaussSum

U = 2.0**-53


def _case(rng, kind, n):
    """Floats ``(lw, lw_pad, m, eta, s2)`` of one sum; kinds: spread, far off 0, tiny weights, combs, wide."""
    sc = 10 ** rng.uniform(-4, 2)
    off = {"spread": 0.0, "off": 1e4 * sc, "tiny_weights": 0.0, "comb": 3.0 * sc, "wide": 0.0}[kind]
    if kind == "comb":  # tight clusters one unit apart: bins with many atoms, gaps between them
        m = off + sc * (rng.integers(0, 5, n) + 1e-3 * rng.normal(size=n))
    else:
        m = off + sc * rng.normal(size=n) * (30.0 if kind == "wide" else 1.0)
    w = np.exp(rng.uniform(-300 if kind == "tiny_weights" else -3, 0, n))
    lw = np.log(w / w.sum())
    lw_pad = 1e-12 * (1 + np.abs(lw))
    eta = np.abs(m) * U * rng.uniform(0, 4, n)
    s2 = (sc * 10 ** rng.uniform(-1.5, 1)) ** 2
    return lw, lw_pad, m, eta, s2


def _truth(x, lw, lw_pad, m, eta, s2_true, signs_m, signs_w):
    """``log sum_k w_k N(x; mu_k, s2_true)`` in mpmath at 40 digits, the inputs at the given corners."""
    with mp.workdps(40):
        mu = [mp.mpf(float(a)) + int(g) * mp.mpf(float(e)) for a, e, g in zip(m, eta, signs_m, strict=True)]
        lws = [mp.mpf(float(a)) + int(g) * mp.mpf(float(p)) for a, p, g in zip(lw, lw_pad, signs_w, strict=True)]
        var = mp.mpf(s2_true)
        out = []
        for xi in x:
            X = mp.mpf(float(xi))
            terms = [a - (X - b) ** 2 / (2 * var) for a, b in zip(lws, mu, strict=True)]
            top = max(terms)
            out.append(top + mp.log(mp.fsum(mp.exp(t - top) for t in terms)) - mp.log(2 * mp.pi * var) / 2)
        return out


@pytest.mark.parametrize("seed", range(10))
def test_the_bounds_hold_every_input_they_cover(seed):
    """Random sums of 40 to 700 atoms, points near the atoms and 40 or 300 sds beyond: mpmath's value at the corners."""
    rng = np.random.default_rng(seed)
    kind = ["spread", "off", "tiny_weights", "comb", "wide"][seed % 5]
    n = int(rng.integers(40, 700))
    lw, lw_pad, m, eta, s2 = _case(rng, kind, n)
    s2_lo, s2_hi = s2 * (1 - 4 * U), s2 * (1 + 4 * U)
    g = GaussSum((lw - lw_pad, lw + lw_pad), m, eta, s2, s2_lo, s2_hi)
    sd = math.sqrt(s2)
    x = np.concatenate(
        [m[rng.integers(0, n, 5)] + 3 * sd * rng.normal(size=5), [m.min() - 40 * sd, m.max() + 300 * sd, np.median(m)]]
    )
    lo, hi, done = g.log_bounds(x)
    assert done.all()
    for var, sm, sw in (
        (s2_lo, rng.choice([-1, 1], n), rng.choice([-1, 1], n)),
        (s2_hi, rng.choice([-1, 1], n), rng.choice([-1, 1], n)),
    ):
        truth = _truth(x, lw, lw_pad, m, eta, var, sm, sw)
        for i, v in enumerate(truth):
            assert lo[i] <= v <= hi[i], (kind, i, float(v), lo[i], hi[i])
    if kind in ("spread", "comb", "wide", "tiny_weights"):  # centred: the width is the pads', not vacuous
        near = hi[:5] - lo[:5]
        assert np.all(near < 1e-8), near


def test_many_atoms_against_mpmath():
    """3,000 atoms (bins of hundreds of atoms, the coarsest and a finer level), six points: the truth inside, tight."""
    rng = np.random.default_rng(11)
    n = 3000
    m = np.sort(rng.normal(size=n))
    lw = np.full(n, -math.log(n))
    pad = 1e-12 * (1 + np.abs(lw))
    eta = np.abs(m) * U
    g = GaussSum((lw - pad, lw + pad), m, eta, 0.09, 0.09 * (1 - 4 * U), 0.09 * (1 + 4 * U))
    x = np.array([-6.0, -1.3, 0.0, 0.7, 2.2, 9.0])
    lo, hi, done = g.log_bounds(x)
    truth = _truth(x, lw, pad, m, eta, 0.09, np.ones(n), -np.ones(n))
    assert done.all()
    for i, v in enumerate(truth):
        assert lo[i] <= v <= hi[i] and hi[i] - lo[i] < 1e-9 * max(1.0, abs(float(v))), (i, lo[i], hi[i], float(v))


def _truth50(x, lw, m, eta, s2_true, signs_m):
    """``log sum_k e^lw N(x; mu_k, s2_true)`` in mpmath at 50 digits, one log weight ``lw`` (an mpf), the means at corners."""
    with mp.workdps(50):
        mu = [mp.mpf(float(a)) + int(g) * mp.mpf(float(e)) for a, e, g in zip(m, eta, signs_m, strict=True)]
        var = mp.mpf(s2_true)
        out = []
        for xi in x:
            X = mp.mpf(float(xi))
            q = [-((X - b) ** 2) / (2 * var) for b in mu]
            top = max(q)
            out.append(lw + top + mp.log(mp.fsum(mp.exp(t - top) for t in q)) - mp.log(2 * mp.pi * var) / 2)
        return out


@pytest.mark.parametrize("kind", ["normal", "two_clusters"])
def test_one_weight_as_floats_and_lazy_levels_against_mpmath(kind):
    """A sample's sum with its one log weight given as two floats (no array), judged by mpmath at 50 digits.

    Points near the atoms (windows over nearly every bin of the coarsest level: the moments broadcast),
    points whose windows reach a part of the bins (two clusters 60 sds apart: the moments gathered),
    and points far beyond both ends (a finer level, its moments made only for the bins near each end).
    Also the same floats as the sum given arrays of that weight.
    """
    rng = np.random.default_rng(5)
    n = 2000
    if kind == "normal":
        m = np.sort(rng.normal(size=n))
    else:
        m = np.sort(np.concatenate([rng.normal(size=n // 2), 18.0 + rng.normal(size=n // 2)]))
    s2 = 0.09
    lw0 = -math.log(n)
    pad = 1e-12 * (1 + abs(lw0)) + 4 * n * U
    eta = np.abs(m) * U
    args = (m, eta, s2, s2 * (1 - 4 * U), s2 * (1 + 4 * U))
    g = GaussSum((lw0 - pad, lw0 + pad), *args)
    x = np.concatenate([rng.uniform(m.min(), m.max(), 6), [m.min() - 2.9, m.max() + 3.1, m.min() - 4.0]])
    lo, hi, done = g.log_bounds(x)
    assert done.all()
    assert 1 in g._levels and not g._levels[1].made.all()  # the finer level: only the bins near the far points
    arrays = GaussSum((np.full(n, lw0 - pad), np.full(n, lw0 + pad)), *args).log_bounds(x)
    assert all(np.array_equal(a, b) for a, b in zip((lo, hi, done), arrays, strict=True))
    with mp.workdps(50):
        lws = [mp.mpf(lw0) - mp.mpf(pad), mp.mpf(lw0) + mp.mpf(pad)]
    for lw, var, sm in ((lws[0], s2 * (1 - 4 * U), -np.ones(n)), (lws[1], s2 * (1 + 4 * U), rng.choice([-1, 1], n))):
        for i, v in enumerate(_truth50(x, lw, m, eta, var, sm)):
            assert lo[i] <= v <= hi[i], (i, lo[i], hi[i], float(v))
    near = hi[:6] - lo[:6]
    assert np.all(near < 1e-9), near


def test_weights_of_zero_add_nothing():
    """A mixture's components of weight 0 (allowed by GaussianMixture) are left out, the rest bounded as before."""
    m = np.linspace(-2, 2, 50)
    with np.errstate(divide="ignore"):
        lw = np.log(np.where(np.arange(50) % 3 == 0, 0.0, 1.0 / 33))
    pad = np.where(np.isfinite(lw), 1e-12 * (1 + np.abs(np.where(np.isfinite(lw), lw, 0.0))), 0.0)
    g = GaussSum((lw - pad, lw + pad), m, np.zeros(50), 0.5, 0.5, 0.5)
    x = np.array([-2.5, 0.1, 1.9])
    lo, hi, done = g.log_bounds(x)
    keep = np.isfinite(lw)
    truth = _truth(x, lw[keep], pad[keep], m[keep], np.zeros(keep.sum()), 0.5, np.ones(keep.sum()), np.ones(keep.sum()))
    assert done.all() and all(lo[i] <= v <= hi[i] for i, v in enumerate(truth))


def test_a_planted_error_shows():
    """Moving one true mean by 1e-5 sds moves the truth out of the interval: the bounds are not vacuous."""
    m = np.array([0.0, 0.5, 1.0])
    lw = np.log(np.full(3, 1 / 3))
    pad = 1e-12 * (1 + np.abs(lw))
    g = GaussSum((lw - pad, lw + pad), m, np.zeros(3), 1.0, 1.0, 1.0)
    x = np.array([3.0])
    lo, hi, _ = g.log_bounds(x)
    moved = _truth(x, lw, pad, m + np.array([0.0, 0.0, 1e-5]), np.zeros(3), 1.0, np.zeros(3), np.zeros(3))[0]
    assert not (lo[0] <= moved <= hi[0])


def test_points_beyond_the_finest_level_are_left_to_the_direct_sum():
    """A point 3,000 sds away is not done by the transform; the rows of the proved path then come from the direct sum."""
    m = np.linspace(-1, 1, 600)
    lw = np.full(600, -math.log(600))
    pad = 1e-12 * (1 + np.abs(lw))
    args = ((lw - pad, lw + pad), m, np.abs(m) * U, 1e-4, 1e-4 * (1 - 4 * U), 1e-4 * (1 + 4 * U))
    g = GaussSum(*args)
    x = np.array([0.3, 31.0])
    _, _, done = g.log_bounds(x)
    assert done.tolist() == [True, False]
    dense_args = (args[0], m, args[2], np.full(600, 1e-4), np.full(600, args[4]), np.full(600, args[5]))
    rows = proved._fast_rows(g, x, dense_args)
    direct = proved._logpdf_bounds(x[1:], *dense_args)
    assert np.array_equal(rows[:, 1], direct[:, 0])
    truth = _truth(x[1:], lw, pad, m, np.zeros(600), 1e-4, np.zeros(600), np.zeros(600))[0]
    assert rows[0, 1] <= truth <= rows[1, 1]


def _convex(P, Q, alpha, theta, fast_min):
    with precision(flint, proved.PREC):
        return proved._convex_gaussian(flint, P, Q, alpha, theta, fast_min=fast_min)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.deep
def test_the_convexity_bounds_on_the_transform_hold_the_truth(seed):
    """The proved path with the transform forced on a few atoms (secant slopes, no derivative): mpmath's integral inside."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 6))
    P, Q = _random_pair(rng, n, atoms=True)
    if seed % 3 == 2:  # one variance per prior, not zero: a mixture the transform also takes
        P, Q = (P[0], P[1], np.full(n, 0.2)), (Q[0], Q[1], np.full(n, 0.2))
    alpha = [0.5, 2.0, 6.0][seed % 3]
    theta = [0.3, 1.0][seed % 2]
    for a, b in ((P, Q), (Q, P)):
        got = _convex(a, b, alpha, theta, fast_min=1)
        assert isinstance(got, rpp.Certified), got
        truth = judge(a, b, alpha, theta)
        assert got.rigorous and got.lower <= truth <= got.upper, (got, truth)
        assert got.error <= 2e-4 * max(abs(truth), 1e-5 / abs(alpha - 1)) * max(1.0, 1 / abs(alpha - 1)) + 1e-12


@pytest.mark.slow  # the mpmath judge of 140 components
def test_the_transform_and_the_direct_sum_agree_on_a_far_cluster():
    """The issue's far cluster (1e9 and 0.1, 70 atoms) with the transform forced: an enclosure holding mpmath's value."""
    rng = np.random.default_rng(5)
    base = 1e9
    xs = np.concatenate([base + rng.uniform(0, 3e-4, size=69), [0.1]])
    ys = np.concatenate([base + 1e-4 + rng.uniform(0, 3e-4, size=69), [0.1]])
    w = np.concatenate([np.full(69, 0.99 / 69), [0.01]])
    P, Q = (w, xs, np.zeros(70)), (w, ys, np.zeros(70))
    got = _convex(P, Q, 3.0, 3e-4, fast_min=1)
    grid = np.concatenate([np.linspace(base - 8e-3, base + 9e-3, 40), np.linspace(0.1 - 8e-3, 0.1 + 8e-3, 9)])
    truth = judge(P, Q, 3.0, 3e-4, dps=30, rtol=1e-8, grid=grid)
    assert got.rigorous and got.lower + 1e-8 <= truth <= got.upper - 1e-8 and got.error < 1e-4 * truth, (got, truth)


def _float_divergence(x, y, alpha, theta):
    """D_alpha of two equal-weight samples under N(0, theta^2), by scipy's quad on a log-sum-exp integrand (no rpp)."""

    def logp(z, a):
        return (
            special.logsumexp(-((z - a) ** 2) / (2 * theta**2))
            - math.log(a.size)
            - 0.5 * math.log(2 * math.pi * theta**2)
        )

    def f(z):
        return math.exp(alpha * logp(z, x) + (1 - alpha) * logp(z, y))

    lo, hi = min(x.min(), y.min()) - 12 * theta, max(x.max(), y.max()) + 12 * theta
    pts = np.linspace(lo, hi, 41)
    total, err = 0.0, 0.0
    for a, b in itertools.pairwise(pts):
        v, e = integrate.quad(f, a, b, epsabs=0, epsrel=1e-12, limit=200)
        total, err = total + v, err + e
    return math.log(total) / (alpha - 1), err / total / (alpha - 1)


def test_a_calibration_of_two_thousand_atoms_is_proved_and_holds():
    """calibrate's proved default on 2,000 atoms each (the transform's path): the true D at its scale is at most epsilon."""
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=2000), rng.normal(0.5, 1.2, size=2000)
    cal = rpp.calibrate(rpp.Empirical(x), rpp.Empirical(y), alpha=2.0, epsilon=0.5)
    assert cal.rigorous and cal.guaranteed
    for a, b in ((x, y), (y, x)):
        d, err = _float_divergence(a, b, 2.0, cal.scale)
        assert d + 10 * err + 1e-12 <= 0.5, (d, err)
