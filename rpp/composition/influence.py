r"""The :math:`a(b)`-influence curve and the DP :math:`\to` Pufferfish translation
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

import numpy as np

from .. import _validation as v
from ..discrete import conditional_output_pmf, product_channel, pufferfish_leakage, randomized_response

__all__ = [
    "conditional_marginal",
    "a_dagger",
    "a_dagger_uncertain",
    "a_star_bruteforce",
    "ab_curve_bruteforce",
    "entry_secret_pairs",
    "epsilon_puffer_from_curve",
    "best_b",
    "epsilon_dp_from_curve",
    "theorem4_epsilon",
    "per_entry_dp_curve",
    "group_dp_curve",
    "dependent_dp_curve",
    "misspecified_epsilon",
    "randomized_response_mechanism",
    "pufferfish_epsilon_exact",
    "secret_conditionals",
]


# ----------------------------------------------------------------------------- a-dagger
def conditional_marginal(joint, secret, low):
    r""":math:`\Pr[\mathrm{Data}_{\mathcal L}=\cdot\mid s]` as an array over the axes ``low``.

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> conditional_marginal(J, np.array([[True, True], [False, False]]), (1,))
    array([0.8, 0.2])
    """
    joint = np.asarray(joint, float)
    secret = np.asarray(secret, bool)
    ps = joint[secret].sum()
    if ps <= 0:
        raise ValueError("secret must have positive prior probability")
    low = tuple(sorted(low))
    other = tuple(ax for ax in range(joint.ndim) if ax not in low)
    return np.where(secret, joint, 0.0).sum(axis=other) / ps


def _max_abs_log_ratio(p, q):
    p, q = np.ravel(p), np.ravel(q)
    both0 = (p == 0) & (q == 0)
    if np.any((p > 0) != (q > 0)):
        return np.inf
    keep = ~both0
    return float(np.max(np.abs(np.log(p[keep]) - np.log(q[keep])))) if keep.any() else 0.0


def a_dagger(joint, s_i, s_j, low):
    r"""Leakage through the low-influence entries (Bai et al. 2026, Def. 2, one prior).

    .. math:: a^\dagger_{(s_i,s_j)}(\mathcal L)=\max_{D_{\mathcal L}}
       \Bigl|\log\frac{\Pr[D_{\mathcal L}\mid s_i]}{\Pr[D_{\mathcal L}\mid s_j]}\Bigr|

    ``low`` is the tuple of axes in :math:`\mathcal L`; with ``low=()`` the value is 0.
    Cells impossible under both secrets are ignored; a cell possible under only one gives
    ``inf``.

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


def a_dagger_uncertain(joint, s_i, s_j, low, lower=0.8, upper=1.2):
    r"""Upper bound on :math:`a^\dagger` when the joint probabilities are only known within
    :math:`[l,u]=[\text{lower}\cdot p,\ \text{upper}\cdot p]` (Bai et al. 2026, Sec. 6.3.2).

    For cells :math:`x=p(D_{\mathcal L},s)` with per-secret total :math:`S_s`, the largest
    possible conditional is :math:`u x/(u x+l(S_s-x))` and the smallest
    :math:`l x/(l x+u(S_s-x))`; hence (sharp under independent box constraints)

    .. math:: \bar a^\dagger=\max_{D_{\mathcal L}}\max\Bigl\{
       \log\frac{\overline{P}_i(D_{\mathcal L})}{\underline{P}_j(D_{\mathcal L})},
       \log\frac{\overline{P}_j(D_{\mathcal L})}{\underline{P}_i(D_{\mathcal L})}\Bigr\}.

    (The formula of Sec. 6.3.2 is lost in the text extraction; this is our derivation.)

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> s_i = np.array([[True, True], [False, False]])
    >>> round(float(a_dagger_uncertain(J, s_i, ~s_i, (1,))), 12)  # >= a_dagger = log 4
    1.791759469228
    """
    if not (0 < lower <= 1 <= upper):
        raise ValueError(f"need 0 < lower <= 1 <= upper, got lower={lower}, upper={upper}")
    if len(low) == 0:
        return 0.0
    joint = np.asarray(joint, float)
    low = tuple(sorted(low))
    other = tuple(ax for ax in range(joint.ndim) if ax not in low)
    xi = np.ravel(np.where(s_i, joint, 0.0).sum(axis=other))
    xj = np.ravel(np.where(s_j, joint, 0.0).sum(axis=other))
    return uncertain_ratio_bound(xi, xj, lower, upper)


