"""Exact privacy computations on finite (discrete) spaces.

Small, exact building blocks used by the first two chapters of the book:

* :func:`hockey_stick_divergence` -- the smallest ``delta`` with
  ``P(A) <= e^eps Q(A) + delta`` for every event ``A``;
* :func:`randomized_response` and :func:`product_channel` -- mechanisms given as
  channel (Markov) matrices ``K[x, y] = P(M(x) = y)``;
* :func:`conditional_output_pmf`, :func:`pufferfish_epsilon` and
  :func:`posterior_odds` -- the Pufferfish quantities of Kifer and
  Machanavajjhala (2014) for a prior over a finite set of databases.

Everything is computed exactly (no sampling).  The Rényi divergence of two
probability mass functions is :func:`rpp.discrete_renyi_divergence`.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ..divergence import discrete_renyi_value

__all__ = [
    "hockey_stick_divergence",
    "randomized_response",
    "product_channel",
    "conditional_output_pmf",
    "pufferfish_epsilon",
    "posterior_odds",
    "pufferfish_leakage",
]


def hockey_stick_divergence(p: ArrayLike, q: ArrayLike, epsilon: float) -> float | np.ndarray:
    r"""Smallest ``delta`` such that ``P(A) <= e^epsilon Q(A) + delta`` for every event ``A``.

    .. math::

        \delta_{P\|Q}(\varepsilon) = \sup_A \bigl(P(A) - e^\varepsilon Q(A)\bigr)
        = \sum_x \bigl(p(x) - e^\varepsilon q(x)\bigr)_+ ,

    the supremum being attained at ``A = {x : p(x) > e^eps q(x)}``.  This is the
    exact one-directional ``(epsilon, delta)`` guarantee of a pair of output
    distributions (e.g. Balle et al. 2018, "privacy profiles").

    Parameters
    ----------
    p, q : array_like, shape (n,)
        Probability vectors on the same finite support.
    epsilon : float or array_like
        Budget(s) ``>= 0``.

    Returns
    -------
    float or ndarray
        ``delta`` for each ``epsilon`` (shape of ``epsilon``), in ``[0, 1]``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], 0.0)  # total variation
    0.25
    """
    p = v.pmf("p", p)
    q = v.pmf("q", q)
    if p.ndim != 1 or p.shape != q.shape:
        raise ValueError(f"p and q must be 1-D vectors of the same length, got shapes {p.shape} and {q.shape}")
    eps = v.positive("epsilon", epsilon, allow_zero=True)
    with np.errstate(over="ignore", invalid="ignore"):  # e^eps = +inf: inf * 0 where q = 0, replaced by 0
        scaled = np.where(q > 0, np.exp(eps)[..., None] * q, 0.0)
    out = np.clip(p - scaled, 0.0, None).sum(axis=-1)
    return float(out) if out.ndim == 0 else out


def randomized_response(epsilon: float, k: int = 2) -> np.ndarray:
    r"""Channel matrix of ``k``-ary randomized response with budget ``epsilon``.

    ``K[x, y] = e^eps / (e^eps + k - 1)`` if ``y == x`` and ``1 / (e^eps + k - 1)``
    otherwise (Warner 1965 for ``k = 2``; Kairouz, Oh and Viswanath 2016 for general
    ``k``).  Every pair of rows has likelihood ratio at most ``e^eps``, so the
    mechanism is ``epsilon``-differentially private for one categorical value.

    Parameters
    ----------
    epsilon : float
        Budget, ``> 0``.
    k : int
        Alphabet size, ``>= 2``.

    Returns
    -------
    ndarray, shape (k, k)
        Row-stochastic matrix.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> randomized_response(np.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    eps = float(v.positive("epsilon", epsilon))
    if int(k) != k or k < 2:
        raise ValueError(f"k must be an integer >= 2, got {k!r}")
    k = int(k)
    # divide numerator and denominator by e^eps to avoid overflow for large eps
    stay = 1.0 / (1.0 + (k - 1) * np.exp(-eps))
    move = np.exp(-eps) * stay
    return np.where(np.eye(k, dtype=bool), stay, move)


def product_channel(*channels: ArrayLike) -> np.ndarray:
    r"""Channel of independent mechanisms applied record by record.

    For records ``x = (x_1, ..., x_n)`` released independently through channels
    ``K_1, ..., K_n``, ``P(y | x) = prod_r K_r[x_r, y_r]``: the Kronecker product
    ``K_1 ⊗ ... ⊗ K_n``.  Databases and outputs are indexed in row-major
    (``np.ravel_multi_index``) order, so the database ``(x_1, x_2)`` has index
    ``x_1 * k_2 + x_2``.

    Parameters
    ----------
    *channels : array_like
        Row-stochastic matrices, at least one.

    Returns
    -------
    ndarray
        Row-stochastic matrix of shape ``(prod k_r, prod m_r)``.

    Raises
    ------
    ValueError
        With no channel, or a channel that is not row-stochastic.

    Examples
    --------
    >>> product_channel(randomized_response(1.0), randomized_response(1.0)).shape
    (4, 4)
    """
    if not channels:
        raise ValueError("channels must contain at least one channel matrix, got none")
    out = np.ones((1, 1))
    for r, ch in enumerate(channels):
        out = np.kron(out, v.channel(f"channels[{r}]", ch))
    return out


def conditional_output_pmf(prior: ArrayLike, channel: ArrayLike, secret: ArrayLike) -> np.ndarray:
    r"""Output distribution of a mechanism given that a secret holds.

    .. math::

        P(M(\mathrm{Data}) = y \mid s, \rho)
        = \frac{\sum_{x \in s} \rho(x) K[x, y]}{\sum_{x \in s} \rho(x)} ,

    where the secret ``s`` is a set of databases (a predicate), ``rho`` is the
    prior over databases and ``K`` the mechanism's channel matrix (Kifer and
    Machanavajjhala 2014, Definition 3.1).

    Parameters
    ----------
    prior : array_like, shape (n,)
        Prior probability of each database.
    channel : array_like, shape (n, m)
        Row-stochastic mechanism matrix.
    secret : array_like of bool, shape (n,)
        Which databases make the secret true.

    Returns
    -------
    ndarray, shape (m,)
        The conditional output pmf.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> conditional_output_pmf([0.5, 0.5], randomized_response(np.log(3)), np.array([True, False]))
    array([0.75, 0.25])
    """
    prior = v.pmf("prior", prior)
    channel = v.channel("channel", channel)
    secret = np.asarray(secret)
    if secret.dtype != bool or secret.shape != prior.shape:
        raise ValueError(
            f"secret must be a boolean mask of shape {prior.shape}, got dtype {secret.dtype} and shape {secret.shape}"
        )
    if channel.shape[0] != prior.shape[0]:
        raise ValueError(f"channel must have one row per database ({prior.shape[0]}), got {channel.shape[0]}")
    mass = prior[secret].sum()
    if mass <= 0:
        raise ValueError(
            "secret must have positive prior probability; Pufferfish only "
            "constrains secrets that the prior considers possible"
        )
    return (prior * secret) @ channel / mass


def pufferfish_epsilon(prior: ArrayLike, channel: ArrayLike, secret_i: ArrayLike, secret_j: ArrayLike) -> float:
    r"""Smallest ``epsilon`` for which a mechanism is ``epsilon``-Pufferfish private.

    For one discriminative pair and one prior.

    Kifer and Machanavajjhala (2014, Definition 3.1) require, for every output ``y``,
    ``e^{-eps} <= P(y | s_i, rho) / P(y | s_j, rho) <= e^{eps}``; the smallest such
    ``eps`` is ``max(D_inf(P_i || P_j), D_inf(P_j || P_i))`` (max-divergences of the
    two conditional output pmfs).  For a class of priors take the maximum over it.

    Parameters
    ----------
    prior : array_like, shape (n,)
        Prior over the databases.
    channel : array_like, shape (n, m)
        Row-stochastic mechanism.
    secret_i, secret_j : array_like of bool, shape (n,)
        The two secrets.

    Returns
    -------
    float
        ``+inf`` if some output is possible under one secret and impossible under
        the other.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> K = randomized_response(np.log(3))
    >>> round(float(pufferfish_epsilon([0.5, 0.5], K, np.array([True, False]), np.array([False, True]))), 12)
    1.098612288668
    """
    p_i = conditional_output_pmf(prior, channel, secret_i)
    p_j = conditional_output_pmf(prior, channel, secret_j)
    # one distribution each: numpy float64 scalars, floats
    return cast(float, max(discrete_renyi_value(p_i, p_j, np.inf), discrete_renyi_value(p_j, p_i, np.inf)))


def posterior_odds(
    prior: ArrayLike,
    channel: ArrayLike,
    secret_i: ArrayLike,
    secret_j: ArrayLike,
    *,
    return_support: bool = False,
) -> tuple[float | np.ndarray, ...]:
    r"""Prior odds and posterior odds of ``s_i`` against ``s_j`` after each output.

    Bayes' rule gives, for each output ``y``,

    .. math::

        \frac{P(s_i \mid y)}{P(s_j \mid y)}
        = \frac{P(y \mid s_i)}{P(y \mid s_j)} \cdot \frac{P(s_i)}{P(s_j)} ,

    which is why ``epsilon``-Pufferfish privacy is equivalent to posterior odds
    staying within a factor ``e^{±epsilon}`` of the prior odds (Kifer and
    Machanavajjhala 2014, Section 3.1).  The posterior here is computed directly
    from the joint distribution of (database, output), not from the formula
    above, so that the formula can be checked against it.

    Parameters
    ----------
    prior : array_like, shape (n,)
        Prior over the databases.
    channel : array_like, shape (n, m)
        Row-stochastic mechanism.
    secret_i, secret_j : array_like of bool, shape (n,)
        Two mutually exclusive secrets.
    return_support : bool, optional
        Keyword-only.  The odds are defined only on the *support*, the outputs ``y``
        with :math:`P(y, s_i \lor s_j) = P(s_i)P(y\mid s_i) + P(s_j)P(y\mid s_j) > 0`;
        an output outside it has :math:`P(y \mid s_i) = P(y \mid s_j) = 0`, so the
        Pufferfish inequalities hold there trivially and the posterior-odds reading
        (Kifer and Machanavajjhala 2014) excludes it.  With ``False`` (default) every
        output must lie in the support (otherwise ``ValueError``, naming this
        argument); with ``True`` the odds are returned on the support only, together
        with its boolean mask.

    Returns
    -------
    prior_odds : float
        ``P(s_i) / P(s_j)``.
    post_odds : ndarray, shape (m,) or (support.sum(),)
        ``P(s_i | y) / P(s_j | y)`` for every output ``y`` of the support, in output
        order (``+inf`` where ``P(s_j | y) = 0``, ``0`` where ``P(s_i | y) = 0``).
    support : ndarray of bool, shape (m,)
        Only with ``return_support=True``: the mask of the outputs ``post_odds`` refers to.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> K = randomized_response(np.log(3))
    >>> posterior_odds([0.5, 0.5], K, np.array([True, False]), np.array([False, True]))
    (1.0, array([3.        , 0.33333333]))

    An output that neither secret can produce is outside the support:

    >>> K3 = np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]])
    >>> posterior_odds([0.5, 0.5], K3, np.array([True, False]), np.array([False, True]), return_support=True)
    (1.0, array([2.        , 0.66666667]), array([ True,  True, False]))
    """
    prior = v.pmf("prior", prior)
    channel = v.channel("channel", channel)
    for name, s in (("secret_i", secret_i), ("secret_j", secret_j)):
        s = np.asarray(s)
        if s.dtype != bool or s.shape != prior.shape:
            raise ValueError(f"{name} must be a boolean mask of shape {prior.shape}")
        if prior[s].sum() <= 0:
            raise ValueError(f"{name} must have positive prior probability")
    secret_i = np.asarray(secret_i)
    secret_j = np.asarray(secret_j)
    if np.any(secret_i & secret_j):
        raise ValueError("secret_i and secret_j must be mutually exclusive")
    if not isinstance(return_support, (bool, np.bool_)):
        raise TypeError(f"return_support must be a bool, got {type(return_support).__name__}")
    joint = prior[:, None] * channel  # P(x, y)
    support = (joint[secret_i].sum(axis=0) + joint[secret_j].sum(axis=0)) > 0  # P(y, s_i or s_j) > 0
    if not return_support and not np.all(support):
        raise ValueError(
            "every output must have positive probability under s_i or s_j (return_support=False); "
            "pass return_support=True to get the odds on the outputs of positive probability only"
        )
    joint = joint[:, support]
    p_y = joint.sum(axis=0)  # P(y), positive on the support
    post_i = joint[secret_i].sum(axis=0) / p_y  # P(s_i | y)
    post_j = joint[secret_j].sum(axis=0) / p_y  # P(s_j | y)
    with np.errstate(divide="ignore"):
        post = np.where(post_j > 0, post_i / np.where(post_j > 0, post_j, 1.0), np.inf)
    prior_odds = float(prior[secret_i].sum() / prior[secret_j].sum())
    if return_support:
        return prior_odds, post, support
    return prior_odds, post


def pufferfish_leakage(p: ArrayLike, q: ArrayLike, axis: int = -1) -> float | np.ndarray:
    r"""Pufferfish leakage :math:`\max_\omega|\log p(\omega)/q(\omega)|` of one secret pair.

    Equals :math:`\max\{D_\infty(p\|q), D_\infty(q\|p)\}`: the smallest
    :math:`\epsilon` with :math:`e^{-\epsilon}\le p(\omega)/q(\omega)\le e^{\epsilon}`
    (Kifer & Machanavajjhala 2014, Def. 3.4; Bai et al. 2026, Def. 5).

    Parameters
    ----------
    p, q : array_like
        Output pmfs of the two secrets (broadcast), summing to 1 along ``axis``.
    axis : int
        Axis holding the outputs.

    Returns
    -------
    float or ndarray
        The leakage, ``+inf`` if an output is possible under one secret only.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability vector.

    Examples
    --------
    >>> round(float(pufferfish_leakage([0.75, 0.25], [0.25, 0.75])), 12)  # log 3
    1.098612288668
    """
    return np.maximum(discrete_renyi_value(p, q, np.inf, axis=axis), discrete_renyi_value(q, p, np.inf, axis=axis))
