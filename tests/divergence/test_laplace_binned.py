"""The binned enclosure of the Laplace divergence of two samples (rpp.divergence._laplace_binned, issue #26).

value +- error must contain the divergence of the samples themselves: checked against the arb
reference (tests/reference_flint.py, independent of rpp) in the regimes where a pointwise bound
could slip -- far from 0, alpha near 1 and large, duplicates, tiny weights, b far below and above
the spread, bins from a thousandth of b to b itself -- and, at 10^5 atoms, against the samples'
own proved divergence.
"""

import math

import numpy as np
import pytest

import rpp
from rpp.divergence import _laplace_atoms as la
from rpp.divergence import bin_samples, binned_laplace_divergence, bins_are_few
from rpp.noise import LaplaceNoise

EPS = np.finfo(float).eps


def _cases():
    rng = np.random.default_rng(2604)
    p0 = np.concatenate([rng.normal(0, 0.3, 60), [1.5, -2.0]])
    q0 = np.concatenate([rng.normal(0.2, 0.4, 50), [3.0]])
    dup = np.concatenate([p0[:30], p0[:10]])
    w = np.geomspace(1e-200, 1, p0.size)[rng.permutation(p0.size)]
    for off in (0.0, 1e6):
        yield f"at {off:g}, a=2, b=0.3", rpp.Empirical(off + p0), rpp.Empirical(off + q0), 2.0, 0.3
    yield "a = 1 + 1e-3", rpp.Empirical(p0), rpp.Empirical(q0), 1.001, 0.5
    yield "a = 30, b = 2", rpp.Empirical(p0), rpp.Empirical(q0), 30.0, 2.0
    yield "duplicates", rpp.Empirical(dup), rpp.Empirical(q0), 1.5, 0.2
    yield "weights 1e-200..1", rpp.Empirical(p0, weights=w), rpp.Empirical(q0), 3.0, 0.2
    yield "b = 0.01", rpp.Empirical(p0), rpp.Empirical(q0), 2.0, 0.01
    yield "b = 40", rpp.Empirical(p0), rpp.Empirical(q0), 6.0, 40.0


