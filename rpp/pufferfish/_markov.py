r"""Markov-chain priors.

The :math:`a(b)`-influence curve (Bai et al. 2026, Sec. 6.4) and the Markov Quilt Mechanism (Song, Wang & Chaudhuri 2017).

For a chain :math:`X_1,\dots,X_n` and the secret pairs :math:`(X_i=x, X_i=x')`, the Markov
property reduces the leakage through a low-influence set :math:`\mathcal L` to its two
nodes closest to :math:`X_i`, at distances :math:`d_L` (left) and :math:`d_R` (right)
(a "Markov quilt"); :math:`|\mathcal H|\ge d_L+d_R-1`. With marginals
:math:`\mu_t` of :math:`X_t`,

.. math::
   \Pr(X_{i-d}=u\mid X_i=x) &= \frac{\mu_{i-d}(u)P^d(u,x)}{\mu_i(x)},\\
   \Pr(X_{i+d}=v\mid X_i=x) &= P^d(x,v),

and the two boundary nodes are conditionally independent given :math:`X_i`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ._chains import chain_joint, stationary_distribution
from ._influence import uncertain_ratio_bound
from ._two_state import two_state_ab_exact, two_state_ab_paper, two_state_side_logratios

__all__ = [
    "stationary_distribution",
    "chain_joint",
    "two_state_side_logratios",
    "two_state_ab_paper",
    "two_state_ab_exact",
    "chain_quilt_table",
    "chain_ab_curve",
    "chain_ab_interior",
    "mqm_sigma_chain",
    "mqm_sigma_interior",
    "interior_leak_profile",
]


def _matrix_powers(P, dmax):
    K = P.shape[0]
    out = np.empty((dmax + 1, K, K))
    out[0] = np.eye(K)
    for d in range(1, dmax + 1):
        out[d] = out[d - 1] @ P
    return out


def _safe_logratio(a, b):
    """log(a/b) with 0/0 -> -inf (cell impossible under both), a>0=b -> +inf."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(a) - np.log(b)
    return np.where((a == 0) & (b == 0), -np.inf, r)


# ----------------------------------------------------------------------------- K-state chains
def _pair_leak(PLx, PRx, mu_x, uncertainty):
    r"""Leakage of every secret pair through a quilt.

    ``PLx[x, u]`` (or None), ``PRx[x, v]`` (or None): conditional laws of the boundary nodes
    given :math:`X_i=x`. Returns a symmetric (K, K) matrix of
    :math:`\max_{u,v}|\log\Pr(u,v\mid x)/\Pr(u,v\mid x')|` (or its uncertainty bound).
    """
    K = mu_x.size
    if PLx is None and PRx is None:
        return np.zeros((K, K))
    if uncertainty is None:
        tot = np.zeros((K, K))
        for Px in (PLx, PRx):
            if Px is not None:
                lr = _safe_logratio(Px[:, None, :], Px[None, :, :])  # (x, x', u)
                tot = tot + lr.max(-1)
        return np.maximum(tot, tot.T)
    lo, up = uncertainty
    if PLx is None:
        cells = PRx
    elif PRx is None:
        cells = PLx
    else:
        cells = (PLx[:, :, None] * PRx[:, None, :]).reshape(K, -1)
    cells = cells * mu_x[:, None]  # joint p(D_L, X_i = x)
    return uncertain_ratio_bound(cells[:, None, :], cells[None, :, :], lo, up)


