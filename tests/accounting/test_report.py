"""rpp.accounting._report against independent computations: dp-accounting's RDP-to-DP conversion,
mpmath (50 digits) for the odds bound, the test-power bound and the noise's expected errors."""

import dataclasses
import json
import math
import warnings

import mpmath as mp
import pytest
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

import rpp
from rpp.accounting import ReleaseReport, release_report
from rpp.accounting._report import SCHEMA, SCHEMA_VERSION


def record(value=54.31, *, scale=0.25, family="gaussian", reproducible=False, calibration=None):
    """A release record as the release paths make it (built by hand here: deterministic values)."""
    return rpp.Release(
        value=value,
        family=family,
        scale=scale,
        grid=rpp.sampling.default_grid(scale),
        source="insecure_seed" if reproducible else "os",
        reproducible=reproducible,
        calibration=calibration,
    )


BASE = dict(
    releases=[record()],
    alpha=3.0,
    epsilon=1.0,
    rigorous=True,
    secret="the diagnosis of one patient (sick or healthy), both orders",
    query="mean age and mean maximum heart rate of all patients",
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
    r = build(releases=[record(scale=scale, family=noise)])
    assert r.expected_abs_errors[0] == pytest.approx(float(mae), rel=1e-12)
    assert r.rmses[0] == pytest.approx(float(rmse), rel=1e-12)
    assert r.grids == (rpp.sampling.default_grid(scale),) and r.noise == noise
    # one scale per statistic: the errors scale with each
    two = build(releases=[record(scale=scale, family=noise), record(149.6, scale=3 * scale, family=noise)])
    assert two.scales == (scale, 3 * scale)
    assert two.expected_abs_errors[1] == pytest.approx(3 * float(mae), rel=1e-12)
    assert two.rmses[1] == pytest.approx(3 * float(rmse), rel=1e-12)


def test_unsafe_seed_is_flagged_loudly():
    safe, unsafe = build(), build(releases=[record(reproducible=True)])
    assert safe.publishable and not unsafe.publishable
    assert "UNSAFE" not in safe.to_text() and "UNSAFE" not in safe.to_json()
    assert unsafe.to_text().splitlines()[1].startswith("!! UNSAFE TO PUBLISH")
    rec = json.loads(unsafe.to_json())
    assert rec["publishable"] is False and rec["flags"][0].startswith("UNSAFE TO PUBLISH")
    assert "UNSAFE" in rec["noise"]["source"]


def test_words_are_flags():
    proved, estimate = build(rigorous=True), build(rigorous=False)
    assert "(declared proved by the publisher, not checked)" in " ".join(proved.to_text().split())
    assert "ESTIMATE" not in proved.to_text()
    assert "NOT proved" in estimate.to_text() and estimate.to_text().count("ESTIMATE") == 1
    assert json.loads(estimate.to_json())["guarantee"]["status"] == "estimate"
    assert json.loads(proved.to_json())["guarantee"]["status"] == "proved"
    changed = build(data_unchanged=False)
    assert not changed.publishable and "GUARANTEE DOES NOT APPLY" in changed.to_text()
    # a declaration is said to be one, apart from what the records establish
    text = proved.to_text()
    checked, declared = text.split("Declared by the publisher, not checked")
    assert "Checked from the release records" in checked and "operating system's entropy" in checked
    assert "[ ] data unchanged since the prior class was fitted" in declared
    assert "[ ] the guarantee is proved for the prior class" in declared
    assert "(declared proved by the publisher, not checked) for the secret" in " ".join(text.split())
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
    two = [record(54.31), record(149.62, scale=0.5)]
    r = build(releases=two, orders=[2.0, 4.0], epsilons=[0.5, 1.5])
    rec = json.loads(r.to_json())
    assert rec["schema"] == SCHEMA == "rpp.release_report" and rec["schema_version"] == SCHEMA_VERSION == 2
    assert sorted(rec) == [
        "attacker", "checked", "declared_not_checked", "dp_conversions", "flags", "guarantee", "noise",
        "publishable", "release", "schema", "schema_version",
    ]  # fmt: skip
    assert sorted(rec["guarantee"]) == ["alpha", "curve", "epsilon", "notion", "secret", "status", "status_basis"]
    assert sorted(rec["noise"]) == ["expected_abs_errors", "family", "grids", "rmses", "scales", "source"]
    assert sorted(rec["declared_not_checked"]) == [
        "coverage", "data_unchanged_since_prior_fitted", "guarantee_status", "other", "prior_class",
        "public_metadata",
    ]  # fmt: skip
    assert [sorted(p) for p in rec["checked"]["provenance"]] == [
        ["calibration", "family", "grid", "reproducible", "scale", "source"]
    ] * 2
    assert rec["checked"]["provenance"][1]["scale"] == 0.5 and rec["checked"]["provenance"][1]["source"] == "os"
    assert rec["release"] == {"query": BASE["query"], "releases": 2, "published": [54.31, 149.62]}
    assert rec["guarantee"]["status_basis"] == "declared"
    assert [c["alpha"] for c in rec["guarantee"]["curve"]] == [2.0, 3.0, 4.0]
    assert r.to_json() == build(releases=two, orders=[2.0, 4.0], epsilons=[0.5, 1.5]).to_json()
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
    rec = json.loads(r.to_json())["declared_not_checked"]
    assert rec["public_metadata"] == ["n = 303 patients"] and len(rec["other"]) == 2


def test_frozen_and_text_width():
    r = build(releases=[record(1.0)])
    assert isinstance(r, ReleaseReport)
    with pytest.raises(AttributeError):
        r.epsilon = 2.0  # type: ignore[misc]
    assert all(len(line) <= 88 for line in r.to_text().splitlines())
    assert all(len(line) <= 60 for line in r.to_text(width=60).splitlines())
    for bad in (39, 201, 60.0, True):
        with pytest.raises(ValueError, match="width"):
            r.to_text(width=bad)


def test_no_other_number_than_the_published_ones():
    """The report takes no confidential argument; the values it shows are parameters and published outputs."""
    params = {"alpha", "epsilon", "coverage", "orders", "epsilons", "deltas", "false_positive_rates",
              "probability", "prior_probability"}  # fmt: skip
    import inspect

    names = set(inspect.signature(release_report).parameters)
    text_args = {"secret", "query", "prior_class", "public_metadata", "assumptions"}
    declared = {"rigorous", "data_unchanged"}
    assert names == params | text_args | declared | {"releases"}  # the records: noisy outputs and metadata


@pytest.mark.parametrize(
    ("kw", "exc", "word"),
    [
        ({"alpha": 1.0}, ValueError, "alpha"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"releases": []}, ValueError, "releases"),
        ({"releases": record()}, TypeError, "releases"),  # one record, not a sequence of them
        ({"releases": [54.31]}, TypeError, r"releases\[0\]"),  # a number is not a record
        ({"releases": [record(), "x"]}, TypeError, r"releases\[1\]"),
        ({"releases": (x for x in [record()])}, TypeError, "releases"),
        ({"releases": [rpp.GaussianNoise(0.0).release(1.0)]}, ValueError, r"releases\[0\]"),  # no noise
        ({"rigorous": 1}, TypeError, "rigorous"),
        ({"rigorous": None}, ValueError, "rigorous"),  # no calibration: the status must be declared
        ({"data_unchanged": None}, TypeError, "data_unchanged"),
        ({"coverage": 1.5}, ValueError, "coverage"),
        ({"secret": ""}, ValueError, "secret"),
        ({"public_metadata": "n = 3"}, TypeError, "public_metadata"),
        ({"orders": [2.0]}, ValueError, "orders"),
        ({"orders": [2.0, 3.0], "epsilons": [1.0]}, ValueError, "same length"),
        ({"orders": [1.0], "epsilons": [1.0]}, ValueError, "orders"),
        ({"deltas": [0.0]}, ValueError, "deltas"),
        ({"false_positive_rates": [1.2]}, ValueError, "false_positive_rates"),
        ({"probability": 0.0}, ValueError, "probability"),
    ],
)
def test_bad_arguments_are_named(kw, exc, word):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(exc, match=word):
            build(**kw)


