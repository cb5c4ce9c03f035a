"""rpp.accounting.report against independent computations: dp-accounting's RDP-to-DP conversion,
mpmath (50 digits) for the odds bound, the test-power bound and the noise's expected errors."""

import json
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

import rpp
from rpp.accounting import ReleaseReport, release_report
from rpp.accounting.report import SCHEMA, SCHEMA_VERSION

BASE = dict(
    alpha=3.0,
    epsilon=1.0,
    rigorous=True,
    secret="the diagnosis of one patient (sick or healthy), both orders",
    query="mean age and mean maximum heart rate of all patients",
    noise="gaussian",
    scale=0.25,
    reproducible_noise=False,
    prior_class="bivariate normal per diagnosis, parameters in a 95% confidence box",
    data_unchanged=True,
    coverage=0.95,
    public_metadata=("n = 303 patients",),
)
ORDERS = [1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 32.0]


def gaussian_curve(mu):
    """D_alpha of the Gaussian shift N(mu, 1) vs N(0, 1): alpha mu^2 / 2 (Mironov 2017, Prop. 7)."""
    return [a * mu * mu / 2.0 for a in ORDERS]


def build(**kw):
    return release_report(**{**BASE, **kw})


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_conversions_equal_dp_accounting(mu, delta):
    curve = gaussian_curve(mu)
    r = build(alpha=3.0, epsilon=curve[2], orders=ORDERS, epsilons=curve, deltas=[delta])
    ((d, eps_prime, order),) = r.conversions
    ref, ref_order = compute_epsilon(ORDERS, curve, delta)
    assert d == delta
    assert eps_prime == pytest.approx(ref, rel=1e-10, abs=1e-12)
    if ref > 0:
        assert order == ref_order


def test_conversion_closed_form_one_order():
    # without a curve only (alpha, epsilon) counts: eps' = eps + log(1 - 1/a) - (log d + log a)/(a - 1)
    with mp.workdps(50):
        a, e, d = mp.mpf(3), mp.mpf(1), mp.mpf("1e-5")
        want = e + mp.log(1 - 1 / a) - (mp.log(d) + mp.log(a)) / (a - 1)
    r = build(deltas=1e-5)
    assert r.conversions[0][1] == pytest.approx(float(want), rel=1e-13)
    assert r.curve == ((3.0, 1.0),)


def test_odds_and_posterior_against_mpmath():
    curve = gaussian_curve(1.0)
    r = build(alpha=3.0, epsilon=curve[2], orders=ORDERS, epsilons=curve, probability=0.01, prior_probability=0.2)
    with mp.workdps(50):
        beta = mp.mpf("0.01")
        factors = [mp.exp(mp.mpf(e) + mp.log(1 / beta) / (mp.mpf(a) - 1)) for a, e in zip(ORDERS, curve, strict=True)]
        best = min(factors)
        k = factors.index(best)
        pi = mp.mpf("0.2")
        post = pi * best / (pi * best + 1 - pi)
    assert r.odds_factor == pytest.approx(float(best), rel=1e-12)
    assert r.odds_order == ORDERS[k]
    assert r.posterior == pytest.approx(float(post), rel=1e-12)


def _mp_tpr(alpha, eps, a):
    """b* by bisection at 60 digits on both orders of the binary Rényi divergence (independent code)."""
    with mp.workdps(60):
        alpha, eps, a = mp.mpf(alpha), mp.mpf(eps), mp.mpf(a)

        def ok(b):
            f = b**alpha * a ** (1 - alpha) + (1 - b) ** alpha * (1 - a) ** (1 - alpha)
            g = a**alpha * b ** (1 - alpha) + (1 - a) ** alpha * (1 - b) ** (1 - alpha)
            return mp.log(f) <= (alpha - 1) * eps and mp.log(g) <= (alpha - 1) * eps

        lo, hi = a, mp.mpf(1) - mp.mpf(10) ** -40
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        return float(hi)