def chain_quilt_table(
    P: ArrayLike, n: int, start: ArrayLike | None = None, uncertainty: tuple[float, float] | None = None
) -> list[tuple[int, int | None, int | None, int, np.ndarray]]:
    r"""All quilts of all nodes of a finite chain: list of ``(i, dL, dR, size, leak)``.

    ``dL``/``dR`` is ``None`` when the high-influence set reaches the chain's end on that
    side; ``size`` is the minimal :math:`|\mathcal H|`; ``leak`` the (K, K) pairwise leakage
    :math:`\max_{u,v}|\log\Pr(u,v\mid x)/\Pr(u,v\mid x')|` over the boundary nodes
    (Song, Wang & Chaudhuri 2017; Bai et al. 2026, Sec. 6.4). Cost :math:`O(n^3K^2)` — for
    short chains.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix.
    n : int
        Chain length.
    start : array_like, shape (K,), optional
        Law of :math:`X_1` (default: stationary).
    uncertainty : (float, float), optional
        ``(lower, upper)`` multiplicative box on the joint cells; the leakage is then the
        sharp bound of :func:`rpp.pufferfish.uncertain_ratio_bound`.

    Returns
    -------
    list of tuple
        ``(i, dL, dR, size, leak)`` for every node ``i`` and quilt.

    Raises
    ------
    ValueError
        If ``P``, ``n`` or ``start`` is invalid.

    Examples
    --------
    >>> len(chain_quilt_table([[0.9, 0.1], [0.2, 0.8]], 3))
    10
    """
    P = v.transition_matrix("P", P)
    n = v.integer("n", n, 1)
    start = stationary_distribution(P) if start is None else v.pmf("start", start)
    Pd = _matrix_powers(P, n)
    mu = np.array([start @ Pd[t] for t in range(n)])
    rows = []
    for i in range(n):
        for dL in [None, *range(1, i + 1)]:
            if dL is None:
                PL = None
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    PL = (mu[i - dL][None, :] * Pd[dL].T) / mu[i][:, None]  # [x, u]
                PL = np.nan_to_num(PL)
            for dR in [None, *range(1, n - i)]:
                PR = None if dR is None else Pd[dR]
                size = (i if dL is None else dL - 1) + 1 + ((n - 1 - i) if dR is None else dR - 1)
                rows.append((i, dL, dR, size, _pair_leak(PL, PR, mu[i], uncertainty)))
    return rows


def chain_ab_curve(
    P: ArrayLike,
    n: int,
    bs: ArrayLike,
    start: ArrayLike | None = None,
    uncertainty: tuple[float, float] | None = None,
    table: list[Any] | None = None,
) -> np.ndarray:
    r"""Exact :math:`a(b)` of a finite chain by the Markov-quilt reduction.

    :math:`a(b)=\max_i\max_{x<x'}\min_{\text{quilts of }i,\ |\mathcal H|\le b}\mathrm{leak}_{x,x'}`
    (Bai et al. 2026, Def. 2; adding far nodes to :math:`\mathcal H` never increases the
    leakage, so "≤ b" equals "= b"). Works for any start law and any number of states.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix.
    n : int
        Chain length.
    bs : array_like of int
        Sizes :math:`b` at which to evaluate.
    start, uncertainty
        As in :func:`chain_quilt_table`.
    table : list, optional
        A precomputed :func:`chain_quilt_table` (then ``P``'s table is not rebuilt).

    Returns
    -------
    ndarray
        :math:`a(b)` for each ``b`` (``inf`` when no quilt of size :math:`\le b` exists).

    Raises
    ------
    ValueError
        If ``P``, ``n`` or ``start`` is invalid.

    Examples
    --------
    >>> chain_ab_curve([[0.9, 0.1], [0.2, 0.8]], 3, [1, 2, 3])
    array([4.15888308, 2.07944154, 0.        ])
    """
    table = chain_quilt_table(P, n, start, uncertainty) if table is None else table
    K = table[0][4].shape[0]
    out = []
    iu = np.triu_indices(K, 1)
    for b in np.atleast_1d(bs):
        worst = 0.0
        for i in range(n):
            leaks = [r[4][iu] for r in table if r[0] == i and r[3] <= b]
            if not leaks:
                worst = np.inf
                break
            worst = max(worst, float(np.max(np.min(np.array(leaks), axis=0))))
        out.append(worst)
    return np.array(out)


