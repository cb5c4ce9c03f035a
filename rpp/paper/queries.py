r"""Secret-conditioned priors of the query families of Yang et al. 2026, Section V.

A data set (a ``pandas.DataFrame``) has a *released* numeric column ``x``
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
    scikit-learn ``GaussianProcessRegressor``, kernel
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
    scikit-learn ``MLPRegressor`` (``feature_map="mlp"``, the
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

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .. import _validation as v
from ..distributions import Empirical, Gaussian, GaussianMixture
from ..gmm import fit_gmm
from .model_queries import bnn_priors, gp_priors
from .query_data import QUERY_FAMILIES, QueryPriors, data_resolution, quantile_discretization, secret_subsets

__all__ = [
    "QUERY_FAMILIES",
    "QueryPriors",
    "secret_subsets",
    "data_resolution",
    "quantile_discretization",
    "raw_priors",
    "mean_priors",
    "gp_priors",
    "bnn_priors",
    "query_priors",
    "paper_method",
]


def raw_priors(
    df: pd.DataFrame,
    x: str,
    secret: str,
    s_i: Any,
    s_j: Any,
    *,
    max_components: int = 10,
    reg_covar: float | str = "resolution",
    random_state: int = 0,
) -> QueryPriors:
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
        reg = max(h**2 / 12, 1e-6) if np.isfinite(h) else 1e-6
    else:
        reg = float(v.positive("reg_covar", reg_covar))
    gi = fit_gmm(xi, max_components=max_components, random_state=random_state, reg_covar=reg)
    gj = fit_gmm(xj, max_components=max_components, random_state=random_state, reg_covar=reg)
    return QueryPriors(
        "raw",
        gi,
        gj,
        Empirical(xi),
        Empirical(xj),
        xi.size,
        xj.size,
        {"reg_covar": reg, "resolution": h, "samples_i": xi, "samples_j": xj, "max_components": max_components},
    )


def mean_priors(df: pd.DataFrame, x: str, secret: str, s_i: Any, s_j: Any, *, n_quantiles: int = 1000) -> QueryPriors:
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
    return QueryPriors(
        "mean",
        priors[0],
        priors[1],
        quantile_discretization(priors[0], n_quantiles),
        quantile_discretization(priors[1], n_quantiles),
        len(sub_i),
        len(sub_j),
        {"n_quantiles": n_quantiles},
    )


# ---------------------------------------------------------------------------
# Model outputs: GP and BNN
# ---------------------------------------------------------------------------


def query_priors(df: pd.DataFrame, x: str, secret: str, s_i: Any, s_j: Any, query: str, **options: Any) -> QueryPriors:
    """Priors of one query family (``"raw"``, ``"mean"``, ``"gp"``, ``"bnn"``); ``options`` go to its builder."""
    builders: dict[str, Callable[..., QueryPriors]] = {
        "raw": raw_priors,
        "mean": mean_priors,
        "gp": gp_priors,
        "bnn": bnn_priors,
    }
    if query not in builders:
        raise ValueError(f"query must be one of {QUERY_FAMILIES}, got {query!r}")
    return builders[query](df, x, secret, s_i, s_j, **options)


def paper_method(priors: QueryPriors) -> str:
    """The rule Yang et al. 2026 use for a prior pair: ``"gmm-ot"`` (Thm IV.1) for mixtures, ``"closed-form"`` (Thm III.5) for Gaussians."""
    p, q = (priors.prior_i, priors.prior_j) if isinstance(priors, QueryPriors) else priors
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        return "closed-form"
    if isinstance(p, (Gaussian, GaussianMixture)) and isinstance(q, (Gaussian, GaussianMixture)):
        return "gmm-ot"
    raise ValueError(
        f"priors must be rpp.Gaussian or rpp.GaussianMixture, got {type(p).__name__} and {type(q).__name__}"
    )
