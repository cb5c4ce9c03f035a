"""The practitioner's API: calibrate_all_pairs and ReleaseBudget (rpp.accounting._budget).

Each result is checked against independent calls of rpp.calibrate / rpp.calibration.pair_divergence per
pair, and the budget's accept/refuse decisions against the exact joint divergence of the
releases (rpp.accounting._releases, itself tested against brute-force quadrature).
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

import rpp
from rpp.accounting import ReleaseBudget, calibrate_all_pairs, releases_divergence
from rpp.sampling import InsecureNoiseWarning, secure_gaussian

PRIORS = {
    "a": rpp.Gaussian(mean=0.4, var=0.004),
    "b": rpp.Gaussian(mean=1.5, var=0.02),
    "c": rpp.Gaussian(mean=2.7, var=0.13),
}
MIXED = {
    1: rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 1.0], vars=[0.2, 0.3]),
    2: rpp.Gaussian(mean=0.8, var=0.25),
    3: rpp.Empirical([0.1, 0.9, 1.4, 2.0]),
}


def test_top_level_names():
    assert rpp.calibrate_all_pairs is calibrate_all_pairs and rpp.ReleaseBudget is ReleaseBudget
    assert (
        len(rpp.__all__) <= 34
    )  # 31 (Release: issue #36), and the caches' clear_caches, cache_info, set_cache_budget (issue #34)


@pytest.mark.parametrize("priors", [PRIORS, MIXED], ids=["gaussian", "mixed"])
def test_all_pairs_worst_pair_is_the_largest_single_calibration(priors):
    alpha, eps = 3.0, 1.0
    worst, table = calibrate_all_pairs(priors, alpha=alpha, epsilon=eps)
    singles = {
        (a, b): rpp.calibrate(priors[a], priors[b], alpha=alpha, epsilon=eps).scale
        for a, b in itertools.combinations(priors, 2)
    }
    assert len(table) == len(singles) == worst.details["pairs"]
    assert worst.scale == pytest.approx(max(singles.values()), rel=1e-12)
    assert worst.details["pair"] == max(singles, key=singles.get)
    assert np.allclose(table["scale"], list(singles.values()), rtol=1e-12)
    # every pair, both orders, at the common scale: certified within the budget
    for (a, b), row in zip(singles, table.itertuples(), strict=True):
        d, de = (
            (
                _c := rpp.calibration.pair_divergence(
                    priors[a], priors[b], alpha=alpha, scale=worst.scale, require="proved"
                )
            ).value,
            _c.error,
        )
        assert (row.s_i, row.s_j) == (a, b) and row.divergence == d and row.divergence_error == de
        assert Fraction(d) + Fraction(de) <= Fraction(eps)  # exactly, no slack
    assert worst.within_budget and table["within_budget"].all() and table["worst"].sum() == 1
    if priors is PRIORS:  # Gaussian priors: the exact noise of the worst pair is tight
        assert worst.divergence == pytest.approx(eps, rel=1e-6)
    else:  # here the worst pair sits at its domain edge, where D_alpha jumps from inf to < eps
        assert worst.divergence <= eps


@pytest.mark.deep
def test_a_class_calibrates_each_distinct_pair_once(monkeypatch):
    """50 members drawn from 4 distinct priors: 6 distinct pairs (either order) are calibrated and
    evaluated once each, and every row equals an independent call for its own pair."""
    import rpp.accounting._budget as budget

    rng = np.random.default_rng(26)
    pool = [
        rpp.GaussianMixture(weights=rng.dirichlet(np.ones(3)), means=rng.normal(0, 1, 3), vars=rng.uniform(0.3, 1, 3))
        for _ in range(4)
    ]
    members = []
    for _ in range(50):
        i, j = rng.choice(4, 2, replace=False)
        # equal by value, not the same objects: the pairs compare by value
        members.append(
            {"yes": pool[i], "no": rpp.GaussianMixture(weights=pool[j].weights, means=pool[j].means, vars=pool[j].vars)}
        )
    calls, evals = [], []
    orig_cal, orig_div = budget.calibrate_releases, budget.pair_divergence
    monkeypatch.setattr(budget, "calibrate_releases", lambda *a, **kw: calls.append(a) or orig_cal(*a, **kw))
    monkeypatch.setattr(budget, "pair_divergence", lambda *a, **kw: evals.append(a) or orig_div(*a, **kw))
    worst, table = calibrate_all_pairs(members, alpha=2.0, epsilon=1.0)
    distinct = {frozenset((m["yes"], m["no"])) for m in members}
    assert len(calls) == len(evals) == len(distinct) == worst.details["distinct_pairs"] <= 6
    assert worst.details["pairs"] == len(table) == 50
    for m, row in zip(members, table.itertuples(), strict=True):
        own = rpp.calibrate(m["yes"], m["no"], alpha=2.0, epsilon=1.0)
        assert row.scale == pytest.approx(own.scale, rel=1e-9)
        c = rpp.calibration.pair_divergence(m["yes"], m["no"], alpha=2.0, scale=worst.scale)
        assert row.divergence == pytest.approx(c.value, rel=1e-12, abs=1e-300)
        assert row.divergence + row.divergence_error <= 1.0 * (1 + 1e-9)
    assert worst.scale == max(table["scale"])


def test_prior_class_takes_the_worst_member():
    rng = np.random.default_rng(0)
    members = [
        {
            s: rpp.Gaussian(mean=p.mean + 0.05 * rng.normal(), var=p.var * rng.uniform(0.8, 1.25))
            for s, p in PRIORS.items()
        }
        for _ in range(5)
    ]
    worst, table = calibrate_all_pairs(members, alpha=3.0, epsilon=1.0)
    per_member = [calibrate_all_pairs(m, alpha=3.0, epsilon=1.0)[0].scale for m in members]
    assert worst.scale == max(per_member) and worst.details["member"] == int(np.argmax(per_member))
    assert list(table["member"]) == [r for r in range(5) for _ in range(3)]
    assert table["within_budget"].all()


def test_k_releases_and_directed_pairs():
    one, _ = calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0)
    five, _table = calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, k=5)
    assert five.scale == pytest.approx(np.sqrt(5) * one.scale, rel=1e-9) and five.details["k"] == 5
    joint = max(
        releases_divergence(PRIORS[a], PRIORS[b], alpha=3.0, scale=five.scale, k=5).value
        for a, b in itertools.combinations(PRIORS, 2)
    )
    assert joint <= 1.0 * (1 + 1e-9) and five.divergence == pytest.approx(joint, rel=1e-9)
    d, _ = calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, pairs=[("c", "a")], directed=True)
    ref = rpp.calibrate(PRIORS["c"], PRIORS["a"], alpha=3.0, epsilon=1.0, directed=True)
    # calibrate_releases re-checks with pair_divergence (its own error bound) and may step up by round-off
    assert ref.scale <= d.scale == pytest.approx(ref.scale, rel=1e-12)
    assert d.details["pair"] == ("c", "a") and d.details["orders"] == 1


def test_all_pairs_validation():
    with pytest.raises(ValueError, match="priors"):
        calibrate_all_pairs({"a": PRIORS["a"]}, alpha=3.0, epsilon=1.0)
    with pytest.raises(ValueError, match="priors"):
        calibrate_all_pairs([], alpha=3.0, epsilon=1.0)
    with pytest.raises(ValueError, match="priors"):
        calibrate_all_pairs("ab", alpha=3.0, epsilon=1.0)
    with pytest.raises(TypeError, match="priors\\[0\\]\\['b'\\]"):
        calibrate_all_pairs({"a": PRIORS["a"], "b": 1.0}, alpha=3.0, epsilon=1.0)
    with pytest.raises(ValueError, match="pairs"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, pairs=[("a", "z")])
    with pytest.raises(ValueError, match="pairs"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, pairs=[("a", "a")])
    with pytest.raises(ValueError, match="directed"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, directed=True)
    with pytest.raises(ValueError, match="alpha"):
        calibrate_all_pairs(PRIORS, alpha=0.5, epsilon=1.0)
    with pytest.raises(ValueError, match="epsilon"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=-1.0)
    with pytest.raises(ValueError, match="k must"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, k=0)
    with pytest.raises(ValueError, match="method"):
        calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, method="magic")


@pytest.mark.parametrize("k", [1, 4, 7])
def test_budget_accepts_exactly_k_calibrated_releases(k):
    cal, _ = calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0, k=k)
    budget = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    assert budget.max_releases(cal.scale) == k
    out = [budget.release(1.25, scale=cal.scale).value for _ in range(k)]
    assert len(set(out)) == k  # fresh noise each time
    assert budget.scales == (cal.scale,) * k
    joint = max(
        releases_divergence(PRIORS[a], PRIORS[b], alpha=3.0, scale=cal.scale, k=k).value
        for a, b in itertools.combinations(PRIORS, 2)
    )
    assert budget.spent == pytest.approx(joint, rel=1e-9) and budget.spent <= 1.0 * (1 + 1e-9)
    with pytest.raises(ValueError, match=r"scale=.*epsilon"):
        budget.release(1.25, scale=cal.scale)
    assert budget.scales == (cal.scale,) * k  # a refused release records nothing
    assert budget.max_releases(cal.scale) == 0


def test_budget_min_scale_is_tight_and_composes_unequal_scales():
    budget = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    one, _ = calibrate_all_pairs(PRIORS, alpha=3.0, epsilon=1.0)
    assert budget.min_scale() == pytest.approx(one.scale, rel=1e-9)
    budget.release(0.0, scale=2.0 * one.scale)  # a quarter of the precision
    s = budget.min_scale()
    assert s == pytest.approx(one.scale / np.sqrt(0.75), rel=1e-9)
    with pytest.raises(ValueError, match="smallest scale that fits"):
        budget.release(0.0, scale=0.999 * s)
    budget.release(0.0, scale=s)
    assert budget.spent <= 1.0 * (1 + 1e-9) and budget.spent == pytest.approx(1.0, rel=1e-6)
    assert budget.min_scale() == np.inf
    assert budget.max_releases(1e30) == 0  # no release of negligible precision is counted
    with pytest.raises(ValueError, match="the budget is spent"):
        budget.release(0.0, scale=one.scale)


def test_budget_mixed_priors_and_class():
    budget = ReleaseBudget([MIXED, {**MIXED, 2: rpp.Gaussian(mean=0.9, var=0.2)}], alpha=2.0, epsilon=0.5)
    n = budget.max_releases(3 * budget.scale_one)
    assert n == 9  # precision budget: 9 releases at 3 theta_1 are worth one at theta_1
    for _ in range(n):
        budget.release(0.7, scale=3 * budget.scale_one)
    assert budget.spent <= 0.5 * (1 + 1e-9)
    with pytest.raises(ValueError, match="epsilon"):
        budget.release(0.7, scale=3 * budget.scale_one)


def test_budget_semantics_are_enforced():
    budget = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0)
    big = 10 * budget.scale_one
    budget.release(1.0, scale=big)
    with pytest.raises(ValueError, match="value"):
        budget.release([1.0, 1.0], scale=big)
    with pytest.raises(ValueError, match="value"):
        budget.release(np.nan, scale=big)
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="scale"):
            budget.release(1.0, scale=bad)
    with pytest.raises(TypeError, match="rng"):
        ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng="seed")
    with pytest.raises(ValueError, match="alpha"):
        ReleaseBudget(PRIORS, alpha=1.0, epsilon=1.0)
    with pytest.warns(rpp.PrivacyWarning), pytest.raises(ValueError, match="method"):
        ReleaseBudget(
            {"a": rpp.Gaussian(mean=0, var=0.25), "b": rpp.Gaussian(mean=0, var=16)},
            alpha=3,
            epsilon=0.5,
            method="bisection",
        )
    # an int seed is refused; the same insecure_seed gives the same noise, the sampler's at the released scale
    with pytest.raises(ValueError, match="insecure_seed"):
        ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, rng=7)
    with pytest.warns(InsecureNoiseWarning):
        a = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1e6, insecure_seed=7)
        b = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1e6, insecure_seed=7)
        ya = np.array([a.release(0.0, scale=50.0).value for _ in range(200)])
        yb = np.array([b.release(0.0, scale=50.0).value for _ in range(200)])
        ref = [secure_gaussian(0.0, scale=50.0, insecure_seed=(7, t)).value for t in range(200)]
    assert np.array_equal(ya, yb) and np.array_equal(ya, ref)
    report = a.report()
    assert report["releases"] == 200 and report["pairs"] == 3
    assert report["combined scale"] == pytest.approx(50.0 / np.sqrt(200), rel=1e-12)


def test_budget_keeps_no_value_and_charges_every_release():
    """No equality oracle (issue 36): the budget keeps no copy of the value, and whether a
    release is accepted depends on the scales only, never on the value passed."""
    with pytest.warns(InsecureNoiseWarning):
        same = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, insecure_seed=3)
        other = ReleaseBudget(PRIORS, alpha=3.0, epsilon=1.0, insecure_seed=3)
        scale = 2.0 * same.scale_one  # a quarter of the precision per release
        ys = [same.release(1.25, scale=scale).value for _ in range(4)]
        # another value at each release: charged the same, noise the same, no refusal
        yo = [other.release(v, scale=scale).value for v in (1.25, 7.0, -3.0, 1.25 + 1e-12)]
    # the same noise (the outputs are rounded to the sampler's grid: within a step)
    step = rpp.sampling.default_grid(scale)
    assert np.allclose(np.subtract(yo, ys), [0.0, 5.75, -4.25, 0.0], rtol=0, atol=step)
    assert same.scales == other.scales and same.spent == other.spent
    for budget in (same, other):  # spent: the same refusal for the value and a guess
        msgs = []
        for guess in (1.25, 1.5):
            with pytest.raises(ValueError, match="scale=") as info:
                budget.release(guess, scale=scale)
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]
    # nothing in the object holds the value (the attributes, and the pickled state)
    import pickle
    import struct

    state = pickle.dumps({k: w for k, w in vars(same).items() if k != "_executor"})
    assert struct.pack("<d", 1.25) not in state and struct.pack(">d", 1.25) not in state
    assert 1.25 not in [w for w in vars(same).values() if isinstance(w, float)]


def test_a_budget_that_needs_no_noise_is_refused_by_name():
    # Gaussian(0, 1) against Gaussian(2, 1) at alpha = 3: the noise-free divergence is
    # alpha * 2**2 / 2 = 6 < 1e6, so the calibrated single-release scale is 0 and the budget's
    # total precision would be infinite (min_scale and report divided by zero before).
    import pytest

    import rpp

    with pytest.raises(ValueError, match="epsilon"):
        rpp.ReleaseBudget(
            {"a": rpp.Gaussian(mean=0.0, var=1.0), "b": rpp.Gaussian(mean=2.0, var=1.0)}, alpha=3, epsilon=1e6
        )
