"""The proved path for many components under Gaussian noise (issue #34, item 1), judged by mpmath.

``rpp.divergence._proved`` bounds ``log p + x^2 / (2 theta^2)`` (convex for every prior under
Gaussian noise of variance ``theta^2``) by chords and tangents on panels, in floating point with
outward rounding, and the tails by exact Gaussian integrals in arb.  The judge here is independent
of rpp: the noisy densities are sums of Gaussians in mpmath (the floats converted exactly, the
weights normalised in mpmath, every mean moved by the exact first mean), and ``mpmath.quad``
integrates ``p^alpha q^(1-alpha)`` between breakpoints at 0, 1, 3, 8 and 20 noisy standard
deviations of every component and out to infinity, its own error estimate asserted small.
"""

import math
import re

import flint
import mpmath as mp
import numpy as np
import pytest

import rpp
from rpp.divergence import _proved as proved


def judge(P, Q, alpha, theta, dps=30, reach=(0, 1, 3, 8, 20), rtol=1e-15, grid=None):
    """``D_alpha(p * N(0, theta^2) || q * N(0, theta^2))`` for ``(weights, means, vars)`` triples.

    mpmath's own error estimate of the integral must be below ``rtol`` of it.  ``grid``: breakpoints
    (floats, in the priors' coordinates) used instead of those around every component.
    """
    with mp.workdps(dps):
        ref = mp.mpf(float(P[1][0]))
        t2 = mp.mpf(theta) ** 2

        def comps(c):
            total = mp.fsum(mp.mpf(float(x)) for x in c[0])
            return [
                (mp.mpf(float(w)) / total, mp.mpf(float(m)) - ref, mp.mpf(float(v)) + t2)
                for w, m, v in zip(*c, strict=True)
            ]

        Pm, Qm = comps(P), comps(Q)

        def dens(C, y):
            return mp.fsum(w * mp.exp(-((y - m) ** 2) / (2 * s2)) / mp.sqrt(2 * mp.pi * s2) for w, m, s2 in C)

        a = mp.mpf(alpha)
        pts = set()
        if grid is not None:
            pts.update(mp.mpf(float(x)) - ref for x in grid)
        else:
            for _, m, s2 in Pm + Qm:
                s = mp.sqrt(s2)
                for k in reach:
                    pts.update((m + k * s, m - k * s))
        pts = [mp.ninf, *sorted(pts), mp.inf]
        total, err = mp.quad(lambda y: dens(Pm, y) ** a * dens(Qm, y) ** (1 - a), pts, error=True)
        assert err < total * rtol, (total, err)
        return float(mp.log(total) / (a - 1))


def _convex(P, Q, alpha, theta):
    old = flint.ctx.prec
    flint.ctx.prec = proved.PREC
    try:
        return proved._convex_gaussian(flint, P, Q, alpha, theta)
    finally:
        flint.ctx.prec = old


def _random_pair(rng, n, atoms):
    def one(shift):
        w = rng.random(n) + 0.05
        m = rng.normal(shift, 1.0, size=n)
        v = np.zeros(n) if atoms else rng.uniform(0.01, 0.5, size=n)
        return w, m, v

    return one(0.0), one(rng.uniform(-0.5, 0.5))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.deep
