"""D_alpha of noisy mixtures exactly at the edge alpha/V_P = (alpha-1)/V_Q (issue #13, defect 3b).

At the edge the quadratic terms of the widest components cancel and the tails of
p^alpha q^(1-alpha) are e^{c x}: the integral is finite iff the widest components of q reach
strictly beyond those of p on both sides.  Checked against mpmath (independent quadrature at
40 digits on the whole line), and by properties: finite iff the criterion, and monotone in the
noise (D at the edge >= D slightly above it, data processing).
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import rpp
from rpp.divergence._gaussian_noise import edge_is_finite

CH4_I = rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[0.25, 0.25])
CH4_J = rpp.Gaussian(mean=0.0, var=9.25)


def mp_edge_log_integral(P, Q, alpha, t, pts):
    """log of int p^a q^(1-a) over the whole line by mpmath (tanh-sinh, 40 digits), with its error."""
    mp.mp.dps = 40
    a = mp.mpf(alpha)

    def dens(prior, y):
        c = prior.components()
        return mp.fsum(
            mp.mpf(w) * mp.npdf(y, mp.mpf(m), mp.sqrt(mp.mpf(v) + mp.mpf(t)))
            for w, m, v in zip(c.weights, c.means, c.vars, strict=True)
        )

    def f(y):
        return dens(P, y) ** a * dens(Q, y) ** (1 - a)

    edges = [-mp.inf] + [mp.mpf(x) for x in pts] + [mp.inf]
    val, err = mp.quad(f, edges, error=True, maxdegree=10)
    return mp.log(val), err / val


def test_chapter4_edge_is_finite_and_matches_mpmath():
    """Chapter 4's pair at theta^2 = 17.75, alpha = 3: D_3 = 0.006292..., closed form and mpmath."""
    val, err = rpp.divergence.renyi_divergence_bound(CH4_J, CH4_I, 3.0, 17.75)
    closed = 0.5 * math.log(12 * math.sqrt(math.e) * 2 * math.pi * 18 / (2 * math.pi * 27) ** 1.5)
    log_i, rel = mp_edge_log_integral(CH4_J, CH4_I, 3.0, 17.75, [-400, -100, -30, 0, 30, 100, 400])
    ref = float(log_i / 2)
    assert rel < 1e-20 and abs(ref - closed) < 1e-15
    assert np.isfinite(val) and abs(val - ref) <= err < 1e-12, (val - ref, err)
    assert rpp.renyi_divergence(CH4_J, CH4_I, alpha=3.0, noise=rpp.GaussianNoise(scale=np.sqrt(17.75))).value == val
    # just below the edge (decided exactly) the integral diverges
    assert (
        rpp.renyi_divergence(
            CH4_J, CH4_I, alpha=3.0, noise=rpp.GaussianNoise(scale=np.sqrt(np.nextafter(17.75, 0)))
        ).value
        == np.inf
    )


def test_edge_with_narrow_and_several_widest_components_matches_mpmath():
    """alpha = 3, t = 1: V_P = 2 + 1, V_Q = 1 + 1, 3/3 = 2/2.  The narrow component of P (the
    Gaussian-type part of the tail bound) and two widest components of Q, asymmetric."""
    P = rpp.GaussianMixture(weights=[0.6, 0.4], means=[0.5, 1.0], vars=[2.0, 0.5])
    Q = rpp.GaussianMixture(weights=[0.3, 0.5, 0.2], means=[-2.0, 3.0, 0.0], vars=[1.0, 1.0, 0.25])
    assert edge_is_finite(P.components(), Q.components())
    val, err = rpp.divergence.renyi_divergence_bound(P, Q, 3.0, 1.0)
    log_i, rel = mp_edge_log_integral(P, Q, 3.0, 1.0, [-600, -150, -40, -10, -2, 0, 1, 3, 10, 40, 150, 600])
    ref = float(log_i / 2)
    assert rel < 1e-20
    assert np.isfinite(val) and abs(val - ref) <= err < 1e-11, (val - ref, err)


