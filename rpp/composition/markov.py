r"""Markov-chain priors: the :math:`a(b)`-influence curve (Bai et al. 2026, Sec. 6.4) and the
Markov Quilt Mechanism (Song, Wang & Chaudhuri 2017).

For a chain :math:`X_1,\dots,X_n` and the secret pairs :math:`(X_i=x, X_i=x')`, the Markov
property reduces the leakage through a low-influence set :math:`\mathcal L` to its two
nodes closest to :math:`X_i`, at distances :math:`d_L` (left) and :math:`d_R` (right)
(a "Markov quilt"); :math:`|\mathcal H|\ge d_L+d_R-1`. With marginals
:math:`\mu_t` of :math:`X_t`,

.. math::
   \Pr(X_{i-d}=u\mid X_i=x)=\frac{\mu_{i-d}(u)P^d(u,x)}{\mu_i(x)},\qquad
   \Pr(X_{i+d}=v\mid X_i=x)=P^d(x,v),

and the two boundary nodes are conditionally independent given :math:`X_i`.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as v
from .influence import uncertain_ratio_bound

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


# ----------------------------------------------------------------------------- basics
def stationary_distribution(P):
    r"""Stationary distribution :math:`\pi=\pi P` of an irreducible chain (left Perron eigenvector, normalised).

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
    w, vecs = np.linalg.eig(P.T)
    k = int(np.argmin(np.abs(w - 1)))
    pi = np.abs(np.real(vecs[:, k]))
    return pi / pi.sum()


def chain_joint(P, n, start=None):
    r"""Joint pmf of :math:`(X_1,\dots,X_n)` as an array of shape ``(K,)*n`` (brute force).

    ``start`` is the law of :math:`X_1` (default: stationary).

    Examples
    --------
    >>> chain_joint([[0.9, 0.1], [0.2, 0.8]], 2).round(6)
    array([[0.6     , 0.066667],
           [0.066667, 0.266667]])
    """
    P = v.transition_matrix("P", P)
    n = v.integer("n", n, 1)
    K = P.shape[0]
    start = stationary_distribution(P) if start is None else v.pmf("start", start)
    J = start.copy()
    for _ in range(n - 1):
        J = J[..., None] * P.reshape((1,) * (J.ndim - 1) + (K, K))
    return J


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


# ----------------------------------------------------------------------------- two-state chain
def _two_state(p, q):
    v.probability("p", p)
    v.probability("q", q)
    lam = p + q - 1.0
    pi0 = (1 - q) / (2 - p - q)
    return lam, pi0


def two_state_side_logratios(p, q, d):
    r""":math:`g_d(u)=\log P^d(0,u)/P^d(1,u)` for :math:`u=0,1` (stationary two-state chain).

    With :math:`\lambda=p+q-1` and :math:`\pi_0=(1-q)/(2-p-q)`,
    :math:`P^d(x,y)=\pi_y+\lambda^d(\delta_{xy}-\pi_y)`; by reversibility this is also the
    left-side log-ratio. Returns an array of shape ``(..., 2)``.

    Examples
    --------
    >>> two_state_side_logratios(0.1, 0.2, 1)
    array([-2.07944154,  1.5040774 ])
    """
    lam, pi0 = _two_state(p, q)
    d = np.asarray(d, float)
    pi1 = 1 - pi0
    ld = lam**d
    g0 = np.log(pi0 + ld * pi1) - np.log(pi0 - ld * pi0)
    g1 = np.log(pi1 - ld * pi1) - np.log(pi1 + ld * pi0)
    return np.stack([g0, g1], axis=-1)


def two_state_ab_paper(p, q, b):
    r"""Closed form of Bai et al. (2026), Sec. 6.4, with the omitted :math:`q\le p` case.

    Balanced split :math:`d_L=\lfloor(b+1)/2\rfloor`, :math:`d_R=\lceil(b+1)/2\rceil`, both
    boundary nodes in the rarer state:

    .. math::
       a(b)=\sum_{d\in\{d_L,d_R\}}\Bigl|\log\frac{\pi_r+\lambda^{d}(1-\pi_r)}{\pi_r-\lambda^{d}\pi_r}\Bigr|,
       \qquad \pi_r=\begin{cases}\pi_0 & q>p\\ \pi_1 & q\le p.\end{cases}

    The paper states only :math:`q>p` (:math:`\pi_r=\pi_0`). Valid for a stationary start,
    an interior node and :math:`p+q\ge1` (see :func:`two_state_ab_exact`).

    Examples
    --------
    >>> round(float(two_state_ab_paper(0.1, 0.2, 2)), 12)  # the paper's bound, >= the exact value
    3.19184715248
    """
    lam, pi0 = _two_state(p, q)
    b = np.asarray(b)
    if np.any(b < 1):
        raise ValueError("b must be >= 1")
    pir = pi0 if q > p else 1 - pi0
    dl = np.floor((b + 1) / 2)
    dr = np.ceil((b + 1) / 2)

    def f(d):
        return np.abs(np.log((pir + lam**d * (1 - pir)) / (pir - lam**d * pir)))

    return f(dl) + f(dr)


