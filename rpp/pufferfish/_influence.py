r"""The :math:`a(b)`-influence curve and the DP :math:`\to` Pufferfish translation.

(Bai et al. 2026, Section 6: Definition 2, Theorems 3–4, Sections 6.3–6.4).

Datasets are tables of discrete entries; a prior is a joint pmf stored as an ndarray
with one axis per entry. A *secret* is a boolean mask over that array.

* :math:`a^\dagger_{(s_i,s_j)}(\mathcal L)=\sup_\theta\max_{D_{\mathcal L}}
  |\log\Pr[D_{\mathcal L}\mid s_i,\theta]/\Pr[D_{\mathcal L}\mid s_j,\theta]|`
  (leakage through the low-influence entries :math:`\mathcal L`);
* :math:`a^\star_{(s_i,s_j)}(b)=\min_{|\mathcal H|=b}a^\dagger_{(s_i,s_j)}(I\setminus\mathcal H)`
  and :math:`a(b)=\max_{(s_i,s_j)\in S}a^\star_{(s_i,s_j)}(b)`;
* Theorem 3: per-entry :math:`\epsilon_{DP}`-DP implies
  :math:`(b\,\epsilon_{DP}+a(b))`-Pufferfish for every :math:`b`;
* Theorem 4: mechanisms with :math:`\epsilon_{DP,\ell}\le(\epsilon_{puffer,\ell}-a_\ell)/b_\ell`
  jointly satisfy :math:`\max_\ell a_\ell+\sum_\ell(\epsilon_{puffer,\ell}-a_\ell)`-Pufferfish.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v

__all__ = [
    "conditional_marginal",
    "a_dagger",
    "a_dagger_uncertain",
    "uncertain_ratio_bound",
    "a_star_bruteforce",
    "entry_secret_pairs",
    "ab_curve_bruteforce",
]


# ----------------------------------------------------------------------------- a-dagger
def conditional_marginal(joint: ArrayLike, secret: ArrayLike, low: Sequence[int]) -> np.ndarray:
    r""":math:`\Pr[\mathrm{Data}_{\mathcal L}=\cdot\mid s]` as an array over the axes ``low``.

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry (any finite measure >= 0: only its
        conditional laws are used).
    secret : array_like of bool
        Mask of the secret over ``joint``.
    low : tuple of int
        The low-influence entries (axes of ``joint``).

    Returns
    -------
    ndarray
        :math:`\Pr[\mathrm{Data}_{\mathcal L}\mid s]` over the axes ``low``.

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> conditional_marginal(J, np.array([[True, True], [False, False]]), (1,))
    array([0.8, 0.2])
    """
    joint = v.positive(
        "joint", v.finite("joint", joint), allow_zero=True
    )  # a measure >= 0: only its conditionals are used
    secret = v.mask("secret", secret, joint.shape)
    low = _axes("low", low, joint.ndim)
    ps = joint[secret].sum()
    if ps <= 0:
        raise ValueError("secret must have positive prior probability")
    other = tuple(ax for ax in range(joint.ndim) if ax not in low)
    return np.where(secret, joint, 0.0).sum(axis=other) / ps


def _max_abs_log_ratio(p, q):
    p, q = np.ravel(p), np.ravel(q)
    both0 = (p == 0) & (q == 0)
    if np.any((p > 0) != (q > 0)):
        return np.inf
    keep = ~both0
    return float(np.max(np.abs(np.log(p[keep]) - np.log(q[keep])))) if keep.any() else 0.0


def _axes(name, low, ndim):
    """Distinct axes in ``[0, ndim)``, sorted (the low-influence entries)."""
    low = tuple(sorted(v.integer(name, j, 0) for j in low))
    if len(set(low)) != len(low) or any(j >= ndim for j in low):
        raise ValueError(f"{name} must hold distinct entries in [0, {ndim})")
    return low


def a_dagger(joint: ArrayLike, s_i: ArrayLike, s_j: ArrayLike, low: Sequence[int]) -> float:
    r"""Leakage through the low-influence entries (Bai et al. 2026, Def. 2, one prior).

    .. math:: a^\dagger_{(s_i,s_j)}(\mathcal L)=\max_{D_{\mathcal L}}
       \Bigl|\log\frac{\Pr[D_{\mathcal L}\mid s_i]}{\Pr[D_{\mathcal L}\mid s_j]}\Bigr|

    ``low`` is the tuple of axes in :math:`\mathcal L`; with ``low=()`` the value is 0.
    Cells impossible under both secrets are ignored; a cell possible under only one gives
    ``inf``.

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry (any finite measure >= 0: only its
        conditional laws are used).
    s_i : array_like of bool
        Mask of the first secret (shape of ``joint``).
    s_j : array_like of bool
        Mask of the second secret.
    low : tuple of int
        The low-influence entries (axes of ``joint``).

    Returns
    -------
    float
        :math:`a^\dagger` (``inf`` when a cell is possible under one secret only).

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> s_i = np.array([[True, True], [False, False]])
    >>> round(a_dagger(J, s_i, ~s_i, (1,)), 12)  # log(0.8 / 0.2)
    1.38629436112
    """
    if len(low) == 0:
        return 0.0
    return _max_abs_log_ratio(conditional_marginal(joint, s_i, low), conditional_marginal(joint, s_j, low))


def a_dagger_uncertain(
    joint: ArrayLike, s_i: ArrayLike, s_j: ArrayLike, low: Sequence[int], lower: float = 0.8, upper: float = 1.2
) -> float:
    r"""Upper bound on :math:`a^\dagger` with joint probabilities known only within a box.

    The box is :math:`[l,u]=[\text{lower}\cdot p,\ \text{upper}\cdot p]` (Bai et al. 2026, Sec. 6.3.2).

    For cells :math:`x=p(D_{\mathcal L},s)` with per-secret total :math:`S_s`, the largest
    possible conditional is :math:`u x/(u x+l(S_s-x))` and the smallest
    :math:`l x/(l x+u(S_s-x))`; hence (sharp under independent box constraints)

    .. math:: \bar a^\dagger=\max_{D_{\mathcal L}}\max\Bigl\{
       \log\frac{\overline{P}_i(D_{\mathcal L})}{\underline{P}_j(D_{\mathcal L})},
       \log\frac{\overline{P}_j(D_{\mathcal L})}{\underline{P}_i(D_{\mathcal L})}\Bigr\}.

    (The formula of Sec. 6.3.2 is lost in the text extraction; this is our derivation.)

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry (any finite measure >= 0: only its
        conditional laws are used).
    s_i : array_like of bool
        Mask of the first secret (shape of ``joint``).
    s_j : array_like of bool
        Mask of the second secret.
    low : tuple of int
        The low-influence entries (axes of ``joint``).
    lower : float
        Relative lower bound of every joint probability, ``0 < lower <= 1``.
    upper : float
        Relative upper bound, ``upper >= 1``.

    Returns
    -------
    float
        The upper bound.

    Raises
    ------
    ValueError
        Unless ``0 < lower <= 1 <= upper``.

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> s_i = np.array([[True, True], [False, False]])
    >>> round(float(a_dagger_uncertain(J, s_i, ~s_i, (1,))), 12)  # >= a_dagger = log 4
    1.791759469228
    """
    lower, upper = v.uncertainty((lower, upper), name="(lower, upper)")
    joint = v.positive(
        "joint", v.finite("joint", joint), allow_zero=True
    )  # a measure >= 0: only its conditionals are used
    v.mask("s_i", s_i, joint.shape)
    v.mask("s_j", s_j, joint.shape)
    low = _axes("low", low, joint.ndim)
    if len(low) == 0:
        return 0.0
    other = tuple(ax for ax in range(joint.ndim) if ax not in low)
    xi = np.ravel(np.where(s_i, joint, 0.0).sum(axis=other))
    xj = np.ravel(np.where(s_j, joint, 0.0).sum(axis=other))
    return float(uncertain_ratio_bound(xi, xj, lower, upper))


def uncertain_ratio_bound(
    xi: ArrayLike, xj: ArrayLike, lower: float = 0.8, upper: float = 1.2, axis: int = -1
) -> float | np.ndarray:
    r"""Vectorised core of :func:`a_dagger_uncertain` over the cell axis ``axis``.

    ``xi``, ``xj`` are the *joint* cell probabilities :math:`p(D_{\mathcal L},s_i)`,
    :math:`p(D_{\mathcal L},s_j)` (not normalised).

    Parameters
    ----------
    xi : array_like
        Joint cell probabilities with the first secret.
    xj : array_like
        Joint cell probabilities with the second secret.
    lower : float
        Relative lower bound of every joint probability, ``0 < lower <= 1``.
    upper : float
        Relative upper bound, ``upper >= 1``.
    axis : int
        Axis of the cells.

    Returns
    -------
    float or ndarray
        The bound, ``>= 0``.

    Examples
    --------
    >>> round(float(uncertain_ratio_bound([0.4, 0.1], [0.1, 0.4])), 12)
    1.791759469228
    """
    lower, upper = v.uncertainty((lower, upper), name="(lower, upper)")
    xi = v.positive("xi", v.finite("xi", xi), allow_zero=True)
    xj = v.positive("xj", v.finite("xj", xj), allow_zero=True)
    xi, xj = np.broadcast_arrays(xi, xj)
    Si = xi.sum(axis=axis, keepdims=True)
    Sj = xj.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        up_i = np.log(upper * xi) - np.log(upper * xi + lower * (Si - xi))
        lo_i = np.log(lower * xi) - np.log(lower * xi + upper * (Si - xi))
        up_j = np.log(upper * xj) - np.log(upper * xj + lower * (Sj - xj))
        lo_j = np.log(lower * xj) - np.log(lower * xj + upper * (Sj - xj))
        val = np.maximum(up_i - lo_j, up_j - lo_i)
    both0 = (xi == 0) & (xj == 0)
    one0 = (xi == 0) != (xj == 0)
    val = np.where(both0, -np.inf, np.where(one0, np.inf, val))
    out = np.max(val, axis=axis)
    return np.maximum(out, 0.0)[()] if np.ndim(out) == 0 else np.maximum(out, 0.0)


def a_star_bruteforce(
    joint: ArrayLike,
    s_i: ArrayLike,
    s_j: ArrayLike,
    b: int,
    uncertainty: tuple[float, float] | None = None,
    candidates: Iterable[tuple[int, ...]] | None = None,
) -> tuple[float, tuple[int, ...] | None]:
    r""":math:`a^\star_{(s_i,s_j)}(b)=\min_{|\mathcal H|=b}a^\dagger(I\setminus\mathcal H)` by enumeration.

    ``candidates`` optionally restricts the high-influence sets (an iterable of tuples of
    axes); the minimum over a sub-family is an *upper bound* on :math:`a^\star`
    (Sec. 6.3.1). ``uncertainty=(lower, upper)`` uses :func:`a_dagger_uncertain`.
    Returns ``(value, best_H)``.

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry (any finite measure >= 0: only its
        conditional laws are used).
    s_i : array_like of bool
        Mask of the first secret (shape of ``joint``).
    s_j : array_like of bool
        Mask of the second secret.
    b : int
        Number of high-influence entries.
    uncertainty : tuple of float, optional
        ``(lower, upper)`` relative bounds on the prior (Sec. 6.3.2); exact prior if omitted.
    candidates : iterable of tuple, optional
        The high-influence sets to try (all of size ``b`` if omitted).

    Returns
    -------
    value : float
        The minimum.
    best_H : tuple of int
        A high-influence set attaining it.

    Raises
    ------
    ValueError
        If ``b`` is not an integer in ``[0, joint.ndim]``.

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> s_i = np.array([[True, True], [False, False]])
    >>> a_star_bruteforce(J, s_i, ~s_i, 1)
    (1.3862943611198906, (0,))
    """
    joint = v.positive(
        "joint", v.finite("joint", joint), allow_zero=True
    )  # a measure >= 0: only its conditionals are used
    n = joint.ndim
    b = v.integer("b", b, 0)
    if b > n:
        raise ValueError(f"b must be <= the number of entries n = {n}, got {b}")
    if uncertainty is not None:
        uncertainty = v.uncertainty(uncertainty)
    fams = itertools.combinations(range(n), b) if candidates is None else candidates
    best, bestH = np.inf, None
    for H in fams:
        low = tuple(ax for ax in range(n) if ax not in H)
        if uncertainty is None:
            val = a_dagger(joint, s_i, s_j, low)
        else:
            val = a_dagger_uncertain(joint, s_i, s_j, low, *uncertainty)
        if val < best:
            best, bestH = val, tuple(H)
    return best, bestH


def entry_secret_pairs(
    shape: tuple[int, ...], entries: Iterable[int] | None = None
) -> list[tuple[np.ndarray, np.ndarray, int]]:
    r"""Secret pairs :math:`(X_k=x, X_k=x')`, :math:`x<x'`, for the given entries.

    Returns a list of ``(s_i, s_j, k)`` boolean masks over an array of shape ``shape``.

    Parameters
    ----------
    shape : tuple of int
        Shape of the joint pmf (values per entry).
    entries : iterable of int, optional
        The entries (axes) to pair (all if omitted).

    Returns
    -------
    list of tuple
        ``(s_i, s_j, entry)`` with boolean masks of shape ``shape``.

    Examples
    --------
    >>> len(entry_secret_pairs((2, 2)))  # X_0 = 0 vs 1, X_1 = 0 vs 1
    2
    """
    n = len(shape)
    entries = range(n) if entries is None else entries
    grids = np.indices(shape)
    out = []
    for k in entries:
        for x, y in itertools.combinations(range(shape[k]), 2):
            out.append((grids[k] == x, grids[k] == y, k))
    return out


def ab_curve_bruteforce(
    joint: ArrayLike,
    bs: Sequence[int] | np.ndarray,
    pairs: Sequence[Sequence[Any]] | None = None,
    uncertainty: tuple[float, float] | None = None,
) -> np.ndarray:
    r""":math:`a(b)=\max_{(s_i,s_j)}a^\star_{(s_i,s_j)}(b)` for every ``b`` in ``bs`` (enumeration).

    ``pairs`` defaults to all single-entry value pairs (:func:`entry_secret_pairs`).
    Exponential cost: for tiny tables (≲ 12 binary entries) only.

    Parameters
    ----------
    joint : array_like
        Prior pmf of the dataset, one axis per entry (any finite measure >= 0: only its
        conditional laws are used).
    bs : array_like
        Values of :math:`b`.
    pairs : list, optional
        Secret pairs ``(s_i, s_j, ...)`` (default :func:`entry_secret_pairs`).
    uncertainty : tuple of float, optional
        ``(lower, upper)`` relative bounds on the prior (Sec. 6.3.2); exact prior if omitted.

    Returns
    -------
    ndarray
        :math:`a(b)` at ``bs``.

    Examples
    --------
    >>> ab_curve_bruteforce(np.array([[0.4, 0.1], [0.1, 0.4]]), [0, 1, 2])
    array([       inf, 1.38629436, 0.        ])
    """
    joint = v.pmf("joint", np.ravel(joint)).reshape(np.shape(joint))
    pairs = entry_secret_pairs(joint.shape) if pairs is None else pairs
    out = np.zeros(len(bs))
    for t, b in enumerate(bs):
        out[t] = max(a_star_bruteforce(joint, si, sj, b, uncertainty)[0] for si, sj, *_ in pairs)
    return out