def test_tradeoff_against_mpmath():
    curve = gaussian_curve(0.8)
    fprs = [0.01, 0.05, 0.2]
    r = build(alpha=3.0, epsilon=curve[2], orders=ORDERS, epsilons=curve, false_positive_rates=fprs)
    for (f, t, order), f_want in zip(r.tradeoff, fprs, strict=True):
        want = min(_mp_tpr(a, e, f) for a, e in zip(ORDERS, curve, strict=True))
        assert f == f_want
        assert t == pytest.approx(want, rel=1e-9)
        assert t >= want * (1 - 1e-12)  # an upper bound on the power, never below the exact one
        assert _mp_tpr(order, curve[ORDERS.index(order)], f) == pytest.approx(t, rel=1e-9)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_expected_errors_against_quadrature(noise):
    scale = 1.7
    with mp.workdps(30):
        if noise == "gaussian":
            pdf = lambda z: mp.npdf(z, 0, scale)
        else:
            pdf = lambda z: mp.exp(-abs(z) / scale) / (2 * scale)
        mae = 2 * mp.quad(lambda z: z * pdf(z), [0, mp.inf])
        rmse = mp.sqrt(2 * mp.quad(lambda z: z * z * pdf(z), [0, mp.inf]))
    r = build(noise=noise, scale=scale)
    assert r.expected_abs_errors[0] == pytest.approx(float(mae), rel=1e-12)
    assert r.rmses[0] == pytest.approx(float(rmse), rel=1e-12)
    assert r.grids == (rpp.sampling.default_grid(scale),)
    # one scale per statistic: the errors scale with each
    two = build(noise=noise, scale=[scale, 3 * scale])
    assert two.scales == (scale, 3 * scale)
    assert two.expected_abs_errors[1] == pytest.approx(3 * float(mae), rel=1e-12)
    assert two.rmses[1] == pytest.approx(3 * float(rmse), rel=1e-12)


def test_unsafe_seed_is_flagged_loudly():
    safe, unsafe = build(), build(reproducible_noise=True)
    assert safe.publishable and not unsafe.publishable
    assert "UNSAFE" not in safe.to_text() and "UNSAFE" not in safe.to_json()
    assert unsafe.to_text().splitlines()[1].startswith("!! UNSAFE TO PUBLISH")
    rec = json.loads(unsafe.to_json())
    assert rec["publishable"] is False and rec["flags"][0].startswith("UNSAFE TO PUBLISH")
    assert "UNSAFE" in rec["noise"]["source"]


def test_words_are_flags():
    proved, estimate = build(rigorous=True), build(rigorous=False)
    assert "(proved)" in proved.to_text() and "ESTIMATE" not in proved.to_text()
    assert "NOT proved" in estimate.to_text() and estimate.to_text().count("ESTIMATE") == 1
    assert json.loads(estimate.to_json())["guarantee"]["status"] == "estimate"
    assert json.loads(proved.to_json())["guarantee"]["status"] == "proved"
    changed = build(data_unchanged=False)
    assert not changed.publishable and "GUARANTEE DOES NOT APPLY" in changed.to_text()
    assert "COVERAGE NOT STATED" in build(coverage=None).to_text()


def test_coverage_stands_beside_delta():
    # issue #36 item 4: delta holds on the event that the class contains the true prior; the report
    # says so on the line of each (epsilon', delta), not only among the assumptions
    text = " ".join(build(coverage=0.95).to_text().split())
    conversions = [line for line in text.split("- ") if line.startswith("(epsilon', delta)")]
    assert conversions and all(
        "with probability >= 0.95 that the class contains the true prior" in line for line in conversions
    )
    certain = " ".join(build(coverage=1.0).to_text().split())
    assert "its coverage" not in certain


def test_json_record_is_stable_and_strict():
    r = build(published=[54.31, 149.62], releases=2, orders=[2.0, 4.0], epsilons=[0.5, 1.5])
    rec = json.loads(r.to_json())
    assert rec["schema"] == SCHEMA == "rpp.release_report" and rec["schema_version"] == SCHEMA_VERSION == 1
    assert sorted(rec) == [
        "assumptions", "attacker", "dp_conversions", "flags", "guarantee", "noise", "publishable", "release",
        "schema", "schema_version",
    ]  # fmt: skip
    assert sorted(rec["guarantee"]) == ["alpha", "curve", "epsilon", "notion", "secret", "status"]
    assert sorted(rec["noise"]) == ["expected_abs_errors", "family", "grids", "rmses", "scales", "source"]
    assert sorted(rec["assumptions"]) == [
        "coverage", "data_unchanged_since_prior_fitted", "other", "prior_class", "public_metadata",
    ]  # fmt: skip
    assert rec["release"] == {"query": BASE["query"], "releases": 2, "published": [54.31, 149.62]}
    assert [c["alpha"] for c in rec["guarantee"]["curve"]] == [2.0, 3.0, 4.0]
    assert r.to_json() == build(published=[54.31, 149.62], releases=2, orders=[2.0, 4.0], epsilons=[0.5, 1.5]).to_json()
    # an infinite odds factor (epsilon huge) is the string "inf", never a bare Infinity
    big = build(epsilon=1e6)
    assert math.isinf(big.odds_factor) or big.odds_factor > 1e300
    json.loads(big.to_json())