def test_edge_against_an_empirical_prior_matches_mpmath():
    """Atoms (variance 0) against a Gaussian: alpha = 2, t = 1, V_P = 1 + 1, V_Q = 0 + 1, 2/2 = 1/1."""
    P, Q = rpp.Gaussian(mean=0.0, var=1.0), rpp.Empirical([-1.5, -0.2, 0.4, 2.0])
    val, err = rpp.divergence.renyi_divergence_bound(P, Q, 2.0, 1.0)
    log_i, rel = mp_edge_log_integral(P, Q, 2.0, 1.0, [-500, -100, -20, -1.5, 0, 2, 20, 100, 500])
    assert rel < 1e-20
    assert np.isfinite(val) and abs(val - float(log_i)) <= err < 1e-11, (val - float(log_i), err)
    # one atom fewer on the left: the widest components no longer straddle P's mean
    assert rpp.divergence.renyi_divergence_bound(P, rpp.Empirical([0.4, 2.0]), 2.0, 1.0) == (np.inf, 0.0)


@pytest.mark.parametrize(
    "P, Q, alpha, t",
    [
        # widest means of P at +-1 beyond Q's single mean 0: D grows like e^{r (a+ - b+) x}
        (
            rpp.GaussianMixture(weights=[0.5, 0.5], means=[-1.0, 1.0], vars=[2.0, 2.0]),
            rpp.Gaussian(mean=0.0, var=1.0),
            3.0,
            1.0,
        ),
        # equal largest means (a+ = b+ = 0): the right tail of the integrand tends to a constant
        (
            rpp.Gaussian(mean=0.0, var=2.0),
            rpp.GaussianMixture(weights=[0.5, 0.5], means=[-5.0, 0.0], vars=[1.0, 1.0]),
            3.0,
            1.0,
        ),
        # finite on the left (-1 > -3), divergent on the right only (4 > 3)
        (
            rpp.GaussianMixture(weights=[0.5, 0.5], means=[-1.0, 4.0], vars=[2.0, 2.0]),
            rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[1.0, 1.0]),
            3.0,
            1.0,
        ),
    ],
)
def test_edge_where_the_integral_diverges(P, Q, alpha, t):
    cp, cq = P.components(), Q.components()
    assert alpha * (cq.vars.max() + t) == (alpha - 1) * (cp.vars.max() + t)
    assert not edge_is_finite(cp, cq)
    assert rpp.divergence.renyi_divergence_bound(P, Q, alpha, t) == (np.inf, 0.0)
    # independent: mpmath's integrand does not tend to 0 in (at least) one tail
    mp.mp.dps = 40

    def f(y):
        def dens(c):
            return mp.fsum(
                w * mp.npdf(y, m, mp.sqrt(mp.mpf(v) + t)) for w, m, v in zip(c.weights, c.means, c.vars, strict=True)
            )

        return dens(cp) ** alpha * dens(cq) ** (1 - alpha)

    tails = [max(f(mp.mpf(y)), f(mp.mpf(-y))) for y in (50, 100, 200)]
    assert tails[0] > 1e-6 and tails[2] >= tails[1] * (1 - 1e-6) and tails[1] >= tails[0] * (1 - 1e-6)


def test_not_exactly_at_the_edge_is_unchanged():
    """The edge is decided in rational arithmetic: off it, the ordinary quadrature."""
    below, above = np.nextafter(17.75, 0), 17.75 * (1 + 1e-15)
    assert rpp.divergence.renyi_divergence_bound(CH4_J, CH4_I, 3.0, below) == (np.inf, 0.0)
    v_edge, e_edge = rpp.divergence.renyi_divergence_bound(CH4_J, CH4_I, 3.0, 17.75)
    v_above, e_above = rpp.divergence.renyi_divergence_bound(CH4_J, CH4_I, 3.0, above)
    assert v_above <= v_edge + e_edge + e_above and abs(v_edge - v_above) <= 1e-12


# Random pairs exactly at the edge: dyadic variances, orders and means, so that every sum is
# exact and the edge alpha (V_Q + t) = (alpha - 1)(V_P + t) holds in the floats.
means = st.integers(-16, 16).map(lambda k: k / 4)