def two_state_ab_exact(p, q, b):
    r"""Exact :math:`a(b)` of an interior node of a long stationary two-state chain.

    .. math:: a(b)=\min_{d_L+d_R=b+1}\max\Bigl\{\max_u g_{d_L}(u)+\max_v g_{d_R}(v),\
       -\min_u g_{d_L}(u)-\min_v g_{d_R}(v)\Bigr\}

    (the two signs of the secret pair). Valid in every regime, including negatively
    correlated chains (:math:`p+q<1`). ``b`` may be an array.

    Examples
    --------
    >>> round(two_state_ab_exact(0.1, 0.2, 2), 12)
    3.114338015962
    """
    _two_state(p, q)
    bs = np.atleast_1d(np.asarray(b))
    if np.any(bs < 1):
        raise ValueError("b must be >= 1")
    out = np.empty(bs.shape, float)
    for k, bb in enumerate(bs):
        dl = np.arange(1, bb + 1)
        dr = bb + 1 - dl
        gl = two_state_side_logratios(p, q, dl)
        gr = two_state_side_logratios(p, q, dr)
        leak = np.maximum(gl.max(-1) + gr.max(-1), -(gl.min(-1) + gr.min(-1)))
        out[k] = leak.min()
    return out if np.ndim(b) else float(out[0])


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


def chain_quilt_table(P, n, start=None, uncertainty=None):
    r"""All quilts of all nodes of a finite chain: list of ``(i, dL, dR, size, leak)``.

    ``dL``/``dR`` is ``None`` when the high-influence set reaches the chain's end on that
    side; ``size`` is the minimal :math:`|\mathcal H|`; ``leak`` the (K, K) pairwise leakage
    (see ``_pair_leak``). Cost :math:`O(n^3K^2)` — for short chains.

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
        for dL in [None] + list(range(1, i + 1)):
            if dL is None:
                PL = None
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    PL = (mu[i - dL][None, :] * Pd[dL].T) / mu[i][:, None]  # [x, u]
                PL = np.nan_to_num(PL)
            for dR in [None] + list(range(1, n - i)):
                PR = None if dR is None else Pd[dR]
                size = (i if dL is None else dL - 1) + 1 + ((n - 1 - i) if dR is None else dR - 1)
                rows.append((i, dL, dR, size, _pair_leak(PL, PR, mu[i], uncertainty)))
    return rows


def chain_ab_curve(P, n, bs, start=None, uncertainty=None, table=None):
    r"""Exact :math:`a(b)` of a finite chain by the Markov-quilt reduction.

    :math:`a(b)=\max_i\max_{x<x'}\min_{\text{quilts of }i,\ |\mathcal H|\le b}\mathrm{leak}_{x,x'}`
    (Bai et al. 2026, Def. 2; adding far nodes to :math:`\mathcal H` never increases the
    leakage, so "≤ b" equals "= b"). Works for any start law and any number of states.

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


def mqm_sigma_chain(P, n, eps, start=None, uncertainty=None, table=None):
    r"""Markov Quilt Mechanism scale for a finite chain (Song, Wang & Chaudhuri 2017, Alg. MQMExact).

    Max-influence of a quilt :math:`e(X_Q\mid X_i)=\max_{x,x'}\max_{x_Q}\log
    \Pr(x_Q\mid x)/\Pr(x_Q\mid x')`; :math:`\sigma_i=\min_{Q:\,e<\epsilon}\mathrm{card}(X_N)/(\epsilon-e)`
    (the empty quilt, :math:`\mathrm{card}=n`, :math:`e=0`, is always allowed);
    :math:`\sigma_{\max}=\max_i\sigma_i`. Laplace noise of scale :math:`L\sigma_{\max}`
    (:math:`L` = Lipschitz constant of the query) gives :math:`\epsilon`-Pufferfish.
    Equivalently :math:`\epsilon_{DP}=1/\sigma_{\max}` (Bai et al. 2026, Sec. 6.1).
    Returns ``(sigma_max, sigma_per_node)``.

    Examples
    --------
    >>> round(mqm_sigma_chain([[0.9, 0.1], [0.2, 0.8]], 3, 5.0)[0], 6)
    0.6
    """
    v.positive("eps", eps)
    table = chain_quilt_table(P, n, start, uncertainty) if table is None else table
    sig = np.full(n, np.inf)
    for i, _dL, _dR, size, leak in table:
        e = float(np.max(leak))
        if e < eps:
            sig[i] = min(sig[i], size / (eps - e))
    return float(sig.max()), sig


