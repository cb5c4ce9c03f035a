r"""Finite Markov chains: the stationary law and the joint pmf of a chain prior.

The basics of the Markov-chain priors of Bai et al. (2026), Sec. 6.4; re-exported by
``rpp/pufferfish/_markov.py`` and :mod:`rpp.pufferfish`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v

__all__ = ["stationary_distribution", "chain_joint"]

#: the largest joint pmf built by brute force (cells; 2**26 doubles = 512 MiB)
MAX_CELLS = 2**26


def stationary_distribution(P: ArrayLike) -> np.ndarray:
    r"""Stationary distribution :math:`\pi=\pi P` of an irreducible chain, by GTH elimination.

    Grassmann-Taksar-Heyman elimination (Grassmann, Taksar & Heyman 1985): states are
    eliminated from the last one down, the pivot of state ``n`` is the sum of its off-diagonal
    rates :math:`\sum_{j<n}P_{nj}` (never ``1 - P_nn``), and every step adds and multiplies
    non-negative numbers only, so each :math:`\pi_i` has full relative precision (O(K u) for
    K states; O(K^3) work).  The diagonal is never read: it is implied, :math:`1-\sum_{j\ne i}P_{ij}`
    (rows of ``P`` must still sum to 1 within 1e-9).  ``[[1 - 1e-13, 1e-13], [3e-13, 1 - 3e-13]]``
    gives ``[0.75, 0.25]`` to a few ulps, where the eigenvector of ``numpy.linalg.eig`` was
    wrong in the fifth digit.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix of an irreducible chain.

    Returns
    -------
    ndarray, shape (K,)
        The unique stationary law.

    Raises
    ------
    ValueError
        If ``P`` is not a square row-stochastic matrix, or the chain is reducible (some state
        cannot reach another): its stationary law is then not unique or not positive.

    Examples
    --------
    >>> stationary_distribution([[0.9, 0.1], [0.2, 0.8]]).round(6)
    array([0.666667, 0.333333])
    """
    P = v.transition_matrix("P", P)
    K = P.shape[0]
    reach = (P > 0) | np.eye(K, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(K, 2)))))):
        reach = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
    if not reach.all():
        raise ValueError(
            "P must be the transition matrix of an irreducible chain (every state reachable "
            "from every other); this chain is reducible, so its stationary law is not unique"
        )
    A = P.copy()
    for n in range(K - 1, 0, -1):
        s = A[n, :n].sum()  # > 0 for an irreducible chain (state n reaches a state below it)
        A[:n, n] /= s
        A[:n, :n] += np.outer(A[:n, n], A[n, :n])
    pi = np.zeros(K)
    pi[0] = 1.0
    for j in range(1, K):
        pi[j] = pi[:j] @ A[:j, j]
    return pi / pi.sum()


def chain_joint(P: ArrayLike, n: int, start: ArrayLike | None = None) -> np.ndarray:
    r"""Joint pmf of :math:`(X_1,\dots,X_n)` as an array of shape ``(K,)*n`` (brute force).

    :math:`p(x_1,\dots,x_n)=\mu_1(x_1)\prod_{t<n}P(x_t,x_{t+1})` (Markov property; the chain
    priors of Bai et al. 2026, Sec. 6.4).

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix.
    n : int
        Chain length, ``n >= 1``.
    start : array_like, shape (K,), optional
        Law of :math:`X_1` (default: the stationary distribution of ``P``).

    Returns
    -------
    ndarray, shape ``(K,)*n``
        ``J[x_1, ..., x_n]``, summing to 1.

    Raises
    ------
    ValueError
        If ``P`` is not row-stochastic, ``n < 1``, the joint would have more than
        ``MAX_CELLS = 2**26`` cells (``K**n > 2**26``) or ``start`` is not a probability vector.

    Examples
    --------
    >>> chain_joint([[0.9, 0.1], [0.2, 0.8]], 2).round(6)
    array([[0.6     , 0.066667],
           [0.066667, 0.266667]])
    """
    P = v.transition_matrix("P", P)
    n = v.integer("n", n, 1)
    K = P.shape[0]
    if n > 1 and n * np.log2(K) > np.log2(MAX_CELLS):
        raise ValueError(f"n must satisfy K**n <= 2**26 (the joint has K**n cells, K = {K}), got n = {n}")
    start = stationary_distribution(P) if start is None else v.pmf("start", start)
    J = start.copy()
    for _ in range(n - 1):
        J = J[..., None] * P.reshape((1,) * (J.ndim - 1) + (K, K))
    return J
