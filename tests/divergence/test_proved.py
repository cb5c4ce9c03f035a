"""The proved path (``rpp.divergence._proved``, arb): enclosures checked against mpmath at 50 digits.

Every enclosure must contain the independent mpmath value (``tests/reference_mpmath.py``, which
shares no code with rpp; the weights are normalised in mpmath, as the priors are laws) and be
tight: relative half-width <= 1e-10 (1e-9 at alpha = 1 + 1e-6, where 1/(alpha - 1) amplifies the
integral's width).  Cases: mixtures against mixtures (the issue's 3 against 2 components),
atoms, Laplace noise on Gaussian components and on atoms, means far from zero, alpha near 1,
alpha below 1 and large alpha.
"""

import math
import time
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from reference_mpmath import renyi as mp_renyi
from rpp.divergence._proved import MAX_COMPONENTS, proved_divergence


def _normalised(prior):
    w, m, v = prior
    with mp.workdps(60):
        total = mp.fsum(mp.mpf(x) for x in w)
        return [mp.mpf(x) / total for x in w], m, v


def oracle(P, Q, alpha, noise, scale, dps=50):
    with mp.workdps(dps + 10):
        return mp_renyi(_normalised(P), _normalised(Q), alpha, noise=noise, scale=scale, dps=dps)


THREE = ([0.3, 0.4, 0.3], [-1.0, 0.0, 2.0], [0.5, 1.0, 0.25])
TWO = ([0.5, 0.5], [0.0, 1.5], [1.0, 2.0])
ATOMS_P = ([0.5, 0.5], [0.0, 1.0], [0.0, 0.0])
ATOMS_Q = ([0.3, 0.7], [0.0, 1.0], [0.0, 0.0])
MIX = ([0.5, 0.5], [0.0, 1.0], [0.25, 0.25])
ONE = ([1.0], [0.25], [1.0])


def _far(prior, c):
    return prior[0], [x + c for x in prior[1]], prior[2]


CASES = [
    # (P, Q, alpha, noise, scale, relative tolerance of the width)
    (THREE, TWO, 2.0, "gaussian", 1.0404881137835467, 1e-10),  # the pair at its calibrated scale
    (TWO, THREE, 2.0, "gaussian", 1.0404881137835467, 1e-10),
    (THREE, TWO, 3.0, "laplace", 1.3, 1e-10),
    (ATOMS_P, ATOMS_Q, 2.0, "gaussian", 0.7, 1e-10),
    (ATOMS_P, ATOMS_Q, 5.0, "laplace", 0.5, 1e-10),
    (MIX, ONE, 1.001, "gaussian", 0.5, 1e-10),
    (MIX, ONE, 1 + 1e-6, "gaussian", 1.0, 1e-9),
    (MIX, ONE, 1 + 1e-6, "laplace", 1.0, 1e-9),
    (MIX, ONE, 0.5, "gaussian", 1.0, 1e-10),
    (MIX, ONE, 0.5, "laplace", 1.0, 1e-10),
    (MIX, ONE, 50.0, "gaussian", 3.0, 1e-10),
    (MIX, ONE, 20.0, "laplace", 3.0, 1e-10),
    (_far(MIX, 1e9), _far(ONE, 1e9), 2.0, "gaussian", 0.5, 1e-10),
    (_far(THREE, -3e7), _far(TWO, -3e7), 4.0, "laplace", 2.0, 1e-10),
    (([0.5, 0.5], [-30.0, 30.0], [1.0, 1.0]), ([0.5, 0.5], [-29.0, 31.0], [1.0, 1.0]), 5.0, "gaussian", 0.5, 1e-10),
    (([0.5, 0.5], [0.0, 1.0], [25.0, 16.0]), ([1.0], [0.5], [20.0]), 2.0, "laplace", 0.5, 1e-10),  # s >> b
    (([1.0], [0.0], [0.0]), ([1.0], [1.0], [0.0]), 3.0, "laplace", 1.0, 1e-10),  # Laplace shift: closed form below
]


def _marked(case):
    """Laplace noise on Gaussian components: the mpmath oracle takes 40-70 s per case (slow tier)."""
    P, Q, _, noise, *_ = case
    slow = noise == "laplace" and any(v > 0 for v in P[2] + Q[2])
    return pytest.param(*case, marks=pytest.mark.slow) if slow else case


@pytest.mark.parametrize(("P", "Q", "alpha", "noise", "scale", "rtol"), [_marked(c) for c in CASES])
def test_enclosure_contains_mpmath_and_is_tight(P, Q, alpha, noise, scale, rtol):
    c = proved_divergence(P, Q, alpha=alpha, family=noise, scale=scale)
    assert c is not None and c.rigorous
    ref = oracle(P, Q, alpha, noise, scale)
    assert c.lower <= ref <= c.upper, (c, ref)
    assert c.error <= rtol * abs(c.value), c