def test_published_metadata_and_assumed_knowledge_are_apart():
    """Issue 36: what is published is one list, what is assumed known or withheld another."""
    r = build(
        public_metadata=["n = 303 patients"],
        assumptions=["the adversary knows the other 302 records", "the count of sick patients is not published"],
    )
    text = r.to_text()
    (meta,) = [line for line in text.splitlines() if "metadata" in line]
    assert meta == "- [ ] metadata published besides the values: n = 303 patients"
    assert "known" not in meta and "[ ] the adversary knows the other 302 records" in text
    rec = json.loads(r.to_json())["assumptions"]
    assert rec["public_metadata"] == ["n = 303 patients"] and len(rec["other"]) == 2


def test_frozen_and_text_width():
    r = build(published=[1.0])
    assert isinstance(r, ReleaseReport)
    with pytest.raises(AttributeError):
        r.epsilon = 2.0  # type: ignore[misc]
    assert all(len(line) <= 88 for line in r.to_text().splitlines())


def test_no_other_number_than_the_published_ones():
    """The report takes no confidential argument; the values it shows are parameters and published outputs."""
    params = {"alpha", "epsilon", "scale", "coverage", "published", "releases", "orders", "epsilons", "deltas",
              "false_positive_rates", "probability", "prior_probability"}  # fmt: skip
    import inspect

    names = set(inspect.signature(release_report).parameters)
    text_args = {"secret", "query", "prior_class", "public_metadata", "assumptions"}
    flags = {"rigorous", "reproducible_noise", "data_unchanged", "noise"}
    assert names == params | text_args | flags


@pytest.mark.parametrize(
    ("kw", "exc", "word"),
    [
        ({"alpha": 1.0}, ValueError, "alpha"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"scale": 0.0}, ValueError, "scale"),
        ({"scale": [1.0, -1.0]}, ValueError, "scale"),
        ({"scale": []}, ValueError, "scale"),
        ({"noise": "uniform"}, ValueError, "noise"),
        ({"rigorous": 1}, TypeError, "rigorous"),
        ({"reproducible_noise": None}, TypeError, "reproducible_noise"),
        ({"coverage": 1.5}, ValueError, "coverage"),
        ({"secret": ""}, ValueError, "secret"),
        ({"public_metadata": "n = 3"}, TypeError, "public_metadata"),
        ({"published": [1.0, np.nan]}, ValueError, "published"),
        ({"orders": [2.0]}, ValueError, "orders"),
        ({"orders": [2.0, 3.0], "epsilons": [1.0]}, ValueError, "same length"),
        ({"orders": [1.0], "epsilons": [1.0]}, ValueError, "orders"),
        ({"deltas": [0.0]}, ValueError, "deltas"),
        ({"false_positive_rates": [1.2]}, ValueError, "false_positive_rates"),
        ({"probability": 0.0}, ValueError, "probability"),
        ({"releases": 0}, ValueError, "releases"),
    ],
)
def test_bad_arguments_are_named(kw, exc, word):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(exc, match=word):
            build(**kw)


def test_budget_report_feeds_release_report():
    """The book's path: a ReleaseBudget with insecure_seed gives a report flagged UNSAFE."""
    budget = rpp.ReleaseBudget(
        {"a": rpp.Gaussian(mean=0.0, var=1.0), "b": rpp.Gaussian(mean=2.0, var=1.0)},
        alpha=3.0, epsilon=0.5, insecure_seed=1,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rpp.sampling.InsecureNoiseWarning)
        y = budget.release(0.5, scale=budget.scale_one)
    r = build(epsilon=budget.spent, scale=budget.scale_one, reproducible_noise=budget.reproducible_noise, published=y)
    assert not r.publishable and r.published == (y,)
