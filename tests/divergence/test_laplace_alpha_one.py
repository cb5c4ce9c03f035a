"""Laplace noise as alpha -> 1 and at tiny budgets (issue #21, item 2), judged by mpmath.

The oracle is Mironov's closed form (2017, Prop. 6) evaluated here in mpmath at 700 digits,
enough to resolve log I = O((alpha - 1) t^2) down to alpha - 1 = 1e-15 and t = 1e-300; it
shares no code with rpp.  Every test failed before the fix (the cancelling
``-t/2 + u + log1p(...)`` form, the arithmetic bisection of ``laplace_rdp_scale`` and the
single-atom error bound without its 1/(alpha - 1) factor).
"""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

import rpp
from rpp.divergence import (
    laplace_rdp_scale,
    laplace_renyi_divergence_bound,
    laplace_shift_divergence,
    log_laplace_shift_integral,
)
from rpp.divergence._laplace_shift import LOG_SHIFT_REL_ERR

DPS = 700


def oracle_log_i(t, alpha):
    """log I_alpha(t) of the unit Laplace law, Mironov 2017 Prop. 6, first form, at DPS digits."""
    with mp.workdps(DPS):
        t, a = mp.mpf(t), mp.mpf(alpha)
        i = a / (2 * a - 1) * mp.exp((a - 1) * t) + (a - 1) / (2 * a - 1) * mp.exp(-a * t)
        return mp.log(i)


def oracle_rdp(delta, b, alpha):
    """D_alpha(Lap(delta, b) || Lap(0, b)), from the exact float inputs, at DPS digits."""
    with mp.workdps(DPS):
        return oracle_log_i(mp.mpf(delta) / mp.mpf(b), alpha) / (mp.mpf(alpha) - 1)


def oracle_min_scale(delta, alpha, epsilon):
    """The smallest b with D_alpha <= epsilon (root in b, at DPS digits)."""
    with mp.workdps(DPS):
        t = mp.findroot(
            lambda x: oracle_log_i(x, alpha) / (mp.mpf(alpha) - 1) - mp.mpf(epsilon),
            mp.sqrt(2 * mp.mpf(epsilon) / mp.mpf(alpha)) if epsilon < 1e-3 else mp.mpf(epsilon),
            tol=mp.mpf(10) ** (-60),
        )
        return mp.mpf(delta) / t


ALPHAS = [1 + 1e-15, 1 + 1e-12, 1 + 1e-9, 1 + 1e-6, 1.001, 1.1, 1.5, 2.0, 3.0, 10.0, 1e3, 1e6]
TS = [1e-300, 1e-150, 1e-20, 1e-8, 1e-3, 0.1, 0.7, 1.0, 10.0, 100.0, 1e4, 1e6]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_log_shift_integral_relative_error(alpha):
    """log I and D are within LOG_SHIFT_REL_ERR (64 u) of the oracle on the whole grid.

    Before the fix: 4.2352e-13 for 5.0000e-13 (relative error 0.15) at alpha = 1 + 1e-9, t = 1e-6.
    """
    worst = 0.0
    for t in TS:
        ref = oracle_log_i(t, alpha)
        got = log_laplace_shift_integral(t, alpha)
        # log I below the normal range (1e-600 at t = 1e-300) has only the subnormals' absolute
        # resolution; D is computed without passing through it
        worst = max(worst, float(max(abs(got - ref) - 1e-320, 0) / ref))
        ref_d = ref / (mp.mpf(alpha) - 1)
        got_d = laplace_shift_divergence(t, 1.0, alpha).value
        worst = max(worst, float(max(abs(got_d - ref_d) - 1e-320, 0) / ref_d))
    assert worst <= LOG_SHIFT_REL_ERR, worst


def test_issue_case_divergence_bound():
    """The issue's case: 4.2352e-13 +- 1.8e-21 before, for a true 4.99999834e-13."""
    val, err = laplace_renyi_divergence_bound(rpp.Empirical([0.0]), rpp.Empirical([1e-6]), 1 + 1e-9, 1.0)
    ref = oracle_rdp(1e-6, 1.0, 1 + 1e-9)
    assert abs(val - ref) <= err
    assert err <= 1e-13 * ref


@pytest.mark.parametrize("alpha", [1 + 1e-12, 1 + 1e-9, 1 + 1e-6, 1.01, 2.0, 50.0])
@pytest.mark.parametrize("delta_over_b", [1e-200, 1e-150, 1e-7, 0.3, 5.0, 1e3])
def test_single_atom_error_is_a_bound(alpha, delta_over_b):
    """|value - D| <= error for two single atoms (the error now carries the rounding of t)."""
    b = 1.0 / delta_over_b
    val, err = laplace_renyi_divergence_bound(rpp.Empirical([0.0]), rpp.Empirical([1.0]), alpha, b)
    ref = oracle_rdp(1.0, b, alpha)
    assert abs(val - ref) <= err, (val, float(ref), err)