@pytest.mark.parametrize(
    "rho", [1e-3, pytest.param(0.05, marks=pytest.mark.slow), pytest.param(1.0, marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("name, p, q, alpha, b", list(_cases()), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.deep
def test_the_binned_enclosure_contains_the_arb_reference(name, p, q, alpha, b, rho):
    from reference_flint import laplace_noise_divergence, lower, upper

    la._RESULTS.clear()
    k = -math.floor(math.log2(b))  # the reference works at a scale in [1, 2): rescale all by 2^k (exact)
    c = 2.0**k
    for x, y in ((p, q), (q, p)):
        enc = binned_laplace_divergence(x, y, scale=b, alpha=alpha, rho=rho)
        assert enc.rigorous
        ref = laplace_noise_divergence(
            rpp.Empirical(x.support * c, weights=x.probs), rpp.Empirical(y.support * c, weights=y.probs), alpha, b * c
        )
        lo, hi = lower(ref), upper(ref)
        assert enc.value - enc.error <= lo and hi <= enc.value + enc.error, (name, rho, enc, lo, hi)
        # the binning term is what it says: (2 alpha - 1)/(alpha - 1) * h / b with h <= rho b
        assert enc.error >= (2 * alpha - 1) / (alpha - 1) * bin_samples(x, y, 2 * rho * b)[2] / b


def test_atoms_move_by_at_most_half_a_bin_and_the_weights_are_kept():
    rng = np.random.default_rng(7)
    p = rpp.Empirical(1e6 + rng.normal(0, 1, 5000))
    q = rpp.Empirical(1e6 + rng.normal(0.5, 1, 4000), weights=rng.uniform(0, 1, 4000))
    bp, bq, h, eta = bin_samples(p, q, 0.01)
    assert h <= 0.005 * (1 + 1e-9) + 2 * np.spacing(1e6)
    for x, bx in ((p, bp), (q, bq)):
        assert bx.support.size < x.support.size and np.all(np.diff(bx.support) > 0)
        assert math.fsum(bx.probs) == pytest.approx(1.0, abs=1e-15)
        # each binned weight is the sum of its bin's weights
        idx = np.searchsorted(bx.support, x.support - 0.005 - 1e-9)
        assert np.allclose(np.bincount(idx, weights=x.probs, minlength=bx.support.size), bx.probs, rtol=eta, atol=0)
    assert 0 < eta < 1e-11


def test_centres_of_mass_keep_each_bins_first_moment_and_move_atoms_by_at_most_a_bin():
    rng = np.random.default_rng(9)
    p = rpp.Empirical(1e6 + rng.normal(0, 1, 5000))
    q = rpp.Empirical(1e6 + rng.normal(0.5, 1, 4000), weights=rng.uniform(0, 1, 4000))
    bp, bq, h, _ = bin_samples(p, q, 0.01, centre="mass")
    assert h <= 0.01 * (1 + 1e-9) + 2 * np.spacing(1e6)
    for x, bx in ((p, bp), (q, bq)):
        assert np.all(np.diff(bx.support) > 0)
        assert math.fsum(bx.probs * bx.support) == pytest.approx(math.fsum(x.probs * x.support), rel=1e-15)
    with pytest.raises(ValueError, match="centre"):
        bin_samples(p, q, 0.01, centre="median")


def test_at_1e5_atoms_the_enclosure_contains_the_samples_own_proved_divergence():
    rng = np.random.default_rng(8)
    p, q = rpp.Empirical(rng.normal(0, 1, 100_000)), rpp.Empirical(rng.normal(0.5, 1.2, 100_000))
    for x, y in ((p, q), (q, p)):
        own = LaplaceNoise(scale=0.3).divergence(x, y, alpha=2.0)
        enc = binned_laplace_divergence(x, y, scale=0.3, alpha=2.0, rho=1e-3)
        assert enc.value - enc.error <= own.value - own.error and own.value + own.error <= enc.value + enc.error
        assert enc.error < 3.1e-3  # about 3 rho at alpha = 2


def test_bins_are_few_counts_atoms_per_bin():
    p, q = rpp.Empirical(np.arange(100.0)), rpp.Empirical(np.arange(100.0) + 0.5)
    assert bins_are_few(p, q, 10.0, atoms_per_bin=10)  # 10 + 10 bins hold 200 atoms
    assert not bins_are_few(p, q, 10.0, atoms_per_bin=11)
    assert not bins_are_few(p, q, 1.0, atoms_per_bin=2)
    assert not bins_are_few(p, q, 1e-320)  # (x - origin) / width overflows: not binned


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(scale=0.0, alpha=2.0, rho=0.1), "scale"),
        (dict(scale=np.inf, alpha=2.0, rho=0.1), "scale"),
        (dict(scale=1.0, alpha=1.0, rho=0.1), "alpha"),
        (dict(scale=1.0, alpha=2.0, rho=0.0), "rho"),
        (dict(scale=1.0, alpha=2.0, rho=1.5), "rho"),
        (dict(scale=1.0, alpha=2.0, rho=np.nan), "rho"),
    ],
)
def test_bad_arguments_are_named(kw, match):
    p, q = rpp.Empirical([0.0, 1.0]), rpp.Empirical([0.5])
    with pytest.raises(ValueError, match=match):
        binned_laplace_divergence(p, q, **kw)


def test_only_samples_are_binned():
    with pytest.raises(TypeError, match=r"q must be an rpp\.Empirical"):
        binned_laplace_divergence(rpp.Empirical([0.0]), rpp.Gaussian(mean=0, var=1), scale=1.0, alpha=2.0, rho=0.1)