def _stationary_sides(P, dmax):
    pi = stationary_distribution(P)
    Pd = _matrix_powers(P, dmax)
    PL = pi[None, None, :] * np.transpose(Pd, (0, 2, 1)) / pi[None, :, None]  # [d, x, u]
    return pi, PL, Pd


def _oriented_side_max(Px):
    """M[d, x, x'] = max_u log Px[d, x, u] / Px[d, x', u]."""
    return _safe_logratio(Px[:, :, None, :], Px[:, None, :, :]).max(-1)


def interior_leak_profile(P, smax, uncertainty=None, exact_upto=60):
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
    ``uncertainty=(l, u)`` the sharp box bound (:func:`rpp.composition.uncertain_ratio_bound`)
    on the joint cells :math:`\pi_x\Pr(u\mid x)\Pr(v\mid x)` is used up to size
    ``exact_upto`` (cost :math:`K^4` per quilt) and beyond it the cheaper bound
    nominal :math:`+\,2\log(u/l)`, which is never smaller
    (:math:`\tfrac{uc}{uc+l(S-c)}\le\tfrac{u c}{l S}` and
    :math:`\tfrac{lc}{lc+u(S-c)}\ge\tfrac{l c}{u S}`).
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
        lo, up = uncertainty
        if not (0 < lo <= 1 <= up):
            raise ValueError(f"uncertainty must be (lower, upper) with 0 < lower <= 1 <= upper, got {uncertainty}")
        extra = 2 * np.log(up / lo)
    for s in range(1, smax + 1):
        dL = np.arange(1, s + 1)
        dR = s + 1 - dL
        if uncertainty is not None and s <= exact_upto:
            cells = (PL[dL][:, :, :, None] * Pd[dR][:, :, None, :]).reshape(s, K, K * K)
            cells = cells * pi[None, :, None]
            leak = uncertain_ratio_bound(cells[:, :, None, :], cells[:, None, :, :], lo, up)
        else:
            tot = ML[dL] + MR[dR]
            leak = np.maximum(tot, np.transpose(tot, (0, 2, 1))) + extra
        idx = np.arange(K)
        leak[:, idx, idx] = 0.0
        pair_min[s] = leak.min(0)
        e_min[s] = leak.max(axis=(1, 2)).min()
    return {"pair_min": pair_min, "e_min": e_min, "e_floor": extra, "smax": smax}


def chain_ab_interior(P, bs, uncertainty=None, profile=None, smax=None):
    r""":math:`a(b)` of an interior node of a long stationary chain (two-sided quilts).

    :math:`a(b)=\max_{x<x'}\min_{s\le b}` ``pair_min[s]``. Equals :func:`chain_ab_curve`
    on chains long enough that the worst node is interior (checked in the tests). For
    ``b`` beyond the profile's ``smax`` the value at ``smax`` is returned (an upper bound,
    since :math:`a` is non-increasing).
    """
    bs = np.atleast_1d(bs)
    if profile is None:
        profile = interior_leak_profile(P, int(smax or bs.max()), uncertainty)
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


def mqm_sigma_interior(P, eps, chain_length, uncertainty=None, profile=None, smax=None):
    r"""MQM :math:`\sigma` of an interior node of a long stationary chain (Song et al. 2017).

    :math:`\sigma=\min\{n/\epsilon,\ \min_{s:\,e_{\min}(s)<\epsilon}s/(\epsilon-e_{\min}(s))\}`
    (the first term is the empty quilt, :math:`\mathrm{card}(X_N)=n` = ``chain_length``).
    Quilts larger than the profile's ``smax`` have leakage :math:`\ge e_{floor}`, hence
    :math:`\sigma_Q\ge s/(\epsilon-e_{floor})`; the search is certified complete when
    ``smax``:math:`/(\epsilon-e_{floor})\ge\sigma` (else ``ValueError``). Nodes near the
    chain's ends have extra one-sided quilts and are never worse (checked in the tests).
    """
    v.positive("eps", eps)
    if profile is None:
        profile = interior_leak_profile(P, int(smax or 100), uncertainty)
    sizes = np.arange(1, profile["smax"] + 1)
    e = profile["e_min"][1:]
    ok = e < eps
    sigma = chain_length / eps
    if ok.any():
        sigma = min(sigma, float(np.min(sizes[ok] / (eps - e[ok]))))
    floor = profile["e_floor"]
    certified = floor >= eps or (profile["smax"] + 1) / (eps - floor) >= sigma or chain_length <= profile["smax"] + 1
    if not certified:
        raise ValueError(f"quilt search incomplete for eps={eps}: increase smax (now {profile['smax']})")
    return float(sigma)
