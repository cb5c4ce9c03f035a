"""rpp.sampling: the exact, OS-entropy sampler of the rounded Gaussian and Laplace mechanisms.

The target law is computed independently with mpmath (50 digits):
P(K = k | x) = F(((k + 1/2) g - x) / scale) - F(((k - 1/2) g - x) / scale).
"""

from __future__ import annotations

import math
import os
import random
import sys
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy.stats import chi2

from rpp import sampling
from rpp.sampling import InsecureNoiseWarning, default_grid, secure_gaussian, secure_laplace


def _values_of(release):
    """The released values of a sampler: the record's ``.value`` (the laws are tested on the values)."""

    def draw(*args, **kwargs):
        return release(*args, **kwargs).value

    return draw


SAMPLERS = {"gaussian": _values_of(secure_gaussian), "laplace": _values_of(secure_laplace)}


@pytest.fixture(autouse=True)
def _quiet_insecure():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        yield


def cdf(family: str, t):
    """The noise CDF at t (mpmath, independent of rpp)."""
    t = mp.mpf(t)
    if family == "gaussian":
        return mp.ncdf(t)
    return mp.exp(t) / 2 if t < 0 else 1 - mp.exp(-t) / 2


def edge(family: str, k, x: float, scale: float, g: float):
    """F(((k + 1/2) g - x) / scale): P(K <= k | x), with x, scale and g as exact binary numbers."""
    return cdf(family, ((mp.mpf(k) + mp.mpf(1) / 2) * mp.mpf(g) - mp.mpf(x)) / mp.mpf(scale))


