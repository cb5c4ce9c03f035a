"""rpp_book.queries: secret-conditioned priors of the RAW, MEAN, GP and BNN query families.

Synthetic data only (no data files), so the file runs anywhere in a few seconds.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import linalg, stats

import rpp
from rpp_book import queries
from rpp_book.model_queries import _bayes_last_layer


def synthetic(n_i=300, n_j=120, seed=0, integer=True, slope=0.8):
    """Two secret groups; x depends on two inputs, differently per group."""
    rng = np.random.default_rng(seed)
    rows = []
    for s, n, shift in (("a", n_i, 0.0), ("b", n_j, 1.5)):
        age = rng.integers(18, 70, n).astype(float)
        hours = rng.integers(10, 60, n).astype(float)
        x = 8 + shift + slope * (age - 40) / 10 + rng.normal(0, 1.5, n)
        rows.append(pd.DataFrame({"x": np.round(x) if integer else x, "age": age, "hours": hours, "s": s}))
    df = pd.concat(rows, ignore_index=True)
    df["s"] = df["s"].astype("category")
    return df


DF = synthetic()


# ---------------------------------------------------------------------------
# subsets, resolution, discretisation
# ---------------------------------------------------------------------------


def test_secret_subsets_drop_missing_and_validate():
    df = DF.copy()
    df.loc[[0, 1, 2], "x"] = np.nan
    df.loc[3, "age"] = np.nan
    sub_i, sub_j = queries.secret_subsets(df, "x", "s", "a", "b")
    assert len(sub_i) == 297 and len(sub_j) == 120
    sub_i, _ = queries.secret_subsets(df, "x", "s", "a", "b", features=["age"])
    assert len(sub_i) == 296 and list(sub_i.columns) == ["x", "age"]
    with pytest.raises(ValueError, match="column 'nope'"):
        queries.secret_subsets(df, "nope", "s", "a", "b")
    with pytest.raises(ValueError, match="must be numeric"):
        queries.secret_subsets(df, "s", "x", 1.0, 2.0)
    with pytest.raises(ValueError, match="different secrets"):
        queries.secret_subsets(df, "x", "s", "a", "a")
    with pytest.raises(ValueError, match="at least 2 rows"):
        queries.secret_subsets(df, "x", "s", "a", "zzz")
    with pytest.raises(ValueError, match="DataFrame"):
        queries.secret_subsets(df.to_numpy(), "x", "s", "a", "b")


def test_data_resolution():
    assert queries.data_resolution([1, 2, 5], [3, 7]) == 1.0
    assert np.isclose(queries.data_resolution(np.arange(0, 30) * 0.1), 0.1)
    assert queries.data_resolution([2.0, 2.0]) == np.inf
    with pytest.raises(ValueError):
        queries.data_resolution([1.0, np.nan])


@settings(max_examples=40, deadline=None)
@given(
    mu_i=st.floats(-5, 5),
    mu_j=st.floats(-5, 5),
    sd_i=st.floats(0.05, 3),
    sd_j=st.floats(0.05, 3),
    B=st.integers(2, 3000),
)
def test_quantile_discretization_w_infinity_formula(mu_i, mu_j, sd_i, sd_j, B):
    di = queries.quantile_discretization(rpp.Gaussian(mean=mu_i, var=sd_i**2), B)
    dj = queries.quantile_discretization(rpp.Gaussian(mean=mu_j, var=sd_j**2), B)
    assert di.n == B
    w = rpp.w_infinity(di, dj)
    # the monotone coupling pairs the k-th quantiles; the largest gap is at an end point
    z = stats.norm.ppf(1 - 1 / (2 * B))
    expected = max(abs(mu_i - mu_j + (sd_i - sd_j) * z), abs(mu_i - mu_j - (sd_i - sd_j) * z))
    assert np.isclose(w, expected, rtol=1e-9, atol=1e-9)


def test_quantile_discretization_validation_and_mixtures():
    g = rpp.GaussianMixture(weights=[0.5, 0.5], means=[0.0, 4.0], vars=[1.0, 0.5])
    d = queries.quantile_discretization(g, 400)
    assert abs(d.mean - g.mean) < 0.02
    with pytest.raises(ValueError, match="n_quantiles"):
        queries.quantile_discretization(rpp.Gaussian(mean=0, var=1), 0)
    with pytest.raises(ValueError, match="prior"):
        queries.quantile_discretization(rpp.Empirical([1.0, 2.0]), 10)


# ---------------------------------------------------------------------------
# RAW and MEAN
# ---------------------------------------------------------------------------


def test_raw_priors_resolution_floor_and_spikes():
    pr = queries.raw_priors(DF, "x", "s", "a", "b", max_components=6)
    assert pr.query == "raw" and pr.details["resolution"] == 1.0
    assert np.isclose(pr.details["reg_covar"], 1 / 12)
    for g in (pr.prior_i, pr.prior_j):
        assert isinstance(g, rpp.GaussianMixture) and g.vars.min() >= 1 / 12 * (1 - 1e-9)
    xi = DF.loc[DF["s"] == "a", "x"].to_numpy()
    assert np.array_equal(pr.baseline_i.atoms, np.sort(xi)) and pr.n_i == xi.size
    # scikit-learn's default floor: EM puts near point masses on single integer values
    spiky = queries.raw_priors(DF, "x", "s", "a", "b", max_components=6, reg_covar=1e-6)
    assert min(spiky.prior_i.vars.min(), spiky.prior_j.vars.min()) < 1e-4
    with pytest.raises(ValueError, match="reg_covar"):
        queries.raw_priors(DF, "x", "s", "a", "b", reg_covar="auto")
    with pytest.raises(ValueError, match="reg_covar"):
        queries.raw_priors(DF, "x", "s", "a", "b", reg_covar=-1.0)


def test_raw_priors_continuous_data_keep_tiny_floor():
    df = synthetic(integer=False)
    pr = queries.raw_priors(df, "x", "s", "a", "b", max_components=3)
    assert pr.details["reg_covar"] < 1e-3


def test_mean_priors_formula():
    pr = queries.mean_priors(DF, "x", "s", "a", "b", n_quantiles=50)
    for prior, s in ((pr.prior_i, "a"), (pr.prior_j, "b")):
        x = DF.loc[DF["s"] == s, "x"].to_numpy()
        assert np.isclose(prior.mean, x.mean()) and np.isclose(prior.var, x.var(ddof=1) / x.size)
    assert pr.baseline_i.n == 50
    df = DF.copy()
    df.loc[df["s"] == "b", "x"] = 3.0
    with pytest.raises(ValueError, match="constant"):
        queries.mean_priors(df, "x", "s", "a", "b")


# ---------------------------------------------------------------------------
# GP
# ---------------------------------------------------------------------------


def test_gp_priors_tracks_the_trend_and_is_deterministic():
    df = synthetic(n_i=200, n_j=200, integer=False, slope=2.0)
    q = [60.0, 30.0]  # truth: 8 + 2 * 2 = 12 (group a), 13.5 (group b)
    pr = queries.gp_priors(df, "x", "s", "a", "b", features=["age", "hours"], query_point=q, max_train=150)
    assert abs(pr.prior_i.mean - 12.0) < 3 * pr.prior_i.std + 0.3
    assert abs(pr.prior_j.mean - 13.5) < 3 * pr.prior_j.std + 0.3
    assert pr.details["n_train"] == (150, 150) and pr.n_i == 200
    again = queries.gp_priors(df, "x", "s", "a", "b", features=["age", "hours"], query_point=q, max_train=150)
    assert again.prior_i.mean == pr.prior_i.mean and again.prior_j.var == pr.prior_j.var


def test_gp_vague_mean_adds_variance():
    df = synthetic(n_i=120, n_j=80, integer=False)
    pr = queries.gp_priors(df, "x", "s", "a", "b", features=["age", "hours"])
    sub_i, _ = queries.secret_subsets(df, "x", "s", "a", "b", ["age", "hours"])
    for prior, gp, (sub, _) in zip(
        (pr.prior_i, pr.prior_j),
        pr.details["models"],
        ((sub_i, 0), (queries.secret_subsets(df, "x", "s", "a", "b", ["age", "hours"])[1], 0)),
        strict=True,
    ):
        feats = sub[["age", "hours"]].to_numpy()
        pooled = pd.concat(queries.secret_subsets(df, "x", "s", "a", "b", ["age", "hours"]))[
            ["age", "hours"]
        ].to_numpy()
        zq = ((pr.details["query_point"] - pooled.mean(0)) / pooled.std(0))[None, :]
        Z = (feats - pooled.mean(0)) / pooled.std(0)
        k = gp.kernel_.k1
        w = linalg.solve_triangular(gp.L_, k(Z, zq)[:, 0], lower=True)
        known_mean_var = (k.diag(zq)[0] - w @ w) * sub["x"].to_numpy().std() ** 2
        assert prior.var >= known_mean_var * (1 - 1e-9)


def test_gp_priors_validation():
    with pytest.raises(ValueError, match="features"):
        queries.gp_priors(DF, "x", "s", "a", "b", features=[])
    with pytest.raises(ValueError, match="released column"):
        queries.gp_priors(DF, "x", "s", "a", "b", features=["x"])
    with pytest.raises(ValueError, match="query_point"):
        queries.gp_priors(DF, "x", "s", "a", "b", features=["age"], query_point=[1.0, 2.0])
    with pytest.raises(ValueError, match="max_train"):
        queries.gp_priors(DF, "x", "s", "a", "b", features=["age"], max_train=1)
    df = DF.copy()
    df["const"] = 1.0
    with pytest.raises(ValueError, match="vary"):
        queries.gp_priors(df, "x", "s", "a", "b", features=["const"])


# ---------------------------------------------------------------------------
# BNN
# ---------------------------------------------------------------------------


def _brute_force_posterior(Phi, y, phi_q, a, b, c_prec=1e-10):
    """Bayesian linear regression with an (almost) flat bias prior, by direct matrix algebra."""
    X = np.column_stack([np.ones(len(y)), Phi])
    prec = np.diag(np.r_[c_prec, np.full(Phi.shape[1], a)]) + b * X.T @ X
    S = np.linalg.inv(prec)
    m = b * S @ X.T @ y
    xq = np.r_[1.0, phi_q]
    return xq @ m, xq @ S @ xq


def test_bayes_last_layer_matches_direct_posterior_and_evidence_fixed_point():
    rng = np.random.default_rng(3)
    n, H = 150, 12
    Z = rng.normal(size=(n, 2))
    W, c = rng.normal(size=(2, H)), rng.normal(size=H)
    Phi = np.tanh(Z @ W + c)
    y = 2.0 + Phi @ rng.normal(0, 0.7, H) + rng.normal(0, 0.5, n)
    phi_q = np.tanh(np.array([0.3, -0.2]) @ W + c)
    mean, var, info = _bayes_last_layer(Phi, y, phi_q)
    a, b = info["prior_precision"], info["noise_precision"]
    m_bf, v_bf = _brute_force_posterior(Phi, y, phi_q, a, b)
    assert np.isclose(mean, m_bf, rtol=1e-6) and np.isclose(var, v_bf, rtol=1e-5)
    # fixed point of the evidence (Bishop 2006, eqs. 3.92 and 3.95, centred model)
    P, t = Phi - Phi.mean(0), y - y.mean()
    lam = np.linalg.eigvalsh(b * P.T @ P)
    gamma = np.sum(lam / (a + lam))
    m = np.linalg.solve(a * np.eye(H) + b * P.T @ P, b * P.T @ t)
    assert np.isclose(a, gamma / (m @ m), rtol=1e-6)
    assert np.isclose(1 / b, np.sum((t - P @ m) ** 2) / (n - 1 - gamma), rtol=1e-6)


@pytest.mark.parametrize("fm", ["random", "mlp"])  # one test per feature map: xdist shares them
def test_bnn_priors_random_and_mlp(fm):
    df = synthetic(n_i=150, n_j=60, integer=False, slope=2.0)
    pr = queries.bnn_priors(df, "x", "s", "a", "b", features=["age", "hours"], feature_map=fm, n_hidden=16)
    assert isinstance(pr.prior_i, rpp.Gaussian) and pr.prior_i.var > 0 and pr.details["feature_map"] == fm
    assert abs(pr.prior_i.mean - pr.prior_j.mean) < 6
    again = queries.bnn_priors(df, "x", "s", "a", "b", features=["age", "hours"], feature_map=fm, n_hidden=16)
    assert again.prior_j.mean == pr.prior_j.mean


def test_bnn_priors_validation():
    df = synthetic(n_i=150, n_j=60, integer=False, slope=2.0)
    with pytest.raises(ValueError, match="feature_map"):
        queries.bnn_priors(df, "x", "s", "a", "b", features=["age"], feature_map="vi")
    with pytest.raises(ValueError, match="n_hidden"):
        queries.bnn_priors(df, "x", "s", "a", "b", features=["age"], n_hidden=0)


def test_bnn_without_signal_reduces_to_mean_query():
    """If the evidence switches all hidden units off, the output is the subset mean with its standard error."""
    rng = np.random.default_rng(0)
    n = 60
    y = rng.normal(10, 2, n)
    Phi = np.tanh(rng.normal(size=(n, 1)) @ rng.normal(size=(1, 5)) * 1e-8)  # features with ~no variation
    mean, var, _info = _bayes_last_layer(Phi + rng.normal(0, 1e-12, (n, 5)), y, np.zeros(5))
    assert np.isclose(mean, y.mean(), rtol=1e-6)
    assert np.isclose(var, y.var(ddof=1) / n, rtol=1e-4)


# ---------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------


def test_query_priors_dispatch_and_paper_method():
    assert queries.QUERY_FAMILIES == ("raw", "mean", "gp", "bnn")
    pr = queries.query_priors(DF, "x", "s", "a", "b", "mean")
    assert pr.query == "mean" and queries.paper_method(pr) == "closed-form"
    raw = queries.query_priors(DF, "x", "s", "a", "b", "raw", max_components=3)
    assert queries.paper_method(raw) == "gmm-ot"
    assert (
        queries.paper_method((rpp.Gaussian(mean=0, var=1), rpp.GaussianMixture(weights=[1.0], means=[0.0], vars=[1.0])))
        == "gmm-ot"
    )
    with pytest.raises(ValueError, match="query"):
        queries.query_priors(DF, "x", "s", "a", "b", "median")
    with pytest.raises(ValueError, match="priors"):
        queries.paper_method((rpp.Empirical([1.0, 2.0]), rpp.Empirical([1.0, 3.0])))