def test_the_convexity_bounds_hold_the_truth(seed):
    """Random atoms and mixtures, orders below and above 1, narrow and wide noise: the enclosure holds mpmath's value."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    P, Q = _random_pair(rng, n, atoms=seed % 2 == 0)
    alpha = [0.5, 1.5, 3.0, 12.0][seed % 4]
    theta = [0.2, 1.0][seed // 4]
    vp, vq = P[2].max() + theta**2, Q[2].max() + theta**2
    if alpha > 1 and alpha / vp <= (alpha - 1) / vq:  # the integral diverges (decided exactly by proved_or_reason)
        got = proved.proved_or_reason(P, Q, alpha=alpha, family="gaussian", scale=theta)
        assert isinstance(got, str) or got.value == math.inf
        return
    got = _convex(P, Q, alpha, theta)
    assert isinstance(got, rpp.Certified), got
    truth = judge(P, Q, alpha, theta)
    assert got.rigorous and got.lower <= truth <= got.upper, (got, truth)
    # and it is tight enough to calibrate with: D to about 1e-4 of (alpha - 1) D, or 1e-5 of I
    assert got.error <= 2e-4 * max(abs(truth), 1e-5 / abs(alpha - 1)) * max(1.0, 1 / abs(alpha - 1)) + 1e-12


def test_the_bounds_are_not_vacuous_where_the_truth_moves():
    """A planted error would show: shifting one mean by 1e-4 noisy sds moves the truth out of the old enclosure."""
    P = (np.array([0.5, 0.5]), np.array([0.0, 1.0]), np.zeros(2))
    Q = (np.array([0.5, 0.5]), np.array([0.3, 1.2]), np.zeros(2))
    got = _convex(P, Q, 3.0, 0.5)
    moved = judge(P, (Q[0], Q[1] + 2e-4 * 0.5, Q[2]), 3.0, 0.5)
    assert not (got.lower <= moved <= got.upper)


@pytest.mark.slow  # the mpmath judge of 80 atoms
def test_many_atoms_are_proved_under_gaussian_noise():
    """More atoms than the arb path takes: ``require="proved"`` now proves them (before: ValueError), both orders."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=80), rng.normal(0.4, 1.2, size=80)
    p, q = rpp.Empirical(x), rpp.Empirical(y)
    assert max(x.size, y.size) > proved.MAX_COMPONENTS
    for a, b, xs, ys in ((p, q, x, y), (q, p, y, x)):
        got = rpp.renyi_divergence(a, b, alpha=2.5, noise=rpp.GaussianNoise(0.4), require="proved")
        grid = np.linspace(min(xs.min(), ys.min()) - 8, max(xs.max(), ys.max()) + 8, 60)
        truth = judge((np.ones(80), xs, np.zeros(80)), (np.ones(80), ys, np.zeros(80)), 2.5, 0.4, dps=20, grid=grid)
        assert got.rigorous and got.lower <= truth <= got.upper, (got, truth)


@pytest.mark.slow  # the mpmath judge of 140 components
def test_a_far_cluster_of_many_atoms_is_proved():
    """The issue's class with 70 atoms: a tight cluster at 1e9 and one atom near 0; no float shift centres them.

    Each window of panels is moved by one of its own means, so the cluster is bounded at its own scale:
    the enclosure holds mpmath's value, both orders, and is tight (the fast path's error is infinite here).
    """
    rng = np.random.default_rng(5)
    base = 1e9
    xs = np.concatenate([base + rng.uniform(0, 3e-4, size=69), [0.1]])
    ys = np.concatenate([base + 1e-4 + rng.uniform(0, 3e-4, size=69), [0.1]])
    w = np.concatenate([np.full(69, 0.99 / 69), [0.01]])
    p, q = rpp.Empirical(xs, weights=w), rpp.Empirical(ys, weights=w)
    noise = rpp.GaussianNoise(3e-4)
    for a, b, ca, cb in ((p, q, xs, ys), (q, p, ys, xs)):
        got = rpp.renyi_divergence(a, b, alpha=3, noise=noise, require="proved")
        # mpmath's integral to 1e-8 (its estimate): D to 1e-8 / 2, far inside the enclosure's width checked below
        grid = np.concatenate([np.linspace(base - 8e-3, base + 9e-3, 40), np.linspace(0.1 - 8e-3, 0.1 + 8e-3, 9)])
        truth = judge((w, ca, np.zeros(70)), (w, cb, np.zeros(70)), 3.0, 3e-4, dps=30, rtol=1e-8, grid=grid)
        assert got.rigorous and got.lower + 1e-8 <= truth <= got.upper - 1e-8 and got.error < 1e-4 * truth, (got, truth)