def mqm_sigma_chain(
    P: ArrayLike,
    n: int,
    epsilon: float,
    start: ArrayLike | None = None,
    uncertainty: tuple[float, float] | None = None,
    table: list[Any] | None = None,
) -> tuple[float, np.ndarray]:
    r"""Markov Quilt Mechanism scale for a finite chain (Song, Wang & Chaudhuri 2017, Alg. MQMExact).

    Max-influence of a quilt :math:`e(X_Q\mid X_i)=\max_{x,x'}\max_{x_Q}\log
    \Pr(x_Q\mid x)/\Pr(x_Q\mid x')`; :math:`\sigma_i=\min_{Q:\,e<\epsilon}\mathrm{card}(X_N)/(\epsilon-e)`
    (the empty quilt, :math:`\mathrm{card}=n`, :math:`e=0`, is always allowed);
    :math:`\sigma_{\max}=\max_i\sigma_i`. Laplace noise of scale :math:`L\sigma_{\max}`
    (:math:`L` = Lipschitz constant of the query) gives :math:`\epsilon`-Pufferfish.
    Equivalently :math:`\epsilon_{DP}=1/\sigma_{\max}` (Bai et al. 2026, Sec. 6.1).

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix.
    n : int
        Chain length.
    epsilon : float
        Target :math:`\epsilon>0`.
    start, uncertainty, table
        As in :func:`chain_ab_curve`.

    Returns
    -------
    sigma_max : float
        :math:`\sigma_{\max}`.
    sigma_per_node : ndarray, shape (n,)
        :math:`\sigma_i`.

    Raises
    ------
    ValueError
        If ``epsilon <= 0`` or ``P``, ``n``, ``start`` is invalid.

    Examples
    --------
    >>> round(mqm_sigma_chain([[0.9, 0.1], [0.2, 0.8]], 3, 5.0)[0], 6)
    0.6
    """
    v.positive("epsilon", epsilon)
    table = chain_quilt_table(P, n, start, uncertainty) if table is None else table
    sig = np.full(n, np.inf)
    for i, _dL, _dR, size, leak in table:
        e = float(np.max(leak))
        if e < epsilon:
            sig[i] = min(sig[i], size / (epsilon - e))
    return float(sig.max()), sig


def _stationary_sides(P, dmax):
    pi = stationary_distribution(P)
    Pd = _matrix_powers(P, dmax)
    PL = pi[None, None, :] * np.transpose(Pd, (0, 2, 1)) / pi[None, :, None]  # [d, x, u]
    return pi, PL, Pd


def _oriented_side_max(Px):
    """M[d, x, x'] = max_u log Px[d, x, u] / Px[d, x', u]."""
    return _safe_logratio(Px[:, :, None, :], Px[:, None, :, :]).max(-1)


