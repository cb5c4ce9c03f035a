"""The proved path's closed form for two single Gaussians after Gaussian noise, judged by mpmath.

:func:`rpp.divergence.proved.proved_divergence` encloses the closed form of two Gaussians (a prior of one
component or one atom each, plus N(0, theta^2)) in arb.  The judge is mpmath at 60 digits: the
integral of p^alpha q^(1-alpha) by quadrature where it is benign, and the closed form of Gil, Alajaji
and Linder (2013) everywhere, both from the floats given to rpp (exact binary numbers).
"""

import mpmath as mp
import numpy as np
import pytest

from rpp.divergence.proved import proved_divergence

pytestmark = pytest.mark.filterwarnings("error")


def _truth(mi, vi, mj, vj, theta, alpha):
    with mp.workdps(60):
        th2 = mp.mpf(theta) ** 2  # exact: 106 bits
        Vi, Vj, d, a = mp.mpf(vi) + th2, mp.mpf(vj) + th2, mp.mpf(mi) - mp.mpf(mj), mp.mpf(alpha)
        va = a * Vj + (1 - a) * Vi
        if va <= 0:
            return mp.inf
        return a * d * d / (2 * va) + mp.log(Vj / Vi) / 2 + mp.log(Vj / va) / (2 * (a - 1))


def _quad(mi, vi, mj, vj, theta, alpha):
    with mp.workdps(40):
        si, sj = mp.sqrt(mp.mpf(vi) + mp.mpf(theta) ** 2), mp.sqrt(mp.mpf(vj) + mp.mpf(theta) ** 2)
        d = mp.mpf(mi) - mp.mpf(mj)

        def f(x):
            return mp.npdf(x, d, si) ** alpha * mp.npdf(x, 0, sj) ** (1 - alpha)

        pts = sorted({-40 * sj, d - 40 * si, d, mp.mpf(0), 40 * sj, d + 40 * si})
        return mp.log(mp.quad(f, [-mp.inf, *pts, mp.inf])) / (alpha - 1)


CASES = [  # (mean_i, var_i, mean_j, var_j, theta, alpha)
    (0.0, 0.0, 0.37, 0.0, 1.06, 3.3),  # two atoms: alpha * d^2 / (2 theta^2)
    (1.0, 1.0, 0.0, 2.0, 0.5, 0.5),
    (0.2, 0.0, 0.0, 0.4, 1.0, 3.0),  # an atom against a Gaussian
    (0.0, 4.0, 0.0, 1.0, 0.3, 1.01),  # equal means, unequal variances, alpha near 1
    (1e6 + 0.5, 1.0, 1e6, 1.0, 0.7, 2.0),  # far from 0: the difference of the means is exact
    (0.0, 1.0, 1e-9, 1.0, 1.0, 2.0),  # a tiny divergence (1e-18): no cancellation in arb
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("order", ["ij", "ji"])
def test_two_gaussians_are_enclosed(case, order):
    mi, vi, mj, vj, theta, alpha = case
    if order == "ji":
        mi, vi, mj, vj = mj, vj, mi, vi
    c = proved_divergence(([1.0], [mi], [vi]), ([1.0], [mj], [vj]), alpha=alpha, family="gaussian", scale=theta)
    truth = _truth(mi, vi, mj, vj, theta, alpha)
    assert c.rigorous
    assert c.lower <= truth <= c.upper
    assert c.error <= 1e-15 * abs(c.value) + 1e-300  # tight: arb at 128 bits or more
    if abs(mi - mj) < 10:  # benign: the quadrature is accurate there (judged by itself at 40 digits)
        assert abs(float(_quad(mi, vi, mj, vj, theta, alpha)) - c.value) <= 1e-12 * abs(c.value) + 1e-20


def test_random_pairs_are_enclosed():
    rng = np.random.default_rng(20261205)
    for _ in range(300):
        mi, mj = rng.normal(0, 3, 2) * 10.0 ** rng.integers(-6, 7)
        vi, vj = rng.choice([0.0, 1e-6, 1e-3, 1.0, 4.0, 1e4], 2)
        theta = float(10.0 ** rng.uniform(-3, 2))
        alpha = float(rng.choice([0.1, 0.5, 0.99, 1.001, 1.5, 2.0, 7.5, 64.0, 1000.0]))
        c = proved_divergence(([1.0], [mi], [vi]), ([1.0], [mj], [vj]), alpha=alpha, family="gaussian", scale=theta)
        truth = _truth(mi, vi, mj, vj, theta, alpha)
        if truth == mp.inf:
            assert c.value == np.inf and c.rigorous
        else:
            assert c.rigorous and c.lower <= truth <= c.upper, (mi, vi, mj, vj, theta, alpha)


def test_the_edge_of_the_tail_condition():
    # alpha * V_j + (1 - alpha) * V_i = 0 exactly: V_i = 2, V_j = 1, alpha = 2 (theta = 0, priors of
    # variance 2 and 1): the integrand is exp(linear) and the integral diverges; the proved path refuses
    # at the exact edge (its tail bound does not apply) and is +inf just beyond it
    from rpp.divergence.proved import proved_or_reason

    assert isinstance(
        proved_or_reason(([1.0], [0.0], [2.0]), ([1.0], [0.0], [1.0]), alpha=2.0, family="gaussian", scale=0.0), str
    )
    c = proved_divergence(
        ([1.0], [0.0], [2.0]), ([1.0], [0.0], [1.0]), alpha=2.0 + 2**-40, family="gaussian", scale=0.0
    )
    assert c.value == np.inf and c.rigorous