def chi2_pvalue(family: str, draws: np.ndarray, x: float, scale: float, g: float, width: int = 1) -> float:
    """Chi-square p-value of the grid indices of ``draws`` against the exact law, in bins of ``width``
    grid points (both tails pooled so that every expected count is >= 20)."""
    mp.mp.dps = 50
    k = np.round(draws / g).astype(np.int64)
    assert np.array_equal(k * g, draws)  # on the grid, exactly
    n = k.size
    centre = round(x / g)
    lo = centre - width * (int(6 * scale / g) // width + 1)
    edges = [lo]
    while edges[-1] < centre + (centre - lo):
        edges.append(edges[-1] + width)
    # bin i = [edges[i], edges[i+1]) in k; plus (-inf, edges[0]) and [edges[-1], inf)
    cum = [mp.mpf(0)] + [edge(family, e - 1, x, scale, g) for e in edges] + [mp.mpf(1)]
    probs = np.array([float(cum[i + 1] - cum[i]) for i in range(len(cum) - 1)])
    obs = np.bincount(np.searchsorted(edges, k, side="right"), minlength=len(probs)).astype(float)
    exp_ = probs * n
    # pool small expected counts into their neighbours (from both ends towards the centre)
    groups, cur_o, cur_e = [], 0.0, 0.0
    for o, e in zip(obs, exp_, strict=True):
        cur_o, cur_e = cur_o + o, cur_e + e
        if cur_e >= 20:
            groups.append((cur_o, cur_e))
            cur_o, cur_e = 0.0, 0.0
    if cur_e > 0:
        o_last, e_last = groups.pop()
        groups.append((o_last + cur_o, e_last + cur_e))
    o, e = np.array(groups).T
    assert abs(e.sum() - n) < 1e-6 * n and o.sum() == n
    stat = float(np.sum((o - e) ** 2 / e))
    return float(chi2.sf(stat, len(o) - 1))


# ---------------------------------------------------------------------------------------------
# the law


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
@pytest.mark.parametrize(
    "x, scale, g",
    [
        (0.1, 1.0, 0.25),  # x off the grid
        (0.125, 1.0, 0.25),  # x on a half-grid point: a boundary t = 0, F = 1/2 exactly
        (1e6 + 0.3, 1.0, 0.25),  # large x: taken exactly, no cancellation
        (-2.7, 3.1, 0.5),
    ],
)
@pytest.mark.parametrize("path", ["table", "per-draw"])
def test_law_matches_exact_pmf(monkeypatch, family, x, scale, g, path):
    if path == "per-draw":  # no shared boundary table: every draw searched on its own
        monkeypatch.setattr(sampling, "_TABLE_MIN", 10**9)
    draws = SAMPLERS[family](np.full(20_000, x), scale=scale, grid=g, insecure_seed=11)
    assert chi2_pvalue(family, draws, x, scale, g) > 1e-3


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_table_and_per_draw_paths_agree(monkeypatch, family):
    """The shared table decides a draw only where its bounds prove the same K as the search."""
    x = np.repeat([0.1, -2.5, 1e6 + 0.3], [6000, 300, 9000])
    fast = SAMPLERS[family](x, scale=0.5, insecure_seed=5)
    monkeypatch.setattr(sampling, "_TABLE_MIN", 10**9)
    assert np.array_equal(SAMPLERS[family](x, scale=0.5, insecure_seed=5), fast)


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_table_path_hands_boundary_draws_to_the_search(monkeypatch, family):
    """Draw 0 of 6000 equal values has U agreeing with F(t_j) on 128 bits: the table cannot decide it,
    the search reads past 128 bits and returns j or j + 1; the others are decided as before."""
    mp.mp.prec = 400
    n, x, scale = 6000, 0.1, 1.0
    g = default_grid(scale)
    j = round(x / g + 300)
    B = edge(family, j, x, scale, g)
    A = int(mp.floor(B * mp.mpf(2) ** 192))
    others = np.random.default_rng(2).bytes(8 * (n - 1))
    for plant_a, want in ((A - 1, j), (A + 1, j + 1)):
        assert plant_a >> 64 == A >> 64
        words = (plant_a >> 128).to_bytes(8, "big") + others + (plant_a & (2**128 - 1)).to_bytes(16, "big")
        p = plant(monkeypatch, int.from_bytes(words, "big"), 8 * len(words))
        y = SAMPLERS[family](np.full(n, x), scale=scale)
        assert y[0] == want * g and p.served == len(words)
        monkeypatch.setattr(sampling, "_TABLE_MIN", 10**9)
        p = plant(monkeypatch, int.from_bytes(words, "big"), 8 * len(words))
        assert np.array_equal(SAMPLERS[family](np.full(n, x), scale=scale), y)
        monkeypatch.setattr(sampling, "_TABLE_MIN", 256)
    mp.mp.dps = 50


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_law_at_the_default_grid(family):
    x, scale = 0.1, 1.7
    g = default_grid(scale)
    draws = SAMPLERS[family](np.full(20_000, x), scale=scale, insecure_seed=12)
    assert chi2_pvalue(family, draws, x, scale, g, width=128) > 1e-3


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_law_test_has_power(family):
    """The chi-square check rejects a law off by a quarter of the grid in x (so the tests above can fail)."""
    x, scale, g = 0.1, 1.0, 0.25
    draws = SAMPLERS[family](np.full(20_000, x), scale=scale, grid=g, insecure_seed=11)
    assert chi2_pvalue(family, draws, x + g / 4, scale, g) < 1e-6
    wide = SAMPLERS[family](np.full(20_000, x), scale=1.1 * scale, grid=g, insecure_seed=11)
    assert chi2_pvalue(family, wide, x, scale, g) < 1e-6


def test_numpy_float_noise_fails_the_law():
    """Float noise rounded the naive way (floor) is rejected: the test distinguishes rounding conventions."""
    x, scale, g = 0.1, 1.0, 0.25
    z = np.random.default_rng(3).normal(0, scale, 20_000)
    assert chi2_pvalue("gaussian", np.floor((x + z) / g) * g, x, scale, g) < 1e-6


# ---------------------------------------------------------------------------------------------
# planted uniform bits: the rigorous comparisons decide k at CDF boundaries


class Planted:
    """Stands in for os.urandom: serves the bits of ``a`` (``bits`` long, big-endian), then zeros."""

    def __init__(self, a: int, bits: int) -> None:
        self.buf = a.to_bytes(bits // 8, "big")
        self.served = 0

    def __call__(self, n: int) -> bytes:
        out = self.buf[self.served : self.served + n]
        self.served += n
        return out + bytes(n - len(out))


def plant(monkeypatch, a: int, bits: int) -> Planted:
    p = Planted(a, bits)
    monkeypatch.setattr(os, "urandom", p)
    return p


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
@pytest.mark.parametrize("t", [-6.0, -1.0, -0.3, 0.2, 2.0, 7.0])
def test_boundary_decided_exactly(monkeypatch, family, t):
    """U just below / just above F(t_j), agreeing with it on the first 128 bits: K = j / j + 1."""
    mp.mp.prec = 400
    x, scale = 0.1, 1.7
    g = default_grid(scale)
    j = round((t * scale + x) / g - 0.5)
    B = edge(family, j, x, scale, g)
    A = int(mp.floor(B * mp.mpf(2) ** 192))
    assert (A - 1) >> 64 == (A + 1) >> 64  # the two plants share their first 128 bits with B
    sampler = SAMPLERS[family]
    p = plant(monkeypatch, A - 1, 192)
    assert sampler(x, scale=scale) == j * g
    assert p.served >= 24  # it had to read past 128 bits
    p = plant(monkeypatch, A + 1, 192)
    assert sampler(x, scale=scale) == (j + 1) * g
    assert p.served >= 24
    mp.mp.dps = 50


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_exact_half_boundary(monkeypatch, family):
    """x on a half-grid point: F(t_0) = 1/2 exactly; U in [1/2 - 2**-64, 1/2) gives 0, U >= 1/2 gives g."""
    g = 2.0**-10
    p = plant(monkeypatch, (1 << 63) - 1, 64)
    assert SAMPLERS[family](g / 2, scale=1.0) == 0.0 and p.served == 8
    p = plant(monkeypatch, 1 << 63, 64)
    assert SAMPLERS[family](g / 2, scale=1.0) == g and p.served == 8


def test_undecided_comparison_raises_not_guesses(monkeypatch):
    """Past MAX_BITS an undecided comparison is an error, never a guess (here MAX_BITS lowered to 64)."""
    mp.mp.prec = 300
    x, scale = 0.1, 1.7
    g = default_grid(scale)
    A = int(mp.floor(edge("gaussian", 0, x, scale, g) * mp.mpf(2) ** 192))
    monkeypatch.setattr(sampling, "MAX_BITS", 64)
    plant(monkeypatch, A, 192)
    with pytest.raises(RuntimeError, match="undecided"):
        secure_gaussian(x, scale=scale)
    mp.mp.dps = 50


# ---------------------------------------------------------------------------------------------
# Mironov (2012): float noise has an x-dependent support; the rounded exact sampler does not


def old_laplace_outputs(x: float, b: float, kmax: int) -> set[float]:
    """Every output of the old path ``x + rng.laplace(0, b)`` whose uniform is U = k 2**-53, k < kmax.

    numpy's Laplace sampler: U = next_double (a multiple of 2**-53), z = loc + b log(U + U) for
    U < 1/2 (C's log: math.log); checked against numpy below.
    """
    return {x + (0.0 + b * math.log(k * 2.0**-53 + k * 2.0**-53)) for k in range(1, kmax)}


def test_numpy_laplace_structure():
    b = 1.3
    u = np.random.default_rng(5).random(20_000)
    z = np.random.default_rng(5).laplace(0.0, b, 20_000)
    ref = [(0.0 - b * math.log(2.0 - v - v)) if v >= 0.5 else (0.0 + b * math.log(v + v)) for v in u]
    assert np.array_equal(z, ref)


def test_old_float_path_support_depends_on_x():
    """In the window [-35, -28] the outputs reachable from x0 = 0 and x1 = 2**-30 are disjoint sets:
    each observed output there tells x0 from x1 with certainty (an infinite Rényi divergence)."""
    b, x0, x1 = 1.0, 0.0, 2.0**-30
    w0 = {y for y in old_laplace_outputs(x0, b, 5000) if -35 <= y <= -28}
    w1 = {y for y in old_laplace_outputs(x1, b, 5000) if -35 <= y <= -28}
    assert len(w0) > 1000 and len(w1) > 1000 and not (w0 & w1)


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_rounded_path_support_and_law_do_not_read_x(monkeypatch, family):
    """The same window, the new sampler: every grid point is reached from x0 and from x1 (U planted in
    the exact interval of each), and the probability ratio stays within the continuous mechanism's."""
    mp.mp.prec = 300
    b, x0, x1 = 1.0, 0.0, 2.0**-30
    g = default_grid(b)
    lo, hi = (-35, -28) if family == "laplace" else (-7, -5)
    ks = np.random.default_rng(0).integers(round(lo / g), round(hi / g), 40)
    for k in map(int, ks):
        ratios = []
        for x in (x0, x1):
            a, c = edge(family, k - 1, x, b, g), edge(family, k, x, b, g)
            assert c > a  # every grid point has positive probability
            plant(monkeypatch, int(mp.floor((a + c) / 2 * mp.mpf(2) ** 256)), 256)
            y = SAMPLERS[family](x, scale=b)
            assert y == k * g
            ratios.append(c - a)
        r = abs(mp.log(ratios[0] / ratios[1]))
        if family == "laplace":  # pointwise bound of the Laplace mechanism: |log ratio| <= |x0 - x1| / b
            assert r <= abs(x1 - x0) / b * (1 + mp.mpf(2) ** -100)
        else:  # Gaussian: the same log-ratio as the density's, within the grid cell (|t| <= 7, shift 2**-30)
            assert r <= (abs(k * g) + g) * abs(x1 - x0) / b**2 * 2
    mp.mp.dps = 50


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_outputs_on_the_grid(family):
    g = 2.0**-7
    y = SAMPLERS[family](np.array([[0.0, 2.0**-30], [1e5 + 1e-3, -3.3]]), scale=0.5, grid=g, insecure_seed=3)
    assert y.shape == (2, 2) and np.array_equal(np.round(y / g) * g, y)


# ---------------------------------------------------------------------------------------------
# the randomness: OS entropy by default, reproducible only through insecure_seed


def test_default_reads_os_entropy(monkeypatch):
    calls = []
    real = os.urandom

    def counting(n):
        calls.append(n)
        return real(n)

    monkeypatch.setattr(os, "urandom", counting)

    def no_numpy(*args, **kwargs):
        raise AssertionError("numpy's generator used on the secure path")

    monkeypatch.setattr(np.random, "default_rng", no_numpy)
    monkeypatch.setattr(np.random, "PCG64", no_numpy)
    y = secure_gaussian(np.zeros(3), scale=1.0).value
    assert calls and calls[0] == 24 and y.shape == (3,)
    calls.clear()
    secure_laplace(0.0, scale=1.0)
    assert calls
    calls.clear()
    secure_laplace(0.0, scale=1.0, rng=random.SystemRandom())  # SystemRandom reads the OS too (not os.urandom)
    assert not calls


@pytest.mark.parametrize(
    "bad", [0, 7, np.int64(3), np.random.default_rng(0), np.random.RandomState(0), np.random.PCG64(0)]
)
def test_numpy_generators_and_int_seeds_refused(bad):
    for sampler in SAMPLERS.values():
        with pytest.raises(ValueError, match="insecure_seed") as exc:
            sampler(1.0, scale=1.0, rng=bad)
        assert "rng" in str(exc.value)


def test_argument_errors():
    with pytest.raises(TypeError, match="rng"):
        secure_gaussian(1.0, scale=1.0, rng="seed")
    with pytest.raises(ValueError, match="not both"):
        secure_gaussian(1.0, scale=1.0, rng=random.SystemRandom(), insecure_seed=1)
    for bad in (-1, (1, -2)):
        with pytest.raises(ValueError, match="insecure_seed"):
            secure_gaussian(1.0, scale=1.0, insecure_seed=bad)
    for bad in (1.5, True, "1", ()):
        with pytest.raises(TypeError, match="insecure_seed"):
            secure_gaussian(1.0, scale=1.0, insecure_seed=bad)
    for bad in (0.0, -1.0, np.inf, np.nan, 1e301):
        with pytest.raises(ValueError, match="scale"):
            secure_gaussian(1.0, scale=bad)
    with pytest.raises(TypeError, match="scale"):
        secure_gaussian(1.0, scale="1")
    for bad in (0.3, 2.0, 2.0**-61, -0.25, 0.0, np.inf):
        with pytest.raises(ValueError, match="grid"):
            secure_gaussian(1.0, scale=1.0, grid=bad)
    with pytest.raises(TypeError):
        secure_gaussian(1.0, 1.0)  # scale is keyword-only


def test_insecure_seed_is_flagged_and_reproducible():
    with pytest.warns(InsecureNoiseWarning, match="UNSAFE: reproducible noise"):
        a = secure_gaussian(np.zeros(5), scale=1.0, insecure_seed=4)
    b = secure_gaussian(np.zeros(5), scale=1.0, insecure_seed=4)
    c = secure_gaussian(np.zeros(5), scale=1.0, insecure_seed=(4, 1))
    assert np.array_equal(a.value, b.value) and not np.array_equal(a.value, c.value)
    assert a.reproducible and a.source == "insecure_seed"  # the record says so, whatever the caller does


def test_missing_flint_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "flint", None)
    with pytest.raises(ImportError, match="pip install python-flint"):
        secure_gaussian(1.0, scale=1.0)


def test_default_grid():
    for s in np.random.default_rng(1).lognormal(0, 20, 200):
        g = default_grid(s)
        assert math.frexp(g)[0] == 0.5 and s / 2**11 < g <= s / 2**10
    assert secure_gaussian(np.zeros(0), scale=1.0).value.shape == (0,)
    assert isinstance(secure_gaussian(0.0, scale=1.0).value, float)


# ---------------------------------------------------------------------------------------------
# no value in any message

SENTINEL = 7391.0412573


def _forms(v: float) -> list[str]:
    return [repr(v), str(v), f"{v:g}", f"{v:.3f}", f"{v:.2f}", f"{v:.1f}", "7391"]


def test_value_never_in_messages(monkeypatch):
    calls = [
        lambda: secure_gaussian([SENTINEL, np.nan], scale=1.0),
        lambda: secure_laplace([SENTINEL, np.inf], scale=1.0),
        lambda: secure_gaussian(SENTINEL, scale=-1.0),
        lambda: secure_gaussian(SENTINEL, scale=1.0, grid=0.3),
        lambda: secure_gaussian(SENTINEL, scale=1.0, rng=np.random.default_rng(0)),
        lambda: secure_gaussian(SENTINEL, scale=1.0, rng="x"),
        lambda: secure_gaussian(SENTINEL, scale=1.0, insecure_seed=-1),
        lambda: secure_gaussian([SENTINEL, "a"], scale=1.0),
    ]
    for call in calls:
        with pytest.raises((ValueError, TypeError)) as exc:
            call()
        assert not any(f in str(exc.value) for f in _forms(SENTINEL))
    big = 1.7976931348623157e308  # overflow: the release is refused, the value not shown
    for seed in range(20):
        try:
            secure_gaussian(big, scale=1e300, insecure_seed=seed)
        except ValueError as exc:
            assert not any(f in str(exc) for f in [*_forms(big), "1.79"])
            break
    else:
        raise AssertionError("no overflow in 20 draws")
    # the refinement cap (MAX_BITS lowered): RuntimeError without the value
    mp.mp.prec = 300
    g = default_grid(1.0)
    A = int(mp.floor(edge("gaussian", round(SENTINEL / g), SENTINEL, 1.0, g) * mp.mpf(2) ** 192))
    monkeypatch.setattr(sampling, "MAX_BITS", 64)
    plant(monkeypatch, A, 192)
    with pytest.raises(RuntimeError) as exc:
        secure_gaussian(SENTINEL, scale=1.0)
    assert not any(f in str(exc.value) for f in _forms(SENTINEL))
    mp.mp.dps = 50


def test_dyadic_comparison_exact_and_cheap():
    cmp = sampling._dyadic_cmp
    assert cmp(3, -1, 1, 0) == 1 and cmp(1, 0, 3, -1) == -1 and cmp(2, -1, 1, 0) == 0
    assert cmp(0, 5, 1, -(10**80)) == -1 and cmp(-1, 0, 0, 0) == -1 and cmp(0, 0, 0, 7) == 0
    assert cmp(1, -64, 5, -(10**80)) == 1  # exponents 10**80 apart: decided without shifting
    assert cmp(-1, -64, -5, -(10**80)) == -1 and cmp(1, -(10**80), -3, 10**80) == 1
    rng = np.random.default_rng(8)
    for _ in range(2000):
        p, q = (int(v) for v in rng.integers(-(2**40), 2**40, 2))
        e1, e2 = (int(v) for v in rng.integers(-70, 70, 2))
        d = Fraction(p) * Fraction(2) ** e1 - Fraction(q) * Fraction(2) ** e2
        assert cmp(p, e1, q, e2) == (d > 0) - (d < 0)


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
def test_float_guess_only_chooses_the_start(monkeypatch, family):
    """A wrong float guess (off by 10**4 scales, or by a random amount) changes no output."""
    x = np.linspace(-3, 3, 200)
    ref = SAMPLERS[family](x, scale=0.7, insecure_seed=21)
    real = sampling._guess_offsets
    for shift in (lambda z: z + 1e4 * 0.7, lambda z: -z, lambda z: z * np.nan):
        monkeypatch.setattr(sampling, "_guess_offsets", lambda fam, a, s, f=shift: f(real(fam, a, s)))
        assert np.array_equal(SAMPLERS[family](x, scale=0.7, insecure_seed=21), ref)


def test_insecure_warning_points_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        secure_laplace(0.0, scale=1.0, insecure_seed=1)
    assert [w.filename for w in caught] == [__file__]
