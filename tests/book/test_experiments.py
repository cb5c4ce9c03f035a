"""rpp_book.experiments: ε-sweeps as tidy tables, the reduction statistic and its averaging protocol."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rpp
from rpp import rules
from rpp_book import experiments, queries, tables
from rpp_book.data import ADULT_COLUMNS, HEART_COLUMNS, STUDENT_COLUMNS

ALPHA = 3.0
EPS = np.array([0.5, 1.0, 3.0])


def gauss_priors(mi=0.0, vi=0.04, mj=1.0, vj=0.09, B=200):
    p, q = rpp.Gaussian(mean=mi, var=vi), rpp.Gaussian(mean=mj, var=vj)
    return queries.QueryPriors(
        "mean", p, q, queries.quantile_discretization(p, B), queries.quantile_discretization(q, B), 100, 50
    )


def raw_priors(seed=0):
    rng = np.random.default_rng(seed)
    xi = np.round(rng.normal(10, 2, 200))
    xj = np.round(np.r_[rng.normal(8, 1.5, 60), rng.normal(13, 1, 20)])
    return queries.QueryPriors(
        "raw",
        rpp.fit_gmm(xi, max_components=3, reg_covar=1 / 12),
        rpp.fit_gmm(xj, max_components=3, reg_covar=1 / 12),
        rpp.Empirical(xi),
        rpp.Empirical(xj),
        xi.size,
        xj.size,
    )


RAW = raw_priors()


# ---------------------------------------------------------------------------
# Pierquin's rule
# ---------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), alpha=st.floats(1.1, 8), eps=st.floats(0.05, 5))
def test_pierquin_variance_matches_calibrate(seed, alpha, eps):
    rng = np.random.default_rng(seed)
    p = rpp.Empirical(rng.integers(0, 6, 12))
    q = rpp.Empirical(rng.integers(1, 8, 9))
    w = rpp.w_infinity(p, q)
    cal = rpp.calibrate(p, q, alpha=alpha, epsilon=eps, method="pierquin")
    assert np.isclose((rules.sensitivity_scale(w, alpha=alpha, epsilon=eps) ** 2), cal.variance, rtol=1e-12)


def test_pierquin_variance_vectorised_and_validated():
    v = rules.sensitivity_scale(2.0, alpha=np.array([2.0, 4.0]), epsilon=np.array([1.0, 2.0])) ** 2
    assert np.allclose(v, [4.0, 4.0])
    assert np.isinf(rules.sensitivity_scale(np.inf, alpha=3.0, epsilon=1.0) ** 2)
    with pytest.raises(ValueError, match="alpha"):
        (rules.sensitivity_scale(1.0, alpha=1.0, epsilon=1.0) ** 2)
    with pytest.raises(ValueError, match="epsilon"):
        (rules.sensitivity_scale(1.0, alpha=2.0, epsilon=0.0) ** 2)
    with pytest.raises(ValueError, match="sensitivity"):
        (rules.sensitivity_scale(-1.0, alpha=2.0, epsilon=1.0) ** 2)


# ---------------------------------------------------------------------------
# sweep
# ---------------------------------------------------------------------------


def test_sweep_gaussian_priors():
    pr = gauss_priors()
    tab = experiments.sweep(pr, ["paper", "exact", "pierquin"], alpha=ALPHA, epsilon=EPS, dataset="toy")
    assert list(tab.columns) == experiments.COLUMNS and len(tab) == 9
    assert set(tab["method"]) == {"closed-form", "exact", "pierquin"}
    direct = rpp.calibrate(pr.prior_i, pr.prior_j, alpha=ALPHA, epsilon=EPS)
    assert np.allclose(tab[tab["rule"] == "exact"]["theta"], direct.scale, rtol=1e-12)
    base = tab[tab["rule"] == "pierquin"]
    w = rpp.w_infinity(pr.baseline_i, pr.baseline_j)
    assert np.allclose(base["theta"], np.sqrt(ALPHA * w**2 / (2 * EPS))) and (base["w_inf"] == w).all()
    assert (base["prior"] == "gaussian").all()
    for row in tab.itertuples():  # every divergence is the Gaussian priors' one
        d = max(
            rpp.renyi_divergence(
                pr.prior_i, pr.prior_j, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
            rpp.renyi_divergence(
                pr.prior_j, pr.prior_i, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
        )
        assert np.isclose(row.divergence, d, rtol=1e-9, atol=1e-12)
        assert row.within_budget == (d <= row.epsilon * (1 + 1e-9))
    assert tab["within_budget"].all()
    assert (tab["theta"][tab["rule"] == "paper"].to_numpy() >= direct.scale * (1 - 1e-9)).all()


def test_sweep_directed_protects_one_order_only():
    pr = gauss_priors(vi=0.25, vj=0.01)
    both = experiments.sweep(pr, ["exact"], alpha=ALPHA, epsilon=EPS)
    one = experiments.sweep(pr, ["exact"], alpha=ALPHA, epsilon=EPS, directed=True)
    assert one["directed"].all() and (one["theta"].to_numpy() <= both["theta"].to_numpy() + 1e-12).all()
    d_ij = [
        rpp.renyi_divergence(pr.prior_i, pr.prior_j, alpha=ALPHA, noise=rpp.GaussianNoise(scale=np.sqrt(v))).value
        for v in one["variance"]
    ]
    assert np.allclose(one["divergence"], d_ij)


def test_baseline_over_budget_is_reported_not_hidden():
    """A finite W_inf stand-in can be too small for Gaussian priors: the row says so."""
    pr = gauss_priors(mi=1.0, vi=0.005, mj=1.05, vj=0.03, B=200)
    tab = experiments.sweep(pr, ["pierquin", "exact"], alpha=ALPHA, epsilon=np.array([0.5, 5.0]))
    base = tab[tab["rule"] == "pierquin"].set_index("epsilon")
    assert not base.loc[5.0, "within_budget"] and np.isinf(base.loc[5.0, "divergence"])
    assert tab[tab["rule"] == "exact"]["within_budget"].all()
    assert len(tables.check_budgets(tab)) == 1


def test_sweep_mixture_priors_never_under_noise():
    tab = experiments.sweep(
        RAW, ["paper", "gmm-ot-tight", "exact", "pierquin", "exact:baseline"], alpha=ALPHA, epsilon=EPS, dataset="raw"
    )
    assert tab["within_budget"].all() and tables.check_budgets(tab).empty
    wide = tab.pivot_table(index="epsilon", columns="rule", values="theta")
    assert (wide["exact"] <= wide["gmm-ot-tight"] * (1 + 1e-9)).all()
    assert (wide["gmm-ot-tight"] <= wide["paper"] * (1 + 1e-9)).all()
    assert (wide["exact:baseline"] <= wide["pierquin"] * (1 + 1e-9)).all()
    for row in tab.itertuples():  # independent recomputation, both orders
        _, p, q, label = experiments.resolve_rule(RAW, row.rule)
        assert label == row.prior
        d = max(
            rpp.renyi_divergence(p, q, alpha=row.alpha, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))).value,
            rpp.renyi_divergence(q, p, alpha=row.alpha, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))).value,
        )
        assert d <= row.epsilon * (1 + 1e-9)
        md = max(
            rpp.renyi_divergence(
                RAW.prior_i, RAW.prior_j, alpha=row.alpha, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
            rpp.renyi_divergence(
                RAW.prior_j, RAW.prior_i, alpha=row.alpha, noise=rpp.GaussianNoise(scale=np.sqrt(row.variance))
            ).value,
        )
        assert np.isclose(row.model_divergence, md, rtol=1e-6, atol=1e-9)
    assert set(tab[tab["rule"] == "pierquin"]["prior"]) == {"empirical"}
    assert set(tab[tab["rule"] == "paper"]["method"]) == {"gmm-ot"}


@pytest.mark.slow  # > 3 s on 2 cores: runs in make test's second pytest phase
def test_sweep_parallel_gives_the_same_table():
    one = experiments.sweep(RAW, ["paper", "pierquin"], alpha=ALPHA, epsilon=EPS)
    two = experiments.sweep(RAW, ["paper", "pierquin"], alpha=ALPHA, epsilon=EPS, n_jobs=2)
    pd.testing.assert_frame_equal(one, two)


def test_sweep_validation():
    pr = gauss_priors()
    with pytest.raises(ValueError, match="rule"):
        experiments.sweep(pr, ["magic"], alpha=ALPHA, epsilon=EPS)
    with pytest.raises(ValueError, match="rules"):
        experiments.sweep(pr, [], alpha=ALPHA, epsilon=EPS)
    with pytest.raises(ValueError, match="rules"):
        experiments.sweep(pr, "exact", alpha=ALPHA, epsilon=EPS)
    with pytest.raises(ValueError, match="QueryPriors"):
        experiments.sweep((pr.prior_i, pr.prior_j), ["exact"], alpha=ALPHA, epsilon=EPS)
    with pytest.raises(ValueError, match="alpha"):
        experiments.sweep(pr, ["exact"], alpha=1.0, epsilon=EPS)
    with pytest.raises(ValueError, match="n_jobs"):
        experiments.sweep(pr, ["exact"], alpha=ALPHA, epsilon=EPS, n_jobs=0)
    with pytest.raises(ValueError, match="on"):
        tables.check_budgets(pd.DataFrame(), on="other")


def test_resolve_rule():
    pr = gauss_priors()
    m, p, _q, label = experiments.resolve_rule(pr, "pierquin")
    assert m == "pierquin" and p is pr.prior_i and label == "gaussian"
    m, p, _q, label = experiments.resolve_rule(RAW, "exact:baseline")
    assert m == "exact" and p is RAW.baseline_i and label == "empirical"
    assert experiments.resolve_rule(RAW, "paper")[0] == "gmm-ot"


# ---------------------------------------------------------------------------
# reduction statistic
# ---------------------------------------------------------------------------


def toy_table():
    rows = []
    for panel, thetas in {
        "p1": {"base": [2, 2, 2, 2], "r": [1, 1, 0, 0]},
        "p2": {"base": [1, 1, 1, 1], "r": [0.5, 1.5, 0.5, 0.5]},
    }.items():
        for rule, th in thetas.items():
            for e, t in zip([1.0, 2.0, 3.0, 4.0], th, strict=True):
                rows.append(
                    {
                        "dataset": panel,
                        "query": "q",
                        "alpha": 3.0,
                        "directed": False,
                        "rule": rule,
                        "epsilon": e,
                        "theta": float(t),
                    }
                )
    return pd.DataFrame(rows)


def test_reduction_table_protocol():
    red = tables.reduction_table(toy_table(), baseline="base", reference="base").set_index(["dataset", "rule"])
    # p1: zero-noise points dropped -> two points at 50 %
    assert red.loc[("p1", "r"), "n_points"] == 2 and red.loc[("p1", "r"), "n_zero"] == 2
    assert np.isclose(red.loc[("p1", "r"), "reduction"], 50.0)
    # p2: (50 - 50 + 50 + 50) / 4 = 25 %, one point above the baseline
    assert np.isclose(red.loc[("p2", "r"), "reduction"], 25.0) and red.loc[("p2", "r"), "above_baseline"] == 1
    assert np.isclose(red.loc[("p2", "r"), "ratio_to_reference"], 0.75)
    assert red.loc[("p1", "base"), "reduction"] == 0
    kept = tables.reduction_table(toy_table(), baseline="base", exclude_zero=False).set_index(["dataset", "rule"])
    assert np.isclose(kept.loc[("p1", "r"), "reduction"], 75.0)


def test_headline_panel_and_pooled():
    red = tables.reduction_table(toy_table(), baseline="base")
    assert np.isclose(tables.headline(red, "r"), (50 + 25) / 2)
    assert np.isclose(tables.headline(red, "r", average="pooled"), (2 * 50 + 4 * 25) / 6)
    with pytest.raises(ValueError, match="average"):
        tables.headline(red, "r", average="median")
    with pytest.raises(ValueError, match="no point"):
        tables.headline(red, "nope")


def test_reduction_table_infinite_baseline_and_errors():
    tab = toy_table()
    tab.loc[(tab["rule"] == "base") & (tab["dataset"] == "p2"), "theta"] = np.inf
    red = tables.reduction_table(tab, baseline="base").set_index(["dataset", "rule"])
    assert np.isclose(red.loc[("p2", "r"), "reduction"], 100.0) and red.loc[("p2", "r"), "n_inf_baseline"] == 4
    with pytest.raises(ValueError, match="baseline"):
        tables.reduction_table(toy_table(), baseline="pierquin")
    with pytest.raises(ValueError, match="columns"):
        tables.reduction_table(toy_table().drop(columns="alpha"), baseline="base")


# ---------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------


def test_settings_name_existing_columns():
    cols = {"load_adult": ADULT_COLUMNS, "load_heart_disease": HEART_COLUMNS, "load_student": STUDENT_COLUMNS}
    for table in (experiments.PAPER_SETTINGS, experiments.AWASS_SETTINGS):
        assert set(table) == {"adult", "heart", "student"}
        for st_ in table.values():
            c = cols[st_["loader"]]
            assert st_["x"] in c and st_["secret"] in c and set(st_["features"]) <= set(c)
            assert st_["x"] not in st_["features"]


def test_load_setting_with_a_given_frame():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "y": np.round(rng.normal(5, 2, 200)),
            "u": rng.normal(size=200),
            "v": rng.normal(size=200),
            "g": np.repeat(["m", "f"], 100),
        }
    )
    setting = dict(x="y", secret="g", s_i="m", s_j="f", features=["u", "v"])
    prs = experiments.load_setting(setting, df=df, queries=("mean", "bnn"), bnn={"n_hidden": 8})
    assert set(prs) == {"mean", "bnn"} and prs["bnn"].details["n_hidden"] == 8
    assert prs["bnn"].details["features"] == ["u", "v"]
