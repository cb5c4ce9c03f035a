r"""Exponential-family noise and the :math:`\alpha < 1` condition of the α-Wasserstein paper (``awass2026``).

* :func:`exponential_family` -- the smallest scale :math:`1/\eta` of noise
  :math:`p(z)\propto e^{-\eta c(z)}` meeting eq. (13);
* :func:`two_sided_geometric_renyi` -- the exact divergence after two-sided geometric
  (discrete Laplace) noise of a scale, to check it;
* :func:`alpha_below_one` -- the Laplace scale of the sufficient condition for
  :math:`\alpha\in(0,1)` (the paper's Appendix Proposition).

All three take two :class:`~rpp.Empirical` priors coupled monotonically
(:func:`rpp.quantile_coupling`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from .._lib.numerics import largest_feasible, lse, step_up
from ..priors import Empirical, Prior
from ..transport import quantile_coupling

_EPS = float(np.finfo(float).eps)

__all__ = ["exponential_family", "two_sided_geometric_renyi", "alpha_below_one"]


def exponential_family(
    prior_i: Prior,
    prior_j: Prior,
    *,
    alpha: float,
    epsilon: float,
    cost: Callable[[np.ndarray], ArrayLike] | None = None,
    rule: str = "paper",
) -> float:
    r"""Smallest scale :math:`1/\eta` of the noise :math:`p(z)\propto e^{-\eta c(z)}` meeting eq. (13).

    For a metric cost :math:`c` (symmetric, :math:`c(0)=0`, triangle inequality)
    the noise satisfies :math:`p(y-x) \le e^{\eta c(x-x')}p(y-x')`, hence
    :math:`D_\alpha(N+x\|N+x') \le \frac{\alpha}{\alpha-1}\eta c(x-x')` (``rule="paper"``,
    the bound behind eq. (13): :math:`\int q\,(p/q)^\alpha \le \sup(p/q)^\alpha`)
    and even :math:`\le \eta c(x-x')` (``rule="sharp"``:
    :math:`\int p\,(p/q)^{\alpha-1} \le \sup(p/q)^{\alpha-1}`).  With joint convexity the
    sufficient condition is

    .. math::

        \log\sum \pi^*(x,x')\,e^{\kappa\,\eta\,c(x-x')} \le (\alpha-1)\varepsilon,
        \qquad \kappa = \alpha \text{ (paper) or } \alpha - 1 \text{ (sharp)} .

    Any coupling gives a valid condition; the monotone one of the two
    :class:`~rpp.Empirical` samples is used (optimal when :math:`c` is a convex
    function of :math:`x - x'`).  The condition is solved for the largest rate :math:`\eta`
    and the scale :math:`1/\eta` returned, rounded up so that the rate it stands for still
    meets it; for the Laplace cost :math:`|z|` it is the Laplace scale ``b``.

    Parameters
    ----------
    prior_i, prior_j : Empirical
        The two samples.
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    cost : callable, optional
        Vectorised metric :math:`c(z)`; default :math:`|z|`.
    rule : {"paper", "sharp"}
        The bound behind eq. (13) (above).

    Returns
    -------
    float
        The scale :math:`1/\eta` (0 when the priors coincide; ``inf`` when it exceeds the double range).

    Raises
    ------
    ValueError
        For priors that are not two rpp.Empirical samples, a cost that is not a metric, or values out of range.

    Examples
    --------
    >>> from rpp import Empirical
    >>> round(exponential_family(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0), 12)  # alpha |d| / ((alpha-1) eps)
    2.0
    """
    if not (isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical)):
        raise ValueError("exponential_family needs two rpp.Empirical samples")
    if rule not in ("paper", "sharp"):
        raise ValueError(f"rule must be 'paper' or 'sharp', got {rule!r}")
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    cost = np.abs if cost is None else cost
    x, y, m = quantile_coupling(prior_i, prior_j)
    d = x - y
    c = np.asarray(cost(d), float)
    if c.shape != d.shape or np.any(~np.isfinite(c)) or np.any(c < 0):
        raise ValueError("cost must map an array of differences to finite non-negative values of the same shape")
    c0 = np.asarray(cost(np.zeros(1)), float)
    cm = np.asarray(cost(-d), float)
    if c0.shape != (1,) or c0[0] != 0 or cm.shape != c.shape or not np.allclose(cm, c, rtol=1e-12, atol=0):
        raise ValueError("cost must be a metric: cost(0) = 0 and cost(-z) = cost(z)")
    if np.all(c == 0):
        return 0.0
    kappa = alpha if rule == "paper" else alpha - 1
    lm = np.log(m)
    target = (alpha - 1) * epsilon

    def g(eta):
        return lse(lm + kappa * eta * c) - target

    start = target / (kappa * c.max())
    if not start > 0:  # the rate is below the double range: the scale needed is above it (+inf is safe)
        return np.inf
    eta = float(largest_feasible(g, start))
    if not eta > 0 or not 1.0 / eta < np.inf:
        return np.inf
    # the scale 1/eta, rounded up until the rate it stands for (1/scale) meets the condition
    return float(step_up(1.0 / eta, lambda s: g(1.0 / s) <= 0))


def two_sided_geometric_renyi(prior_i: Empirical, prior_j: Empirical, *, alpha: float, scale: float) -> float:
    r"""Exact :math:`D_\alpha` after two-sided geometric (discrete Laplace) noise on integer data.

    The noise :math:`P(Z = z) = \frac{1-r}{1+r}r^{|z|}`, :math:`r = e^{-1/b}` with ``b`` the
    scale (the rate :math:`\eta = 1/b`),
    :math:`z\in\mathbb{Z}`, is the exponential-family noise of eq. (13) with the
    metric :math:`c(z) = |z|` on the integers.  For two integer-valued
    :class:`~rpp.Empirical` priors the outputs are integer-valued; the sum
    :math:`\sum_y P_i(y)^\alpha P_j(y)^{1-\alpha}` is finite between the
    smallest and largest atom and geometric outside, where it is summed in
    closed form (:math:`\sum_{k\ge1} r^k = r/(1-r)`).  ``alpha`` in (0, 1) or (1, inf).

    Parameters
    ----------
    prior_i, prior_j : Empirical
        Integer-valued samples.
    alpha : float
        Order in (0, 1) or (1, inf).
    scale : float
        The scale ``b = 1/eta``, ``>= 1e-300``.

    Returns
    -------
    float
        The divergence.

    Raises
    ------
    ValueError
        For non-integer samples or values out of range.

    Examples
    --------
    >>> from rpp import Empirical
    >>> round(two_sided_geometric_renyi(Empirical([0.0]), Empirical([1.0]), alpha=2.0, scale=1.0), 12)
    0.735325664056
    """
    p, q = prior_i, prior_j
    for name, d in (("prior_i", p), ("prior_j", q)):
        if not isinstance(d, Empirical):
            raise ValueError(f"{name} must be an rpp.Empirical sample, got {type(d).__name__}")
        if np.any(d.support != np.round(d.support)):
            raise ValueError(f"{name} must be integer-valued for two-sided geometric noise")
    alpha = float(v.alpha_order(alpha, allow_below_one=True))
    scale = float(v.positive("scale", scale))
    if scale < 1e-300:  # eta |y - x| must stay finite (up to 1e306 over the 1e6 span allowed below)
        raise ValueError(f"scale must be >= 1e-300, got {scale!r}")
    eta = 1.0 / scale
    lo = min(p.support.min(), q.support.min())
    hi = max(p.support.max(), q.support.max())
    if hi - lo > 10**6:
        raise ValueError("the integer support spans more than 10**6 values")
    y = np.arange(lo, hi + 1, dtype=float)
    lnorm = np.log(-np.expm1(-eta)) - np.log1p(np.exp(-eta))

    def logpmf(d):
        return lse(np.log(d.probs)[None, :] - eta * np.abs(y[:, None] - d.support[None, :]), axis=1) + lnorm

    log_p, log_q = logpmf(p), logpmf(q)
    with np.errstate(over="ignore"):  # alpha p + (1 - alpha) q, written so that an overflow is +-inf, never NaN
        lf = log_q + alpha * (log_p - log_q)
    # beyond hi: every term is r^k times the value at hi, k >= 1; same below lo
    log_geo = -eta - np.log(-np.expm1(-eta))  # log(r / (1 - r))
    log_i = lse(np.concatenate([lf, [lf[-1] + log_geo, lf[0] + log_geo]]))
    return float(max(0.0, log_i / (alpha - 1)))


def alpha_below_one(prior_i: Prior, prior_j: Prior, *, alpha: float, epsilon: float, rule: str = "paper") -> float:
    r"""Smallest Laplace scale meeting the sufficient condition for :math:`\alpha \in (0,1)`.

    For :math:`\alpha\in(0,1)`, :math:`D_\alpha \le \varepsilon` iff
    :math:`\int p^\alpha q^{1-\alpha} \ge e^{(\alpha-1)\varepsilon}`.  The map
    :math:`(p,q)\mapsto\int p^\alpha q^{1-\alpha}` is jointly *concave*, so for a
    coupling :math:`\pi` it is at least :math:`\sum\pi\,I_\alpha(|x-x'|/b)`, and
    :math:`I_\alpha(t) \ge e^{-\alpha t}` (the paper's Appendix Proposition, ``rule="paper"``:
    :math:`\sum\pi e^{-\alpha|x-x'|/b} \ge e^{(\alpha-1)\varepsilon}`) as well as
    :math:`I_\alpha(t) \ge e^{-(1-\alpha)t}` (``rule="sharp"`` uses the better
    exponent :math:`\min(\alpha, 1-\alpha)`).  Empirical priors; one order.

    Parameters
    ----------
    prior_i, prior_j : Empirical
        The two samples.
    alpha : float
        Order in (0, 1).
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    rule : {"paper", "sharp"}
        The bound on :math:`I_\alpha`.

    Returns
    -------
    float
        The Laplace scale ``b`` (``inf`` when it exceeds the double range).

    Raises
    ------
    ValueError
        For priors that are not two rpp.Empirical samples or values out of range, and where the
        scale needed is below 1e-300 (a tiny ``alpha``).

    Examples
    --------
    >>> from rpp import Empirical
    >>> round(alpha_below_one(Empirical([0.0]), Empirical([1.0]), alpha=0.5, epsilon=0.1), 6)
    10.0
    """
    if not (isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical)):
        raise ValueError("alpha_below_one needs two rpp.Empirical samples")
    alpha = float(v.alpha_order(alpha, allow_below_one=True))
    if not alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if rule not in ("paper", "sharp"):
        raise ValueError(f"rule must be 'paper' or 'sharp', got {rule!r}")
    epsilon = float(v.epsilon_budget(epsilon))
    x, y, m = quantile_coupling(prior_i, prior_j)
    d = x - y
    d = np.abs(d)
    if np.all(d == 0):
        return 0.0
    k = alpha if rule == "paper" else min(alpha, 1 - alpha)
    target = (alpha - 1) * epsilon  # negative
    # already met without noise (the b -> 0 limit), decided with a margin of 4 ulps on each side: at an
    # exact float tie (mass 1/2, epsilon = 2 log 2 at alpha = 1/2) exp(target) rounds onto the mass while
    # the exact divergence is above epsilon by one rounding (issue #35's mutation report)
    if m[d == 0].sum() * (1 - 4 * _EPS) >= np.exp(target) * (1 + 4 * _EPS):
        return 0.0

    def g(t):  # increasing in t; feasible iff <= 0
        return target - lse(np.log(m) - k * d * t)

    with np.errstate(over="ignore"):  # a tiny alpha: start = +inf, refused below
        start = float((1 - alpha) * epsilon / (k * d.max()))
    if not start > 0:  # the rate is below the double range: the scale needed is above it (+inf is safe)
        return np.inf
    # start beyond 1e300, or the bound met at every rate up to 1e300: the scale is below 1e-300, and
    # b = 0 is not shown to meet it (D_alpha may be inf there)
    t = largest_feasible(g, start) if start < 1e300 else np.inf
    if not t < np.inf:
        raise ValueError(
            f"alpha={alpha!r} and epsilon={epsilon!r} need a Laplace scale below 1e-300 (outside the double "
            "range the rule works in): use a larger alpha or a smaller epsilon"
        )
    if not t > 0 or not 1.0 / t < np.inf:
        return np.inf
    return float(step_up(1.0 / t, lambda b: g(1.0 / b) <= 0))