def test_budget_report_feeds_release_report():
    """The book's path: a ReleaseBudget with insecure_seed gives records, and a report flagged UNSAFE."""
    budget = rpp.ReleaseBudget(
        {"a": rpp.Gaussian(mean=0.0, var=1.0), "b": rpp.Gaussian(mean=2.0, var=1.0)},
        alpha=3.0, epsilon=0.5, insecure_seed=1,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rpp.sampling.InsecureNoiseWarning)
        y = budget.release(0.5, scale=budget.scale_one)
    r = build(releases=[y], epsilon=budget.spent)
    assert not r.publishable and r.published == (y.value,) and r.scales == (budget.scale_one,)


# ---------------------------------------------------------------------------------------------
# the report reads the records (issue #36, item 2): what was drawn how is checked, not declared

PRIORS = (rpp.Gaussian(mean=0.0, var=1.0), rpp.Gaussian(mean=2.0, var=1.0))


def _seeded(noise, x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rpp.sampling.InsecureNoiseWarning)
        return noise.release(x, **kw)


@pytest.mark.parametrize("family", ["gaussian", "laplace"])
@pytest.mark.parametrize("rigorous", [True, False, None])
@pytest.mark.parametrize("data_unchanged", [True, False])
def test_seeded_release_is_never_publishable(family, rigorous, data_unchanged):
    """Whatever the publisher declares, a release drawn from insecure_seed makes the report unpublishable."""
    cal = rpp.calibrate(*PRIORS, alpha=3.0, epsilon=1.0, noise=family)
    noise = rpp.GaussianNoise(cal.scale) if family == "gaussian" else rpp.LaplaceNoise(cal.scale)
    seeded = _seeded(noise, 0.7, insecure_seed=(20261201, 0), calibration=cal)
    for releases in ([seeded], [noise.release(0.7), seeded]):
        kw = dict(releases=releases, rigorous=rigorous, data_unchanged=data_unchanged)
        if rigorous is None and len(releases) > 1:
            kw["rigorous"] = True
        r = build(**kw)
        assert not r.publishable and r.reproducible_noise
        where = "the release" if len(releases) == 1 else "release 2 of 2"
        assert r.flags()[0].startswith(f"UNSAFE TO PUBLISH: reproducible noise (insecure_seed) in {where}")
        rec = json.loads(r.to_json())
        assert rec["publishable"] is False and rec["checked"]["provenance"][-1]["source"] == "insecure_seed"