def interior_leak_profile(
    P: ArrayLike, smax: int, uncertainty: tuple[float, float] | None = None, exact_upto: int = 60
) -> dict[str, Any]:
    r"""Quilt leakages of an interior node of a long *stationary* chain, by quilt size.

    For every size :math:`s=d_L+d_R-1\le` ``smax`` returns

    * ``pair_min[s]`` — (K, K): :math:`\min_{d_L+d_R-1=s}` leakage of each secret pair
      (for the :math:`a(b)` curve: min over quilts *per pair*);
    * ``e_min[s]`` — :math:`\min_{d_L+d_R-1=s}\max_{x,x'}` leakage (the smallest
      max-influence of a quilt of that size, for MQM);
    * ``e_floor`` — a lower bound on the leakage of every quilt larger than ``smax``
      (0, or :math:`2\log(u/l)` with uncertainty, see below).

    Without uncertainty the leakage of pair :math:`(x,x')` through :math:`(d_L,d_R)` is
    :math:`\max\{M_L(x,x')+M_R(x,x'),M_L(x',x)+M_R(x',x)\}` with
    :math:`M(x,x')=\max_u\log\Pr(u\mid x)/\Pr(u\mid x')` per side. With
    ``uncertainty=(l, u)`` the sharp box bound (:func:`rpp.pufferfish.uncertain_ratio_bound`)
    on the joint cells :math:`\pi_x\Pr(u\mid x)\Pr(v\mid x)` is used up to size
    ``exact_upto`` (cost :math:`K^4` per quilt) and beyond it the cheaper bound
    nominal :math:`+\,2\log(u/l)`, which is never smaller
    (:math:`\tfrac{uc}{uc+l(S-c)}\le\tfrac{u c}{l S}` and
    :math:`\tfrac{lc}{lc+u(S-c)}\ge\tfrac{l c}{u S}`). Song, Wang & Chaudhuri (2017);
    Bai et al. (2026), Sec. 6.4.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix of an irreducible chain.
    smax : int
        Largest quilt size :math:`s`.
    uncertainty : (float, float), optional
        ``(lower, upper)`` with :math:`0<l\le1\le u`.
    exact_upto : int, default 60
        Largest size at which the sharp box bound is used.

    Returns
    -------
    dict
        ``{"pair_min": (smax+1, K, K), "e_min": (smax+1,), "e_floor": float, "smax": int}``
        (index 0 unused, ``inf``).

    Raises
    ------
    ValueError
        If ``P`` is invalid or reducible, ``smax < 1`` or ``uncertainty`` is out of range.

    Examples
    --------
    >>> prof = interior_leak_profile([[0.9, 0.1], [0.2, 0.8]], 3)
    >>> prof["e_min"][1:].round(4)
    array([4.1589, 3.4359, 2.7129])
    """
    P = v.transition_matrix("P", P)
    smax = v.integer("smax", smax, 1)
    K = P.shape[0]
    pi, PL, Pd = _stationary_sides(P, smax)
    ML, MR = _oriented_side_max(PL), _oriented_side_max(Pd)
    pair_min = np.full((smax + 1, K, K), np.inf)
    e_min = np.full(smax + 1, np.inf)
    extra = 0.0
    if uncertainty is not None:
        lo, up = v.uncertainty(uncertainty)
        extra = 2 * np.log(up / lo)
    for s in range(1, smax + 1):
        dL = np.arange(1, s + 1)
        dR = s + 1 - dL
        if uncertainty is not None and s <= exact_upto:
            cells = (PL[dL][:, :, :, None] * Pd[dR][:, :, None, :]).reshape(s, K, K * K)
            cells = cells * pi[None, :, None]
            leak = np.asarray(uncertain_ratio_bound(cells[:, :, None, :], cells[:, None, :, :], lo, up))
        else:
            tot = ML[dL] + MR[dR]
            leak = np.maximum(tot, np.transpose(tot, (0, 2, 1))) + extra
        idx = np.arange(K)
        leak[:, idx, idx] = 0.0
        pair_min[s] = leak.min(0)
        e_min[s] = leak.max(axis=(1, 2)).min()
    return {"pair_min": pair_min, "e_min": e_min, "e_floor": extra, "smax": smax}


def chain_ab_interior(
    P: ArrayLike,
    bs: ArrayLike,
    uncertainty: tuple[float, float] | None = None,
    profile: dict[str, Any] | None = None,
    smax: int | None = None,
) -> np.ndarray:
    r""":math:`a(b)` of an interior node of a long stationary chain (two-sided quilts).

    :math:`a(b)=\max_{x<x'}\min_{s\le b}` ``pair_min[s]``. Equals :func:`chain_ab_curve`
    on chains long enough that the worst node is interior (checked in the tests). For
    ``b`` beyond the profile's ``smax`` the value at ``smax`` is returned (an upper bound,
    since :math:`a` is non-increasing). Bai et al. (2026), Def. 2 and Sec. 6.4.

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix (ignored when ``profile`` is given).
    bs : array_like of int
        Sizes :math:`b`.
    uncertainty : (float, float), optional
        As in :func:`interior_leak_profile`.
    profile : dict, optional
        A precomputed :func:`interior_leak_profile`.
    smax : int, optional
        Profile size when ``profile`` is None (default ``max(bs)``).

    Returns
    -------
    ndarray
        :math:`a(b)` for each ``b`` (``inf`` for ``b = 0``).

    Raises
    ------
    TypeError
        If ``bs`` or ``smax`` is not an integer (or a list of them).
    ValueError
        If ``P`` is invalid or reducible, a ``b`` is not an integer ``>= 0``, or ``smax < 1``.

    Examples
    --------
    >>> chain_ab_interior([[0.9, 0.1], [0.2, 0.8]], [1, 2, 3]).round(4)
    array([4.1589, 3.4359, 2.7129])
    """
    bs = v.integers("bs", bs, 0)
    if profile is None:
        if smax is None and bs.size == 0:
            raise ValueError("bs must hold at least one size b (or give smax)")
        smax = max(1, int(bs.max())) if smax is None else v.integer("smax", smax, 1)
        profile = interior_leak_profile(P, smax, uncertainty)
    pm = np.minimum.accumulate(profile["pair_min"][1:], axis=0)  # sizes 1..smax
    K = pm.shape[1]
    iu = np.triu_indices(K, 1)
    curve = pm[:, iu[0], iu[1]].max(1)
    out = []
    for b in bs:
        if b < 1:
            out.append(np.inf)
        else:
            out.append(float(curve[min(int(b), profile["smax"]) - 1]))
    return np.array(out)