@st.composite
def edge_pairs(draw):
    alpha = draw(st.sampled_from([1.5, 2.0, 2.5, 3.0, 4.0]))
    vq = draw(st.sampled_from([0.25, 0.5, 1.0]))
    vp = vq * draw(st.sampled_from([4, 8, 16]))  # >= 4 vq: t >= (3 alpha - 4) vq > 0
    t = (alpha - 1) * vp - alpha * vq
    n_wide_p, n_wide_q = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    n_narrow_p, n_narrow_q = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    mp_ = draw(st.lists(means, min_size=n_wide_p + n_narrow_p, max_size=n_wide_p + n_narrow_p))
    mq_ = draw(st.lists(means, min_size=n_wide_q + n_narrow_q, max_size=n_wide_q + n_narrow_q))
    if draw(st.booleans()):  # half the cases: Q's widest components straddle P's (finite at the edge)
        lo, hi = min(mp_[:n_wide_p]), max(mp_[:n_wide_p])
        gaps = draw(st.lists(st.integers(1, 8), min_size=2, max_size=2))
        n_wide_q, mq_ = 2, [lo - gaps[0] / 4, hi + gaps[1] / 4, *mq_[n_wide_q:]]
    vp_ = [vp] * n_wide_p + [vp / 2 ** draw(st.integers(1, 3)) for _ in range(n_narrow_p)]
    vq_ = [vq] * n_wide_q + [vq / 2 ** draw(st.integers(1, 3)) for _ in range(n_narrow_q)]
    wp = draw(st.lists(st.integers(1, 4), min_size=len(vp_), max_size=len(vp_)))
    wq = draw(st.lists(st.integers(1, 4), min_size=len(vq_), max_size=len(vq_)))
    P = rpp.GaussianMixture(weights=np.array(wp) / sum(wp), means=mp_, vars=vp_)
    Q = rpp.GaussianMixture(weights=np.array(wq) / sum(wq), means=mq_, vars=vq_)
    return P, Q, alpha, t, mp_[:n_wide_p], mq_[:n_wide_q]


@given(edge_pairs())
def test_edge_finite_iff_criterion_and_monotone_in_noise(case):
    P, Q, alpha, t, wide_p, wide_q = case
    a, vp, vq, tt = (Fraction(x) for x in (alpha, max(P.vars), max(Q.vars), t))
    assert t > 0 and a * (vq + tt) == (a - 1) * (vp + tt)  # exactly at the edge
    finite = max(wide_p) < max(wide_q) and min(wide_p) > min(wide_q)
    val, err = rpp.divergence.renyi_divergence_bound(P, Q, alpha, t)
    assert np.isfinite(val) == finite and val >= 0
    # more noise, less divergence (data processing): D at the edge >= D slightly above it
    for dt in (1e-9, 1e-3, 0.5):
        above, err_above = rpp.divergence.renyi_divergence_bound(P, Q, alpha, t + dt)
        assert np.isfinite(above)
        assert val + err >= above - err_above, (dt, val, above)
    if finite:  # and D is continuous from above at the edge (lower semicontinuity + monotonicity)
        above, err_above = rpp.divergence.renyi_divergence_bound(P, Q, alpha, t * (1 + 1e-12) + 1e-12)
        assert abs(val - above) <= 1e-8 * (1 + val) + err + err_above


def test_calibrated_scale_at_the_edge_is_not_below_it():
    """D jumps from +inf to a finite value at the edge, so the scale a calibration returns there
    must square (exactly) to at least the edge.  alpha = 3, V_P = 2.5 + t, V_Q = 0.5 + t: t = 3.5."""
    P, Q = rpp.Gaussian(mean=0.0, var=2.5), rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[0.5, 0.5])
    cal = rpp.calibrate(Q, P, alpha=3.0, epsilon=5.0)
    assert cal.within_budget and cal.variance >= 3.5
    assert Fraction(cal.scale) ** 2 >= Fraction(3.5)
