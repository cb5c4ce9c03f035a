"""W_inf between weighted empirical laws against an exact rational brute force.

The reference is independent of ``rpp.transport``: it evaluates both quantile functions
``Q(u) = min{x : F(x) >= u}`` in exact rational arithmetic at the midpoint of every interval
between consecutive CDF values of either law, and takes the largest gap.
"""

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
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
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
