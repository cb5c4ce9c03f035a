"""The exact rule on two large samples with Laplace noise: the search guided by binned samples (issue #26).

The guide (``DivergenceMemo._guess``) only chooses where the search evaluates: the scale returned
must be the same minimal scale as the unguided search (to the search's tolerance), also when the
guide is wrong, and the check of both orders must hold at it.
"""

import importlib

import numpy as np
import pytest

import rpp

ex = importlib.import_module("rpp.rules._exact")


def _pair(n, seed=26):
    rng = np.random.default_rng(seed)
    return rpp.Empirical(rng.normal(0, 1, n)), rpp.Empirical(rng.normal(0.5, 1.2, n))


def _calibrate_counting(p, q, monkeypatch, guess=None, **kw):
    calls = []
    orig = ex.DivergenceMemo.__call__

    def counted(self, scale):
        if float(scale) not in self._values:
            calls.append(float(scale))
        return orig(self, scale)

    monkeypatch.setattr(ex.DivergenceMemo, "__call__", counted)
    if guess is not None:
        monkeypatch.setattr(ex.DivergenceMemo, "_guess", guess)
    cal = rpp.calibrate(p, q, alpha=2.0, epsilon=1.0, noise="laplace", method="exact", **kw)
    return cal, calls


def test_the_guided_search_returns_the_unguided_minimal_scale_with_fewer_evaluations(monkeypatch):
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)  # guided at this size (it pays from about 1e6 atoms)
    p, q = _pair(12_000)
    with monkeypatch.context() as m:
        guided, n_guided = _calibrate_counting(p, q, m)
    with monkeypatch.context() as m:
        unguided, n_unguided = _calibrate_counting(p, q, m, guess=lambda self, epsilon, fine=True: None)
    assert guided.guaranteed and unguided.guaranteed
    assert guided.scale == pytest.approx(unguided.scale, rel=2e-10)
    assert len(n_guided) < len(n_unguided), (n_guided, n_unguided)
    # minimal: 1e-9 less noise breaks the budget for one of the orders
    below = rpp.calibration.pair_divergence(p, q, alpha=2.0, scale=guided.scale * (1 - 1e-9), noise="laplace")
    assert below.value + below.error > 1.0 or below.value > 1.0 - 1e-8


@pytest.mark.parametrize(
    "factor, slope",
    [
        (2.0, -2.0),
        (0.5, -2.0),
        (1.0 + 1e-3, -2.0),
        (1.0 + 1e-9, -1e-9),
        (1.0, 5.0),
        (1.0 - 1e-9, -1e300),
        (1.0, np.nan),
    ],
)
def test_a_wrong_guide_costs_evaluations_never_noise(factor, slope, monkeypatch):
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)
    p, q = _pair(12_000)
    with monkeypatch.context() as m:
        reference, _ = _calibrate_counting(p, q, m, guess=lambda self, epsilon, fine=True: None)
    root = reference.scale

    def wrong(self, epsilon, fine=True):  # a wrong root, a wrong slope (a Newton step far off, or none)
        return (root * factor, slope)

    with monkeypatch.context() as m:
        cal, _ = _calibrate_counting(p, q, m, guess=wrong)
    assert cal.guaranteed and cal.divergence + cal.divergence_error <= 1.0
    assert cal.scale == pytest.approx(root, rel=2e-10)


def test_the_guide_is_only_for_large_samples_and_laplace_noise(monkeypatch):
    # where a bin would hold few atoms, the samples' own divergences are about as cheap: no guide
    assert ex.DivergenceMemo(*_pair(12_000), alpha=2.0, noise="laplace")._guess(1.0) is None
    p, q = _pair(12_000)
    assert ex._bins_are_few(p, q, 1.0) and not ex._bins_are_few(p, q, 1e-3)
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)
    small = ex.DivergenceMemo(*_pair(5_000), alpha=2.0, noise="laplace")
    assert small._guess(1.0) is None  # 10 000 atoms together
    gauss = ex.DivergenceMemo(*_pair(12_000), alpha=2.0, noise="gaussian")
    assert gauss._guess(1.0) is None
    memo = ex.DivergenceMemo(*_pair(12_000), alpha=2.0, noise="laplace")
    b, slope = memo._guess(1.0)
    assert 0 < b < memo._upper_end(1.0)[0] and -10 < slope < 0  # log D falls with log b
    assert np.isnan(memo._guess(1.0, fine=False)[1])
    assert memo.known() == {}  # the guide evaluated nothing of the order itself


@pytest.mark.parametrize("shift", [0.5, -0.5, 0.0])
def test_the_binned_order_solves_the_order_of_the_larger_root_first(shift, monkeypatch):
    """The order probe on bins picks the order whose own (unguided) root is the larger."""
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)
    rng = np.random.default_rng(31)
    p = rpp.Empirical(rng.normal(0, 1, 12_000))
    q = rpp.Empirical(rng.normal(shift, 0.7 if shift else 1.5, 12_000))  # unequal spreads: the orders differ
    memos = [ex.DivergenceMemo(p, q, alpha=2.0, noise="laplace"), ex.DivergenceMemo(q, p, alpha=2.0, noise="laplace")]
    decided = ex._binned_order(memos, 1.0)
    assert decided is not None and all(m.known() == {} for m in memos)  # the samples' divergence untouched
    with monkeypatch.context() as m:
        m.setattr(ex.DivergenceMemo, "_guess", lambda self, epsilon, fine=True: None)
        roots = [ex.search(x, y, alpha=2.0, epsilon=1.0, noise="laplace") for x, y in ((p, q), (q, p))]
    assert roots[decided[0]] >= roots[decided[1]], (roots, decided)


def test_the_fine_guide_starts_from_the_coarse_root_computed_once(monkeypatch):
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)
    memo = ex.DivergenceMemo(*_pair(12_000), alpha=2.0, noise="laplace")
    calls = []
    orig = ex.DivergenceMemo._coarse_guess
    monkeypatch.setattr(ex.DivergenceMemo, "_coarse_guess", lambda self, e: calls.append(e) or orig(self, e))
    coarse = memo._guess(1.0, fine=False)
    fine = memo._guess(1.0)
    assert len(calls) == 1 and abs(fine[0] / coarse[0] - 1) < 1e-4
    # the slope is that of log(D / epsilon) in log b on the fine bins: near the samples' own
    b = fine[0]
    d_hi, d_lo = (sum(memo(b * np.exp(s))) for s in (1e-4, -1e-4))
    assert fine[1] == pytest.approx((np.log(d_hi) - np.log(d_lo)) / 2e-4, rel=1e-3)


def test_both_orders_read_one_binning_of_the_pair(monkeypatch):
    p, q = _pair(3_000, seed=27)
    calls = []
    orig = ex.bin_samples
    monkeypatch.setattr(ex, "bin_samples", lambda *a, **k: calls.append(a[2]) or orig(*a, **k))
    ex._BINNED.clear()
    bp, bq = ex._binned_pair(p, q, 0.01)
    bq2, bp2 = ex._binned_pair(q, p, 0.01)
    assert len(calls) == 1 and bp2 is bp and bq2 is bq  # the same bins, swapped
    direct = orig(q, p, 0.01, centre="mass")  # and they are the pair binned in that order
    assert np.array_equal(direct[0].support, bq.support) and np.array_equal(direct[1].probs, bp.probs)
    ex._binned_pair(p, q, 0.02)
    assert len(calls) == 2  # another width: binned again
