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

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from rpp._lib import validation as v
from rpp.gmm import VarianceFloorWarning, fit_gmm
from rpp.priors import Empirical, Gaussian, GaussianMixture

from .model_queries import bnn_priors, gp_priors
from .query_data import (
    QUERY_FAMILIES,
    QueryPriors,
    data_resolution,
    quantile_discretization,
    secret_subsets,
)

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
        Data frame, released column, secret column and the two secrets
        (:func:`secret_subsets`).
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

    Returns
    -------
    QueryPriors
        ``query="raw"``; the fitted mixtures, the empirical laws of the two subsets,
        and ``details`` with ``reg_covar``, ``resolution`` (:math:`h`), the samples and
        ``max_components``.

    Raises
    ------
    ValueError
        As :func:`secret_subsets`, or for a ``reg_covar`` that is neither positive nor
        ``"resolution"``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "s": list("aaaabbbb")})
    >>> pr = raw_priors(df, "x", "s", "a", "b", max_components=2)
    >>> pr.details["resolution"], round(pr.details["reg_covar"], 4), pr.prior_i.n_components
    (1.0, 0.0833, 1)
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
    with warnings.catch_warnings():
        # The reproduction fits the paper's raw priors on purpose with this floor (components on
        # single grid values are part of that model, discussed in chapters 4 and 6); the floor is reported
        # in details["reg_covar"], and fit_gmm's at_floor_ lists the components it holds.
        warnings.simplefilter("ignore", VarianceFloorWarning)
        gi = fit_gmm(xi, max_components=max_components, rng=random_state, reg_covar=reg)
        gj = fit_gmm(xj, max_components=max_components, rng=random_state, reg_covar=reg)
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

    The subset mean, approximated by a Gaussian with the sample mean and the squared
    standard error. The baseline priors are the ``n_quantiles``-point quantile
    discretisations of the two Gaussians (:func:`quantile_discretization`).

    Parameters
    ----------
    df, x, secret, s_i, s_j
        Data frame, released column, secret column and the two secrets
        (:func:`secret_subsets`).
    n_quantiles : int
        Atoms of each baseline discretisation (default 1000).

    Returns
    -------
    QueryPriors
        ``query="mean"``, two :class:`rpp.Gaussian` priors and their discretisations.

    Raises
    ------
    ValueError
        As :func:`secret_subsets`, or if ``x`` is constant in a subset.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "s": list("aaaabbbb")})
    >>> pr = mean_priors(df, "x", "s", "a", "b", n_quantiles=10)
    >>> pr.prior_i.mean, round(pr.prior_i.var, 6), pr.baseline_i.atoms.size  # var = (2/3) / 4
    (2.0, 0.166667, 10)
    """
    sub_i, sub_j = secret_subsets(df, x, secret, s_i, s_j)
    priors = []
    for sub in (sub_i, sub_j):
        z = sub[x].to_numpy()
        se2 = np.var(z, ddof=1) / z.size
        if se2 <= 0:
            raise ValueError(f"column {x!r} is constant in a secret subset: the MEAN prior has no spread")
        priors.append(Gaussian(mean=np.mean(z), var=se2))
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
    """Build the priors of one query family (``"raw"``, ``"mean"``, ``"gp"``, ``"bnn"``); ``options`` go to its builder.

    Parameters
    ----------
    df, x, secret, s_i, s_j
        Data frame, released column, secret column and the two secrets.
    query : {"raw", "mean", "gp", "bnn"}
        The query family (:func:`raw_priors`, :func:`mean_priors`, :func:`gp_priors`,
        :func:`bnn_priors`).
    **options
        Keyword arguments of that builder.

    Returns
    -------
    QueryPriors
        The builder's result.

    Raises
    ------
    ValueError
        For an unknown ``query``, or as the builder.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "s": list("aaaabbbb")})
    >>> query_priors(df, "x", "s", "a", "b", "mean", n_quantiles=5).prior_j.mean
    6.25
    """
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
    """Return the rule Yang et al. 2026 use for a prior pair: ``"gmm-ot"`` (Thm IV.1) for mixtures, ``"closed-form"`` (Thm III.5) for Gaussians.

    Parameters
    ----------
    priors : QueryPriors or tuple
        A query's priors, or the pair ``(prior_i, prior_j)``.

    Returns
    -------
    str
        ``"closed-form"`` when both priors are Gaussians, ``"gmm-ot"`` when one is a
        mixture (a method name of :func:`rpp.calibrate`).

    Raises
    ------
    ValueError
        If a prior is neither an :class:`rpp.Gaussian` nor an :class:`rpp.GaussianMixture`.

    Examples
    --------
    >>> from rpp import Gaussian, GaussianMixture
    >>> paper_method((Gaussian(mean=0, var=1), Gaussian(mean=1, var=2)))
    'closed-form'
    >>> paper_method((Gaussian(mean=0, var=1), GaussianMixture(weights=[0.5, 0.5], means=[0, 2], vars=[1, 1])))
    'gmm-ot'
    """
    p, q = (priors.prior_i, priors.prior_j) if isinstance(priors, QueryPriors) else priors
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        return "closed-form"
    if isinstance(p, (Gaussian, GaussianMixture)) and isinstance(q, (Gaussian, GaussianMixture)):
        return "gmm-ot"
    raise ValueError(
        f"priors must be rpp.Gaussian or rpp.GaussianMixture, got {type(p).__name__} and {type(q).__name__}"
    )
