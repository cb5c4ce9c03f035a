r"""Necessary conditions for linear composition (Bai et al. 2026, Section 5) as linear programs.

For a finite mechanism, a dataset :math:`D` with :math:`s_1(D)` true and the datasets
:math:`D_1,\dots,D_m` with :math:`s_2` true, let

.. math:: A_{j\ell} = \log\Pr(\omega_j\mid D)-\epsilon_j-\log\Pr(\omega_j\mid D_\ell).

*Primal* (the attack): :math:`\max_{w\in\Delta}\min_\ell (w^\top A)_\ell` — the best
frequency vector :math:`w` of outputs an attacker can hope to observe. *Dual* (the
constraint): :math:`\min_{\beta\in\Delta}\max_j (A\beta)_j`. By LP duality both values
coincide; a non-positive value means the NfC constraint

.. math:: \log\Pr(\omega\mid D)\le\epsilon+\sum_\ell\beta_\ell\log\Pr(\omega\mid D_\ell)
   \quad\text{for all }\omega

holds with the dual's :math:`\beta` (Bai et al. 2026, Thm. 1, Eq. (1)); a positive value
:math:`v` means that running the mechanism :math:`r` times leaks about :math:`r(\epsilon+v)`,
so :math:`r\epsilon`-linear composition fails.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import linprog

from .._lib import validation as v
from .._lib.numerics import lse
from ._chains import MAX_CELLS

__all__ = ["nfc_matrix", "nfc_primal", "nfc_dual", "nfc_min_epsilon", "composed_leakage_exact", "nfc_violation"]


def nfc_matrix(p_d: ArrayLike, p_others: ArrayLike, epsilon: ArrayLike = 0.0) -> np.ndarray:
    r"""Payoff matrix :math:`A_{j\ell}=\log p_D(\omega_j)-\epsilon_j-\log p_{D_\ell}(\omega_j)`.

    ``p_d``: (Ω,) output distribution of :math:`D`; ``p_others``: (m, Ω) output
    distributions of the datasets :math:`D_\ell` of the other secret; ``epsilon`` scalar or (Ω,).
    Outputs with :math:`p_D(\omega)=0` are dropped (they impose no constraint); an output
    with :math:`p_D>0=p_{D_\ell}` gives :math:`+\infty`, replaced by a large finite number
    (1e6) so the LP stays well posed.

    Parameters
    ----------
    p_d : array_like, shape (Ω,)
        Output distribution of the dataset :math:`D`.
    p_others : array_like, shape (m, Ω)
        Output distributions of the datasets of the other secret.
    epsilon : float or array_like
        Budget (scalar or per output).

    Returns
    -------
    ndarray
        The payoff matrix (outputs with :math:`p_D > 0` by datasets).

    Raises
    ------
    ValueError
        If ``p_d`` or ``p_others`` is not a distribution.

    Examples
    --------
    >>> nfc_matrix([0.5, 0.5], [[0.25, 0.75]]).shape
    (2, 1)
    """
    p_d = v.pmf("p_d", p_d)
    p_others = v.pmf("p_others", np.atleast_2d(p_others), axis=1)
    keep = p_d > 0
    with np.errstate(divide="ignore"):
        A = np.log(p_d)[:, None] - np.broadcast_to(np.asarray(epsilon, float), p_d.shape)[:, None] - np.log(p_others.T)
    A = A[keep]
    return np.minimum(A, 1e6)


def nfc_primal(A: ArrayLike) -> tuple[float, np.ndarray]:
    r"""Solve :math:`\max_{w\in\Delta}\min_\ell (w^\top A)_\ell` with ``linprog``.

    Returns ``(value, w)``; ``w`` is the output-frequency vector of the attack.

    Parameters
    ----------
    A : ndarray
        Payoff matrix (:func:`nfc_matrix`).

    Returns
    -------
    value : float
        The game's value.
    w : ndarray
        The maximising output frequencies.

    Examples
    --------
    >>> nfc_primal(nfc_matrix([0.5, 0.5], [[0.25, 0.75]]))
    (0.6931471805599453, array([1., 0.]))
    """
    A = v.finite("A", A)
    if A.ndim != 2 or 0 in A.shape:
        raise ValueError("A must be a non-empty 2-D matrix (datasets x outputs)")
    J, m = A.shape
    # variables (w_1..w_J, t); minimise -t; constraints t - (w^T A)_l <= 0
    c = np.r_[np.zeros(J), -1.0]
    A_ub = np.c_[-A.T, np.ones(m)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(m),
        A_eq=np.r_[np.ones(J), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * J + [(None, None)],
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"primal LP failed: {res.message}")
    return -res.fun, res.x[:J]


def nfc_dual(A: ArrayLike) -> tuple[float, np.ndarray]:
    r"""Solve :math:`\min_{\beta\in\Delta}\max_j (A\beta)_j` with ``linprog``.

    Returns ``(value, beta)``; ``beta`` is the convex combination of the NfC constraint.

    Parameters
    ----------
    A : ndarray
        Payoff matrix (:func:`nfc_matrix`).

    Returns
    -------
    value : float
        The game's value.
    beta : ndarray
        The minimising weights on the other datasets.

    Examples
    --------
    >>> nfc_dual(nfc_matrix([0.5, 0.5], [[0.25, 0.75]]))  # the primal's value
    (0.6931471805599453, array([1.]))
    """
    A = v.finite("A", A)
    if A.ndim != 2 or 0 in A.shape:
        raise ValueError("A must be a non-empty 2-D matrix (datasets x outputs)")
    J, m = A.shape
    c = np.r_[np.zeros(m), 1.0]
    A_ub = np.c_[A, -np.ones(J)]
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(J),
        A_eq=np.r_[np.ones(m), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * m + [(None, None)],
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"dual LP failed: {res.message}")
    return res.fun, res.x[:m]


def nfc_min_epsilon(
    mechanism: ArrayLike, s1_mask: ArrayLike, support: ArrayLike | None = None
) -> tuple[float, list[tuple[Any, ...]]]:
    r"""Smallest :math:`\epsilon` for which every dataset has an NfC constraint, both directions.

    For each :math:`D` (in ``support``) with :math:`s_1(D)` the dual LP against the
    :math:`s_2`-datasets is solved, and vice versa. Returns ``(eps, records)`` where
    ``records`` is a list of ``(D, direction, value, beta)``.

    Parameters
    ----------
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    s1_mask : array_like of bool, shape (N,)
        The datasets of the first secret.
    support : array_like of int, optional
        Datasets to check (all if omitted).

    Returns
    -------
    eps : float
        The smallest budget.
    records : list of tuple
        ``(D, direction, value, beta)`` for every dataset.

    Raises
    ------
    ValueError
        If ``mechanism`` is not row-stochastic.

    Examples
    --------
    >>> round(nfc_min_epsilon(np.array([[0.75, 0.25], [0.25, 0.75]]), np.array([True, False]))[0], 12)  # log 3
    1.098612288668
    """
    mechanism = v.pmf("mechanism", mechanism, axis=1)
    s1 = v.mask("s1_mask", s1_mask, mechanism.shape[:1])
    idx = np.arange(mechanism.shape[0]) if support is None else np.asarray(support)
    S1, S2 = [i for i in idx if s1[i]], [i for i in idx if not s1[i]]
    rec = []
    for own, other, lab in ((S1, S2, "s1->s2"), (S2, S1, "s2->s1")):
        for D in own:
            value, beta = nfc_dual(nfc_matrix(mechanism[D], mechanism[other]))
            rec.append((int(D), lab, float(value), beta))
    return max(r[2] for r in rec), rec


def _compositions(r, m):
    """All count vectors of length m summing to r."""
    for c in itertools.combinations(range(r + m - 1), m - 1):
        cuts = (-1, *c, r + m - 1)
        yield [cuts[i + 1] - cuts[i] - 1 for i in range(m)]


def composed_leakage_exact(mechanism: ArrayLike, prior: ArrayLike, s1_mask: ArrayLike, runs: int) -> float:
    r"""Exact Pufferfish leakage of ``runs`` independent runs of a finite mechanism.

    .. math::
        \epsilon(\mathcal M^{r})=\max_{\omega_{1:r}}\Bigl|\log
        \frac{\sum_{D}\theta(D\mid s_1)\prod_t\Pr(\omega_t\mid D)}
             {\sum_{D}\theta(D\mid s_2)\prod_t\Pr(\omega_t\mid D)}\Bigr|.

    Both sums depend on the output sequence only through its *type* (the counts of each
    output), so the maximum is over the :math:`\binom{r+|\Omega|-1}{|\Omega|-1}` types
    (computed in log space).

    Parameters
    ----------
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    prior : array_like, shape (N,)
        Prior over the datasets.
    s1_mask : array_like of bool, shape (N,)
        The datasets of the first secret.
    runs : int
        Number of independent runs, ``>= 1``.

    Returns
    -------
    float
        The leakage of the composition.

    Raises
    ------
    ValueError
        If ``mechanism`` or ``prior`` is not a distribution, ``runs < 1``, or the output types
        of ``runs`` runs (``comb(runs + Omega - 1, Omega - 1)``) times ``Omega`` exceed ``2**26``.

    Examples
    --------
    >>> round(composed_leakage_exact(np.array([[0.75, 0.25], [0.25, 0.75]]), [0.5, 0.5], np.array([True, False]), 2), 12)  # 2 log 3
    2.197224577336
    """
    mechanism = v.pmf("mechanism", mechanism, axis=1)
    prior = v.pmf("prior", prior)
    runs = v.integer("runs", runs, 1)
    s1 = v.mask("s1_mask", s1_mask, mechanism.shape[:1])
    n_out = mechanism.shape[1]
    if runs > MAX_CELLS or math.comb(runs + n_out - 1, n_out - 1) * n_out > MAX_CELLS:
        raise ValueError(
            f"runs must satisfy (number of output types) * Omega <= 2**26 (Omega = {n_out} outputs), got runs = {runs}"
        )
    with np.errstate(divide="ignore"):
        lm = np.log(mechanism)
        lc1 = np.log(np.where(s1, prior, 0) / prior[s1].sum())
        lc2 = np.log(np.where(~s1, prior, 0) / prior[~s1].sum())
    types = np.array(list(_compositions(runs, mechanism.shape[1])), float)
    with np.errstate(invalid="ignore"):
        ll = types @ np.where(np.isfinite(lm), lm, -1e300).T  # (types, D)
    ll = np.where(ll < -1e299, -np.inf, ll)
    a = lse(ll + lc1[None, :], axis=1)
    b = lse(ll + lc2[None, :], axis=1)
    ok = np.isfinite(a) | np.isfinite(b)
    with np.errstate(invalid="ignore"):
        d = np.abs(a[ok] - b[ok])
    return float(np.max(np.where(np.isnan(d), 0.0, d)))


def nfc_violation(p_d: ArrayLike, p_others: ArrayLike, beta: ArrayLike, epsilon: ArrayLike) -> float:
    r"""Largest violation :math:`\max_\omega[\log p_D(\omega)-\epsilon-\sum_\ell\beta_\ell\log p_{D_\ell}(\omega)]`.

    Non-positive means the NfC constraint with weights ``beta`` holds.

    Parameters
    ----------
    p_d : array_like, shape (Ω,)
        Output distribution of the dataset :math:`D`.
    p_others : array_like, shape (m, Ω)
        Output distributions of the datasets of the other secret.
    beta : array_like
        Weights of the constraint (a probability vector).
    epsilon : float or array_like
        Budget (scalar or per output).

    Returns
    -------
    float
        The largest violation.

    Raises
    ------
    ValueError
        If ``beta`` is not a probability vector.

    Examples
    --------
    >>> nfc_violation([0.5, 0.5], [[0.25, 0.75]], [1.0], 0.0)  # log(0.5 / 0.25)
    0.6931471805599453
    """
    p_d = v.positive("p_d", v.finite("p_d", p_d), allow_zero=True)  # a measure (it may sum to < 1)
    p_others = v.positive("p_others", v.finite("p_others", np.atleast_2d(p_others)), allow_zero=True)
    beta = v.pmf("beta", beta)
    epsilon = v.finite("epsilon", epsilon)
    with np.errstate(divide="ignore", invalid="ignore"):
        rhs = epsilon + np.where(beta[:, None] > 0, beta[:, None] * np.log(p_others), 0.0).sum(0)
        lhs = np.log(p_d)
    gap = np.where(p_d > 0, lhs - rhs, -np.inf)
    return float(np.max(gap))
