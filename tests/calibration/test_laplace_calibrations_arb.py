"""Laplace calibrations on samples against arb, with every shortcut of issue #26 forced on (slow tier).

The guided exact search (binned guide, Newton step), the binned check of calibrate, and
w-alpha-tight's grid bracket and closed form switch themselves on only for large samples; here
they are forced on small ones, so that the returned scale can be checked against the arb reference
(tests/reference_flint.py, independent of rpp) in both orders of each pair, in the hard regimes:
priors far from 0, alpha near 1 and large, tiny epsilon, equal means with unequal spreads.
"""

import importlib
import math

import pytest

import rpp
from hard_pairs import sample_pairs

ex = importlib.import_module("rpp.rules._exact")
emp = importlib.import_module("rpp.rules._empirical")
search_mod = importlib.import_module("rpp.calibration._search")

pytestmark = pytest.mark.slow


def _arb(x, y, alpha, b):
    """The arb ball of D_alpha(x * Lap(b) || y * Lap(b)), computed with b rescaled into [1, 2) (exact powers of 2)."""
    from reference_flint import laplace_noise_divergence

    c = 2.0 ** (-math.floor(math.log2(b)))
    return laplace_noise_divergence(
        rpp.Empirical(x.support * c, weights=x.probs), rpp.Empirical(y.support * c, weights=y.probs), alpha, b * c
    )


@pytest.mark.parametrize("method", ["exact", "pierquin", "w-alpha-tight"])
@pytest.mark.parametrize(
    "name, p, q, alpha, eps", list(sample_pairs(2605)), ids=lambda v: v if isinstance(v, str) else ""
)
def test_the_scale_meets_the_budget_in_arb_in_both_orders(name, p, q, alpha, eps, method, monkeypatch):
    from reference_flint import lower, upper

    monkeypatch.setattr(ex, "_GUIDE_MIN_ATOMS", 1)
    monkeypatch.setattr(ex, "_GUIDE_ATOMS_PER_BIN", 1)
    monkeypatch.setattr(search_mod, "_BINNED_MIN_ATOMS", 1)
    monkeypatch.setattr(search_mod, "bins_are_few", lambda *a, **k: True)
    monkeypatch.setattr(emp, "GRID_MIN_PAIRS", 1)
    used = []
    fine, binned = ex.DivergenceMemo._fine_guess, search_mod.binned_laplace_divergence
    monkeypatch.setattr(ex.DivergenceMemo, "_fine_guess", lambda *a: used.append("guide") or fine(*a))
    monkeypatch.setattr(search_mod, "binned_laplace_divergence", lambda *a, **k: used.append("bins") or binned(*a, **k))
    cal = rpp.calibrate(p, q, alpha=alpha, epsilon=eps, method=method, noise="laplace")
    assert cal.guaranteed
    assert ("guide" in used) == (method == "exact") and "bins" in used  # the shortcuts did run
    budget = eps  # no slack: guaranteed means D <= epsilon exactly (issue #34)
    refs = [_arb(x, y, alpha, cal.scale) for x, y in ((p, q), (q, p))]
    assert max(upper(r) for r in refs) <= budget, (name, method, cal, [upper(r) for r in refs])
    # the reported interval holds the larger order's divergence
    assert cal.divergence - cal.divergence_error <= max(upper(r) for r in refs)
    assert max(lower(r) for r in refs) <= cal.divergence + cal.divergence_error
    if method == "exact":  # minimal: 1e-8 less noise breaks the budget in one order
        below = [_arb(x, y, alpha, cal.scale * (1 - 1e-8)) for x, y in ((p, q), (q, p))]
        assert max(lower(r) for r in below) > eps, (name, [lower(r) for r in below])