def test_os_release_with_a_proved_calibration_is_publishable_and_proved():
    cal = rpp.calibrate(*PRIORS, alpha=3.0, epsilon=1.0)
    assert cal.guaranteed
    rec = rpp.GaussianNoise(cal.scale).release(0.7, calibration=cal)
    r = build(releases=[rec], rigorous=None)
    assert r.publishable and r.rigorous and r.rigorous_checked and not r.flags()[:-1]
    text = " ".join(r.to_text().split())
    assert "(proved) for the secret" in text and "declared by the publisher" not in text.split("Declared by")[0]
    assert "calibration (exact) for (alpha, epsilon) = (3, 1) at this noise and scale: guaranteed (proved)" in text
    assert json.loads(r.to_json())["guarantee"]["status_basis"] == "checked: the attached calibration"
    # the publisher may lower the status (the calibration's priors are part of the class only) ...
    lowered = build(releases=[rec], rigorous=False)
    assert not lowered.rigorous and not lowered.rigorous_checked and lowered.publishable
    # ... but cannot raise it above what the calibration proves
    unproved = dataclasses.replace(cal, guaranteed=False, rigorous=False)  # within budget, error estimated
    est = rpp.GaussianNoise(cal.scale).release(0.7, calibration=unproved)
    assert not build(releases=[est], rigorous=None).rigorous
    with pytest.raises(ValueError, match="rigorous"):
        build(releases=[est], rigorous=True)
    # a report that claims another (alpha, epsilon) than the calibration's is refused
    for kw in ({"alpha": 2.0}, {"epsilon": 0.5}):
        with pytest.raises(ValueError, match="alpha, epsilon"):
            build(releases=[rec], rigorous=None, **kw)


def test_several_calibrated_releases_need_a_declared_joint_status():
    """Per-release calibrations do not prove a joint guarantee (no composition theorem): declared."""
    cal = rpp.calibrate(*PRIORS, alpha=3.0, epsilon=1.0)
    recs = [rpp.GaussianNoise(cal.scale).release(x, calibration=cal) for x in (0.7, 0.9)]
    with pytest.raises(ValueError, match="rigorous must be declared"):
        build(releases=recs, rigorous=None)
    r = build(releases=recs, rigorous=True)
    assert r.rigorous and not r.rigorous_checked and r.publishable


def test_calibration_missing_its_budget_is_not_publishable():
    cal = rpp.calibrate(*PRIORS, alpha=3.0, epsilon=1.0)
    missed = dataclasses.replace(cal, within_budget=False, guaranteed=False)
    r = build(releases=[rpp.GaussianNoise(cal.scale).release(0.7, calibration=missed)], rigorous=None)
    assert not r.publishable and not r.rigorous and r.budget_missed == (0,)
    assert any(f.startswith("NOT PUBLISHABLE") for f in r.flags())


def test_mixed_families_are_reported():
    r = build(releases=[record(), record(1.0, family="laplace")])
    assert r.noise == "mixed" and r.noises == ("gaussian", "laplace")
    assert any(f.startswith("MIXED NOISE") for f in r.flags())
    assert json.loads(r.to_json())["noise"]["family"] == "mixed"


def test_report_can_be_printed_without_the_values():
    r = build(releases=[record(54.31), record(149.62)])
    assert "54.31" in r.to_text() and "149.62" in r.to_text()
    hidden = r.to_text(values=False)
    assert "54.31" not in hidden and "149.62" not in hidden and "2, not shown" in hidden