def test_the_issue_pair_as_empirical_is_calibrated_proved():
    """The issue's reproducer "the pair as Empirical" (3 atoms: the arb path) stays guaranteed, true D <= epsilon."""
    o = 1e9
    p = rpp.Empirical([o, o + 2e-4, 0.1], weights=[0.5, 0.49, 0.01])
    q = rpp.Empirical([o + 1e-4, o + 3e-4, 0.1], weights=[0.3, 0.69, 0.01])
    cal = rpp.calibrate(p, q, alpha=3, epsilon=0.5, require="proved")
    assert cal.rigorous and cal.guaranteed
    for a, b in ((p, q), (q, p)):
        ca, cb = a.components(), b.components()
        assert judge((ca.weights, ca.means, ca.vars), (cb.weights, cb.means, cb.vars), 3.0, cal.scale, dps=50) <= 0.5


def test_the_refusal_names_the_hypothesis_without_noise():
    """Many components and no noise: the refusal says why (the convexity needs Gaussian noise), quoting no data."""
    comps = (np.ones(70), np.linspace(0, 1, 70), np.full(70, 0.1))
    why = proved.proved_or_reason(comps, comps, alpha=2.0, family="gaussian", scale=0.0)
    assert isinstance(why, str) and "without noise" in why and "0.1" not in why
    assert math.isfinite(len(why))


NASTY = {
    "equal means, unequal variances, alpha near 1": (
        (np.array([0.5, 0.5]), np.array([-1.0, 1.0]), np.array([1.0, 1.0])),
        (np.array([0.5, 0.5]), np.array([-1.0, 1.0]), np.array([0.4, 0.4])),
        1.01,
        0.5,
    ),
    "sigma_j < sigma_i, large alpha, near the tail edge": (
        (np.array([0.3, 0.7]), np.array([0.0, 0.5]), np.array([1.0, 0.5])),
        (np.array([0.6, 0.4]), np.array([0.1, 0.4]), np.array([0.3, 0.2])),
        6.0,
        2.0,
    ),
    "nearly equal priors (a tiny divergence)": (
        (np.array([0.5, 0.5]), np.array([0.0, 1.0]), np.zeros(2)),
        (np.array([0.5, 0.5]), np.array([0.0, 1.001]), np.zeros(2)),
        2.0,
        0.7,
    ),
    "centred far from 0": (
        (np.array([0.4, 0.6]), 1e6 + np.array([0.0, 0.3]), np.array([0.01, 0.02])),
        (np.array([0.5, 0.5]), 1e6 + np.array([0.1, 0.5]), np.array([0.01, 0.01])),
        3.0,
        0.2,
    ),
}


@pytest.mark.parametrize("name", sorted(NASTY))
def test_the_convexity_bounds_hold_in_the_nasty_regimes(name):
    """Both orders of each pair, against mpmath: alpha near 1, the tail edge, a tiny D, far from 0."""
    P, Q, alpha, theta = NASTY[name]
    for a, b in ((P, Q), (Q, P)):
        vp, vq = a[2].max() + theta**2, b[2].max() + theta**2
        if alpha > 1 and alpha / vp <= (alpha - 1) / vq:  # infinite: decided exactly elsewhere
            got = proved.proved_or_reason(a, b, alpha=alpha, family="gaussian", scale=theta)
            assert isinstance(got, str) or got.value == math.inf
            continue
        got = _convex(a, b, alpha, theta)
        assert isinstance(got, rpp.Certified), got
        truth = judge(a, b, alpha, theta, dps=40)
        assert got.rigorous and got.lower <= truth <= got.upper, (name, got, truth)


def _convex_at_most(P, Q, alpha, theta, at_most):
    old = flint.ctx.prec
    flint.ctx.prec = proved.PREC
    try:
        return proved._convex_gaussian(flint, P, Q, alpha, theta, at_most=at_most)
    finally:
        flint.ctx.prec = old