@pytest.mark.parametrize(
    "args, before",
    [((1.0, 2.0, 1e-30), 1.18), ((1.0, 2.0, 1e-300), None), ((1.0, 1 + 1e-15, 1.0), 1.032)],
)
def test_issue_cases_rdp_scale(args, before):
    """laplace_rdp_scale: D <= epsilon at the returned b, and b within 1e-13 of the minimal scale.

    Before: D = 1.18 eps at (1, 2, 1e-30); b = 4.3e15 for a minimal 1.0e150 at (1, 2, 1e-300)
    (D = 5e268 eps); D = 1.032 eps at (1, 1 + 1e-15, 1).
    """
    delta, alpha, eps = args
    b = laplace_rdp_scale(delta, alpha, eps)
    assert oracle_rdp(delta, b, alpha) <= eps
    assert b <= oracle_min_scale(delta, alpha, eps) * (1 + 1e-13)


@pytest.mark.parametrize("alpha", [1 + 1e-12, 1 + 1e-9, 1 + 1e-6, 1.1, 2.0, 100.0, 1e5])
@pytest.mark.parametrize("eps", [1e-300, 1e-100, 1e-30, 1e-12, 1e-6, 1.0, 1e3])
def test_rdp_scale_never_under_noises(alpha, eps):
    """The whole stated range: alpha down to 1 + 1e-12, epsilon down to 1e-300."""
    b = laplace_rdp_scale(1.0, alpha, eps)
    assert oracle_rdp(1.0, b, alpha) <= eps
    assert b <= oracle_min_scale(1.0, alpha, eps) * (1 + 1e-13)


@pytest.mark.parametrize("method", ["pierquin", "exact", "w-alpha", "w-alpha-tight"])
@pytest.mark.parametrize("alpha, eps", [(1.000001, 1e-6), (1 + 1e-12, 1e-300), (1 + 1e-9, 1e-30), (2.0, 1e-300)])
def test_calibrations_near_one_never_under_noise(method, alpha, eps):
    """Every Laplace method on single atoms: the true D at the returned b within value + error,
    and within eps (``guaranteed`` has no slack since issue #34).

    Before (alpha = 1.000001, eps = 1e-6): true D = eps (1 + 5.1e-8) (pierquin), 2.7e-8 (exact),
    1.9e-8 (w-alpha-tight) over, all with within_budget=True.
    """
    if (alpha, eps) == (2.0, 1e-300):
        # The smallest safe scale is 1e150 (1 + O(1e-16)) (D_2 ~ 1/b^2), at the search's cap of
        # 1e150: with no slack in the budget (issue #34) no scale within the cap is proved to meet
        # it, and calibrate refuses, naming epsilon (it passed before only with the 1e-9 slack).
        assert oracle_min_scale(1.0, alpha, eps) > 1e150 * (1 - 1e-12)
        with pytest.raises(ValueError, match=r"epsilon=1e-300 cannot be met"):
            rpp.calibrate(
                rpp.Empirical([0.0]), rpp.Empirical([1.0]), alpha=alpha, epsilon=eps, noise="laplace", method=method
            )
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", rpp.PrivacyWarning)
        cal = rpp.calibrate(
            rpp.Empirical([0.0]), rpp.Empirical([1.0]), alpha=alpha, epsilon=eps, noise="laplace", method=method
        )
    assert cal.within_budget
    if math.isinf(cal.scale):
        return
    ref = oracle_rdp(1.0, cal.scale, alpha)
    assert ref <= cal.divergence + cal.divergence_error
    assert ref <= eps * (1 + 1e-12)  # the oracle's own rounding, not a slack of rpp's
    if method in ("pierquin", "exact", "w-alpha-tight"):  # tight rules: not grossly over-noised either
        assert cal.scale <= oracle_min_scale(1.0, alpha, eps) * (1 + 1e-9)


def test_expansion_matches_second_form_where_both_are_accurate():
    """Away from alpha = 1 the expanded and the log-space forms agree (the switch is seamless)."""
    t = np.geomspace(1e-3, 400.0, 200)
    for alpha in (1.5, 2.0, 4.0):
        got = log_laplace_shift_integral(t, alpha)
        ref = np.array([float(oracle_log_i(x, alpha)) for x in t])
        assert np.max(np.abs(got / ref - 1)) <= LOG_SHIFT_REL_ERR
