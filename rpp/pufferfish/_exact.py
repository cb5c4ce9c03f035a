r"""Exact checks on small finite datasets.

Randomized response on :math:`n` entries and the exact Pufferfish parameter of a mechanism (Bai et al. 2026, Sec. 6), built on ``rpp/pufferfish/_finite.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ._finite import (
    conditional_output_pmf,
    product_channel,
    pufferfish_leakage,
    randomized_response,
)

__all__ = [
    "randomized_response_mechanism",
    "secret_conditionals",
    "pufferfish_epsilon_exact",
]


def randomized_response_mechanism(n: int, epsilon: ArrayLike, k: int = 2) -> np.ndarray:
    r"""Per-entry :math:`\epsilon_{DP}`-DP randomized response on :math:`n` entries with :math:`k` values.

    Each entry goes through :func:`rpp.pufferfish.randomized_response` independently
    (:func:`rpp.pufferfish.product_channel`): kept with probability
    :math:`e^{\epsilon}/(e^{\epsilon}+k-1)`, replaced by each other value with probability
    :math:`1/(e^{\epsilon}+k-1)` (Warner 1965); :math:`\epsilon_{DP}=0` is the uniform channel.
    Returns the (k**n, k**n) matrix ``M[D, O]`` in row-major (``np.ndindex``) order.

    Parameters
    ----------
    n : int
        Number of entries.
    epsilon : float or array_like
        Per-entry DP budget(s), ``>= 0``.
    k : int
        Values per entry, ``>= 2``.

    Returns
    -------
    ndarray, shape (k**n, k**n)
        The mechanism.

    Raises
    ------
    ValueError
        For ``n < 1``, ``epsilon < 0``, ``k < 2`` or a matrix of more than ``2**26`` cells
        (``k**(2 n) > 2**26``).

    Examples
    --------
    >>> randomized_response_mechanism(1, np.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    n = v.integer("n", n, 1)
    epsilon = float(v.positive("epsilon", epsilon, allow_zero=True))
    k = v.integer("k", k, 2)
    if 2 * n * np.log2(k) > 26:
        raise ValueError(f"n must satisfy k**(2 n) <= 2**26 (the cells of the matrix, k = {k}), got n = {n}")
    if epsilon == 0:
        return np.full((k**n, k**n), float(k) ** -n)
    return product_channel(*[randomized_response(epsilon, k)] * n)


def secret_conditionals(
    joint: ArrayLike, mechanism: ArrayLike, s_i: ArrayLike, s_j: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    r"""Output laws :math:`\Pr[\mathcal M(\mathrm{Data})=\cdot\mid s]` for both secrets of a pair.

    ``joint`` is the prior pmf (any shape, flattened in C order), ``mechanism`` the (N, Ω)
    channel and ``s_i``, ``s_j`` boolean masks of the shape of ``joint``
    (:func:`rpp.pufferfish.conditional_output_pmf` for each).

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry.
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    s_i : array_like of bool
        Mask of the first secret (shape of ``joint``).
    s_j : array_like of bool
        Mask of the second secret.

    Returns
    -------
    p_i, p_j : ndarray
        The two output laws.

    Raises
    ------
    ValueError
        If ``joint`` or ``mechanism`` is not a distribution, or a secret has probability 0.

    Examples
    --------
    >>> M = randomized_response_mechanism(1, np.log(3))
    >>> secret_conditionals([0.5, 0.5], M, np.array([True, False]), np.array([False, True]))
    (array([0.75, 0.25]), array([0.25, 0.75]))
    """
    flat = np.ravel(v.as_float_array("joint", joint))
    return (
        conditional_output_pmf(flat, mechanism, np.ravel(np.asarray(s_i, bool))),
        conditional_output_pmf(flat, mechanism, np.ravel(np.asarray(s_j, bool))),
    )


def pufferfish_epsilon_exact(joint: ArrayLike, mechanism: ArrayLike, pairs: Iterable[Sequence[Any]]) -> float:
    r"""Exact Pufferfish parameter :math:`\max_{(s_i,s_j)}\max_\omega|\log\Pr(\omega\mid s_i)/\Pr(\omega\mid s_j)|`.

    ``joint`` is the prior pmf (any shape, flattened in C order), ``mechanism`` the
    (N, Ω) matrix of output probabilities and ``pairs`` a list of ``(s_i, s_j, ...)`` masks.

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry.
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    pairs : iterable of tuple
        Secret pairs ``(s_i, s_j, ...)``, e.g. from :func:`entry_secret_pairs`.

    Returns
    -------
    float
        The Pufferfish parameter.

    Raises
    ------
    TypeError
        If ``pairs`` is not an iterable of ``(s_i, s_j, ...)`` tuples.
    ValueError
        If ``pairs`` is empty, ``joint`` or ``mechanism`` is not a distribution, or a secret
        has probability 0.

    Examples
    --------
    >>> from rpp.pufferfish import entry_secret_pairs
    >>> M = randomized_response_mechanism(2, 0.5)  # independent entries: Pufferfish = DP
    >>> round(pufferfish_epsilon_exact(np.full(4, 0.25), M, entry_secret_pairs((2, 2))), 12)
    0.5
    """
    allowed = "pairs must be an iterable of (s_i, s_j, ...) tuples of boolean masks"
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise TypeError(f"{allowed}, got a {type(pairs).__name__}")
    pairs = list(pairs)
    if not pairs:
        raise ValueError(f"{allowed}, got none")
    for p in pairs:
        if not isinstance(p, (tuple, list, np.ndarray)) or (isinstance(p, np.ndarray) and p.ndim < 1) or len(p) < 2:
            raise TypeError(f"{allowed}, got an entry of type {type(p).__name__}")
    return max(float(pufferfish_leakage(*secret_conditionals(joint, mechanism, p[0], p[1]))) for p in pairs)
