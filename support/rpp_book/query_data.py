r"""Building blocks of the query priors (rpp_book.queries).

The result type, the secret-conditioned subsets, the data resolution, the quantile discretisation and the model inputs of the GP and BNN queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rpp._lib import validation as v
from rpp.priors import Empirical, Gaussian, GaussianMixture

__all__ = [
    "QUERY_FAMILIES",
    "QueryPriors",
    "secret_subsets",
    "data_resolution",
    "quantile_discretization",
    "model_inputs",
]

QUERY_FAMILIES = ("raw", "mean", "gp", "bnn")


@dataclass(frozen=True)
class QueryPriors:  # numpydoc ignore=PR02
    r"""Secret-conditioned priors of one query on one secret pair.

    Parameters
    ----------
    query, prior_i, prior_j, baseline_i, baseline_j, n_i, n_j, details
        The attributes, in this order (``details`` optional). The builders of
        :mod:`rpp_book.queries` fill them; no check is made here.
        The record is frozen: setting an attribute raises ``dataclasses.FrozenInstanceError``.

    Attributes
    ----------
    query : str
        One of ``QUERY_FAMILIES``.
    prior_i : rpp.Gaussian or rpp.GaussianMixture
        Model prior given :math:`s_i` (calibrated by the paper's and the book's rules).
    prior_j : rpp.Gaussian or rpp.GaussianMixture
        Model prior given :math:`s_j`.
    baseline_i : rpp.Empirical
        Discrete prior given :math:`s_i` used by the :math:`W_\infty` baseline (``"pierquin"``).
    baseline_j : rpp.Empirical
        The same given :math:`s_j`.
    n_i : int
        Size of the subset with :math:`s_i` (rows with ``x`` present).
    n_j : int
        Size of the subset with :math:`s_j`.
    details : dict
        Query-specific information (fitted models, query point, settings).

    Examples
    --------
    >>> from rpp import Gaussian
    >>> p, q = Gaussian(mean=0.0, var=1.0), Gaussian(mean=1.0, var=1.0)
    >>> pr = QueryPriors("mean", p, q, quantile_discretization(p, 3), quantile_discretization(q, 3), 20, 30)
    >>> pr.query, pr.n_i + pr.n_j, pr.baseline_j.atoms.size
    ('mean', 50, 3)
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


