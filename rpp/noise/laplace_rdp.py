r"""Rényi DP of the Laplace mechanism in closed form (Mironov 2017, Proposition 6).

:func:`log_laplace_shift_integral` is :math:`\log\int\ell(y-t)^\alpha\ell(y)^{1-\alpha}dy` for the
unit Laplace density :math:`\ell`, :func:`laplace_rdp` the divergence between shifted
Laplace laws and :func:`laplace_rdp_scale` its inverse in the scale (the :math:`W_\infty`
baseline of Pierquin et al. 2024 with sensitivity :math:`W_\infty`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _validation as v

__all__ = ["log_laplace_shift_integral", "laplace_rdp", "laplace_rdp_scale"]


def log_laplace_shift_integral(t: float | np.ndarray, alpha: float | np.ndarray) -> Any:
    r"""Log of :math:`I_\alpha(t) = \int \ell(y-t)^\alpha \ell(y)^{1-\alpha}dy` for the unit Laplace density :math:`\ell`.

    Mironov 2017, Proposition 6: for :math:`t = \Delta/b \ge 0`,

    .. math::

        I_\alpha(t) &= \frac{\alpha}{2\alpha-1}e^{(\alpha-1)t} + \frac{\alpha-1}{2\alpha-1}e^{-\alpha t} \\
        &= e^{-t/2}\Bigl(\cosh\tfrac{\beta t}{2} + \frac{\sinh(\beta t/2)}{\beta}\Bigr),
        \qquad \beta = 2\alpha - 1 .

    The second form (used here) has no cancellation at :math:`\alpha = 1/2`
    (limit :math:`(1 + t/2)e^{-t/2}`) and is evaluated in log space, so large
    :math:`t` does not overflow.  Valid for every :math:`\alpha > 0`.
    Broadcasts over ``t`` and ``alpha``.

    Parameters
    ----------
    t : array_like
        Normalised shift :math:`\Delta/b` (its absolute value is used).
    alpha : array_like
        Order, ``> 0``.

    Returns
    -------
    float or ndarray
        :math:`\log I_\alpha(t)`.

    Examples
    --------
    >>> float(log_laplace_shift_integral(0.0, 2.0))
    0.0
    """
    t = np.abs(np.asarray(t, dtype=float))
    alpha = np.asarray(alpha, dtype=float)
    beta = 2 * alpha - 1
    u = np.abs(beta) * t / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        # sinh(u)/(beta) = (t/2) * sinh(u)/u ; with the factor e^{u} taken out:
        shc = np.where(u > 0, -np.expm1(-2 * u) / np.where(u > 0, 2 * u, 1.0), 1.0)
        # inner = (1 + e^{-2u})/2 + (t/2) shc, written as 1 + (...) for log1p
        out = -t / 2 + u + np.log1p(0.5 * np.expm1(-2 * u) + 0.5 * t * shc)
    out = np.where(t == 0, 0.0, out)
    return out if out.ndim else float(out)


def laplace_rdp(sensitivity: float | np.ndarray, scale: float | np.ndarray, alpha: float | np.ndarray) -> Any:
    r"""Rényi divergence between shifted Laplace laws, :math:`D_\alpha(\mathrm{Lap}(\Delta, b)\,\|\,\mathrm{Lap}(0, b))`.

    Mironov 2017, Proposition 6 (the Rényi DP of the Laplace mechanism with
    sensitivity :math:`\Delta` and scale :math:`b`):

    .. math::

        D_\alpha = \frac{1}{\alpha-1}\log\Bigl(\frac{\alpha}{2\alpha-1}e^{(\alpha-1)\Delta/b}
        + \frac{\alpha-1}{2\alpha-1}e^{-\alpha\Delta/b}\Bigr),

    symmetric in the two laws.  ``alpha = 1`` gives the KL divergence
    :math:`\Delta/b + e^{-\Delta/b} - 1`, ``alpha = inf`` the max-divergence
    :math:`\Delta/b`; ``alpha`` in (0, 1) is allowed.  ``scale = 0`` gives 0 for
    ``sensitivity = 0`` and ``+inf`` otherwise.  Broadcasts.

    Parameters
    ----------
    sensitivity : array_like
        :math:`\Delta \ge 0`.
    scale : array_like
        :math:`b \ge 0`.
    alpha : array_like
        Order in (0, inf], 1 and inf included.

    Returns
    -------
    float or ndarray
        The divergence.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> laplace_rdp(1.0, 1.0, np.inf)  # max-divergence Delta / b
    1.0
    >>> round(laplace_rdp(1.0, 1.0, 2.0), 12)
    0.619123629999
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True)
    b = v.positive("scale", scale, allow_zero=True)
    alpha = v.alpha_order(alpha, allow_below_one=True, allow_one=True, allow_inf=True)
    delta, b, alpha = np.broadcast_arrays(delta, b, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(delta == 0, 0.0, delta / b)
    out = np.empty(t.shape)
    inf_t = np.isinf(t)
    kl = alpha == 1
    mx = np.isposinf(alpha)
    gen = ~(kl | mx | inf_t)
    tt = np.where(inf_t, 0.0, t)
    out[kl & ~inf_t] = (tt + np.expm1(-tt))[kl & ~inf_t]
    out[mx & ~inf_t] = tt[mx & ~inf_t]
    if gen.any():
        a = np.where(gen, alpha, 2.0)
        out[gen] = (log_laplace_shift_integral(tt, a) / (a - 1))[gen]
    out[inf_t] = np.inf
    out = np.maximum(out, 0.0)
    return out if out.ndim else float(out)


def laplace_rdp_scale(sensitivity: float | np.ndarray, alpha: float | np.ndarray, epsilon: float | np.ndarray) -> Any:
    r"""Smallest Laplace scale :math:`b` with :math:`D_\alpha(\mathrm{Lap}(\Delta,b)\|\mathrm{Lap}(0,b)) \le \varepsilon`.

    Inverts :func:`laplace_rdp` (Mironov 2017, Prop. 6) in :math:`t = \Delta/b`
    by vectorised bisection on the bracket
    :math:`[\varepsilon,\ \varepsilon + \log\frac{2\alpha-1}{\alpha}/(\alpha-1)]`
    (from :math:`t - \log\frac{2\alpha-1}{\alpha}/(\alpha-1) \le D_\alpha \le t`),
    returning the feasible end.  With :math:`\Delta = W_\infty(P_i, P_j)` this is
    the Laplace baseline of Pierquin et al. 2024 (``method="pierquin"``).
    ``sensitivity = inf`` gives ``inf``.  Broadcasts; ``alpha > 1``.

    Parameters
    ----------
    sensitivity : array_like
        :math:`\Delta \ge 0` (``inf`` allowed).
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``> 0``.

    Returns
    -------
    float or ndarray
        The scale ``b``.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> b = laplace_rdp_scale(1.0, 2.0, 0.5)
    >>> bool(laplace_rdp(1.0, b, 2.0) <= 0.5 < laplace_rdp(1.0, b * (1 - 1e-9), 2.0))
    True
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True, allow_inf=True)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    delta, alpha, epsilon = np.broadcast_arrays(delta, alpha, epsilon)
    lo = epsilon.astype(float).copy()
    hi = epsilon + np.log((2 * alpha - 1) / alpha) / (alpha - 1) + 1e-300
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        ok = log_laplace_shift_integral(mid, alpha) <= (alpha - 1) * epsilon
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
        if np.all(hi - lo <= 4e-16 * hi):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(delta == 0, 0.0, delta / lo)
    # round-off guard: the returned b must satisfy the condition as evaluated
    for _ in range(50):
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where((delta == 0) | np.isinf(delta), 0.0, delta / np.where(b > 0, b, 1.0))
        bad = (log_laplace_shift_integral(t, alpha) > (alpha - 1) * epsilon) & np.isfinite(b) & (b > 0)
        if not bad.any():
            break
        b = np.where(bad, b * (1 + 4e-16) + 1e-300, b)
    return b if b.ndim else float(b)
