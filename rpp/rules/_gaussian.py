r"""Noise rules for two Gaussian priors and Gaussian noise (Yang et al. 2026, Section III).

The rules, with the one signature of :mod:`rpp.rules` (two :class:`~rpp.Gaussian` priors; a
noise *scale* θ; ``alpha`` and ``epsilon`` broadcast):

* :func:`~rpp.rules.closed_form` -- Theorem III.5, eq. (6);
* :func:`~rpp.rules.published_bisection` -- Algorithm 1 exactly as published (it can under-noise).

The minimal (exact) θ is :func:`rpp.rules.exact`.  Each rule protects one order,
:math:`D_\alpha(i\|j)`.

Their kernels, vectorised over the Gaussian parameters as well (``mean_i, var_i, mean_j,
var_j``, like :func:`rpp.gaussian_renyi`), return the paper's quantity, the noise *variance*
:math:`\theta^2`; the book sweeps them over parameter grids:

* :func:`~rpp.rules.closed_form_variance` -- eq. (6);
* :func:`~rpp.rules.published_bisection_variance` -- Algorithm 1 as published;
* :func:`gaussian_exact_variance` -- the minimal :math:`\theta^2` with the exact (certified)
  divergence at most :math:`\varepsilon`, i.e. Algorithm 1 corrected.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from .._lib.numerics import sqrt_up, sqrt_up_array
from ..divergence import gaussian_divergence_upper, gaussian_renyi_value
from ..priors import Gaussian

__all__ = [
    "closed_form",
    "published_bisection",
    "closed_form_variance",
    "published_bisection_variance",
    "gaussian_exact_variance",
]


def _check(mean_i, var_i, mean_j, var_j, alpha, epsilon):
    """Validate the arguments shared by the kernels of this module."""
    return (
        v.finite("mean_i", mean_i),
        v.positive("var_i", var_i),
        v.finite("mean_j", mean_j),
        v.positive("var_j", var_j),
        v.alpha_order(alpha),
        v.epsilon_budget(epsilon),
    )


def two_gaussians(name: str, prior_i: object, prior_j: object) -> tuple[Gaussian, Gaussian]:
    """``(prior_i, prior_j)`` if both are :class:`~rpp.Gaussian`; a ValueError naming the rule otherwise."""
    if not (isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian)):
        raise ValueError(
            f"rule {name!r} applies to two rpp.Gaussian priors, got {type(prior_i).__name__} and "
            f"{type(prior_j).__name__}"
        )
    return prior_i, prior_j


def scale_of_variance(var: ArrayLike) -> float | np.ndarray:
    """Return the noise scale θ of a variance θ², rounded up so that θ² (exactly) is at least the variance.

    Parameters
    ----------
    var : array_like
        Variances ``>= 0`` (``inf`` allowed).

    Returns
    -------
    float or ndarray
        ``rpp._lib.numerics.sqrt_up`` of each (a float for a scalar): an array takes its
        vectorised form, ``sqrt_up_array`` (an exact check by an error-free product).

    Examples
    --------
    >>> scale_of_variance(4.0), scale_of_variance([0.0, 9.0]).tolist()
    (2.0, [0.0, 3.0])
    """
    arr = np.asarray(var, dtype=float)
    if arr.ndim == 0:
        return sqrt_up(float(arr))
    return sqrt_up_array(arr)


def closed_form(prior_i: Gaussian, prior_j: Gaussian, *, alpha: ArrayLike, epsilon: ArrayLike) -> float | np.ndarray:
    r"""Noise scale θ of Theorem III.5 (Yang et al. 2026, eq. (6)) for two Gaussian priors.

    θ is the rounded-up square root of :func:`~rpp.rules.closed_form_variance` (the formula is there);
    a sufficient noise for :math:`D_\alpha(P_i * N(0,\theta^2)\|P_j * N(0,\theta^2)) \le \varepsilon`.

    Parameters
    ----------
    prior_i, prior_j : Gaussian
        The secret-conditioned priors.
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``> 0`` (broadcasts with ``alpha``).

    Returns
    -------
    float or ndarray
        The noise scale θ, ``>= 0``.

    Raises
    ------
    ValueError
        If a prior is not an :class:`~rpp.Gaussian` or an argument is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> theta = closed_form(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, epsilon=0.5)
    >>> round(theta**2, 9)  # eq. (5): alpha Delta / (2 eps) - sigma^2
    11.0
    """
    p, q = two_gaussians("closed_form", prior_i, prior_j)
    a, e = v.alpha_order(alpha), v.epsilon_budget(epsilon)
    return scale_of_variance(closed_form_variance(p.mean, p.var, q.mean, q.var, alpha=a, epsilon=e))


def published_bisection(
    prior_i: Gaussian, prior_j: Gaussian, *, alpha: ArrayLike, epsilon: ArrayLike, tol: float = 1e-12
) -> float | np.ndarray:
    r"""Noise scale θ = √R of Algorithm 1 of Yang et al. 2026, exactly as published: it can under-noise.

    See :func:`~rpp.rules.published_bisection_variance` (R is the variance it returns); kept to show the
    flaw -- use :func:`rpp.rules.exact` or :func:`rpp.calibrate` for a guarantee.

    Parameters
    ----------
    prior_i, prior_j : Gaussian
        The secret-conditioned priors.
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``> 0`` (broadcasts with ``alpha``).
    tol : float
        Relative bracket width at which to stop.

    Returns
    -------
    float or ndarray
        The noise scale θ (possibly too small).

    Raises
    ------
    ValueError
        If a prior is not an :class:`~rpp.Gaussian` or an argument is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> float(published_bisection(Gaussian(mean=0, var=0.25), Gaussian(mean=0, var=16), alpha=3.0, epsilon=0.5))
    0.0
    """
    p, q = two_gaussians("published_bisection", prior_i, prior_j)
    a, e = v.alpha_order(alpha), v.epsilon_budget(epsilon)
    var = published_bisection_variance(p.mean, p.var, q.mean, q.var, alpha=a, epsilon=e, tol=tol)
    return scale_of_variance(var)


def closed_form_variance(
    mean_i: float | np.ndarray,
    var_i: float | np.ndarray,
    mean_j: float | np.ndarray,
    var_j: float | np.ndarray,
    *,
    alpha: float | np.ndarray,
    epsilon: float | np.ndarray,
) -> float | np.ndarray:
    r"""Closed-form sufficient noise variance, Yang et al. 2026, Theorem III.5, eq. (6).

    With :math:`x = \theta^2 + \sigma_i^2`, :math:`\delta = \sigma_j^2 - \sigma_i^2`,
    :math:`\Delta = (\mu_i - \mu_j)^2`, the bounds
    :math:`\ln(1+\nu)\le\nu` and :math:`\ln(1+\alpha\nu)\ge \alpha\nu/(1+\alpha\nu)`
    turn Corollary III.3 into the quadratic condition
    :math:`2\varepsilon x^2 + (2\varepsilon\alpha\delta - \alpha\Delta)x - \alpha^2\delta^2/(\alpha-1) \ge 0`,
    whose positive root gives

    .. math::

        \theta^2 = \max\Bigl(0,\ \frac{\alpha}{4\varepsilon}\Bigl[\Delta - 2\varepsilon\delta
        + \sqrt{(\Delta-2\varepsilon\delta)^2 + \tfrac{8\varepsilon\delta^2}{\alpha-1}}\Bigr] - \sigma_i^2\Bigr).

    This protects the order :math:`D_\alpha(i\|j)` only.  Broadcasts.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : array_like
        Means (finite) and variances (``> 0``) of the priors given :math:`s_i`, :math:`s_j`.
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    ndarray or float
        :math:`\theta^2 \ge 0`.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> round(float(closed_form_variance(0.0, 1.0, 2.0, 1.0, alpha=3.0, epsilon=0.5)), 9)  # eq. (5): alpha Delta / (2 eps) - sigma^2
    11.0
    """
    mean_i, var_i, mean_j, var_j, alpha, epsilon = _check(mean_i, var_i, mean_j, var_j, alpha, epsilon)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # beyond the double range: +inf (safe)
        dm2 = (np.asarray(mean_i, float) - mean_j) ** 2
        delta = np.asarray(var_j, float) - var_i
        b = dm2 - 2 * epsilon * delta
        c = 8 * epsilon * delta**2 / (alpha - 1)
        s = np.sqrt(b**2 + c)
        # b + s, >= 0; for b < 0 its rationalised form c / (s - b), free of b + s's cancellation
        root = np.where(b >= 0, b + s, c / np.where(b >= 0, 1.0, s - b))
        # an overflow (b = -inf beside sqrt(...) = +inf, or inf - inf in b) gives NaN: the root is then
        # beyond the double range, and +inf is the safe value (never 0: that would drop the noise)
        root = np.where(np.isnan(root), np.inf, root)
        x = np.where(root > 0, alpha / (4 * epsilon) * root, 0.0)  # no inf * 0 for identical priors
    return np.maximum(0.0, x - var_i)


def published_bisection_variance(
    mean_i: float | np.ndarray,
    var_i: float | np.ndarray,
    mean_j: float | np.ndarray,
    var_j: float | np.ndarray,
    *,
    alpha: float | np.ndarray,
    epsilon: float | np.ndarray,
    tol: float = 1e-12,
) -> float | np.ndarray:
    r"""Algorithm 1 of Yang et al. 2026, exactly as published (vectorised).

    ``L = 0``, ``R = α(µ_i - µ_j)² / (2ε)``; while ``R - L > tol``: ``M = (L+R)/2``,
    ``L = M`` if ``g(M) > ε`` else ``R = M``; return ``R``.  ``g`` is the exact
    divergence of Corollary III.3 (+inf outside its domain).

    The initial bracket assumes the root lies below ``α∆/(2ε)``, which is false
    when the variances differ: with equal means ``R = 0`` and the algorithm
    returns 0 although ``g(0)`` may exceed ε.  Use :func:`rpp.calibrate` with
    ``method="exact"`` for the corrected algorithm.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : array_like
        Means (finite) and variances (``> 0``) of the priors given :math:`s_i`, :math:`s_j`.
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``>= 1e-300`` (finite).
    tol : float
        Relative bracket width at which to stop.

    Returns
    -------
    ndarray or float
        ``R``, the returned variance (possibly too small).

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> float(published_bisection_variance(0.0, 0.25, 0.0, 16.0, alpha=3.0, epsilon=0.5))  # equal means: R = 0
    0.0
    """
    mean_i, var_i, mean_j, var_j, alpha, epsilon = _check(mean_i, var_i, mean_j, var_j, alpha, epsilon)
    mean_i, var_i, mean_j, var_j, alpha, epsilon = np.broadcast_arrays(
        *(np.asarray(a, float) for a in (mean_i, var_i, mean_j, var_j, alpha, epsilon))
    )
    L = np.zeros(alpha.shape)
    with np.errstate(over="ignore"):  # beyond the double range: R = +inf, returned as it is
        R = alpha * (mean_i - mean_j) ** 2 / (2 * epsilon)
    for _ in range(2000):
        active = R - L > tol * np.maximum(1.0, R)
        if not active.any():
            break
        M = 0.5 * (L + R)
        val = gaussian_renyi_value(mean_i, var_i + M, mean_j, var_j + M, alpha)
        up = active & (val > epsilon)
        L = np.where(up, M, L)
        R = np.where(active & ~up, M, R)
    return R


def gaussian_exact_variance(
    mean_i: float | np.ndarray,
    var_i: float | np.ndarray,
    mean_j: float | np.ndarray,
    var_j: float | np.ndarray,
    *,
    alpha: float | np.ndarray,
    epsilon: float | np.ndarray,
) -> float | np.ndarray:
    r"""Minimal θ² with exact :math:`D_\alpha(N(\mu_i,\sigma_i^2+\theta^2)\|N(\mu_j,\sigma_j^2+\theta^2)) \le \varepsilon`.

    The divergence is non-increasing in θ² (Prop. III.4; data processing), +inf
    for :math:`\theta^2 \le (\alpha-1)\sigma_i^2 - \alpha\sigma_j^2` (outside the
    domain :math:`\theta^2 + (1-\alpha)\sigma_i^2 + \alpha\sigma_j^2 > 0`), and
    the closed form of Theorem III.5 is a valid sufficient value: so the root
    is bracketed by [domain bound, closed form].  It is found by a vectorised
    Illinois (modified regula falsi) iteration that keeps the bracket, falls
    back to bisection while the lower end is +inf, and returns the feasible
    end of the bracket, so the exact divergence at the result is <= epsilon.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : array_like
        Means (finite) and variances (``> 0``) of the priors given :math:`s_i`, :math:`s_j`.
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    ndarray or float
        The minimal :math:`\theta^2`.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> round(float(gaussian_exact_variance(0.0, 1.0, 2.0, 1.0, alpha=3.0, epsilon=0.5)), 9)
    11.0
    """
    arrays = np.broadcast_arrays(*_check(mean_i, var_i, mean_j, var_j, alpha, epsilon))
    shape = arrays[0].shape
    mean_i, var_i, mean_j, var_j, alpha, epsilon = (np.array(a, dtype=float).ravel() for a in arrays)

    def F(z, idx):
        return gaussian_divergence_upper(mean_i[idx], var_i[idx], mean_j[idx], var_j[idx], alpha[idx], z) - epsilon[idx]

    every = np.arange(alpha.size)
    lo = np.maximum(0.0, (alpha - 1) * var_i - alpha * var_j)
    zero_ok = (lo == 0) & (F(np.zeros(alpha.size), every) <= 0)
    hi = np.maximum(closed_form_variance(mean_i, var_i, mean_j, var_j, alpha=alpha, epsilon=epsilon), lo)
    fhi = F(hi, every)
    # Round-off guard: make sure the upper end is feasible.
    step = 1e-13 * (var_i + var_j + hi)
    for _ in range(200):
        bad = ~zero_ok & (fhi > 0)
        if not bad.any():
            break
        hi = np.where(bad, hi + step, hi)
        step = step * 2
        fhi = F(hi, every)
    else:  # pragma: no cover - defensive
        raise RuntimeError("could not find a feasible upper bracket")
    flo = F(lo, every)
    side = np.zeros(alpha.size, dtype=int)
    for _ in range(400):
        gap = hi - lo
        act = np.flatnonzero(~zero_ok & (gap > 1e-13 * hi) & (fhi < -1e-14 * epsilon))
        if act.size == 0:
            break
        lo_a, h, fl, fh = lo[act], hi[act], flo[act], fhi[act]
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            c = h - fh * (h - lo_a) / (fh - fl)
        mid = 0.5 * (lo_a + h)
        c = np.where(np.isfinite(fl) & np.isfinite(c) & (c > lo_a) & (c < h), c, mid)
        fc = F(c, act)
        feas = fc <= 0
        s_old = side[act]
        # Illinois: halve the stale end's function value when the same side moves twice.
        fl = np.where(feas & (s_old == 1) & np.isfinite(fl), fl / 2, fl)
        fh = np.where(~feas & (s_old == -1), fh / 2, fh)
        hi[act] = np.where(feas, c, h)
        fhi[act] = np.where(feas, fc, fh)
        lo[act] = np.where(feas, lo_a, c)
        flo[act] = np.where(feas, fl, fc)
        side[act] = np.where(feas, 1, -1)
    out = np.where(zero_ok, 0.0, hi)
    return out.reshape(shape)
