r"""Markov chains from data: smoothing, maximum-likelihood fit and simulation (Bai et al. 2026, Sec. 7).

Used with the Markov Quilt Mechanism of :mod:`rpp.pufferfish` on activity sequences.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rpp._lib import validation as v
from rpp.pufferfish import stationary_distribution

__all__ = ["smooth_transition_matrix", "fit_transition_matrix", "simulate_chains"]


def smooth_transition_matrix(P: ArrayLike, tau: float = 1e-5) -> np.ndarray:
    r"""Smoothing of Bai et al. (2026), App. D.2.

    1. add :math:`\tau` to every zero entry of each row;
    2. subtract the added mass proportionally from the non-zero entries, so rows still sum
       to one and all entries stay non-negative.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Non-negative matrix with rows summing to one.
    tau : float, default 1e-5
        Mass :math:`\tau>0` added to every zero entry.

    Returns
    -------
    ndarray, shape (K, K)
        The smoothed matrix (every entry positive).

    Raises
    ------
    ValueError
        If ``P`` is not a non-negative matrix, ``tau <= 0``, or :math:`\tau` times a row's
        number of zeros is not below that row's non-zero mass.

    Examples
    --------
    >>> smooth_transition_matrix([[1.0, 0.0], [0.5, 0.5]], 0.1).round(6)
    array([[0.9, 0.1],
           [0.5, 0.5]])
    """
    P = v.finite("P", P)
    v.positive("tau", tau)
    if P.ndim != 2 or np.any(P < 0):
        raise ValueError("P must be a non-negative matrix")
    out = P.copy()
    zero = P == 0
    added = tau * zero.sum(1, keepdims=True)
    nz_mass = np.where(zero, 0, P).sum(1, keepdims=True)
    if np.any(added >= nz_mass):
        raise ValueError("tau too large for some row")
    out = np.where(zero, tau, P * (1 - added / nz_mass))
    return out


def fit_transition_matrix(sequences: ArrayLike, K: int, tau: float = 1e-5) -> np.ndarray:
    r"""Maximum-likelihood transition matrix from integer sequences, then smoothing (App. D.2).

    Rows of never-visited states are set to the uniform law on the other states before
    smoothing (as the paper's "others" row). :math:`\hat P(x,y)=C(x,y)/\sum_{y'}C(x,y')` with
    :math:`C` the transition counts.

    Parameters
    ----------
    sequences : array_like of int, shape (n_seq, T)
        State sequences with values in ``0..K-1``.
    K : int
        Number of states, ``>= 2``.
    tau : float, default 1e-5
        Smoothing mass of :func:`smooth_transition_matrix`.

    Returns
    -------
    ndarray, shape (K, K)
        The smoothed maximum-likelihood transition matrix.

    Raises
    ------
    ValueError
        If ``K < 2`` or ``tau`` is too large.

    Examples
    --------
    >>> fit_transition_matrix([[0, 0, 1, 1]], 2, 0.01).round(4)
    array([[0.5 , 0.5 ],
           [0.01, 0.99]])
    """
    K = v.integer("K", K, 2)
    seq = np.asarray(sequences)
    if seq.ndim != 2 or seq.shape[1] < 2 or not np.issubdtype(seq.dtype, np.integer):
        raise ValueError("sequences must be a 2-D integer array (sequences x time) with at least 2 time steps")
    if ((seq < 0) | (seq >= K)).any():
        raise ValueError(f"sequences must hold states in [0, K) = [0, {K})")
    C = np.zeros((K, K))
    np.add.at(C, (seq[:, :-1].ravel(), seq[:, 1:].ravel()), 1)
    rows = C.sum(1, keepdims=True)
    uni = (1 - np.eye(K)) / (K - 1)
    P = np.where(rows > 0, C / np.where(rows > 0, rows, 1), uni)
    return smooth_transition_matrix(P, tau)


def simulate_chains(P: ArrayLike, n_seq: int, T: int, rng: Any = None, start: ArrayLike | None = None) -> np.ndarray:
    r"""Simulate ``n_seq`` independent chains of length ``T`` (vectorised inverse-CDF sampling).

    :math:`X_1\sim` ``start``, :math:`X_{t+1}\mid X_t=x\sim P(x,\cdot)`; the simulations of
    Bai et al. (2026), Sec. 7.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix.
    n_seq : int
        Number of chains, ``>= 1``.
    T : int
        Length of each chain, ``>= 1``.
    rng : None, int or numpy.random.Generator
        Source of randomness (an int is a seed).
    start : array_like, shape (K,), optional
        Law of :math:`X_1` (default: stationary).

    Returns
    -------
    ndarray of int64, shape (n_seq, T)
        The states.

    Raises
    ------
    ValueError
        If ``P``, ``n_seq``, ``T`` or ``start`` is invalid.

    Examples
    --------
    >>> simulate_chains([[0.9, 0.1], [0.2, 0.8]], 2, 5, np.random.default_rng(0)).shape
    (2, 5)
    """
    P = v.transition_matrix("P", P)
    n_seq = v.integer("n_seq", n_seq, 1)
    T = v.integer("T", T, 1)
    start = stationary_distribution(P) if start is None else v.pmf("start", start)
    cum = np.cumsum(P, axis=1)
    cum[:, -1] = 1.0
    u = v.rng_from(rng).random((n_seq, T))
    x = np.empty((n_seq, T), dtype=np.int64)
    x[:, 0] = np.searchsorted(np.cumsum(start), u[:, 0], side="right").clip(max=P.shape[0] - 1)
    for t in range(1, T):
        x[:, t] = (cum[x[:, t - 1]] <= u[:, t, None]).sum(1)
    return x