def test_laplace_shift_closed_form():
    """Atoms 0 and 1 under Lap(1), alpha = 3: Mironov 2017, Prop. 6 (an exact formula, no quadrature)."""
    a, b = mp.mpf(3), mp.mpf(1)
    with mp.workdps(50):
        exact = mp.log(a / (2 * a - 1) * mp.exp((a - 1) / b) + (a - 1) / (2 * a - 1) * mp.exp(-a / b)) / (a - 1)
    c = proved_divergence(([1.0], [0.0], [0.0]), ([1.0], [1.0], [0.0]), alpha=3.0, family="laplace", scale=1.0)
    assert c.lower <= exact <= c.upper and c.error < 1e-15


def test_gaussian_closed_form():
    """Two Gaussians: alpha (mu_i - mu_j)^2 / (2 (var + theta^2)) for equal variances."""
    c = proved_divergence(([1.0], [0.0], [1.0]), ([1.0], [2.0], [1.0]), alpha=3.0, family="gaussian", scale=3.0)
    exact = Fraction(3) * 4 / (2 * 10)
    assert c.lower <= exact <= c.upper and c.error < 1e-15


@pytest.mark.parametrize("alpha", [4.0, 100.0])
def test_proved_infinite_when_q_is_narrower(alpha):
    """alpha / V_P < (alpha - 1) / V_Q: p^a q^(1-a) grows like exp(c x^2), the integral diverges."""
    P, Q = ONE, MIX  # V_P = 1 + 1, V_Q = 0.25 + 1
    assert Fraction(alpha) / 2 < Fraction(alpha - 1) / Fraction(5, 4)
    c = proved_divergence(P, Q, alpha=alpha, family="gaussian", scale=1.0)
    assert c.rigorous and c.value == math.inf and c.error == 0
    # the oracle's integral over growing ranges grows without bound
    with mp.workdps(30):
        fp = lambda y: mp.npdf(y, 0.25, mp.sqrt(2))
        fq = lambda y: (mp.npdf(y, 0, mp.sqrt(1.25)) + mp.npdf(y, 1, mp.sqrt(1.25))) / 2
        parts = [mp.quad(lambda y: fp(y) ** alpha * fq(y) ** (1 - alpha), [r, r + 1]) for r in (20, 40)]
    assert parts[1] > parts[0] > 1


def test_translation_invariant():
    a = proved_divergence(THREE, TWO, alpha=2.5, family="gaussian", scale=0.8)
    b = proved_divergence(_far(THREE, 2.0**40), _far(TWO, 2.0**40), alpha=2.5, family="gaussian", scale=0.8)
    assert max(a.lower, b.lower) <= min(a.upper, b.upper)


def test_too_many_components_is_not_proved_under_laplace_noise():
    """More components than the arb path takes: Laplace noise has no proved path, Gaussian noise the convexity bounds."""
    n = MAX_COMPONENTS + 1
    big = ([1.0 / n] * n, list(np.linspace(0, 1, n)), [0.0] * n)
    assert proved_divergence(big, ONE, alpha=2.0, family="laplace", scale=1.0) is None
    got = proved_divergence(big, ONE, alpha=2.0, family="gaussian", scale=1.0)
    assert got is not None and got.rigorous and got.error < 1e-4


def test_time_per_pair():
    """The review measured 0.2-0.7 s per pair with acb.integral; allow 10 s on a loaded machine."""
    proved_divergence(MIX, ONE, alpha=2.0, family="gaussian", scale=1.0)  # import flint
    t0 = time.perf_counter()
    proved_divergence(THREE, TWO, alpha=2.0, family="gaussian", scale=1.0)
    proved_divergence(THREE, TWO, alpha=2.0, family="laplace", scale=1.0)
    assert time.perf_counter() - t0 < 10.0


@pytest.mark.parametrize(
    ("kw", "word"),
    [
        ({"alpha": 1.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": math.inf}, "alpha"),
        ({"scale": -1.0}, "scale"),
        ({"scale": 0.0, "family": "laplace"}, "scale"),  # scale 0 is "no noise" for Gaussian noise only
        ({"scale": math.nan}, "scale"),
        ({"family": "cauchy"}, "family"),
    ],
)
def test_bad_input(kw, word):
    args = {"alpha": 2.0, "family": "gaussian", "scale": 1.0} | kw
    with pytest.raises(ValueError, match=word):
        proved_divergence(MIX, ONE, **args)


def test_missing_flint_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "flint", None)
    with pytest.raises(ImportError, match="pip install python-flint"):
        proved_divergence(MIX, ONE, alpha=2.0, family="gaussian", scale=1.0)


@pytest.mark.slow
def test_twenty_atoms():
    rng = np.random.default_rng(1)
    at = np.sort(rng.normal(size=20))
    P = ([1 / 20] * 20, at.tolist(), [0.0] * 20)
    Q = ([1 / 20] * 20, (at + 0.3).tolist(), [0.0] * 20)
    for noise in ("gaussian", "laplace"):
        c = proved_divergence(P, Q, alpha=3.0, family=noise, scale=0.2)
        ref = oracle(P, Q, 3.0, noise, 0.2, dps=25)  # 25 digits: far below the enclosures' 1e-10 and 1e-5
        # arb (Laplace) to 1e-10; under Gaussian noise more than 8 atoms take the convexity bounds (1e-5 of D)
        assert c.lower <= ref <= c.upper and c.error <= (1e-10 if noise == "laplace" else 1e-5) * c.value