def uncertain_ratio_bound(xi, xj, lower=0.8, upper=1.2, axis=-1):
    r"""Vectorised core of :func:`a_dagger_uncertain` over the cell axis ``axis``.

    ``xi``, ``xj`` are the *joint* cell probabilities :math:`p(D_{\mathcal L},s_i)`,
    :math:`p(D_{\mathcal L},s_j)` (not normalised).

    Examples
    --------
    >>> round(float(uncertain_ratio_bound([0.4, 0.1], [0.1, 0.4])), 12)
    1.791759469228
    """
    xi, xj = np.broadcast_arrays(np.asarray(xi, float), np.asarray(xj, float))
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


def a_star_bruteforce(joint, s_i, s_j, b, uncertainty=None, candidates=None):
    r""":math:`a^\star_{(s_i,s_j)}(b)=\min_{|\mathcal H|=b}a^\dagger(I\setminus\mathcal H)` by enumeration.

    ``candidates`` optionally restricts the high-influence sets (an iterable of tuples of
    axes); the minimum over a sub-family is an *upper bound* on :math:`a^\star`
    (Sec. 6.3.1). ``uncertainty=(lower, upper)`` uses :func:`a_dagger_uncertain`.
    Returns ``(value, best_H)``.

    Examples
    --------
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])
    >>> s_i = np.array([[True, True], [False, False]])
    >>> a_star_bruteforce(J, s_i, ~s_i, 1)
    (1.3862943611198906, (0,))
    """
    joint = np.asarray(joint, float)
    n = joint.ndim
    b = v.integer("b", b, 0)
    if b > n:
        raise ValueError(f"b must be <= number of entries {n}, got {b}")
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


def entry_secret_pairs(shape, entries=None):
    r"""Secret pairs :math:`(X_k=x, X_k=x')`, :math:`x<x'`, for the given entries.

    Returns a list of ``(s_i, s_j, k)`` boolean masks over an array of shape ``shape``.

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


def ab_curve_bruteforce(joint, bs, pairs=None, uncertainty=None):
    r""":math:`a(b)=\max_{(s_i,s_j)}a^\star_{(s_i,s_j)}(b)` for every ``b`` in ``bs`` (enumeration).

    ``pairs`` defaults to all single-entry value pairs (:func:`entry_secret_pairs`).
    Exponential cost: for tiny tables (≲ 12 binary entries) only.

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


# ----------------------------------------------------------------------------- Theorems 3–4
def epsilon_puffer_from_curve(eps_dp, bs, a):
    r"""Best Theorem-3 guarantee :math:`\min_b\,(b\,\epsilon_{DP}+a(b))` (vectorised in ``eps_dp``).

    Examples
    --------
    >>> float(epsilon_puffer_from_curve(0.5, [0, 1, 2], [np.inf, 0.3, 0.0]))  # min(inf, 0.8, 1.0)
    0.8
    """
    eps_dp = v.positive("eps_dp", eps_dp, allow_zero=True)
    bs, a = np.asarray(bs, float), np.asarray(a, float)
    vals = bs[None, :] * np.atleast_1d(eps_dp)[:, None] + a[None, :]
    out = vals.min(axis=1)
    return out[0] if np.ndim(eps_dp) == 0 else out


def best_b(eps_dp, bs, a):
    r""":math:`\arg\min_b\,b\,\epsilon_{DP}+a(b)` (vectorised in ``eps_dp``).

    Examples
    --------
    >>> int(best_b(0.5, [0, 1, 2], [np.inf, 0.3, 0.0]))
    1
    """
    eps_dp = v.positive("eps_dp", eps_dp, allow_zero=True)
    bs, a = np.asarray(bs), np.asarray(a, float)
    vals = bs[None, :] * np.atleast_1d(eps_dp)[:, None] + a[None, :]
    out = bs[np.argmin(vals, axis=1)]
    return out[0] if np.ndim(eps_dp) == 0 else out


