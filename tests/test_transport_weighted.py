"""W_inf between weighted empirical laws against an exact rational brute force.

The reference is independent of ``rpp.transport``: it evaluates both quantile functions
``Q(u) = min{x : F(x) >= u}`` in exact rational arithmetic at the midpoint of every interval
between consecutive CDF values of either law, and takes the largest gap.  The last test checks
the components' optimal coupling against POT's network simplex where two plans nearly tie.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

import rpp


def _brute_w_infinity(xa, wa, xb, wb):
    def cdf(x, w):
        total = sum(w)
        acc, out = Fraction(0), []
        for xi, wi in sorted(zip(x, w, strict=True)):
            acc += wi / total
            out.append((acc, xi, wi))
        return out

    a, b = cdf(xa, wa), cdf(xb, wb)
    cuts = sorted({Fraction(0), Fraction(1)} | {c for c, _, _ in a} | {c for c, _, _ in b})
    best = Fraction(0)
    for lo, hi in itertools.pairwise(cuts):
        u = (lo + hi) / 2
        qa = next(x for c, x, w in a if c >= u and w > 0)
        qb = next(x for c, x, w in b if c >= u and w > 0)
        best = max(best, abs(Fraction(int(qa)) - Fraction(int(qb))))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_w_infinity_weighted_empirical_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(300):
        n, m = rng.integers(1, 7, 2)
        xa, xb = rng.integers(-6, 7, n), rng.integers(-6, 7, m)
        wa = [Fraction(int(k)) for k in rng.integers(0, 5, n)]  # zero weights included
        wb = [Fraction(int(k)) for k in rng.integers(0, 5, m)]
        if sum(wa) == 0 or sum(wb) == 0:
            continue
        got = rpp.w_infinity(
            rpp.Empirical(xa, weights=[float(w) for w in wa]), rpp.Empirical(xb, weights=[float(w) for w in wb])
        )
        assert got == _brute_w_infinity(xa, wa, xb, wb)
        checked += 1
    assert checked > 200


def test_w_infinity_small_mass_moved_far():
    """W_inf sees how far mass moves, not how much: a weight of 1e-6 on a far atom counts fully."""
    p = rpp.Empirical([0, 1, 2], weights=[0.5, 0.5, 0.0])
    q = rpp.Empirical([0, 1, 2], weights=[0.5 - 1e-6, 0.5, 1e-6])
    assert rpp.w_infinity(p, q) == 1.0
    assert (
        rpp.w_infinity(rpp.Empirical([0, 1], weights=[1.0, 0.0]), rpp.Empirical([0, 2], weights=[1 - 1e-6, 1e-6]))
        == 2.0
    )


def test_component_coupling_reaches_the_optimum_where_two_plans_nearly_tie():
    """Found by the slow oracle tier: with HiGHS's default tolerances (1e-7) the plan cost 6e-8 above the
    optimum; POT's network simplex (independent of rpp) is the reference."""
    import ot

    P = rpp.GaussianMixture(weights=[0.2] * 5, means=[0.0, 0.0, 0.0, 0.0, 3.0], vars=[1.0] * 4 + [1.000002000002])
    Q = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 0.0], vars=[1.0, 1.6487212707001282])
    ci, cj = P.components(), Q.components()
    C = (ci.means[:, None] - cj.means[None, :]) ** 2 + (np.sqrt(ci.vars)[:, None] - np.sqrt(cj.vars)[None, :]) ** 2
    plan = rpp.component_coupling(P, Q)
    ref = float(np.sum(ot.emd(ci.weights, cj.weights, C) * C))
    assert np.allclose(plan.sum(axis=1), ci.weights, atol=1e-12) and np.allclose(
        plan.sum(axis=0), cj.weights, atol=1e-12
    )
    assert abs(float(np.sum(plan * C)) - ref) <= 1e-9 * ref