@pytest.mark.parametrize(
    ("seed", "atoms", "alpha"), [(0, True, 0.5), (1, True, 2.0), (2, True, 4.0), (3, False, 0.5), (4, False, 2.0)]
)
def test_a_proof_for_a_budget_holds_the_truth_and_decides_it(seed, atoms, alpha):
    """``at_most`` (a calibration's budget) stops the halving once the enclosure's upper end is below it.

    Random atoms and mixtures, orders below and above 1: with the budget far above the truth, at
    1 % above it and below it, the enclosure holds mpmath's value; where the truth is below the
    budget, the upper end is at most the budget; where it is above, the enclosure is as narrow as
    without a budget, to 1 % (nothing to stop early for; the halving may split other panels)."""
    rng = np.random.default_rng(100 + seed)
    P, Q = _random_pair(rng, int(rng.integers(2, 6)), atoms=atoms)
    theta = 1.0  # component variances below 0.5: alpha = 2 has a finite integral (2 / 1.5 > 1 / 1)
    truth = judge(P, Q, alpha, theta)
    full = _convex(P, Q, alpha, theta)
    assert full.lower <= truth <= full.upper
    for budget in (10 * truth + 1.0, truth * 1.01, truth * 0.99):
        got = _convex_at_most(P, Q, alpha, theta, budget)
        assert isinstance(got, rpp.Certified) and got.rigorous, got
        assert got.lower <= truth <= got.upper, (budget, got, truth)
        if budget > full.upper:
            assert got.value + got.error <= budget, (budget, got)
            assert got.error >= full.error  # it stopped no later than without the budget
        if budget < truth:  # not met: about as narrow as without the budget (the halving took other panels)
            assert got.error <= full.error * 1.01


def test_a_budget_far_above_stops_the_proof_early():
    """The decision costs fewer density evaluations: 400 atoms, D about 0.06, budget 1.0."""
    rng = np.random.default_rng(7)
    P = (np.ones(400), np.sort(rng.normal(size=400)), np.zeros(400))
    Q = (np.ones(400), np.sort(rng.normal(0.3, 1.0, size=400)), np.zeros(400))
    evaluations = []
    real = proved._logpdf_bounds

    def counted(t, *args):
        evaluations.append(np.size(t))
        return real(t, *args)

    mp_ = pytest.MonkeyPatch()
    mp_.setattr(proved, "_logpdf_bounds", counted)
    try:
        full = _convex(P, Q, 2.0, 0.5)
        n_full = sum(evaluations)
        evaluations.clear()
        quick = _convex_at_most(P, Q, 2.0, 0.5, 1.0)
        n_quick = sum(evaluations)
    finally:
        mp_.undo()
    assert quick.value + quick.error <= 1.0 and quick.lower <= full.value <= quick.upper
    assert 0 < n_quick < n_full / 2, (n_quick, n_full)


def test_at_most_is_refused_where_it_has_no_meaning():
    p, q = rpp.Empirical([0.0, 1.0]), rpp.Empirical([0.5, 2.0])
    with pytest.raises(ValueError, match="at_most"):
        rpp.renyi_divergence(p, q, alpha=2.0, noise=rpp.GaussianNoise(1.0), at_most=1.0)  # an estimate: no proof
    with pytest.raises(ValueError, match="at_most"):
        rpp.renyi_divergence(p, q, alpha=2.0, noise=rpp.GaussianNoise(1.0), require="proved", at_most=-1.0)
    with pytest.raises(ValueError, match="at_most"):
        rpp.renyi_divergence(p, q, alpha=2.0, noise=rpp.GaussianNoise(1.0), require="proved", at_most=float("nan"))


@pytest.mark.parametrize("fn", ["proved_or_reason", "convexity_width"])
@pytest.mark.parametrize(
    ("comp", "says"),
    [
        (([0.0, 0.0], [0.0, 1.0], [0.0, 0.0]), "comp_i must have a component of weight > 0"),
        (([1.0], [math.nan], [0.0]), "comp_i must be three finite"),
        (([1.0, 1.0], [0.0], [0.0]), "comp_i must be three finite"),
        (([1.0], [0.0], [-1.0]), "comp_i's weights and variances must be >= 0"),
        (("a", [0.0], [0.0]), "comp_i must be three arrays of floats"),
    ],
)
def test_both_entries_refuse_a_bad_prior_by_name(fn, comp, says):
    """One validation for the proof and the width it is aimed by (a ValueError naming the argument)."""
    kw = {"family": "gaussian"} if fn == "proved_or_reason" else {}
    with pytest.raises(ValueError, match=re.escape(says)):
        getattr(proved, fn)(comp, ([1.0], [1.0], [0.0]), alpha=2.0, scale=1.0, **kw)
