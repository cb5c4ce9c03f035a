"""Issue #34, items 2 and 4: ``guaranteed`` means the proved D is <= epsilon exactly; proved paths past exp's range.

Item 2.  ``calibrate`` once accepted ``divergence + error <= epsilon (1 + 1e-9)``: a result could be
flagged guaranteed while its proved upper end (and, for Laplace noise, the true divergence) was
above epsilon by round-off.  Now the flag is the exact real-number test (``rpp._lib.numerics.at_most``),
and a scale short by round-off is stepped up.  Checked here exactly (fractions) and against mpmath at 50
digits in both orders of each pair, never against rpp.

Item 4.  ``require="proved"`` raised ``OverflowError`` once (alpha - 1) D > 709 (``math.exp`` of the
integral's float estimate); checked against mpmath.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rpp
from reference_mpmath import renyi  # independent of rpp
from rpp import Empirical, Gaussian, LaplaceNoise
from rpp._lib.numerics import at_most


def _view(prior):
    """(weights, means, variances) of an rpp prior as floats, for the mpmath oracle."""
    if isinstance(prior, Gaussian):
        return [1.0], [prior.mean], [prior.var]
    return list(map(float, prior.weights)), list(map(float, prior.support)), [0.0] * prior.support.size


def _exactly_within(cal, eps) -> bool:
    return Fraction(float(cal.divergence)) + Fraction(float(cal.divergence_error)) <= Fraction(float(eps))


def _mp_gauss(p, q, alpha, theta):
    """D_alpha(N(mp, vp + theta^2) || N(mq, vq + theta^2)), the closed form at 60 digits (theta^2 exact)."""
    with mp.workdps(60):
        a, th2 = mp.mpf(alpha), mp.mpf(theta) ** 2
        v0, v1 = mp.mpf(p.var) + th2, mp.mpf(q.var) + th2
        s = (1 - a) * v0 + a * v1
        if s <= 0:
            return mp.inf
        return a * (mp.mpf(p.mean) - mp.mpf(q.mean)) ** 2 / (2 * s) + mp.log(s / (v0 ** (1 - a) * v1**a)) / (
            2 * (1 - a)
        )


finite = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=300)
@given(finite, finite, finite)
def test_at_most_is_the_exact_real_test(v, e, b):
    exact = all(map(math.isfinite, (v, e, b))) and Fraction(v) + Fraction(e) <= Fraction(b)
    if all(map(math.isfinite, (v, e, b))) and not math.isfinite(v + e):
        return  # the float sum overflows: documented as False (the budget is not shown met)
    if not all(map(math.isfinite, (v, e))) or math.isnan(b):
        assert at_most(v, e, b) is False
        return
    if math.isinf(b):
        assert at_most(v, e, b) is (b > 0 and math.isfinite(v + e))
        return
    assert at_most(v, e, b) is exact


def test_at_most_on_ties():
    assert at_most(0.1, 0.2, 0.30000000000000004)  # the float sum ties the bound, the exact sum is below
    assert not at_most(0.30000000000000004, 1e-300, 0.30000000000000004)  # ties, the exact sum is above
    assert at_most(np.array([20.0, 20.0]), np.array([0.0, 4e-15]), 20.0).tolist() == [True, False]


def test_laplace_reproducer_of_the_issue_is_proved_below_epsilon():
    p = Empirical([6.761265705223897e-05])
    q = Empirical([5.111728000549197e-05, 5.1117280005491977e-05], weights=[0.19981945188089595, 0.8001805481191041])
    cal = rpp.calibrate(p, q, alpha=5, epsilon=20, noise="laplace")
    assert cal.guaranteed and cal.rigorous
    assert _exactly_within(cal, 20)
    for a, b in ((p, q), (q, p)):  # both orders, 50 digits
        assert renyi(_view(a), _view(b), 5, noise="laplace", scale=cal.scale) <= 20


def _gauss_pairs(n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        p = Gaussian(mean=float(rng.normal(0, 3)), var=float(np.exp(rng.uniform(-3, 2))))
        q = Gaussian(mean=float(rng.normal(0, 3)), var=float(np.exp(rng.uniform(-3, 2))))
        yield p, q, float(np.exp(rng.uniform(np.log(1.05), np.log(40)))), float(np.exp(rng.uniform(-5, 2)))


def test_default_gaussian_calibrations_are_exactly_within_the_budget_in_both_orders():
    guaranteed = 0
    for p, q, alpha, eps in _gauss_pairs(300, seed=34):
        cal = rpp.calibrate(p, q, alpha=alpha, epsilon=eps)
        assert cal.guaranteed == (cal.rigorous and _exactly_within(cal, eps))  # the flag is the exact test
        if cal.guaranteed:
            guaranteed += 1
            for a, b in ((p, q), (q, p)):
                assert _mp_gauss(a, b, alpha, cal.scale) <= eps, (p, q, alpha, eps, cal)
    assert guaranteed == 300


def test_grid_calibration_is_exactly_within_the_budget():
    p, q = Gaussian(mean=0.3, var=0.7), Gaussian(mean=-1.1, var=2.3)
    alpha, eps = np.meshgrid(np.linspace(1.1, 30, 12), np.geomspace(0.01, 5, 12))
    cal = rpp.calibrate(p, q, alpha=alpha, epsilon=eps)
    assert np.all(cal.guaranteed)
    for k in np.ndindex(alpha.shape):
        assert Fraction(float(cal.divergence[k])) + Fraction(float(cal.divergence_error[k])) <= Fraction(eps[k])
        for a, b in ((p, q), (q, p)):
            assert _mp_gauss(a, b, alpha[k], cal.scale[k]) <= eps[k]


def _mp_atoms(p, q, alpha, family, scale):
    """D_alpha of two atom mixtures with Gaussian or Laplace noise, mpmath at 50 digits, breakpoints every
    unit over [-300, 300] (at alpha = 60 the integrand's mass lies far from the atoms)."""
    with mp.workdps(50):
        s, a = mp.mpf(scale), mp.mpf(alpha)

        def density(w, m):
            if family == "gaussian":
                return lambda y: sum(
                    mp.mpf(wi) * mp.exp(-((y - mp.mpf(mi)) ** 2) / (2 * s * s)) for wi, mi in zip(w, m, strict=True)
                )
            return lambda y: sum(mp.mpf(wi) * mp.exp(-abs(y - mp.mpf(mi)) / s) for wi, mi in zip(w, m, strict=True))

        fp, fq = density(p[0], p[1]), density(q[0], q[1])  # the normalising constants cancel in p^a q^(1-a)
        f = lambda y: fp(y) ** a * fq(y) ** (1 - a)
        # where the integrand matters: a grid of step 1/20 over [-300, 300], kept where it is above e^-200
        # of its largest value there and widened by 5 units; panels of one unit in that range, and the two
        # infinite panels beyond it (tanh-sinh) for the rest
        grid = [mp.mpf(k) / 20 for k in range(-6000, 6001)]
        with mp.workdps(20):
            logs = [mp.log(f(y)) if f(y) > 0 else mp.ninf for y in grid]
        top = max(logs)
        keep = [y for y, lf in zip(grid, logs, strict=True) if lf > top - 200]
        lo, hi = int(mp.floor(keep[0])) - 5, int(mp.ceil(keep[-1])) + 5
        pts = sorted({mp.mpf(x) for x in range(max(lo, -300), min(hi, 300) + 1)} | {mp.mpf(x) for x in p[1] + q[1]})
        total = mp.quad(f, [mp.ninf, *pts, mp.inf])
        norm = mp.sqrt(2 * mp.pi) * s if family == "gaussian" else 2 * s
        return mp.log(total / norm) / (a - 1)


@pytest.mark.slow  # the 50-digit reference integrates over 600 panels: minutes
@pytest.mark.parametrize("family, scale", [("gaussian", 1.5), ("laplace", 0.1)])
def test_proved_divergence_of_atoms_past_the_exponent_range_matches_mpmath(family, scale):
    from rpp.divergence import proved_divergence

    p, q = ([0.9, 0.1], [0.0, 0.3], [0.0, 0.0]), ([0.5, 0.5], [2.0, 2.5], [0.0, 0.0])
    for a, b in ((p, q), (q, p)):  # both orders
        d = proved_divergence(a, b, alpha=60.0, family=family, scale=scale)  # was OverflowError
        ref = _mp_atoms(a, b, 60, family, scale)
        assert d is not None and d.rigorous and (60 - 1) * ref > 709  # exp((alpha - 1) D) beyond the float range
        assert mp.mpf(float(d.lower)) <= ref <= mp.mpf(float(d.upper))


@pytest.mark.slow  # the mpmath reference of Laplace noise on Gaussian priors takes minutes at alpha = 100
def test_proved_divergence_past_the_exponent_range_matches_mpmath():
    # the pair is its own mirror image (x -> 1 - x swaps the priors), so both orders are equal: one computed
    p, q = Gaussian(mean=0, var=0.01), Gaussian(mean=1, var=0.01)
    ref = renyi(_view(p), _view(q), 100, noise="laplace", scale=0.1)
    for a, b in ((p, q), (q, p)):
        d = rpp.renyi_divergence(a, b, alpha=100, noise=LaplaceNoise(0.1), require="proved")
        assert d.rigorous and (100 - 1) * d.value > 709  # exp((alpha - 1) D) is beyond the float range
        assert mp.mpf(float(d.lower)) <= ref <= mp.mpf(float(d.upper))


@pytest.mark.slow  # as above
def test_proved_calibration_past_the_exponent_range_is_within_the_budget():
    p, q = Gaussian(mean=0, var=0.01), Gaussian(mean=1, var=0.01)
    cal = rpp.calibrate(p, q, alpha=100, epsilon=50, noise="laplace", require="proved")
    assert cal.guaranteed and _exactly_within(cal, 50)
    assert renyi(_view(p), _view(q), 100, noise="laplace", scale=cal.scale) <= 50  # = the other order (mirror)
