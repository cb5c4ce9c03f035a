"""rpp_book.tables: chapter 6's checks and statistics of sweep tables (verify, rebaseline, headline, MC error)."""

import numpy as np
import pytest
from scipy import stats

import rpp
from rpp_book import experiments, queries, tables

ALPHA = 3.0
EPS = np.array([0.5, 1.0, 2.0, 4.0])


def gauss_priors(mi=0.0, vi=0.04, mj=1.0, vj=0.09, B=200):
    p, q = rpp.Gaussian(mean=mi, var=vi), rpp.Gaussian(mean=mj, var=vj)
    return queries.QueryPriors(
        "mean", p, q, queries.quantile_discretization(p, B), queries.quantile_discretization(q, B), 100, 50
    )


PR = gauss_priors()
PRIORS = {"toy": {"mean": PR}}
TABLE = experiments.sweep(PR, ["paper", "exact", "pierquin"], alpha=ALPHA, epsilon=EPS, dataset="toy")


def test_verify_table_passes_a_correct_table_and_counts():
    ver = tables.verify_table(TABLE, PRIORS, stride=1)
    assert ver.problems == [] and ver.n_points == ver.n_checked == len(TABLE) == 12
    assert 0 < ver.worst_ratio <= 1 + 1e-9 and ver.n_failed == 0
    # the exact rule is tight: some recomputed D_alpha equals the budget
    assert ver.worst_ratio > 1 - 1e-6
    sparse = tables.verify_table(TABLE, PRIORS, stride=3)
    assert sparse.n_checked == 3 * 2 and sparse.problems == []  # points 0 and 3 of each curve
    n_points, n_checked, _worst, _n_failed, _problems = sparse  # unpacks as the chapter's tuple
    assert (n_points, n_checked) == (12, 6)


def test_verify_table_finds_too_little_noise_and_false_flags():
    bad = TABLE.copy()
    k = bad.index[(bad["rule"] == "exact") & (bad["epsilon"] == 1.0)][0]
    bad.loc[k, "variance"] /= 4  # the recomputation must catch it
    ver = tables.verify_table(bad, PRIORS, stride=1)
    assert len(ver.problems) == 1 and "over budget" in ver.problems[0] and ver.worst_ratio > 1
    flagged = TABLE.copy()
    flagged.loc[k, "within_budget"] = False  # not allowed for "exact"
    ver = tables.verify_table(flagged, PRIORS, stride=4)
    assert any("over budget" in p for p in ver.problems)
    assert any("flagged over budget" in p for p in ver.problems)  # and D <= eps contradicts the flag


def test_verify_table_allows_the_discretised_baseline_to_fail_only_when_it_does():
    pr = gauss_priors(mi=1.0, vi=0.005, mj=1.05, vj=0.03, B=200)
    tab = experiments.sweep(pr, ["pierquin", "exact"], alpha=ALPHA, epsilon=np.array([0.5, 5.0]), dataset="d")
    ver = tables.verify_table(tab, {"d": {"mean": pr}}, stride=2)
    assert ver.problems == [] and ver.n_failed == 1


def test_verify_table_validation():
    with pytest.raises(ValueError, match="stride"):
        tables.verify_table(TABLE, PRIORS, stride=0)
    with pytest.raises(ValueError, match="priors"):
        tables.verify_table(TABLE, {"other": {"mean": PR}})


@pytest.mark.parametrize("B", [10, 200, 10_000])
def test_quantile_w_inf_matches_the_gaussian_formula(B):
    dmu, dsd = abs(PR.prior_i.mean - PR.prior_j.mean), abs(PR.prior_i.std - PR.prior_j.std)
    assert np.isclose(tables.quantile_w_inf(PR, B), dmu + dsd * stats.norm.ppf(1 - 1 / (2 * B)), rtol=1e-9)
    with pytest.raises(ValueError, match="n_quantiles"):
        tables.quantile_w_inf(PR, 0)