def mqm_sigma_interior(
    P: ArrayLike,
    epsilon: float,
    chain_length: int,
    uncertainty: tuple[float, float] | None = None,
    profile: dict[str, Any] | None = None,
    smax: int | None = None,
) -> float:
    r"""MQM :math:`\sigma` of an interior node of a long stationary chain (Song et al. 2017).

    :math:`\sigma=\min\{n/\epsilon,\ \min_{s:\,e_{\min}(s)<\epsilon}s/(\epsilon-e_{\min}(s))\}`
    (the first term is the empty quilt, :math:`\mathrm{card}(X_N)=n` = ``chain_length``).
    Quilts larger than the profile's ``smax`` have leakage :math:`\ge e_{floor}`, hence
    :math:`\sigma_Q\ge s/(\epsilon-e_{floor})`; the search is certified complete when
    ``smax``:math:`/(\epsilon-e_{floor})\ge\sigma` (else ``ValueError``). Nodes near the
    chain's ends have extra one-sided quilts and are never worse (checked in the tests).

    Parameters
    ----------
    P : array_like, shape (K, K)
        Row-stochastic transition matrix (ignored when ``profile`` is given).
    epsilon : float
        Target :math:`\epsilon>0`.
    chain_length : int
        :math:`n`, the number of nodes.
    uncertainty, profile
        As in :func:`chain_ab_interior`.
    smax : int, optional
        Profile size when ``profile`` is None (default 100).

    Returns
    -------
    float
        :math:`\sigma`.

    Raises
    ------
    TypeError
        If ``chain_length`` or ``smax`` is not an integer.
    ValueError
        If ``epsilon <= 0`` (or not finite), ``chain_length < 1``, ``smax < 1`` or the quilt
        search is not certified complete.

    Examples
    --------
    >>> round(mqm_sigma_interior([[0.9, 0.1], [0.2, 0.8]], 5.0, 100, smax=20), 6)
    1.188895
    """
    v.positive("epsilon", epsilon)
    chain_length = v.integer("chain_length", chain_length, 1)
    if profile is None:
        profile = interior_leak_profile(P, 100 if smax is None else v.integer("smax", smax, 1), uncertainty)
    sizes = np.arange(1, profile["smax"] + 1)
    e = profile["e_min"][1:]
    ok = e < epsilon
    sigma = chain_length / epsilon
    if ok.any():
        sigma = min(sigma, float(np.min(sizes[ok] / (epsilon - e[ok]))))
    floor = profile["e_floor"]
    certified = (
        floor >= epsilon or (profile["smax"] + 1) / (epsilon - floor) >= sigma or chain_length <= profile["smax"] + 1
    )
    if not certified:
        raise ValueError(f"quilt search incomplete for epsilon={epsilon}: increase smax (now {profile['smax']})")
    return float(sigma)