def epsilon_dp_from_curve(eps_puffer, bs, a):
    r"""Largest admissible :math:`\epsilon_{DP}=\max_{b:\,a(b)<\epsilon_{puffer}}(\epsilon_{puffer}-a(b))/b`.

    Returns ``(eps_dp, b)``. If no point has :math:`a(b)<\epsilon_{puffer}` the target is
    infeasible and ``(0.0, None)`` is returned (zero budget = infinite noise, never
    under-noised).

    Examples
    --------
    >>> epsilon_dp_from_curve(1.0, [1, 2], [0.3, 0.0])  # max(0.7 / 1, 1.0 / 2)
    (0.7, 1)
    """
    v.positive("eps_puffer", eps_puffer)
    bs, a = np.asarray(bs, float), np.asarray(a, float)
    if np.any(bs <= 0):
        raise ValueError("bs must be positive (b = 0 would need a(0) < eps, i.e. no DP at all)")
    ok = a < eps_puffer
    if not ok.any():
        return 0.0, None
    vals = np.where(ok, (eps_puffer - a) / bs, -np.inf)
    k = int(np.argmax(vals))
    return float(vals[k]), int(bs[k])


def theorem4_epsilon(eps_puffers, a_points):
    r"""Theorem 4: joint guarantee :math:`\max_\ell a_\ell+\sum_\ell(\epsilon_{puffer,\ell}-a_\ell)`.

    Examples
    --------
    >>> theorem4_epsilon([1.0, 1.0], [0.2, 0.3])  # 0.3 + 0.8 + 0.7
    1.8
    """
    e = np.asarray(eps_puffers, float)
    a = np.asarray(a_points, float)
    if e.shape != a.shape or e.ndim != 1:
        raise ValueError("eps_puffers and a_points must be 1-D arrays of equal length")
    if np.any(a >= e):
        raise ValueError("each a_l must be < eps_puffer_l (Theorem 3 hypothesis)")
    return float(a.max() + np.sum(e - a))


# ----------------------------------------------------------------------------- special cases
def per_entry_dp_curve(bs):
    r"""Per-entry DP as an :math:`a(b)` curve: :math:`a(0)=\infty`, :math:`a(b)=0` for :math:`b\ge1` (Sec. 6.4).

    Examples
    --------
    >>> per_entry_dp_curve([0, 1, 2])
    array([inf,  0.,  0.])
    """
    bs = np.asarray(bs)
    return np.where(bs >= 1, 0.0, np.inf)


def group_dp_curve(bs, group_records, n_attributes):
    r"""Group DP over :math:`m'` records of :math:`n` attributes: :math:`a(b)=\infty` for :math:`b<m'n`, else 0.

    Examples
    --------
    >>> group_dp_curve([1, 2, 4], 2, 2)
    array([inf, inf,  0.])
    """
    v.integer("group_records", group_records, 1)
    v.integer("n_attributes", n_attributes, 1)
    bs = np.asarray(bs)
    return np.where(bs >= group_records * n_attributes, 0.0, np.inf)


def dependent_dp_curve(bs, L):
    r"""Dependent DP (each item correlated with at most :math:`L-1` others): :math:`a(b)=\infty` for :math:`b<L`, else 0.

    Examples
    --------
    >>> dependent_dp_curve([1, 2, 3], 2)
    array([inf,  0.,  0.])
    """
    v.integer("L", L, 1)
    bs = np.asarray(bs)
    return np.where(bs >= L, 0.0, np.inf)