def secret_subsets(
    df: pd.DataFrame, x: str, secret: str, s_i: Any, s_j: Any, features: Sequence[str] = ()
) -> tuple[Any, Any]:
    """Return the rows of ``df`` with ``secret == s_i`` and with ``secret == s_j``: the subsets :math:`D_{s_i}, D_{s_j}`.

    Rows with a missing value in ``x`` or in one of ``features`` are dropped.

    Parameters
    ----------
    df : pandas.DataFrame
        The data.
    x : str
        The released (numeric) column.
    secret : str
        The secret column.
    s_i, s_j
        The two secrets (values of ``secret``).
    features : sequence of str
        Further numeric columns to keep (model inputs).

    Returns
    -------
    sub_i, sub_j : DataFrame
        Columns ``[x, *features]`` as floats, index reset.

    Raises
    ------
    ValueError
        If a column is missing, ``x`` or a feature is not numeric, ``s_i == s_j``,
        or a subset has fewer than 2 rows.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, None, 8], "s": list("aaaabbbb")})
    >>> sub_i, sub_j = secret_subsets(df, "x", "s", "a", "b")
    >>> sub_i["x"].tolist(), len(sub_j)
    ([1.0, 2.0, 2.0, 3.0], 3)
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
            raise ValueError(
                f"the subset {secret} == {s!r} must have at least 2 rows with {cols} present, got {len(sub)}"
            )
        out.append(sub.astype(float))
    return out[0], out[1]


def data_resolution(*samples: ArrayLike) -> float:
    """Return the recording resolution :math:`h` of data: the smallest gap between distinct pooled values.

    Values are first rounded to 10 decimals so that ``0.1``-steps stored in binary
    floating point give ``h = 0.1``.  A value recorded on a grid of step :math:`h` carries
    a rounding error of variance :math:`h^2/12` (Sheppard 1898), the variance floor of
    :func:`rpp_book.queries.raw_priors`.

    Parameters
    ----------
    *samples : array_like
        One or more samples, pooled.

    Returns
    -------
    float
        :math:`h`, or ``inf`` for a single distinct value.

    Raises
    ------
    ValueError
        If a value is not finite.

    Examples
    --------
    >>> data_resolution([0.1, 0.4], [0.2, 1.0])
    0.1
    >>> data_resolution([3, 3])
    inf
    """
    pooled = np.concatenate([v.finite("samples", np.asarray(s, float)).ravel() for s in samples])
    u = np.unique(np.round(pooled, 10))
    return float(np.min(np.diff(u))) if u.size > 1 else np.inf


def quantile_discretization(prior: Gaussian | GaussianMixture, n_quantiles: int = 1000) -> Empirical:
    r"""Return the ``n_quantiles`` quantiles :math:`F^{-1}((k-1/2)/B)`, :math:`k = 1..B`, as an :class:`~rpp.Empirical`.

    The quantile discretisation of a continuous prior: the empirical law of
    ``B`` matched samples (the mid-point plotting positions).  Two
    discretisations are coupled monotonically atom by atom, so for Gaussians
    :math:`W_\infty = \max_k |\mu_i-\mu_j + (\sigma_i-\sigma_j)\Phi^{-1}(u_k)|
    = |\mu_i-\mu_j| + |\sigma_i-\sigma_j|\,\Phi^{-1}(1-\tfrac{1}{2B})`.  Each atom carries
    mass :math:`1/B`; the prior's mass outside the atoms' range is :math:`1/B` (the δ of
    Pierquin et al. 2024's δ-approximate :math:`W_\infty`).

    Parameters
    ----------
    prior : rpp.Gaussian or rpp.GaussianMixture
        The continuous prior.
    n_quantiles : int
        :math:`B \ge 1`.

    Returns
    -------
    rpp.Empirical
        The :math:`B` quantiles as equally weighted samples.

    Raises
    ------
    ValueError
        If ``n_quantiles`` is not an integer >= 1 or ``prior`` has another type.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> quantile_discretization(Gaussian(mean=0.0, var=1.0), 4).atoms.round(4)
    array([-1.1503, -0.3186,  0.3186,  1.1503])
    """
    if int(n_quantiles) != n_quantiles or n_quantiles < 1:
        raise ValueError(f"n_quantiles must be an integer >= 1, got {n_quantiles!r}")
    if not isinstance(prior, (Gaussian, GaussianMixture)):
        raise ValueError(f"prior must be an rpp.Gaussian or rpp.GaussianMixture, got {type(prior).__name__}")
    u = (np.arange(int(n_quantiles)) + 0.5) / int(n_quantiles)
    return Empirical(prior.ppf(u))


def model_inputs(
    df: pd.DataFrame,
    x: str,
    secret: str,
    s_i: Any,
    s_j: Any,
    features: Sequence[str],
    query_point: Any,
    max_train: int,
    random_state: int,
) -> tuple[Any, ...]:
    r"""Standardised model inputs of the GP and BNN queries: ``(data, z_query, x_query, (loc, scale))``.

    The ``features`` are standardised with the mean and standard deviation of the two
    secret-conditioned subsets pooled, :math:`z = (u - \bar u) / s_u`; each subset keeps at most
    ``max_train`` rows (a seeded draw); the query point is mapped to the same scale.

    Parameters
    ----------
    df, x, secret, s_i, s_j
        As in :func:`secret_subsets`.
    features : sequence of str
        The numeric input columns (at least one; not ``x``).
    query_point : array_like or None
        :math:`x_\star`, one value per feature in the original units; ``None``: the pooled medians.
    max_train : int
        Largest training subset (>= 2).
    random_state : int
        Seed of the subsampling.

    Returns
    -------
    tuple
        ``data`` (one ``(Z, y, n)`` per subset: standardised inputs, responses, subset size
        before subsampling), ``z_query`` (shape ``(1, d)``), ``x_query`` and the
        standardisation ``(loc, scale)``.

    Raises
    ------
    ValueError
        For bad ``features``, ``query_point`` or ``max_train``, a constant feature or a
        constant response.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"x": [1.0, 2, 2, 3, 5, 6, 6, 8], "age": [30.0, 41, 25, 52, 38, 47, 29, 60],
    ...                    "s": list("aaaabbbb")})
    >>> data, zq, xq, (loc, scale) = model_inputs(df, "x", "s", "a", "b", ["age"], None, 350, 0)
    >>> [Z.shape for Z, y, n in data], xq, loc
    ([(4, 1), (4, 1)], array([39.5]), array([40.25]))
    """
    features = list(features)
    if not features:
        raise ValueError("features must name at least one numeric input column")
    if x in features:
        raise ValueError(f"features must not contain the released column {x!r}")
    sub_i, sub_j = secret_subsets(df, x, secret, s_i, s_j, features)
    pooled = pd.concat([sub_i, sub_j], ignore_index=True)[features].to_numpy()
    loc, scale = pooled.mean(axis=0), pooled.std(axis=0)
    if np.any(scale == 0):
        raise ValueError(
            f"every feature must vary over the two subsets; constant: "
            f"{[f for f, s in zip(features, scale, strict=True) if s == 0]}"
        )
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
