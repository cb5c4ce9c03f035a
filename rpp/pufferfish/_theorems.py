r"""Theorems 3–4 of Bai et al. 2026 and the :math:`a(b)` curves of classical DP notions (Sec. 6.3.3, 6.4).

* Theorem 3: per-entry :math:`\epsilon_{DP}`-DP implies :math:`(b\,\epsilon_{DP}+a(b))`-Pufferfish
  for every :math:`b` (:func:`epsilon_puffer_from_curve`, :func:`best_b`, :func:`epsilon_dp_from_curve`);
* Theorem 4: the joint guarantee of several mechanisms (:func:`theorem4_epsilon`);
* per-entry, group and dependent DP as :math:`a(b)` curves; a misspecified curve (Sec. 6.3.3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v

__all__ = [
    "epsilon_puffer_from_curve",
    "best_b",
    "epsilon_dp_from_curve",
    "theorem4_epsilon",
    "per_entry_dp_curve",
    "group_dp_curve",
    "dependent_dp_curve",
    "misspecified_epsilon",
]


def epsilon_puffer_from_curve(epsilon: ArrayLike, bs: ArrayLike, a: ArrayLike) -> float | np.ndarray:
    r"""Best Theorem-3 guarantee :math:`\min_b\,(b\,\epsilon_{DP}+a(b))` (vectorised in ``epsilon``).

    Parameters
    ----------
    epsilon : float or array_like
        Per-entry DP budget(s), ``>= 0``.
    bs : array_like
        Values of :math:`b`.
    a : array_like
        The curve :math:`a(b)` at ``bs``.

    Returns
    -------
    float or ndarray
        The guarantee.

    Examples
    --------
    >>> float(epsilon_puffer_from_curve(0.5, [0, 1, 2], [np.inf, 0.3, 0.0]))  # min(inf, 0.8, 1.0)
    0.8
    """
    epsilon = v.positive("epsilon", epsilon, allow_zero=True)
    bs, a = v.curve("bs", bs, "a", a)
    with np.errstate(invalid="ignore"):  # 0 * inf where epsilon = 0 and a(b) = inf: the term is inf
        vals = bs[None, :] * np.atleast_1d(epsilon)[:, None] + a[None, :]
    out = np.where(np.isnan(vals), np.inf, vals).min(axis=1)
    return out[0] if np.ndim(epsilon) == 0 else out


def best_b(epsilon: ArrayLike, bs: ArrayLike, a: ArrayLike) -> int | np.ndarray:
    r""":math:`\arg\min_b\,b\,\epsilon_{DP}+a(b)` (vectorised in ``epsilon``).

    Parameters
    ----------
    epsilon : float or array_like
        Per-entry DP budget(s), ``>= 0``.
    bs : array_like
        Values of :math:`b`.
    a : array_like
        The curve :math:`a(b)` at ``bs``.

    Returns
    -------
    int or ndarray
        The minimising :math:`b`.

    Examples
    --------
    >>> int(best_b(0.5, [0, 1, 2], [np.inf, 0.3, 0.0]))
    1
    """
    epsilon = v.positive("epsilon", epsilon, allow_zero=True)
    v.curve("bs", bs, "a", a)
    bs, a = np.asarray(bs), np.asarray(a, float)
    with np.errstate(invalid="ignore"):  # 0 * inf: the term is inf
        vals = bs[None, :] * np.atleast_1d(epsilon)[:, None] + a[None, :]
    out = bs[np.argmin(np.where(np.isnan(vals), np.inf, vals), axis=1)]
    return out[0] if np.ndim(epsilon) == 0 else out


def epsilon_dp_from_curve(epsilon: float, bs: ArrayLike, a: ArrayLike) -> tuple[float, int | None]:
    r"""Largest admissible :math:`\epsilon_{DP}=\max_{b:\,a(b)<\epsilon_{puffer}}(\epsilon_{puffer}-a(b))/b`.

    Returns ``(eps_dp, b)``. If no point has :math:`a(b)<\epsilon_{puffer}` the target is
    infeasible and ``(0.0, None)`` is returned (zero budget = infinite noise, never
    under-noised).

    Parameters
    ----------
    epsilon : float
        Target Pufferfish budget, ``> 0``.
    bs : array_like
        Values of :math:`b`.
    a : array_like
        The curve :math:`a(b)` at ``bs``.

    Returns
    -------
    eps_dp : float
        The budget (0.0 when infeasible).
    b : int or None
        The :math:`b` attaining it.

    Raises
    ------
    ValueError
        If ``epsilon <= 0`` or some ``b <= 0``.

    Examples
    --------
    >>> epsilon_dp_from_curve(1.0, [1, 2], [0.3, 0.0])  # max(0.7 / 1, 1.0 / 2)
    (0.7, 1)
    """
    epsilon = float(v.positive("epsilon", epsilon))
    bs, a = v.curve("bs", bs, "a", a)
    if np.any(bs <= 0):
        raise ValueError("bs must be positive (b = 0 would need a(0) < eps, i.e. no DP at all)")
    ok = a < epsilon
    if not ok.any():
        return 0.0, None
    vals = np.where(ok, (epsilon - a) / bs, -np.inf)
    k = int(np.argmax(vals))
    return float(vals[k]), int(bs[k])


def theorem4_epsilon(epsilon: ArrayLike, a_points: ArrayLike) -> float:
    r"""Theorem 4: joint guarantee :math:`\max_\ell a_\ell+\sum_\ell(\epsilon_{puffer,\ell}-a_\ell)`.

    Parameters
    ----------
    epsilon : array_like
        Budgets :math:`\epsilon_{puffer,\ell}` of the mechanisms.
    a_points : array_like
        Their points :math:`a_\ell = a(b_\ell)`.

    Returns
    -------
    float
        The joint guarantee.

    Raises
    ------
    ValueError
        If the arrays differ in length or some :math:`a_\ell \ge \epsilon_{puffer,\ell}`.

    Examples
    --------
    >>> theorem4_epsilon([1.0, 1.0], [0.2, 0.3])  # 0.3 + 0.8 + 0.7
    1.8
    """
    e = v.positive("epsilon", epsilon)
    a = v.positive("a_points", a_points, allow_zero=True)
    if e.shape != a.shape or e.ndim != 1:
        raise ValueError("epsilon and a_points must be 1-D arrays of equal length")
    if np.any(a >= e):
        raise ValueError("each a_l must be < eps_puffer_l (Theorem 3 hypothesis)")
    return float(a.max() + np.sum(e - a))


# ----------------------------------------------------------------------------- special cases
def per_entry_dp_curve(bs: ArrayLike) -> np.ndarray:
    r"""Per-entry DP as an :math:`a(b)` curve: :math:`a(0)=\infty`, :math:`a(b)=0` for :math:`b\ge1` (Sec. 6.4).

    Parameters
    ----------
    bs : array_like
        Values of :math:`b`.

    Returns
    -------
    ndarray
        :math:`a(b)`.

    Examples
    --------
    >>> per_entry_dp_curve([0, 1, 2])
    array([inf,  0.,  0.])
    """
    bs = v.finite("bs", bs)
    return np.where(bs >= 1, 0.0, np.inf)


def group_dp_curve(bs: ArrayLike, group_records: int, n_attributes: int) -> np.ndarray:
    r"""Group DP over :math:`m'` records of :math:`n` attributes: :math:`a(b)=\infty` for :math:`b<m'n`, else 0.

    Parameters
    ----------
    bs : array_like
        Values of :math:`b`.
    group_records : int
        Records per group :math:`m'`.
    n_attributes : int
        Attributes per record :math:`n`.

    Returns
    -------
    ndarray
        :math:`a(b)`.

    Raises
    ------
    ValueError
        Unless both sizes are integers >= 1.

    Examples
    --------
    >>> group_dp_curve([1, 2, 4], 2, 2)
    array([inf, inf,  0.])
    """
    v.integer("group_records", group_records, 1)
    v.integer("n_attributes", n_attributes, 1)
    bs = v.finite("bs", bs)
    return np.where(bs >= group_records * n_attributes, 0.0, np.inf)


def dependent_dp_curve(bs: ArrayLike, L: int) -> np.ndarray:
    r"""Dependent DP (each item correlated with at most :math:`L-1` others): :math:`a(b)=\infty` for :math:`b<L`, else 0.

    Parameters
    ----------
    bs : array_like
        Values of :math:`b`.
    L : int
        Size of the correlated groups.

    Returns
    -------
    ndarray
        :math:`a(b)`.

    Raises
    ------
    ValueError
        Unless ``L`` is an integer >= 1.

    Examples
    --------
    >>> dependent_dp_curve([1, 2, 3], 2)
    array([inf,  0.,  0.])
    """
    v.integer("L", L, 1)
    bs = v.finite("bs", bs)
    return np.where(bs >= L, 0.0, np.inf)


def misspecified_epsilon(
    epsilon: float, b_star: int, a1_at_bstar: float, bs: ArrayLike, a2: ArrayLike
) -> tuple[float, float]:
    r"""Sec. 6.3.3: true guarantee when calibrated with a wrong curve :math:`a_1`.

    The curator uses :math:`\epsilon_{DP}=(\epsilon_{puffer}-a_1(b^\star))/b^\star`; the true
    curve is :math:`a_2`. Returns ``(eps_true, bound)`` with

    .. math:: \epsilon'_{puffer}=\inf_b\Bigl(a_2(b)+b\,\frac{\epsilon_{puffer}-a_1(b^\star)}{b^\star}\Bigr)
       \le\epsilon_{puffer}+a_2(b^\star)-a_1(b^\star).

    Parameters
    ----------
    epsilon : float
        Target Pufferfish budget, ``> 0``.
    b_star : int
        The :math:`b` used by the curator (one of ``bs``).
    a1_at_bstar : float
        The assumed curve at ``b_star``.
    bs : array_like
        Values of :math:`b`.
    a2 : array_like
        The true curve at ``bs``.

    Returns
    -------
    eps_true : float
        The true guarantee.
    bound : float
        Its upper bound.

    Raises
    ------
    ValueError
        If ``b_star`` is not in ``bs`` or :math:`a_1(b^\star) \ge \epsilon_{puffer}`.

    Examples
    --------
    >>> misspecified_epsilon(1.0, 1, 0.2, np.array([1, 2]), np.array([0.3, 0.1]))
    (1.1, 1.1)
    """
    epsilon = float(v.positive("epsilon", epsilon))
    a1_at_bstar = float(v.positive("a1_at_bstar", a1_at_bstar, allow_zero=True))
    bs, a2 = v.curve("bs", bs, "a2", a2)
    if b_star not in bs:
        raise ValueError("b_star must be one of bs")
    eps_dp = (epsilon - a1_at_bstar) / b_star
    if eps_dp <= 0:
        raise ValueError("need a1(b*) < epsilon")
    eps_true = float(np.min(a2 + bs * eps_dp))
    bound = float(epsilon + a2[bs == b_star][0] - a1_at_bstar)
    return eps_true, bound