def misspecified_epsilon(eps_puffer, b_star, a1_at_bstar, bs, a2):
    r"""Sec. 6.3.3: true guarantee when calibrated with a wrong curve :math:`a_1`.

    The curator uses :math:`\epsilon_{DP}=(\epsilon_{puffer}-a_1(b^\star))/b^\star`; the true
    curve is :math:`a_2`. Returns ``(eps_true, bound)`` with

    .. math:: \epsilon'_{puffer}=\inf_b\Bigl(a_2(b)+b\,\frac{\epsilon_{puffer}-a_1(b^\star)}{b^\star}\Bigr)
       \le\epsilon_{puffer}+a_2(b^\star)-a_1(b^\star).

    Examples
    --------
    >>> misspecified_epsilon(1.0, 1, 0.2, np.array([1, 2]), np.array([0.3, 0.1]))
    (1.1, 1.1)
    """
    bs, a2 = np.asarray(bs, float), np.asarray(a2, float)
    if b_star not in bs:
        raise ValueError("b_star must be one of bs")
    eps_dp = (eps_puffer - a1_at_bstar) / b_star
    if eps_dp <= 0:
        raise ValueError("need a1(b*) < eps_puffer")
    eps_true = float(np.min(a2 + bs * eps_dp))
    bound = float(eps_puffer + a2[bs == b_star][0] - a1_at_bstar)
    return eps_true, bound


# ----------------------------------------------------------------------------- exact checks
def randomized_response_mechanism(n, eps_dp, k=2):
    r"""Per-entry :math:`\epsilon_{DP}`-DP randomized response on :math:`n` entries with :math:`k` values.

    Each entry goes through :func:`rpp.discrete.randomized_response` independently
    (:func:`rpp.discrete.product_channel`): kept with probability
    :math:`e^{\epsilon}/(e^{\epsilon}+k-1)`, replaced by each other value with probability
    :math:`1/(e^{\epsilon}+k-1)` (Warner 1965); :math:`\epsilon_{DP}=0` is the uniform channel.
    Returns the (k**n, k**n) matrix ``M[D, O]`` in row-major (``np.ndindex``) order.

    Examples
    --------
    >>> randomized_response_mechanism(1, np.log(3))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    n = v.integer("n", n, 1)
    eps_dp = float(v.positive("eps_dp", eps_dp, allow_zero=True))
    k = v.integer("k", k, 2)
    if eps_dp == 0:
        return np.full((k**n, k**n), float(k) ** -n)
    return product_channel(*[randomized_response(eps_dp, k)] * n)


def secret_conditionals(joint, mechanism, s_i, s_j):
    r"""Output laws :math:`\Pr[\mathcal M(\mathrm{Data})=\cdot\mid s]` for both secrets of a pair.

    ``joint`` is the prior pmf (any shape, flattened in C order), ``mechanism`` the (N, Ω)
    channel and ``s_i``, ``s_j`` boolean masks of the shape of ``joint``
    (:func:`rpp.discrete.conditional_output_pmf` for each).

    Examples
    --------
    >>> M = randomized_response_mechanism(1, np.log(3))
    >>> secret_conditionals([0.5, 0.5], M, np.array([True, False]), np.array([False, True]))
    (array([0.75, 0.25]), array([0.25, 0.75]))
    """
    flat = np.ravel(np.asarray(joint, float))
    return (
        conditional_output_pmf(flat, mechanism, np.ravel(np.asarray(s_i, bool))),
        conditional_output_pmf(flat, mechanism, np.ravel(np.asarray(s_j, bool))),
    )


def pufferfish_epsilon_exact(joint, mechanism, pairs):
    r"""Exact Pufferfish parameter :math:`\max_{(s_i,s_j)}\max_\omega|\log\Pr(\omega\mid s_i)/\Pr(\omega\mid s_j)|`.

    ``joint`` is the prior pmf (any shape, flattened in C order), ``mechanism`` the
    (N, Ω) matrix of output probabilities and ``pairs`` a list of ``(s_i, s_j, ...)`` masks.

    Examples
    --------
    >>> M = randomized_response_mechanism(2, 0.5)  # independent entries: Pufferfish = DP
    >>> round(pufferfish_epsilon_exact(np.full(4, 0.25), M, entry_secret_pairs((2, 2))), 12)
    0.5
    """
    return max(float(pufferfish_leakage(*secret_conditionals(joint, mechanism, p[0], p[1]))) for p in pairs)