def test_rebaseline_with_the_same_discretisation_reproduces_the_sweep():
    same = tables.rebaseline(TABLE, PRIORS, lambda p: tables.quantile_w_inf(p, 200))
    cols = ["theta", "variance", "divergence", "within_budget", "w_inf"]
    np.testing.assert_allclose(same[cols[:3]].to_numpy(float), TABLE[cols[:3]].to_numpy(float), rtol=1e-9)
    assert (same["within_budget"] == TABLE["within_budget"]).all()


def test_rebaseline_mean_shift_recomputes_divergences_exactly():
    shift = tables.rebaseline(TABLE, PRIORS, lambda p: abs(p.prior_i.mean - p.prior_j.mean))
    base = shift[shift["rule"] == "pierquin"]
    assert np.allclose(base["variance"], ALPHA * 1.0 / (2 * EPS))
    for row in base.itertuples():
        d = max(
            rpp.renyi_divergence(
                PR.prior_i, PR.prior_j, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
            rpp.renyi_divergence(
                PR.prior_j, PR.prior_i, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
        )
        assert np.isclose(row.divergence, d, rtol=1e-12) and row.within_budget == (d <= row.epsilon * (1 + 1e-9))
    assert not base["within_budget"].all()  # the mean shift ignores the variances
    others = shift["rule"] != "pierquin"
    assert shift[others].equals(TABLE[others])
    directed = experiments.sweep(PR, ["pierquin"], alpha=ALPHA, epsilon=EPS, dataset="toy", directed=True)
    one = tables.rebaseline(directed, PRIORS, lambda p: 0.5)
    d_ij = [
        rpp.renyi_divergence(PR.prior_i, PR.prior_j, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(v))).value
        for v in one["variance"]
    ]
    assert np.allclose(one["divergence"], d_ij)
    with pytest.raises(ValueError, match="priors"):
        tables.rebaseline(TABLE, {}, lambda p: 1.0)


def test_paper_headline_is_the_headline_of_the_reduction_table():
    red = tables.reduction_table(TABLE)
    assert tables.paper_headline(TABLE) == tables.headline(red, "paper")
    assert tables.paper_headline(TABLE, "exact", average="pooled") == tables.headline(red, "exact", average="pooled")
    assert 0 < tables.paper_headline(TABLE) < 100


def test_quantile_mc_se_matches_the_asymptotic_standard_error():
    rng = np.random.default_rng(7)
    x = rng.standard_normal(200_000)
    for p in (0.05, 0.5, 0.95):
        for h in (0.02, 0.005):
            # the sample spacing of 2hR draws has a relative standard error of 1 / sqrt(2hR)
            tol = 4 / np.sqrt(2 * h * x.size)
            # the estimate is sqrt(p(1-p)/R) times the central difference of the quantile function
            spacing = (stats.norm.ppf(p + h) - stats.norm.ppf(p - h)) / (2 * h)
            se = tables.quantile_mc_se(x, p, h=h)
            assert abs(se / (np.sqrt(p * (1 - p) / x.size) * spacing) - 1) < tol
        # which, for a small h, is sqrt(p(1-p)/R) / f(q_p) up to the bias of the difference
        exact = np.sqrt(p * (1 - p) / x.size) / stats.norm.pdf(stats.norm.ppf(p))
        assert abs(se / exact - 1) < tol + 0.01
    # and it is what it says: the spread of sample quantiles over repetitions
    reps = np.quantile(rng.standard_normal((400, 2000)), 0.9, axis=1)
    se = tables.quantile_mc_se(rng.standard_normal(2000), 0.9)
    assert abs(se / reps.std() - 1) < 0.25
    with pytest.raises(ValueError, match="x"):
        tables.quantile_mc_se([1.0], 0.5)
    with pytest.raises(ValueError, match="p and h"):
        tables.quantile_mc_se(x, 0.01)
