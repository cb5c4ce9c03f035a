"""Invariances as properties (issue #21, Deliver 2).

For additive noise Z, D_alpha((P + o) * Z || (Q + o) * Z) = D_alpha(P * Z || Q * Z) (translation
of both priors by o) and D_alpha(cP * cZ || cQ * cZ) = D_alpha(P * Z || Q * Z) (both priors and the
noise scaled by c > 0).  So every method's calibrated scale is invariant under a common
translation and multiplied by c under a common scaling.

The inputs are built so that the transformed priors are represented *exactly* in float64:
means and atoms are multiples of 1/64 within [-4, 4], offsets multiples of 1/64 up to 1e12
(their sums stay below 2^53 / 64), factors c powers of two from 2^-20 to 2^20 (about 1e-6 to
1e6), variances powers of two.  The representation error of the transformed input is therefore
zero, and the two computations must agree within their reported errors alone: for divergences
|D1 - D2| <= err1 + err2.  For calibrated scales the allowance is a relative 1e-6: the rules
stop their searches at relative widths <= 1e-9 and the round-off guard of rpp.calibrate may
step a scale up by at most 5.6e-7 (12 steps from 1e-13, x4 each), so two correct runs on the
same laws can differ by that much.  Without the exact-shift centring (rpp.divergence._centre) these
properties fail from offsets near 1e8 (tests/divergence/test_far_from_zero.py).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rpp

GRID = 64.0
SCALE_RTOL = 1e-6

ks = st.integers(-256, 256)


@st.composite
def priors(draw, kinds=("gaussian", "mixture", "empirical")):
    kind = draw(st.sampled_from(kinds))
    if kind == "gaussian":
        return rpp.Gaussian(mean=draw(ks) / GRID, var=2.0 ** draw(st.integers(-4, 2)))
    if kind == "mixture":
        n = draw(st.integers(1, 3))
        w = np.array(draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), float)
        m = np.array(draw(st.lists(ks, min_size=n, max_size=n))) / GRID
        v = 2.0 ** np.array(draw(st.lists(st.integers(-4, 2), min_size=n, max_size=n)))
        return rpp.GaussianMixture(weights=w / w.sum(), means=m, vars=v)
    x = np.array(draw(st.lists(ks, min_size=1, max_size=4))) / GRID
    return rpp.Empirical(x)


def translate(prior, o):
    if isinstance(prior, rpp.Gaussian):
        return rpp.Gaussian(mean=prior.mean + o, var=prior.var)
    if isinstance(prior, rpp.GaussianMixture):
        return rpp.GaussianMixture(weights=prior.weights, means=prior.means + o, vars=prior.vars)
    return rpp.Empirical(prior.atoms + o)


def scale(prior, c):
    if isinstance(prior, rpp.Gaussian):
        return rpp.Gaussian(mean=prior.mean * c, var=prior.var * c * c)
    if isinstance(prior, rpp.GaussianMixture):
        return rpp.GaussianMixture(weights=prior.weights, means=prior.means * c, vars=prior.vars * c * c)
    return rpp.Empirical(prior.atoms * c)


offsets = st.integers(-(10**12) * 64, 10**12 * 64).map(lambda k: k / GRID)
factors = st.integers(-20, 20).map(lambda k: 2.0**k)
alphas = st.sampled_from([1.5, 3.0, 10.0])
noise_scales = st.integers(-3, 3).map(lambda k: 2.0**k)


def divergence(p, q, alpha, s, noise):
    if noise == "laplace":
        return rpp.divergence.laplace_renyi_divergence_bound(p, q, alpha, s)
    return rpp.divergence.renyi_divergence_bound(p, q, alpha, s * s)


def _agree(a, b):
    (d1, e1), (d2, e2) = a, b
    if np.isinf(d1) or np.isinf(d2):
        return d1 == d2
    return abs(d1 - d2) <= e1 + e2


def _check_translation(p, q, o, alpha, s, noise):
    pt, qt = translate(p, o), translate(q, o)
    for a, b in ((p, pt), (q, qt)):  # the shifted input is exact
        assert np.array_equal(b.components().means - o, a.components().means)
    ref, got = divergence(p, q, alpha, s, noise), divergence(pt, qt, alpha, s, noise)
    assert _agree(ref, got), (ref, got)


def _check_scaling(p, q, c, alpha, s, noise):
    ref, got = divergence(p, q, alpha, s, noise), divergence(scale(p, c), scale(q, c), alpha, s * c, noise)
    assert _agree(ref, got), (ref, got)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@settings(max_examples=12)
@given(p=priors(), q=priors(), o=offsets, alpha=alphas, s=noise_scales)
def test_divergence_translation_invariant(noise, p, q, o, alpha, s):
    _check_translation(p, q, o, alpha, s, noise)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@settings(max_examples=12)
@given(p=priors(), q=priors(), c=factors, alpha=alphas, s=noise_scales)
def test_divergence_scale_covariant(noise, p, q, c, alpha, s):
    _check_scaling(p, q, c, alpha, s, noise)


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@settings(max_examples=150)
@given(p=priors(), q=priors(), o=offsets, c=factors, alpha=alphas, s=noise_scales)
def test_divergence_invariances_slow(noise, p, q, o, c, alpha, s):
    _check_translation(p, q, o, alpha, s, noise)
    _check_scaling(p, q, c, alpha, s, noise)


def _calibrate(p, q, method, noise, alpha, eps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rpp.PrivacyWarning)  # "bisection" may under-noise: invariantly
        try:
            return rpp.calibrate(p, q, alpha=alpha, epsilon=eps, method=method, noise=noise)
        except ValueError as exc:  # a method that does not apply to the priors
            return str(exc).split(",")[0]


def _check_calibration(p, q, method, noise, o, c, alpha, eps):
    ref = _calibrate(p, q, method, noise, alpha, eps)
    moved = _calibrate(translate(p, o), translate(q, o), method, noise, alpha, eps)
    scaled = _calibrate(scale(p, c), scale(q, c), method, noise, alpha, eps)
    if isinstance(ref, str):  # the same refusal for the transformed pairs
        assert moved == ref and scaled == ref
        return
    for got, factor in ((moved, 1.0), (scaled, c)):
        assert not isinstance(got, str), got
        assert got.within_budget == ref.within_budget
        if np.isinf(ref.scale) or ref.scale == 0:
            assert got.scale == ref.scale
        else:
            assert abs(got.scale / (ref.scale * factor) - 1) <= SCALE_RTOL, (method, ref.scale * factor, got.scale)


FAST_PAIRS = [
    (rpp.Gaussian(mean=0.5, var=1.0), rpp.Gaussian(mean=-0.25, var=2.0)),
    (rpp.Empirical([0.0, 0.25, 1.0]), rpp.Empirical([0.5, 0.75])),
    # narrow components: before the centring the w-alpha rules (both noises) moved by 5e-4 relative
    (
        rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 1 / GRID], vars=[2.0**-12, 2.0**-12]),
        rpp.Gaussian(mean=1 / (2 * GRID), var=2.0**-12),
    ),
]


@pytest.mark.parametrize("pair", range(len(FAST_PAIRS)))
@pytest.mark.parametrize("noise, method", [(n, m) for n in ("gaussian", "laplace") for m in rpp.methods(n)])
@pytest.mark.deep
def test_every_method_invariant(noise, method, pair):
    """Every method, both noises: offset 2^39 + 1/64 (~5.5e11) and factors 2^-20 and 2^20."""
    p, q = FAST_PAIRS[pair]
    _check_calibration(p, q, method, noise, 2.0**39 + 1 / GRID, 2.0**-20, 3.0, 0.5)
    _check_calibration(p, q, method, noise, -(2.0**39) - 3 / GRID, 2.0**20, 3.0, 0.5)


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@settings(max_examples=20)
@given(
    p=priors(kinds=("gaussian", "mixture", "empirical")),
    q=priors(kinds=("gaussian", "mixture", "empirical")),
    o=offsets,
    c=factors,
    alpha=alphas,
    eps=st.sampled_from([0.1, 1.0]),
    data=st.data(),
)
def test_every_method_invariant_slow(noise, p, q, o, c, alpha, eps, data):
    method = data.draw(st.sampled_from(rpp.methods(noise)))
    _check_calibration(p, q, method, noise, o, c, alpha, eps)
