"""A noise scale from a variance, rounded up (issue #38 item 3): the vectorised exact check.

``sqrt_up_array`` (Dekker's error-free product, numpy) must give, element by element, the
smallest double whose exact square is at least the variance: checked here against exact rational
arithmetic (``fractions.Fraction``, written out in this file, not rpp's scalar ``sqrt_up``) on
the edge values -- 0, subnormals, 1e-300, the borders of the vectorised range, 1e300, near
DBL_MAX, inf, exact squares and the doubles one ulp around them -- and on random values.
A θ with θ·θ < var exactly would under-noise.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import pytest

from rpp._lib import numerics
from rpp._lib.numerics import sqrt_up, sqrt_up_array
from rpp.rules import sensitivity_scale
from rpp.rules._gaussian import scale_of_variance

DBL_MAX = sys.float_info.max
TINY = 5e-324


def smallest_root_up(v: float) -> float:
    """The smallest double t >= 0 with Fraction(t)**2 >= Fraction(v), by exact arithmetic."""
    if v == 0 or math.isinf(v):
        return v
    target = Fraction(v)
    t = math.sqrt(v)
    # walk down while the previous double still squares to >= v, then up while t squares below v
    while t > 0 and Fraction(math.nextafter(t, 0)) ** 2 >= target:
        t = math.nextafter(t, 0)
    while Fraction(t) ** 2 < target:
        t = math.nextafter(t, math.inf)
    return t


def edge_values() -> list[float]:
    vals = [0.0, TINY, 2 * TINY, 1e-320, 2.2250738585072014e-308, 2.225073858507201e-308, 1e-300, 1e-250]
    vals += [numerics._SQRT_UP_LO, numerics._SQRT_UP_HI]
    vals += [math.nextafter(numerics._SQRT_UP_LO, 0), math.nextafter(numerics._SQRT_UP_LO, 1)]
    vals += [math.nextafter(numerics._SQRT_UP_HI, 0), math.nextafter(numerics._SQRT_UP_HI, math.inf)]
    vals += [1e300, 1e307, DBL_MAX, math.nextafter(DBL_MAX, 0), DBL_MAX / 2, 2.0**1022, math.inf]
    vals += [0.5, 1.0, 2.0, 3.0, 17.75, 1e-10, 1e10, 1 / 3]
    # exact squares of doubles and the doubles one ulp around them
    for t in (1.0, 3.0, 1.5, 12345.678, 0.1, math.sqrt(2.0), 1e-150, 1e150, 1.3e154, 2.0**-537, 2.0**511):
        sq = t * t
        vals += [sq, math.nextafter(sq, 0), math.nextafter(sq, math.inf)]
        exact = Fraction(t) ** 2  # the double t squared exactly, and its neighbours rounded
        vals += [float(exact)]
    return [v for v in vals if v >= 0]


def test_sqrt_up_array_matches_exact_arithmetic_on_edge_values():
    vals = np.array(edge_values())
    got = sqrt_up_array(vals)
    for v, t in zip(vals.tolist(), got.tolist(), strict=True):
        assert t == smallest_root_up(v), (v, t, smallest_root_up(v))
        assert math.isinf(v) or Fraction(t) ** 2 >= Fraction(v), v  # never under-noise


def test_sqrt_up_array_matches_exact_arithmetic_on_random_values():
    rng = np.random.default_rng(38)
    vals = np.concatenate(
        [
            np.exp(rng.uniform(-700, 700, 3000)),  # every magnitude of the vectorised range and beyond
            rng.uniform(0, 100, 3000),
            np.square(rng.uniform(0, 10, 2000)),  # rounded squares: the root is often one ulp off
            np.ldexp(rng.integers(1, 2**26, 1000).astype(float) ** 2, rng.integers(-200, 200, 1000)),  # exact squares
        ]
    )
    got = sqrt_up_array(vals)
    want = np.array([smallest_root_up(v) for v in vals.tolist()])
    assert np.array_equal(got, want)
    # the check is not vacuous: many of these roots are one ulp above np.sqrt
    assert (got > np.sqrt(vals)).sum() > 1000


def test_sqrt_up_array_agrees_with_the_scalar_path_and_keeps_the_shape():
    vals = np.array(edge_values())
    assert np.array_equal(sqrt_up_array(vals), [sqrt_up(v) for v in vals.tolist()])
    grid = np.arange(24.0).reshape(2, 3, 4) / 7
    out = sqrt_up_array(grid)
    assert out.shape == (2, 3, 4) and np.array_equal(out.ravel(), [smallest_root_up(v) for v in grid.ravel()])
    assert sqrt_up_array(np.array(4.0)).shape == ()
    assert np.isnan(sqrt_up_array([np.nan])[0])
    assert str(sqrt_up_array([-0.0])[0]) == "-0.0"  # sqrt(-0) is -0, as the scalar path


def test_sqrt_up_array_reaches_the_fallback_where_the_product_is_not_exact(monkeypatch):
    """Outside [2^-900, 2^1000] the exact scalar path decides; inside, it is never called."""
    calls = []
    real = numerics.sqrt_up
    monkeypatch.setattr(numerics, "sqrt_up", lambda v: calls.append(v) or real(v))
    sqrt_up_array(np.array([1.0, 2.0, 1e-250, 1e300, 0.0, np.inf]))
    assert calls == []
    sqrt_up_array(np.array([1e-310, 1e-300, DBL_MAX, 2.0**1001, 2.0]))
    assert calls == [1e-310, 1e-300, DBL_MAX, 2.0**1001]


def test_the_rules_use_it():
    v = np.array([2.0, 17.75, 1e-310, 0.0])
    assert np.array_equal(scale_of_variance(v), [smallest_root_up(x) for x in v.tolist()])
    assert scale_of_variance(2.0) == smallest_root_up(2.0)
    theta = sensitivity_scale(np.array([0.3, 1.0, 7.0]), alpha=3.0, epsilon=0.7)
    for w, t in zip((0.3, 1.0, 7.0), theta.tolist(), strict=True):
        assert Fraction(t) ** 2 >= Fraction(3.0 * w**2 / (2 * 0.7))


@pytest.mark.parametrize("v", [2.0, 1e-300, 1e300, 3.0])
def test_an_under_noising_root_would_be_caught(v):
    """The oracle itself is not vacuous: the double below the answer squares to less than v."""
    t = smallest_root_up(v)
    assert Fraction(math.nextafter(t, 0)) ** 2 < Fraction(v)
