r"""Truncated multivariate Gaussian prior with region secrets (Bai et al. 2026, Sec. 6.4, Example 7).

:math:`\mathbf x\sim\mathcal N(0,\Sigma)` truncated to :math:`[-\gamma,\gamma]^n`,
:math:`\Sigma_{jk}=\exp(-(j-k)^2/\ell)`; secrets :math:`s_i(r)=\{x_i\in[r,r+\delta]\}`.
Given the low-influence coordinates, :math:`x_i\mid\mathbf x_{\mathcal L}` is (before
truncation) :math:`\mathcal N(\mathbf w^\top\mathbf x_{\mathcal L},\,s^2)` with
:math:`\mathbf w=\Sigma_{\mathcal L\mathcal L}^{-1}\Sigma_{\mathcal L i}`,
:math:`s^2=\Sigma_{ii}-\mathbf w^\top\Sigma_{\mathcal L i}`, so the leakage depends on
:math:`\mathbf x_{\mathcal L}` only through the conditional mean
:math:`\mu=\mathbf w^\top\mathbf x_{\mathcal L}\in[-\gamma\|\mathbf w\|_1,\gamma\|\mathbf w\|_1]`:
a one-dimensional sweep.

Because the marginal odds :math:`\log\Pr(R_1)/\Pr(R_2)` is a weighted average of the
conditional log-odds :math:`f(\mu)=\log\Pr(R_1\mid\mu)/\Pr(R_2\mid\mu)`, the leakage
:math:`\max_\mu|f(\mu)-\log\Pr(R_1)/\Pr(R_2)|` is at most the *range*
:math:`\max_\mu f-\min_\mu f`; we compute this (marginal-free) upper bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erf, log_ndtr

from .._lib import validation as v
from .._lib.numerics import lse

__all__ = [
    "gp_covariance",
    "log_interval_prob",
    "conditional_weights",
    "region_grid",
    "region_influence_sweep",
    "gaussian_region_ab_curve",
    "farthest_low_sets",
    "region_influence_direct",
]


#: the most region secrets :func:`region_grid` lays out
MAX_REGIONS = 10**6


def gp_covariance(n: int, ell: float) -> np.ndarray:
    r""":math:`\Sigma_{jk}=\exp(-(j-k)^2/\ell)`, :math:`j,k=1..n`.

    The squared-exponential covariance of Bai et al. (2026), Sec. 6.4, Example 7.

    Parameters
    ----------
    n : int
        Dimension, ``n >= 1``.
    ell : float
        Length scale :math:`\ell>0`.

    Returns
    -------
    ndarray, shape (n, n)
        :math:`\Sigma`.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``ell <= 0``.

    Examples
    --------
    >>> gp_covariance(3, 1.0).round(6)
    array([[1.      , 0.367879, 0.018316],
           [0.367879, 1.      , 0.367879],
           [0.018316, 0.367879, 1.      ]])
    """
    n = v.integer("n", n, 1)
    v.positive("ell", ell)
    j = np.arange(n)
    with np.errstate(over="ignore"):  # a tiny ell: (j - k)^2 / ell = inf off the diagonal, exp(-inf) = 0 exactly
        return np.exp(-((j[:, None] - j[None, :]) ** 2) / ell)


def log_interval_prob(lo: ArrayLike, hi: ArrayLike, mu: float | np.ndarray, s: float | np.ndarray) -> np.ndarray:
    r""":math:`\log[\Phi((hi-\mu)/s)-\Phi((lo-\mu)/s)]`, stable in both tails (broadcasts).

    Computed in the tail where the interval lies, as
    :math:`\log\Phi(b)+\log(1-e^{\log\Phi(a)-\log\Phi(b)})` (after reflecting to the lower tail).

    Parameters
    ----------
    lo, hi : array_like
        Interval ends, ``lo <= hi``.
    mu : array_like
        Normal mean.
    s : array_like
        Normal standard deviation, ``s > 0``.

    Returns
    -------
    ndarray
        :math:`\log\Pr(lo\le X\le hi)`, :math:`X\sim\mathcal N(\mu,s^2)`.

    Examples
    --------
    >>> round(float(log_interval_prob(-1.0, 1.0, 0.0, 1.0)), 12)  # log P(|Z| < 1)
    -0.381715146302
    """
    lo, hi, mu = v.finite("lo", lo), v.finite("hi", hi), v.finite("mu", mu)
    s = v.positive("s", s)
    if (np.broadcast_to(lo, np.broadcast_shapes(lo.shape, hi.shape)) > hi).any():
        raise ValueError("lo must be <= hi")
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        # a tiny s or a far mu: a, b = -inf or +inf (Phi is then 0 or 1 exactly)
        a = (lo - mu) / s
        b = (hi - mu) / s
        a, b = np.broadcast_arrays(a, b)
        # use the tail where the interval lies: if a > 0 reflect to the lower tail
        flip = (a + b) > 0
        lo_, hi_ = np.where(flip, -b, a), np.where(flip, -a, b)
        lb, la = log_ndtr(hi_), log_ndtr(lo_)
        out = lb + np.log1p(-np.exp(la - lb))
        # an interval around 0 (a < 0 < b): Phi(b) - Phi(a) = [erf(b/sqrt2) - erf(a/sqrt2)]/2, a sum
        # of two positive terms, exact even when b - a is below the ulp of Phi(0) (a huge s)
        straddle = (lo_ < 0) & (hi_ > 0)
        mid = np.log(0.5 * (erf(hi_ / np.sqrt(2)) - erf(lo_ / np.sqrt(2))))
        out = np.where(straddle, mid, out)
        # Phi(b) = 0 (so Phi(a) = 0 too): the probability is 0 in double, its log -inf
        out = np.where(np.isneginf(lb), -np.inf, out)
    return out[()] if out.ndim == 0 else out


def conditional_weights(Sigma: np.ndarray, i: int, low: Iterable[int]) -> tuple[np.ndarray, float]:
    r"""Regression weights :math:`\mathbf w` and conditional sd :math:`s` of :math:`x_i\mid\mathbf x_{\mathcal L}`.

    :math:`\mathbf w=\Sigma_{\mathcal L\mathcal L}^{-1}\Sigma_{\mathcal L i}`,
    :math:`s^2=\Sigma_{ii}-\mathbf w^\top\Sigma_{\mathcal L i}` (Gaussian conditioning; Bai et al.
    2026, Sec. 6.4, Example 7).

    Parameters
    ----------
    Sigma : ndarray, shape (n, n)
        Positive-definite covariance.
    i : int
        Secret coordinate (0-based).
    low : iterable of int
        Low-influence coordinates :math:`\mathcal L` (may be empty).

    Returns
    -------
    w : ndarray, shape (len(low),)
        Regression weights.
    s : float
        Conditional standard deviation, ``> 0``.

    Raises
    ------
    ValueError
        If ``Sigma`` is not a finite symmetric square matrix with a positive diagonal, ``i`` or
        an entry of ``low`` is not a coordinate (or ``low`` repeats one or contains ``i``), or
        the conditional variance :math:`s^2` is not positive to working precision: below
        :math:`64u\,\kappa(\Sigma_{\mathcal L\mathcal L})\,\Sigma_{ii}` (``u`` the unit
        round-off, κ the condition number), the round-off of the Schur complement, where
        :math:`x_i` is numerically a linear function of :math:`\mathbf x_{\mathcal L}`.
        (Earlier versions clamped :math:`s^2` to 1e-300, i.e. ``s = 1e-150``, without a word.)

    Examples
    --------
    >>> w, s = conditional_weights(gp_covariance(3, 1.0), 1, [0, 2])
    >>> w.round(6), round(s, 6)
    (array([0.361263, 0.361263]), 0.856853)
    """
    Sigma = v.finite("Sigma", Sigma)
    if Sigma.ndim != 2 or Sigma.shape[0] != Sigma.shape[1] or not np.allclose(Sigma, Sigma.T, rtol=1e-12, atol=0):
        raise ValueError("Sigma must be a symmetric square matrix")
    if not (np.diag(Sigma) > 0).all():
        raise ValueError("Sigma must have a positive diagonal (variances > 0)")
    n = Sigma.shape[0]
    i = v.integer("i", i, 0)
    if i >= n:
        raise ValueError(f"i must be a coordinate, 0 <= i < n = {n}, got {i}")
    low = [v.integer("low", j, 0) for j in low]
    if any(j >= n for j in low) or len(set(low)) != len(low) or i in low:
        raise ValueError(f"low must hold distinct coordinates in [0, {n}) other than i")
    if not low:
        return np.zeros(0), float(np.sqrt(Sigma[i, i]))
    S_LL = Sigma[np.ix_(low, low)]
    S_Li = Sigma[low, i]
    w = np.linalg.solve(S_LL, S_Li)
    s2 = Sigma[i, i] - S_Li @ w
    if not s2 > 64 * 2.0**-53 * np.linalg.cond(S_LL) * Sigma[i, i]:
        raise ValueError(
            "Sigma: the conditional variance of x_i given x_low is not positive to working precision "
            "(x_i is numerically a linear function of x_low: Sigma on low + [i] is singular or nearly so)"
        )
    return w, float(np.sqrt(s2))


def region_grid(gamma: float, delta: float, step: float | None = None) -> np.ndarray:
    r"""Left ends :math:`r\in[-\gamma,\gamma-\delta]` of the region secrets (default step :math:`\delta`).

    The secrets :math:`s_i(r)=\{x_i\in[r,r+\delta]\}` of Bai et al. (2026), Sec. 6.4, Example 7.

    Parameters
    ----------
    gamma : float
        Truncation :math:`\gamma>0`.
    delta : float
        Region width :math:`\delta\le2\gamma`.
    step : float, optional
        Spacing of the left ends (default ``delta``).

    Returns
    -------
    ndarray
        The left ends :math:`r`.

    Raises
    ------
    ValueError
        If ``gamma``, ``delta`` or ``step`` is not finite and ``> 0``, ``delta > 2 gamma``, or
        the grid would have more than ``MAX_REGIONS = 10**6`` points.

    Examples
    --------
    >>> region_grid(1.0, 0.5)
    array([-1. , -0.5,  0. ,  0.5])
    """
    gamma = float(v.positive("gamma", gamma))
    delta = float(v.positive("delta", delta))
    if delta > 2 * gamma:
        raise ValueError(f"delta must satisfy 0 < delta <= 2 gamma = {2 * gamma}")
    step = delta if step is None else float(v.positive("step", step))
    with np.errstate(over="ignore"):
        k = np.floor((2 * gamma - delta) / step + 1e-9)
    if not k < MAX_REGIONS:
        raise ValueError(
            f"step (default delta) must satisfy (2 gamma - delta) / step < {MAX_REGIONS} (the number of "
            f"regions), got gamma = {gamma}, delta = {delta}, step = {step}"
        )
    k = int(k)
    return -gamma + step * np.arange(k + 1)


def region_influence_sweep(
    w: ArrayLike, s: float, gamma: float, delta: float, regions: ArrayLike | None = None, n_mu: int = 401
) -> float:
    r"""Range bound :math:`\max_{r_1,r_2}[\max_\mu f_{r_1r_2}(\mu)-\min_\mu f_{r_1r_2}(\mu)]`.

    ``w``, ``s`` from :func:`conditional_weights`; :math:`\mu` is swept over
    :math:`[-\gamma\|\mathbf w\|_1,\gamma\|\mathbf w\|_1]` (``n_mu`` points). The truncation of
    :math:`x_i` to :math:`[-\gamma,\gamma]` cancels in the log-odds of two regions
    (Bai et al. 2026, Sec. 6.4, Example 7).

    Parameters
    ----------
    w : array_like
        Regression weights :math:`\mathbf w`.
    s : float
        Conditional standard deviation.
    gamma, delta : float
        Truncation and region width.
    regions : array_like, optional
        Left ends of the regions (default :func:`region_grid`).
    n_mu : int, default 401
        Number of grid points of :math:`\mu`.

    Returns
    -------
    float
        The range bound (0 when :math:`\mathbf w=0`).

    Examples
    --------
    >>> round(region_influence_sweep([0.5], 1.0, 1.0, 0.5), 6)
    1.469112
    """
    w = v.vector("w", w, min_size=0)
    s = float(v.positive("s", s))
    n_mu = v.integer("n_mu", n_mu, 2)
    regions = region_grid(gamma, delta) if regions is None else v.vector("regions", regions)
    m = float(v.positive("gamma", gamma)) * np.sum(np.abs(w))
    if m == 0:
        return 0.0
    mu = np.linspace(-m, m, n_mu)
    lp = log_interval_prob(regions[:, None], regions[:, None] + delta, mu[None, :], s)  # (R, mu)
    # for every pair (r1, r2): range over mu of lp[r1]-lp[r2]; vectorised in chunks
    best = 0.0
    if np.isneginf(lp).any():  # a region impossible at some mu (a tiny s): the log-odds reach +-inf
        with np.errstate(invalid="ignore"):
            for k in range(0, regions.size, 64):
                d = lp[k : k + 64, None, :] - lp[None, :, :]  # NaN where both regions are impossible
                top, bottom = np.fmax.reduce(d, axis=-1), np.fmin.reduce(d, axis=-1)
                r = top - bottom  # NaN: no mu defines f (skip), or f = +-inf throughout (unbounded)
                r = np.where(np.isnan(r), np.where(np.isinf(top), np.inf, 0.0), r)
                best = max(best, float(np.max(r)))
        return best
    for k in range(0, regions.size, 64):
        d = lp[k : k + 64, None, :] - lp[None, :, :]
        best = max(best, float(np.max(d.max(-1) - d.min(-1))))
    return best


def farthest_low_sets(n: int, center: int, b: int) -> list[tuple[Any, ...]]:
    r"""Return the low-influence sets of size :math:`n-b` farthest from ``center`` (all tie-breaks).

    :math:`\mathcal H` holds the :math:`b` coordinates nearest to ``center``; claim (1) of
    Bai et al. (2026), Sec. 6.4 takes :math:`\mathcal L` as its complement.

    Parameters
    ----------
    n : int
        Number of coordinates.
    center : int
        Secret coordinate (0-based).
    b : int
        Size of the high-influence set, ``1 <= b <= n``.

    Returns
    -------
    list of tuple of int
        Every low-influence set, one per tie-break at the boundary distance.

    Examples
    --------
    >>> [tuple(map(int, L)) for L in farthest_low_sets(5, 2, 2)]
    [(0, 3, 4), (0, 1, 4)]
    """
    n = v.integer("n", n, 1)
    center = v.integer("center", center, 0)
    if center >= n:
        raise ValueError(f"center must be a coordinate, 0 <= center < n = {n}, got {center}")
    b = v.integer("b", b, 1)
    if b > n:
        raise ValueError(f"b must satisfy 1 <= b <= n = {n}, got {b}")
    idx = np.arange(n)
    dist = np.abs(idx - center)
    order_keep = sorted(idx, key=lambda j: (dist[j], j))  # nearest first
    # nearest b indices form H; ties at the boundary distance give several choices
    dH = dist[order_keep[b - 1]]
    inner = [j for j in idx if dist[j] < dH]
    ring = [j for j in idx if dist[j] == dH]
    need = b - len(inner)
    out = []
    for extra in itertools.combinations(ring, need):
        H = set(inner) | set(extra)
        out.append(tuple(j for j in idx if j not in H))
    return out


def gaussian_region_ab_curve(
    n: int,
    ell: float,
    gamma: float,
    delta: float,
    bs: ArrayLike,
    n_mu: int = 401,
    regions: ArrayLike | None = None,
    center: int | None = None,
    all_low_sets: bool = False,
) -> np.ndarray:
    r""":math:`\hat a(b)` for the truncated-Gaussian prior by the paper's one-dimensional sweep.

    Secret coordinate :math:`i^\star=\lceil n/2\rceil` (``center``, 0-based default
    ``ceil(n/2)-1``) and low-influence set = the :math:`n-b` farthest coordinates (claims (1)
    of Bai et al. 2026, Sec. 6.4); with ``all_low_sets=True`` the minimum over *every*
    :math:`\mathcal L` of size :math:`n-b` is taken instead (to test claim (1)).

    Parameters
    ----------
    n : int
        Dimension.
    ell : float
        Length scale of :func:`gp_covariance`.
    gamma, delta : float
        Truncation and region width.
    bs : array_like of int
        Sizes :math:`b\ge1` (``b >= n`` gives 0).
    n_mu, regions
        As in :func:`region_influence_sweep`.
    center : int, optional
        Secret coordinate (0-based).
    all_low_sets : bool, default False
        Minimise over every low-influence set of size :math:`n-b`.

    Returns
    -------
    ndarray
        :math:`\hat a(b)` for each ``b``.

    Raises
    ------
    TypeError
        If ``bs`` is not a list of integers.
    ValueError
        If some ``b < 1`` or ``ell <= 0``.

    Examples
    --------
    >>> gaussian_region_ab_curve(3, 1.0, 1.0, 0.5, [1, 2, 3]).round(4)
    array([2.8701, 1.246 , 0.    ])
    """
    Sigma = gp_covariance(n, ell)
    c = int(np.ceil(n / 2)) - 1 if center is None else v.integer("center", center, 0)
    if c >= n:
        raise ValueError(f"center must be a coordinate, 0 <= center < n = {n}, got {c}")
    out = []
    for b in v.integers("bs", bs, 1):
        b = int(b)
        if b >= n:
            out.append(0.0)
            continue
        if all_low_sets:
            fams = [L for L in itertools.combinations(range(n), n - b) if c not in L]
        else:
            fams = farthest_low_sets(n, c, b)
        vals = []
        for L in fams:
            w, s = conditional_weights(Sigma, c, L)
            vals.append(region_influence_sweep(w, s, gamma, delta, regions, n_mu))
        out.append(min(vals))
    return np.array(out)


def region_influence_direct(
    n: int,
    ell: float,
    gamma: float,
    delta: float,
    center: int,
    high: Iterable[int],
    regions: ArrayLike | None = None,
    n_grid: int = 41,
    n_quad: int = 4001,
) -> tuple[float, float]:
    r"""Slow direct computation of the same range bound under the *exact* truncated prior.

    For :math:`\mathbf x_{\mathcal L}` on a grid over :math:`[-\gamma,\gamma]^{|\mathcal L|}`,
    :math:`\log\Pr(x_i\in R\mid\mathbf x_{\mathcal L})` is computed by log-space quadrature of
    the truncated joint density, integrating the other high-influence coordinate (at most
    one) exactly over :math:`[-\gamma,\gamma]`. Returns
    ``(range_bound, exact_leakage)``: the range over the grid of the conditional log-odds,
    and the true :math:`a^\dagger` (with the marginal log-odds computed from the same grid,
    weighting grid points by the prior density of :math:`\mathbf x_{\mathcal L}`).
    A check of the sweep of Bai et al. (2026), Sec. 6.4, Example 7.

    Parameters
    ----------
    n : int
        Dimension.
    ell : float
        Length scale of :func:`gp_covariance`.
    gamma, delta : float
        Truncation and region width.
    center : int
        Secret coordinate (0-based).
    high : iterable of int
        High-influence set: ``center`` and at most one other coordinate.
    regions : array_like, optional
        Left ends of the regions (default :func:`region_grid`).
    n_grid : int, default 41
        Grid points per low-influence coordinate.
    n_quad : int, default 4001
        Quadrature points for :math:`x_i`.

    Returns
    -------
    range_bound : float
        Range over the grid of the conditional log-odds.
    exact_leakage : float
        :math:`a^\dagger` on the same grid.

    Raises
    ------
    ValueError
        If ``high`` does not contain ``center`` or has more than two coordinates.

    Examples
    --------
    >>> rb, ex = region_influence_direct(3, 1.0, 1.0, 0.5, 1, [1], n_grid=5, n_quad=201)
    >>> round(rb, 4), round(ex, 4)
    (2.8669, 1.4335)
    """
    Sigma = gp_covariance(n, ell)
    center = v.integer("center", center, 0)
    high = [v.integer("high", j, 0) for j in high]
    n_grid = v.integer("n_grid", n_grid, 2)
    n_quad = v.integer("n_quad", n_quad, 2)
    if center >= n or any(j >= n for j in high) or len(set(high)) != len(high):
        raise ValueError(f"center and high must be distinct coordinates in [0, {n})")
    if center not in high or len(high) > 2:
        raise ValueError("high must contain center and at most one other coordinate")
    low = [j for j in range(n) if j not in high]
    regions = region_grid(gamma, delta) if regions is None else v.vector("regions", regions)
    g1 = np.linspace(-gamma, gamma, n_grid)
    XL = np.array(list(itertools.product(g1, repeat=len(low))))  # (G, |L|)
    # conditional of x_H given x_L
    S_LL = Sigma[np.ix_(low, low)]
    S_HL = Sigma[np.ix_(high, low)]
    A = np.linalg.solve(S_LL, S_HL.T).T  # (|H|, |L|)
    m = XL @ A.T  # (G, |H|)
    C = Sigma[np.ix_(high, high)] - A @ S_HL.T
    ci = high.index(center)
    xc = np.linspace(-gamma, gamma, n_quad)
    sc = np.sqrt(C[ci, ci])
    logf = -0.5 * ((xc[None, :] - m[:, [ci]]) / sc) ** 2  # (G, Q)
    if len(high) == 2:
        oi = 1 - ci
        beta = C[oi, ci] / C[ci, ci]
        so = np.sqrt(C[oi, oi] - beta * C[oi, ci])
        mo = m[:, [oi]] + beta * (xc[None, :] - m[:, [ci]])
        logf = logf + log_interval_prob(-gamma, gamma, mo, so)
    # log Pr(x_c in R | x_L) (Riemann sums in log space; normaliser over [-gamma, gamma])
    lnorm = lse(logf, axis=1)
    lp = np.empty((XL.shape[0], regions.size))
    for k, r in enumerate(regions):
        sel = (xc >= r - 1e-12) & (xc <= r + delta + 1e-12)
        lp[:, k] = lse(logf[:, sel], axis=1) - lnorm
    rng_bound = 0.0
    for k in range(regions.size):
        d = lp[:, [k]] - lp  # (G, R)
        rng_bound = max(rng_bound, float(np.max(d.max(0) - d.min(0))))
    # exact a-dagger: prior weight of x_L grid points (truncated marginal density of x_L)
    # density of x_L under the truncated prior: phi_LL(x_L) * Pr(x_H in box | x_L), and
    # Pr(x_H in box | x_L) is proportional to exp(lnorm) (same constant for every x_L)
    SLi = np.linalg.inv(S_LL)
    lw = -0.5 * np.einsum("gi,ij,gj->g", XL, SLi, XL) + lnorm
    lw = lw - lse(lw)
    lmarg = lse(lw[:, None] + lp, axis=0)  # log Pr(R)
    exact = 0.0
    for k in range(regions.size):
        f = lp[:, [k]] - lp - (lmarg[k] - lmarg)[None, :]
        exact = max(exact, float(np.max(np.abs(f))))
    return rng_bound, exact
