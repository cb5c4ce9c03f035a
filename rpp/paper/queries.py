r"""Secret-conditioned priors of the query families of Yang et al. 2026, Section V.

A data set (a :class:`pandas.DataFrame`) has a *released* numeric column ``x``
and a *secret* column; a secret pair is two values ``s_i``, ``s_j`` of the
secret column.  The rows with ``secret == s`` form the secret-conditioned
subset :math:`D_s`.  For each query family this module returns the
distribution of the query output given each secret -- the prior that the
calibration rules of :mod:`rpp.calibration` take -- together with the
*empirical* distributions used by the :math:`W_\infty` baseline of Pierquin et
al. 2024 (which needs discrete laws: between two Gaussians of unequal variance
:math:`W_\infty = +\infty`, see :func:`rpp.w_infinity`).

Query families (Yang et al. 2026, Sec. V-A, "Query"):

``"raw"``
    :math:`X` itself.  Model prior: a Gaussian mixture fitted to :math:`D_s`
    by EM with BIC (:func:`rpp.fit_gmm`, Sec. IV-A); baseline prior: the
    empirical distribution of :math:`D_s`.
``"mean"``
    The subset mean, approximated by :math:`N(\bar x_s, \hat\sigma_s^2/n_s)`
    (sample mean and squared standard error, ``ddof=1``).
``"gp"``
    The latent posterior :math:`N(m_s(x_\star), v_s(x_\star))` at a fixed query
    point :math:`x_\star` of a Gaussian-process regression of ``x`` on
    ``features`` trained on :math:`D_s` (scikit-learn
    :class:`~sklearn.gaussian_process.GaussianProcessRegressor`, kernel
    :math:`c\,\mathrm{RBF}(\ell) + \mathrm{White}(\sigma^2_n)`, hyperparameters
    by maximum marginal likelihood; Rasmussen & Williams 2006, eqs. 2.25-2.26,
    with the constant mean treated as unknown, Sec. 2.7).
``"bnn"``
    A one-hidden-layer tanh network with a Bayesian output layer: Gaussian
    prior :math:`w \sim N(0, a^{-1}I)`, Gaussian noise of precision :math:`b`,
    flat prior on the bias, :math:`a, b` by evidence maximisation (MacKay 1992).
    The hidden layer is a point estimate: random weights drawn once and kept
    fixed (``feature_map="random"``, the default: a Bayesian last layer on random
    features), or weights trained by penalised least squares with scikit-learn's
    :class:`~sklearn.neural_network.MLPRegressor` (``feature_map="mlp"``, the
    "neural-linear" model of Snoek et al. 2015).  The posterior of the output
    layer is exact, so the predictive of the latent output at :math:`x_\star` is
    exactly Gaussian.  Only the output layer is Bayesian.

For the Gaussian-output families (``"mean"``, ``"gp"``, ``"bnn"``) the baseline
prior of each secret is the ``n_quantiles``-point quantile discretisation of the
Gaussian, :math:`\{F_s^{-1}((k - 1/2)/B)\}_{k=1}^B` (:func:`quantile_discretization`):
the two discretisations are matched samples, and their :math:`W_\infty` is
:math:`|\mu_i-\mu_j| + |\sigma_i-\sigma_j|\,\Phi^{-1}(1 - 1/(2B))`, finite but
growing like :math:`\sqrt{2\ln B}` when :math:`\sigma_i \ne \sigma_j`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import linalg

from .. import _validation as v
from ..distributions import Empirical, Gaussian, GaussianMixture
from ..gmm import fit_gmm

__all__ = ["QUERY_FAMILIES", "QueryPriors", "secret_subsets", "data_resolution", "quantile_discretization",
           "raw_priors", "mean_priors", "gp_priors", "bnn_priors", "query_priors", "paper_method"]

QUERY_FAMILIES = ("raw", "mean", "gp", "bnn")


@dataclass(frozen=True)
class QueryPriors:
    """Secret-conditioned priors of one query on one secret pair.

    Attributes
    ----------
    query : str
        One of ``QUERY_FAMILIES``.
    prior_i : rpp.Gaussian or rpp.GaussianMixture
        Model prior given :math:`s_i` (calibrated by the paper's and the book's rules).
    prior_j : rpp.Gaussian or rpp.GaussianMixture
        Model prior given :math:`s_j`.
    baseline_i : rpp.Empirical
        Discrete prior given :math:`s_i` used by the :math:`W_\\infty` baseline (``"pierquin"``).
    baseline_j : rpp.Empirical
        The same given :math:`s_j`.
    n_i : int
        Size of the subset with :math:`s_i` (rows with ``x`` present).
    n_j : int
        Size of the subset with :math:`s_j`.
    details : dict
        Query-specific information (fitted models, query point, settings).
    """

    query: str
    prior_i: object
    prior_j: object
    baseline_i: Empirical
    baseline_j: Empirical
    n_i: int
    n_j: int
    details: dict = field(default_factory=dict, repr=False)


# ---------------------------------------------------------------------------
# Subsets
# ---------------------------------------------------------------------------

def _check_columns(df, columns):
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    for c in columns:
        if c not in df.columns:
            raise ValueError(f"column {c!r} is not in df (columns: {list(df.columns)})")


def secret_subsets(df, x, secret, s_i, s_j, features=()):
    """Rows of ``df`` with ``secret == s_i`` and with ``secret == s_j``.

    Rows with a missing value in ``x`` or in one of ``features`` are dropped.

    Returns
    -------
    sub_i, sub_j : DataFrame
        Columns ``[x, *features]``, index reset.

    Raises
    ------
    ValueError
        If a column is missing, ``x`` or a feature is not numeric, ``s_i == s_j``,
        or a subset has fewer than 2 rows.
    """
    features = list(features)
    _check_columns(df, [x, secret, *features])
    for c in [x, *features]:
        if not pd.api.types.is_numeric_dtype(df[c]):
            raise ValueError(f"column {c!r} must be numeric, got dtype {df[c].dtype}")
    if s_i == s_j:
        raise ValueError(f"s_i and s_j must be different secrets, got {s_i!r} twice")
    cols = [x, *features]
    out = []
    for s in (s_i, s_j):
        sub = df.loc[df[secret] == s, cols].dropna().reset_index(drop=True)
        if len(sub) < 2:
            raise ValueError(f"the subset {secret} == {s!r} must have at least 2 rows with {cols} present, "
                             f"got {len(sub)}")
        out.append(sub.astype(float))
    return out[0], out[1]


def data_resolution(*samples):
    """Recording resolution :math:`h` of data: the smallest gap between distinct pooled values.

    Values are first rounded to 10 significant decimals so that ``0.1``-steps
    stored in binary floating point give ``h = 0.1``.  Returns ``inf`` for a
    single distinct value.
    """
    pooled = np.concatenate([v.finite("samples", np.asarray(s, float)).ravel() for s in samples])
    u = np.unique(np.round(pooled, 10))
    return float(np.min(np.diff(u))) if u.size > 1 else np.inf


def quantile_discretization(prior, n_quantiles=1000):
    r"""The ``n_quantiles`` quantiles :math:`F^{-1}((k-1/2)/B)`, :math:`k = 1..B`, as an :class:`~rpp.Empirical`.

    The quantile discretisation of a continuous prior: the empirical law of
    ``B`` matched samples (the mid-point plotting positions).  Two
    discretisations are coupled monotonically atom by atom, so for Gaussians
    :math:`W_\infty = \max_k |\mu_i-\mu_j + (\sigma_i-\sigma_j)\Phi^{-1}(u_k)|
    = |\mu_i-\mu_j| + |\sigma_i-\sigma_j|\,\Phi^{-1}(1-\tfrac{1}{2B})`.
    """
    if int(n_quantiles) != n_quantiles or n_quantiles < 1:
        raise ValueError(f"n_quantiles must be an integer >= 1, got {n_quantiles!r}")
    if not isinstance(prior, (Gaussian, GaussianMixture)):
        raise ValueError(f"prior must be an rpp.Gaussian or rpp.GaussianMixture, got {type(prior).__name__}")
    u = (np.arange(int(n_quantiles)) + 0.5) / int(n_quantiles)
    return Empirical(prior.ppf(u))


# ---------------------------------------------------------------------------
# RAW and MEAN
# ---------------------------------------------------------------------------

def raw_priors(df, x, secret, s_i, s_j, *, max_components=10, reg_covar="resolution", random_state=0):
    r"""RAW query: EM/BIC Gaussian mixtures (model) and the data themselves (baseline).

    Parameters
    ----------
    df, x, secret, s_i, s_j
        Data frame, released column, secret column and the two secrets.
    max_components : int
        :math:`K_{\max}` of :func:`rpp.fit_gmm` (further capped by the number of
        samples and of distinct values, Yang et al. 2026 Sec. IV-A).
    reg_covar : float or "resolution"
        Floor added to every component variance by EM.  ``"resolution"``
        (default) uses :math:`\max(h^2/12, 10^{-6})` with :math:`h` the recording
        resolution of the pooled data (:func:`data_resolution`): a value recorded
        to a grid of step :math:`h` is a latent value plus a rounding error of
        variance :math:`h^2/12` (Sheppard 1898), so no component of a model of
        the latent variable should be narrower.  ``1e-6`` is scikit-learn's
        default, with which EM puts near-point masses on single integer values.
    random_state : int
        EM seed.
    """
    sub_i, sub_j = secret_subsets(df, x, secret, s_i, s_j)
    xi, xj = sub_i[x].to_numpy(), sub_j[x].to_numpy()
    h = data_resolution(xi, xj)
    if isinstance(reg_covar, str):
        if reg_covar != "resolution":
            raise ValueError(f"reg_covar must be a positive float or 'resolution', got {reg_covar!r}")
        reg = max(h ** 2 / 12, 1e-6) if np.isfinite(h) else 1e-6
    else:
        reg = float(v.positive("reg_covar", reg_covar))
    gi = fit_gmm(xi, max_components=max_components, random_state=random_state, reg_covar=reg)
    gj = fit_gmm(xj, max_components=max_components, random_state=random_state, reg_covar=reg)
    return QueryPriors("raw", gi, gj, Empirical(xi), Empirical(xj), xi.size, xj.size,
                       {"reg_covar": reg, "resolution": h, "samples_i": xi, "samples_j": xj,
                        "max_components": max_components})


def mean_priors(df, x, secret, s_i, s_j, *, n_quantiles=1000):
    r"""MEAN query: :math:`N(\bar x_s, \hat\sigma_s^2 / n_s)` per secret (``ddof=1``), Yang et al. 2026 Sec. V-A.

    The baseline priors are the ``n_quantiles``-point quantile discretisations of
    the two Gaussians (:func:`quantile_discretization`).
    """
    sub_i, sub_j = secret_subsets(df, x, secret, s_i, s_j)
    priors = []
    for sub in (sub_i, sub_j):
        z = sub[x].to_numpy()
        se2 = np.var(z, ddof=1) / z.size
        if se2 <= 0:
            raise ValueError(f"column {x!r} is constant in a secret subset: the MEAN prior has no spread")
        priors.append(Gaussian(np.mean(z), se2))
    return QueryPriors("mean", priors[0], priors[1], quantile_discretization(priors[0], n_quantiles),
                       quantile_discretization(priors[1], n_quantiles), len(sub_i), len(sub_j),
                       {"n_quantiles": n_quantiles})


# ---------------------------------------------------------------------------
# Model outputs: GP and BNN
# ---------------------------------------------------------------------------

def _model_inputs(df, x, secret, s_i, s_j, features, query_point, max_train, random_state):
    """Subsets, pooled standardisation of the inputs, query point, seeded subsampling."""
    features = list(features)
    if not features:
        raise ValueError("features must name at least one numeric input column")
    if x in features:
        raise ValueError(f"features must not contain the released column {x!r}")
    sub_i, sub_j = secret_subsets(df, x, secret, s_i, s_j, features)
    pooled = pd.concat([sub_i, sub_j], ignore_index=True)[features].to_numpy()
    loc, scale = pooled.mean(axis=0), pooled.std(axis=0)
    if np.any(scale == 0):
        raise ValueError(f"every feature must vary over the two subsets; constant: "
                         f"{[f for f, s in zip(features, scale, strict=True) if s == 0]}")
    if query_point is None:
        xq = np.median(pooled, axis=0)
    else:
        xq = v.finite("query_point", np.atleast_1d(np.asarray(query_point, float))).ravel()
        if xq.size != len(features):
            raise ValueError(f"query_point must have {len(features)} values (one per feature), got {xq.size}")
    if int(max_train) != max_train or max_train < 2:
        raise ValueError(f"max_train must be an integer >= 2, got {max_train!r}")
    rng = np.random.default_rng(random_state)
    data = []
    for sub in (sub_i, sub_j):
        idx = np.arange(len(sub))
        if len(sub) > max_train:
            idx = np.sort(rng.choice(len(sub), size=int(max_train), replace=False))
        Z = (sub[features].to_numpy()[idx] - loc) / scale
        y = sub[x].to_numpy()[idx]
        if np.ptp(y) == 0:
            raise ValueError(f"column {x!r} is constant in a training subset")
        data.append((Z, y, len(sub)))
    zq = (xq - loc) / scale
    return data, zq[None, :], xq, (loc, scale)


def _gp_latent(Z, y, zq, random_state):
    r"""Fit a GP (ML-II) and return the latent posterior at ``zq`` with a vague constant mean.

    The kernel hyperparameters are fitted by scikit-learn on the standardised
    targets.  The posterior then treats the constant mean :math:`\beta` as unknown
    with a flat prior (Rasmussen & Williams 2006, Sec. 2.7, eq. 2.42 with
    :math:`h(x) = 1`, :math:`B^{-1} \to 0`): with :math:`A = K + \sigma_n^2 I`,

    .. math::

        \hat\beta = \frac{1^\top A^{-1} y}{1^\top A^{-1} 1},\quad
        m = \hat\beta + k_\star^\top A^{-1}(y - \hat\beta 1),\quad
        v = k_{\star\star} - k_\star^\top A^{-1} k_\star + \frac{(1 - 1^\top A^{-1}k_\star)^2}{1^\top A^{-1} 1},

    so the uncertainty of the subset's level is part of the released output's
    prior, as in the MEAN query (without it a GP far from its data would
    report the subset mean as if it were known exactly).
    """
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    import warnings
    from sklearn.exceptions import ConvergenceWarning

    y_mean, y_std = y.mean(), y.std()
    yn = (y - y_mean) / y_std
    d = Z.shape[1]
    kernel = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3))
              + WhiteKernel(0.5, (1e-4, 1e1)))
    gp = GaussianProcessRegressor(kernel=kernel, normalize_y=False, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp.fit(Z, yn)
    signal = gp.kernel_.k1                       # c * RBF, the latent function's kernel
    k_star = signal(Z, zq)[:, 0]
    fac = (gp.L_, True)
    ones = np.ones(len(yn))
    Ai1, Aiy, Aik = (linalg.cho_solve(fac, b) for b in (ones, yn, k_star))
    beta = float(ones @ Aiy) / float(ones @ Ai1)
    mean = beta + float(k_star @ (Aiy - beta * Ai1))
    var = float(signal.diag(zq)[0] - k_star @ Aik + (1.0 - ones @ Aik) ** 2 / float(ones @ Ai1))
    if not var > 0:
        raise RuntimeError(f"GP latent variance at the query point is not positive ({var}); "
                           "the kernel matrix is ill-conditioned")
    return y_mean + y_std * mean, y_std ** 2 * var, gp


def gp_priors(df, x, secret, s_i, s_j, *, features, query_point=None, max_train=350, random_state=0,
              n_quantiles=1000):
    r"""GP query: latent GP posterior at a fixed query point, one GP per secret subset.

    For each secret a :class:`~sklearn.gaussian_process.GaussianProcessRegressor`
    with kernel :math:`c\,\mathrm{RBF}(\ell_1,\dots,\ell_d) + \mathrm{White}(\sigma_n^2)`
    is fitted to (standardised ``features``, ``x`` standardised within the subset)
    by maximising the marginal likelihood.  The released output is the latent
    function at :math:`x_\star`, whose posterior is (Rasmussen & Williams 2006, eqs. 2.25-2.26)

    .. math::

        f(x_\star) \mid D_s \sim N\bigl(k_\star^\top (K + \sigma_n^2 I)^{-1} y,\;
        k(x_\star, x_\star) - k_\star^\top (K + \sigma_n^2 I)^{-1} k_\star\bigr),

    with :math:`k` the signal kernel :math:`c\,\mathrm{RBF}` (the observation
    noise :math:`\sigma_n^2` is not part of the released value), and with the
    constant mean treated as unknown under a flat prior (Rasmussen & Williams
    2006, Sec. 2.7, eq. 2.42), which adds
    :math:`(1 - 1^\top A^{-1}k_\star)^2 / (1^\top A^{-1} 1)` to the variance,
    :math:`A = K + \sigma_n^2 I` (see ``_gp_latent``).

    Parameters
    ----------
    features : sequence of str
        Numeric input columns; standardised with the mean and standard deviation
        pooled over both subsets, so both GPs see the same :math:`x_\star`.
    query_point : array_like or None
        :math:`x_\star` in the original units; default: the pooled median.
    max_train : int
        A subset larger than this is replaced by a seeded random subsample of
        this size (exact GP inference costs :math:`O(n^3)`).
    random_state : int
        Seed of the subsampling and of the optimiser.
    n_quantiles : int
        Size of the baseline's quantile discretisations.
    """
    data, zq, xq, (loc, scale) = _model_inputs(df, x, secret, s_i, s_j, features, query_point, max_train,
                                                random_state)
    priors, models = [], []
    for Z, y, _ in data:
        m, var, gp = _gp_latent(Z, y, zq, random_state)
        priors.append(Gaussian(m, var))
        models.append(gp)
    return QueryPriors("gp", priors[0], priors[1], quantile_discretization(priors[0], n_quantiles),
                       quantile_discretization(priors[1], n_quantiles), data[0][2], data[1][2],
                       {"features": list(features), "query_point": xq, "models": models,
                        "n_train": (len(data[0][1]), len(data[1][1])), "max_train": max_train,
                        "n_quantiles": n_quantiles})


def _bayes_last_layer(Phi, y, phi_q, max_iter=500, tol=1e-10):
    r"""Bayesian linear regression on features with evidence-maximised precisions (MacKay 1992).

    Model :math:`y = c + \Phi w + e`, :math:`w \sim N(0, a^{-1} I)`,
    :math:`e \sim N(0, b^{-1} I)`, flat prior on :math:`c`.  Centring :math:`\Phi`
    and :math:`y` integrates :math:`c` out; the fixed point
    :math:`\gamma = \sum_k \frac{b\lambda_k}{a + b\lambda_k}`, :math:`a = \gamma/\|m\|^2`,
    :math:`b = (n - 1 - \gamma)/\|y - \Phi m\|^2` maximises the evidence
    (Bishop 2006, eqs. 3.91-3.95).  Returns the posterior mean and variance of
    :math:`c + \phi_q^\top w` (the latent output at the query point).
    """
    n = Phi.shape[0]
    phi_bar, y_bar = Phi.mean(axis=0), y.mean()
    P, t = Phi - phi_bar, y - y_bar
    lam0, V = linalg.eigh(P.T @ P)
    lam0 = np.maximum(lam0, 0.0)
    Pt = V.T @ (P.T @ t)
    a, b = 1.0, 1.0 / max(np.var(t), 1e-300)
    for _ in range(max_iter):
        d = a + b * lam0
        m_rot = b * Pt / d                         # posterior mean in the eigenbasis
        gamma = float(np.sum(b * lam0 / d))
        resid = t - P @ (V @ m_rot)
        a_new = gamma / max(float(m_rot @ m_rot), 1e-300)
        b_new = max(n - 1 - gamma, 1e-12) / max(float(resid @ resid), 1e-300)
        done = abs(a_new - a) <= tol * a and abs(b_new - b) <= tol * b
        a, b = a_new, b_new
        if done:
            break
    d = a + b * lam0
    m_rot = b * Pt / d
    u = V.T @ (phi_q - phi_bar)
    mean = y_bar + float(u @ m_rot)
    var = float(np.sum(u ** 2 / d)) + 1.0 / (b * n)     # weights + intercept (flat prior)
    return mean, var, {"prior_precision": a, "noise_precision": b, "effective_parameters": gamma}


def _hidden_layer(Z, y, n_hidden, feature_map, random_state):
    if feature_map == "mlp":
        from sklearn.neural_network import MLPRegressor
        import warnings
        from sklearn.exceptions import ConvergenceWarning

        net = MLPRegressor(hidden_layer_sizes=(n_hidden,), activation="tanh", solver="lbfgs", alpha=1e-2,
                           max_iter=500, random_state=random_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            net.fit(Z, (y - y.mean()) / y.std())
        W, c = net.coefs_[0], net.intercepts_[0]
    elif feature_map == "random":
        rng = np.random.default_rng(random_state)
        W = rng.normal(0.0, 1.0, size=(Z.shape[1], n_hidden))
        c = rng.normal(0.0, 1.0, size=n_hidden)
    else:
        raise ValueError(f"feature_map must be 'mlp' or 'random', got {feature_map!r}")
    return W, c


def bnn_priors(df, x, secret, s_i, s_j, *, features, query_point=None, n_hidden=50, feature_map="random",
               max_train=350, random_state=0, n_quantiles=1000):
    r"""BNN query: a Bayesian last-layer network per secret subset, its latent output at :math:`x_\star`.

    Network :math:`f(z) = c + \tanh(zW + c_1)\,w` on the standardised inputs
    :math:`z`.  The hidden layer :math:`(W, c_1)` is a point estimate: drawn
    from :math:`N(0, 1)` once (seeded by ``random_state``) and kept fixed
    (``feature_map="random"``, default), or trained by L-BFGS on the penalised
    squared error (``feature_map="mlp"``: scikit-learn ``MLPRegressor``, L2
    penalty ``1e-2``, at most 500 iterations; the neural-linear model of Snoek
    et al. 2015).  The output layer :math:`(c, w)` is Bayesian with the
    conjugate Gaussian model of ``_bayes_last_layer`` (flat prior on
    :math:`c`, :math:`w \sim N(0, a^{-1}I)`, noise precision :math:`b`, both
    precisions by evidence maximisation, MacKay 1992); its exact posterior gives
    the Gaussian prior :math:`N(m_s(x_\star), v_s(x_\star))` of the released
    output.

    Parameters are as in :func:`gp_priors`, plus ``n_hidden`` (hidden units) and
    ``feature_map``.
    """
    if int(n_hidden) != n_hidden or n_hidden < 1:
        raise ValueError(f"n_hidden must be an integer >= 1, got {n_hidden!r}")
    if feature_map not in ("mlp", "random"):
        raise ValueError(f"feature_map must be 'mlp' or 'random', got {feature_map!r}")
    data, zq, xq, _ = _model_inputs(df, x, secret, s_i, s_j, features, query_point, max_train, random_state)
    priors, fits = [], []
    for Z, y, _ in data:
        W, c = _hidden_layer(Z, y, int(n_hidden), feature_map, random_state)
        Phi, phi_q = np.tanh(Z @ W + c), np.tanh(zq @ W + c)[0]
        mean, var, info = _bayes_last_layer(Phi, y, phi_q)
        priors.append(Gaussian(mean, var))
        fits.append({"W": W, "c": c, **info})
    return QueryPriors("bnn", priors[0], priors[1], quantile_discretization(priors[0], n_quantiles),
                       quantile_discretization(priors[1], n_quantiles), data[0][2], data[1][2],
                       {"features": list(features), "query_point": xq, "fits": fits, "feature_map": feature_map,
                        "n_hidden": int(n_hidden), "n_train": (len(data[0][1]), len(data[1][1])),
                        "max_train": max_train, "n_quantiles": n_quantiles})


# ---------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------

def query_priors(df, x, secret, s_i, s_j, query, **options):
    """Priors of one query family (``"raw"``, ``"mean"``, ``"gp"``, ``"bnn"``); ``options`` go to its builder."""
    builders = {"raw": raw_priors, "mean": mean_priors, "gp": gp_priors, "bnn": bnn_priors}
    if query not in builders:
        raise ValueError(f"query must be one of {QUERY_FAMILIES}, got {query!r}")
    return builders[query](df, x, secret, s_i, s_j, **options)


def paper_method(priors):
    """The rule Yang et al. 2026 use for a prior pair: ``"gmm-ot"`` (Thm IV.1) for mixtures, ``"closed-form"`` (Thm III.5) for Gaussians."""
    p, q = (priors.prior_i, priors.prior_j) if isinstance(priors, QueryPriors) else priors
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        return "closed-form"
    if isinstance(p, (Gaussian, GaussianMixture)) and isinstance(q, (Gaussian, GaussianMixture)):
        return "gmm-ot"
    raise ValueError(f"priors must be rpp.Gaussian or rpp.GaussianMixture, got {type(p).__name__} "
                     f"and {type(q).__name__}")
