"""rpp's divergences and calibrations against independent rigorous enclosures (arb via python-flint).

``tests/reference_flint.py`` encloses D_alpha of the noisy outputs in an arb ball (rigorous
quadrature of the body by ``flint.acb.integral`` plus proved tail bounds).  Checked here:

* ``rpp.divergence.renyi_divergence_bound`` (Gaussian noise) and ``laplace_renyi_divergence_bound``
  (Laplace noise) return ``(value, error)`` with ``|value - D| <= error + round-off``;
* every calibration method that reports ``guaranteed`` returns a scale at which the
  reference divergence (upper end of the ball, both protected orders) is at most
  ``epsilon (1 + 1e-9)`` -- the relative round-off slack that ``rpp.calibrate`` documents.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import rpp
from reference_flint import gaussian_noise_divergence, laplace_noise_divergence, lower, upper
from rpp.divergence import laplace_renyi_divergence_bound

pytestmark = pytest.mark.slow

_U = 2.0**-53
RTOL = 1e-9  # rpp.calibration's documented relative round-off slack on epsilon


def _round_off(value, alpha):
    """Float round-off of ``log(I) / (alpha - 1)`` beyond the relative error of I (a few ulps of log I)."""
    return 16 * _U * (abs(value) + 1 / (alpha - 1))


def _assert_within(value, error, ref, alpha):
    if ref == math.inf:
        assert value == math.inf
        return
    assert value < math.inf, f"rpp says inf, reference {ref}"
    slack = error + _round_off(value, alpha)
    lo, hi = lower(ref), upper(ref)
    assert value - slack <= hi and value + slack >= lo, (
        f"rpp {value!r} +- {error:.2e} vs reference [{lo!r}, {hi!r}]: off by "
        f"{max(lo - value, value - hi):.2e} > error + round-off {slack:.2e}"
    )


def _random_prior(rng, kind):
    if kind == "gauss":
        return rpp.Gaussian(mean=float(rng.normal(0, 2)), var=float(np.exp(rng.uniform(-1.5, 1))))
    if kind == "mix":
        k = int(rng.integers(2, 4))
        return rpp.GaussianMixture(
            weights=rng.dirichlet(np.ones(k)), means=rng.normal(0, 3, k), vars=np.exp(rng.uniform(-2, 1, k))
        )
    return rpp.Empirical(np.round(rng.normal(0, 2, int(rng.integers(2, 6))), 3))


GAUSS_KINDS = [
    ("gauss", "gauss"),
    ("mix", "mix"),
    ("mix", "mix"),
    ("gauss", "mix"),
    ("emp", "emp"),
    ("emp", "emp"),
    ("mix", "emp"),
]


@pytest.mark.parametrize("case", range(len(GAUSS_KINDS)))
def test_gaussian_noise_value_within_error(case):
    rng = np.random.default_rng(1000 + case)
    p, q = (_random_prior(rng, k) for k in GAUSS_KINDS[case])
    alpha = float(rng.uniform(1.5, 6))
    t = float(np.exp(rng.uniform(0, 2)))  # moderate divergences (D up to ~20)
    value, error = rpp.divergence.renyi_divergence_bound(p, q, alpha, t)
    _assert_within(value, error, gaussian_noise_divergence(p, q, alpha, t), alpha)


LAPLACE_KINDS = [("emp", "emp"), ("emp", "emp"), ("gauss", "gauss"), ("gauss", "emp"), ("mix", "gauss")]


@pytest.mark.parametrize("case", range(len(LAPLACE_KINDS)))
def test_laplace_noise_value_within_error(case):
    rng = np.random.default_rng(2000 + case)
    p, q = (_random_prior(rng, k) for k in LAPLACE_KINDS[case])
    alpha = float(rng.uniform(1.5, 6))
    b = float(np.exp(rng.uniform(-0.5, 1)))
    value, error = laplace_renyi_divergence_bound(p, q, alpha, b)
    _assert_within(value, error, laplace_noise_divergence(p, q, alpha, b), alpha)


# Chapter 4 (sec-mix-single): P_i = .5 N(-3, .25) + .5 N(3, .25), P_j = N(0, 9.25), alpha = 3.
# The exact calibration lands on the edge of the tail condition, theta^2 = 17.75, where the
# integrand of D_3(P_j || P_i) decays only exponentially.
CH4_I = rpp.GaussianMixture(weights=[0.5, 0.5], means=[-3.0, 3.0], vars=[0.25, 0.25])
CH4_J = rpp.GaussianMixture(weights=[1.0], means=[0.0], vars=[9.25])


def test_chapter4_near_edge_value_within_error():
    t = rpp.calibrate(CH4_I, CH4_J, alpha=3.0, epsilon=1.0).variance
    value, error = rpp.divergence.renyi_divergence_bound(CH4_J, CH4_I, 3.0, t)
    _assert_within(value, error, gaussian_noise_divergence(CH4_J, CH4_I, 3.0, t), 3.0)


def test_reference_detects_a_wrong_value():
    """The comparison can fail: a value off by 1e-9 (the chapter-4 discrepancy) is caught."""
    p, q = rpp.Gaussian(mean=0.0, var=1.0), rpp.Gaussian(mean=1.0, var=2.0)
    value, error = rpp.divergence.renyi_divergence_bound(p, q, 3.0, 0.5)
    ref = gaussian_noise_divergence(p, q, 3.0, 0.5)
    _assert_within(value, error, ref, 3.0)
    with pytest.raises(AssertionError):
        _assert_within(value + 1e-9, error, ref, 3.0)


def test_reference_edge_of_tail_condition():
    """Below the edge D is infinite (decided exactly); at the edge it is finite (chapter 4's closed form)."""
    assert gaussian_noise_divergence(CH4_J, CH4_I, 3.0, 17.75 * (1 - 1e-15)) == math.inf
    ref = gaussian_noise_divergence(CH4_J, CH4_I, 3.0, 17.75)
    closed = 0.5 * math.log(12 * math.sqrt(math.e) * 2 * math.pi * 18 / (2 * math.pi * 27) ** 1.5)
    assert lower(ref) - 1e-15 <= closed <= upper(ref) + 1e-15


# ---------------------------------------------------------------------------------------------
# Calibrations that claim `guaranteed` against the reference
# ---------------------------------------------------------------------------------------------

CAL_CASES = {
    "gaussians": (rpp.Gaussian(mean=0.0, var=0.25), rpp.Gaussian(mean=1.0, var=4.0), 3.0, 0.5),
    "mixtures": (
        rpp.GaussianMixture(weights=[0.5, 0.5], means=[-2.0, 2.0], vars=[0.5, 0.5]),
        rpp.GaussianMixture(weights=[0.3, 0.7], means=[-2.0, 2.5], vars=[0.5, 1.0]),
        2.5,
        0.3,
    ),
    "empirical": (rpp.Empirical([0.0, 0.4, 1.5, 2.0]), rpp.Empirical([0.1, 0.9, 1.1, 3.0]), 2.0, 0.5),
    "chapter4-edge": (CH4_I, CH4_J, 3.0, 1.0),
}


def _reference(noise, p, q, alpha, scale):
    if noise == "gaussian":
        return gaussian_noise_divergence(p, q, alpha, scale**2)
    return laplace_noise_divergence(p, q, alpha, scale)


@pytest.mark.parametrize(
    "noise,name",
    [("gaussian", n) for n in CAL_CASES] + [("laplace", "empirical"), ("laplace", "mixtures")],
)
def test_guaranteed_calibrations_hold_against_reference(noise, name):
    p, q, alpha, eps = CAL_CASES[name]
    checked = 0
    for method in rpp.methods(noise):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rpp.PrivacyWarning)
                cal = rpp.calibrate(p, q, alpha=alpha, epsilon=eps, method=method, noise=noise)
        except ValueError:  # the method does not apply to these priors
            continue
        if cal.scale == math.inf:  # infinite noise (e.g. W_inf = inf): D = 0, nothing to check
            assert cal.within_budget
            continue
        refs = [_reference(noise, a, b, alpha, cal.scale) for a, b in ((p, q), (q, p))]
        worst = max(upper(r) for r in refs)
        if cal.within_budget:
            assert worst <= eps * (1 + RTOL), f"{method}: reference D = {worst!r} > epsilon = {eps}"
            checked += 1
        else:  # an honest flag: the reference must not prove the budget met
            assert max(upper(r) for r in refs) > eps or max(lower(r) for r in refs) > eps * (1 - 1e-6), method
    assert checked >= 1
