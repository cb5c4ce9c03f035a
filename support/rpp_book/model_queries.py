r"""The model-based query families of Yang et al. 2026, Sec. V-A.

A Gaussian-process regression (``"gp"``) and a Bayesian last layer on a one-hidden-layer network (``"bnn"``); re-exported by
:mod:`rpp_book.queries`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import linalg

from rpp.priors import Gaussian

from .query_data import QueryPriors, model_inputs, quantile_discretization

__all__ = ["gp_priors", "bnn_priors"]


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
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    y_mean, y_std = y.mean(), y.std()
    yn = (y - y_mean) / y_std
    d = Z.shape[1]
    kernel = ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3)) + WhiteKernel(0.5, (1e-4, 1e1))
    gp = GaussianProcessRegressor(kernel=kernel, normalize_y=False, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gp.fit(Z, yn)
    signal = gp.kernel_.k1  # c * RBF, the latent function's kernel
    k_star = signal(Z, zq)[:, 0]
    fac = (gp.L_, True)
    ones = np.ones(len(yn))
    Ai1, Aiy, Aik = (linalg.cho_solve(fac, b) for b in (ones, yn, k_star))
    beta = float(ones @ Aiy) / float(ones @ Ai1)
    mean = beta + float(k_star @ (Aiy - beta * Ai1))
    var = float(signal.diag(zq)[0] - k_star @ Aik + (1.0 - ones @ Aik) ** 2 / float(ones @ Ai1))
    if not var > 0:
        raise RuntimeError(
            f"GP latent variance at the query point is not positive ({var}); the kernel matrix is ill-conditioned"
        )
    return y_mean + y_std * mean, y_std**2 * var, gp


def _model_query(query, priors, data, n_quantiles, details):
    """QueryPriors of a model query: Gaussian priors, their quantile discretisations as baselines."""
    baselines = [quantile_discretization(p, n_quantiles) for p in priors]
    return QueryPriors(query, priors[0], priors[1], baselines[0], baselines[1], data[0][2], data[1][2], details)


def gp_priors(
    df: pd.DataFrame,
    x: str,
    secret: str,
    s_i: Any,
    s_j: Any,
    *,
    features: Sequence[str],
    query_point: Any = None,
    max_train: int = 350,
    random_state: int = 0,
    n_quantiles: int = 1000,
) -> QueryPriors:
    r"""GP query: latent GP posterior at a fixed query point, one GP per secret subset.

    For each secret a scikit-learn ``GaussianProcessRegressor``
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
    df, x, secret, s_i, s_j
        Data frame, released column, secret column and the two secrets
        (:func:`rpp_book.queries.secret_subsets`).
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

    Returns
    -------
    QueryPriors
        ``query="gp"``, the two latent posteriors as :class:`rpp.Gaussian` priors, their
        discretisations, and ``details`` with the fitted models, the query point and
        ``n_train``.

    Raises
    ------
    ValueError
        As ``rpp_book.query_data.model_inputs``.
    RuntimeError
        If the latent variance at the query point is not positive (an ill-conditioned
        kernel matrix).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "age": [30.0, 41, 25, 52, 38, 47, 29, 60],
    ...                    "s": list("aaaabbbb")})
    >>> pr = gp_priors(df, "x", "s", "a", "b", features=["age"])
    >>> type(pr.prior_i).__name__, pr.details["n_train"], bool(pr.prior_i.var > 0)
    ('Gaussian', (4, 4), True)
    """
    data, zq, xq, (_loc, _scale) = model_inputs(df, x, secret, s_i, s_j, features, query_point, max_train, random_state)
    priors, models = [], []
    for Z, y, _ in data:
        m, var, gp = _gp_latent(Z, y, zq, random_state)
        priors.append(Gaussian(mean=m, var=var))
        models.append(gp)
    return _model_query(
        "gp",
        priors,
        data,
        n_quantiles,
        {
            "features": list(features),
            "query_point": xq,
            "models": models,
            "n_train": (len(data[0][1]), len(data[1][1])),
            "max_train": max_train,
            "n_quantiles": n_quantiles,
        },
    )


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
        m_rot = b * Pt / d  # posterior mean in the eigenbasis
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
    var = float(np.sum(u**2 / d)) + 1.0 / (b * n)  # weights + intercept (flat prior)
    return mean, var, {"prior_precision": a, "noise_precision": b, "effective_parameters": gamma}


def _hidden_layer(Z, y, n_hidden, feature_map, random_state):
    if feature_map == "mlp":
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.neural_network import MLPRegressor

        net = MLPRegressor(
            hidden_layer_sizes=(n_hidden,),
            activation="tanh",
            solver="lbfgs",
            alpha=1e-2,
            max_iter=500,
            random_state=random_state,
        )
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


def bnn_priors(
    df: pd.DataFrame,
    x: str,
    secret: str,
    s_i: Any,
    s_j: Any,
    *,
    features: Sequence[str],
    query_point: Any = None,
    n_hidden: int = 50,
    feature_map: str = "random",
    max_train: int = 350,
    random_state: int = 0,
    n_quantiles: int = 1000,
) -> QueryPriors:
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

    Parameters
    ----------
    df, x, secret, s_i, s_j, features, query_point
        As in :func:`gp_priors`.
    n_hidden : int
        Hidden units (default 50).
    feature_map : {"random", "mlp"}
        Fixed random hidden weights, or weights trained by scikit-learn's ``MLPRegressor``.
    max_train, random_state, n_quantiles
        As in :func:`gp_priors`.

    Returns
    -------
    QueryPriors
        ``query="bnn"``, two :class:`rpp.Gaussian` priors, their discretisations, and
        ``details`` with the hidden layers and the fitted precisions (``fits``).

    Raises
    ------
    ValueError
        For a bad ``n_hidden`` or ``feature_map``, or as
        ``rpp_book.query_data.model_inputs``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "age": [30.0, 41, 25, 52, 38, 47, 29, 60],
    ...                    "s": list("aaaabbbb")})
    >>> pr = bnn_priors(df, "x", "s", "a", "b", features=["age"], n_hidden=5)
    >>> type(pr.prior_j).__name__, pr.details["n_hidden"], sorted(pr.details["fits"][0])[:2]
    ('Gaussian', 5, ['W', 'c'])
    """
    if int(n_hidden) != n_hidden or n_hidden < 1:
        raise ValueError(f"n_hidden must be an integer >= 1, got {n_hidden!r}")
    if feature_map not in ("mlp", "random"):
        raise ValueError(f"feature_map must be 'mlp' or 'random', got {feature_map!r}")
    data, zq, xq, _ = model_inputs(df, x, secret, s_i, s_j, features, query_point, max_train, random_state)
    priors, fits = [], []
    for Z, y, _ in data:
        W, c = _hidden_layer(Z, y, int(n_hidden), feature_map, random_state)
        Phi, phi_q = np.tanh(Z @ W + c), np.tanh(zq @ W + c)[0]
        mean, var, info = _bayes_last_layer(Phi, y, phi_q)
        priors.append(Gaussian(mean=mean, var=var))
        fits.append({"W": W, "c": c, **info})
    return _model_query(
        "bnn",
        priors,
        data,
        n_quantiles,
        {
            "features": list(features),
            "query_point": xq,
            "fits": fits,
            "feature_map": feature_map,
            "n_hidden": int(n_hidden),
            "n_train": (len(data[0][1]), len(data[1][1])),
            "max_train": max_train,
            "n_quantiles": n_quantiles,
        },
    )


# ---------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------
