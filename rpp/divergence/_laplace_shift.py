r"""Rényi DP of the Laplace mechanism in closed form (Mironov 2017, Proposition 6).

:func:`log_laplace_shift_integral` is :math:`\log\int\ell(y-t)^\alpha\ell(y)^{1-\alpha}dy` for the
unit Laplace density :math:`\ell`, :func:`laplace_shift_divergence` the divergence between shifted
Laplace laws (a :class:`rpp.Certified`; ``laplace_shift_value`` its float kernel) and
:func:`laplace_rdp_scale` its inverse in the scale (the :math:`W_\infty`
baseline of Pierquin et al. 2024 with sensitivity :math:`W_\infty`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._lib import validation as v
from ..certified import Certified

__all__ = [
    "log_laplace_shift_integral",
    "laplace_shift_divergence",
    "laplace_shift_value",
    "laplace_rdp_scale",
    "LOG_SHIFT_REL_ERR",
]


_U = 2.0**-53
#: Relative error bound of :func:`log_laplace_shift_integral` and of :func:`laplace_shift_value` for
#: ``alpha > 1`` (a few ulps per operation, see there; checked against mpmath at 700 digits over
#: alpha in [1 + 1e-15, 1e6] and t in [1e-300, 1e6] by tests/divergence/test_laplace_alpha_one.py).
LOG_SHIFT_REL_ERR = 64 * _U

# Coefficients 1/k! (k = 2..19) of e^x - 1 - x = sum_{k >= 2} x^k / k!, for the series at |x| < 1/2.
_E2_COEF = [1.0 / math.factorial(k) for k in range(19, 1, -1)]


def _series(x: np.ndarray) -> np.ndarray:
    """sum_{k >= 2} x^{k-2} / k! for |x| < 1/2 (Horner, 18 terms)."""
    acc = np.zeros_like(x)
    for c in _E2_COEF:
        acc = acc * x + c
    return acc


def _exp_m1_mx(x: np.ndarray) -> np.ndarray:
    r""":math:`E_2(x) = e^x - 1 - x \ge 0` to a few ulps, for every real ``x`` (``inf`` beyond ~709).

    Taylor series (18 terms, Horner) for :math:`|x| < 1/2`, where ``expm1(x) - x`` would cancel:
    the omitted terms are below :math:`2 \cdot 2^{-18}/20! \approx 3\cdot10^{-24}` of :math:`x^2/2`, and the
    alternating sum for :math:`x < 0` stays above :math:`0.42\,x^2` (condition number < 1.2).
    For :math:`|x| \ge 1/2`, ``expm1(x) - x`` loses at most a factor 5 (at :math:`x = \pm 1/2`).
    """
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    small = np.abs(x) < 0.5
    xs = x[small]
    out[small] = xs * xs * _series(xs)
    xb = x[~small]
    with np.errstate(over="ignore"):
        out[~small] = np.expm1(xb) - xb
    return out


def _log_i_and_rdp(t, alpha):
    r"""``(log I_alpha(t), D_alpha(t))`` (arrays) for ``t >= 0``, ``alpha > 0``, ``alpha != 1`` finite.

    See :func:`log_laplace_shift_integral` for the forms.  In the expanded form the divergence is
    computed as :math:`D = Y\,\operatorname{log1p}(X)/X` with :math:`Y = X/(\alpha-1)
    = [\alpha E_2((\alpha-1)t)/(\alpha-1) + E_2(-\alpha t)]/(2\alpha-1)` evaluated directly, so a
    divergence near the smallest normal numbers is not computed through a subnormal
    :math:`\log I \approx (\alpha-1)D` (:math:`\varepsilon = 10^{-300}` at :math:`\alpha = 1 + 10^{-12}`).
    """
    t = np.abs(np.asarray(t, dtype=float))
    alpha = np.asarray(alpha, dtype=float)
    t, alpha = np.broadcast_arrays(t, alpha)
    shape = t.shape
    t, alpha = t.ravel(), alpha.ravel()
    a_all = alpha - 1  # exact for alpha in [1/2, 2] (Sterbenz), relative error <= u beyond
    log_i, rdp = np.zeros(t.size), np.zeros(t.size)
    near = ((a_all > 0) & (a_all * t <= 500)) | ((a_all < 0) & (a_all >= -0.25) & (-a_all * t <= 1))
    near &= t > 0
    far = ~near & (t > 0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        if far.any():
            tf, af = t[far], alpha[far]
            a = af - 1
            beta = 2 * af - 1
            u = np.abs(beta) * tf / 2
            # second form: sinh(u)/(beta) = (t/2) * sinh(u)/u ; with the factor e^{u} taken out:
            shc = np.where(u > 0, -np.expm1(-2 * u) / np.where(u > 0, 2 * u, 1.0), 1.0)
            # inner = (1 + e^{-2u})/2 + (t/2) shc, written as 1 + (...) for log1p; -t/2 + u in closed form
            lead = np.where(beta >= 0, a * tf, -af * tf)
            li = lead + np.log1p(0.5 * np.expm1(-2 * u) + 0.5 * tf * shc)
            log_i[far] = li
            rdp[far] = li / np.where(a == 0, 1.0, a)
        if near.any():
            # first form expanded around alpha = 1 (no cancellation)
            tn, aln = t[near], alpha[near]
            an = aln - 1
            at = an * tn
            # E_2(at) / a: t * (at) * (series) below |at| < 1/2, else E_2(at) / a
            small = np.abs(at) < 0.5
            e2a = np.empty_like(at)
            e2a[small] = tn[small] * at[small] * _series(at[small])
            e2a[~small] = _exp_m1_mx(at[~small]) / an[~small]
            y = (aln * e2a + _exp_m1_mx(-aln * tn)) / (2 * aln - 1)
            x = an * y
            ratio = np.where(x == 0, 1.0, np.log1p(x) / np.where(x == 0, 1.0, x))
            log_i[near] = np.log1p(x)
            rdp[near] = y * ratio
    return log_i.reshape(shape), rdp.reshape(shape)


def log_laplace_shift_integral(t: float | np.ndarray, alpha: float | np.ndarray) -> float | np.ndarray:
    r"""Log of :math:`I_\alpha(t) = \int \ell(y-t)^\alpha \ell(y)^{1-\alpha}dy` for the unit Laplace density :math:`\ell`.

    Mironov 2017, Proposition 6: for :math:`t = \Delta/b \ge 0`,

    .. math::

        I_\alpha(t) &= \frac{\alpha}{2\alpha-1}e^{(\alpha-1)t} + \frac{\alpha-1}{2\alpha-1}e^{-\alpha t} \\
        &= e^{-t/2}\Bigl(\cosh\tfrac{\beta t}{2} + \frac{\sinh(\beta t/2)}{\beta}\Bigr),
        \qquad \beta = 2\alpha - 1 .

    Near :math:`\alpha = 1` (where :math:`\log I_\alpha` is :math:`O(\alpha - 1)` and the terms
    of either form cancel) it is evaluated as

    .. math::

        \begin{aligned}
        \log I_\alpha(t) &= \operatorname{log1p}\Bigl(\frac{\alpha E_2((\alpha-1)t)
        + (\alpha-1)E_2(-\alpha t)}{2\alpha-1}\Bigr),\\
        E_2(x) &= e^x - 1 - x \ge 0,
        \end{aligned}

    (expand the exponentials of the first form; the terms linear in :math:`t` cancel exactly), a
    sum of non-negative terms for :math:`\alpha > 1`: used there while :math:`(\alpha-1)t \le 500`,
    and for :math:`3/4 \le \alpha < 1` while :math:`(1-\alpha)t \le 1` (there the two terms have
    opposite signs but lose at most a factor 2.5).  Elsewhere the second form, in log space as
    :math:`\log I = (\alpha-1)t + \operatorname{log1p}(\ldots)` for :math:`\alpha \ge 1/2`
    (:math:`-\alpha t + \ldots` below), which has no cancellation at :math:`\alpha = 1/2` (limit
    :math:`(1 + t/2)e^{-t/2}`) and no overflow at large :math:`t`.  The relative error is below
    ``LOG_SHIFT_REL_ERR`` (:math:`64u`) for :math:`\alpha > 1`, checked against mpmath at
    80 digits down to :math:`\alpha = 1 + 10^{-15}` and :math:`t = 10^{-300}` (issue #21: the
    second form alone gave :math:`4.2\cdot10^{-13}` for :math:`5\cdot10^{-13}` at
    :math:`\alpha = 1 + 10^{-9}`, :math:`t = 10^{-6}`).  Valid for every :math:`\alpha > 0`.
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

    Raises
    ------
    ValueError
        If ``t`` is not finite or ``alpha`` is not in (0, inf).

    Examples
    --------
    >>> float(log_laplace_shift_integral(0.0, 2.0))
    0.0
    >>> x = float(log_laplace_shift_integral(1e-6, 1 + 1e-9))  # (alpha - 1) (t + e^{-t} - 1) + ...
    >>> abs(x / 5.0e-22 - 1) < 1e-6
    True
    """
    t = v.finite("t", t)
    alpha = v.alpha_order(alpha, allow_below_one=True, allow_one=True)
    out = _log_i_and_rdp(t, alpha)[0]
    return out if out.ndim else float(out)


def laplace_shift_divergence(
    sensitivity: float | np.ndarray, scale: float | np.ndarray, alpha: float | np.ndarray
) -> Certified:
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

    **Error and rigour.**  For :math:`1 < \alpha \le \infty` the error is **proved**: the exact
    :math:`t = \Delta/b` lies in :math:`t(1 \pm u)` (one division), :math:`D_\alpha` increases
    with :math:`t`, and :func:`log_laplace_shift_integral` has relative error at most
    ``LOG_SHIFT_REL_ERR`` (:math:`64u`, from the bound of each operation) plus :math:`4u` for the
    division by :math:`\alpha - 1`; the error bounds the distance from ``value`` to :math:`D` at
    both ends of that interval (``alpha = inf``: :math:`t` itself).  For ``alpha`` in (0, 1] the
    error is an **estimate** (``rigorous=False``): the KL form :math:`t + e^{-t} - 1` and the
    second form below 1 have no rounding analysis (16 ulps of the terms are returned).
    ``rigorous`` is ``True`` only if every order is above 1.

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
    Certified
        ``value`` the divergence (float, or an array for array input), ``error`` and
        ``rigorous`` as above.

    Raises
    ------
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> laplace_shift_divergence(1.0, 1.0, np.inf).value  # max-divergence Delta / b
    1.0
    >>> d = laplace_shift_divergence(1.0, 1.0, 2.0)
    >>> round(d.value, 12), d.rigorous, bool(d.error < 1e-13)
    (0.619123629999, True, True)
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True)
    b = v.positive("scale", scale, allow_zero=True)
    alpha = v.alpha_order(alpha, allow_below_one=True, allow_one=True, allow_inf=True)
    delta, b, alpha = np.broadcast_arrays(delta, b, alpha)
    value = np.asarray(laplace_shift_value(delta, b, alpha), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.where(delta == 0, 0.0, delta / b)
        finite = np.isfinite(value) & np.isfinite(t)
        above = alpha > 1
        rel = LOG_SHIFT_REL_ERR + 4 * _U
        ts = np.where(finite, t, 0.0)
        a2 = np.where(above, alpha, 2.0)
        up = np.asarray(laplace_shift_value(ts * (1 + 2 * _U), 1.0, a2)) * (1 + rel)
        down = np.asarray(laplace_shift_value(ts * (1 - 2 * _U), 1.0, a2)) * (1 - rel)
        proved_err = np.maximum(np.maximum(up - value, value - down), 0.0) + np.where(up < 1e-300, 1e-320, 0.0)
        est_err = 16 * _U * (value + (ts + 1) / np.where(above, 1.0, np.abs(alpha - 1) + (alpha == 1)))
        err = np.where(finite, np.where(above, proved_err, est_err), 0.0)
    rigorous = bool(np.all(above))
    if value.ndim == 0:
        return Certified(float(value), float(err), rigorous=rigorous)
    return Certified(value, err, rigorous=rigorous)


def laplace_shift_value(sensitivity: Any, scale: Any, alpha: Any) -> float | np.ndarray:
    """Return the float kernel of :func:`laplace_shift_divergence`: the value alone, no validation."""
    delta, b, alpha = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (sensitivity, scale, alpha)))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # t = inf: D = inf (or D_0 = 0)
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
        out[gen] = _log_i_and_rdp(tt, a)[1][gen]
    out[inf_t] = np.inf
    out = np.maximum(out, 0.0)
    return out if out.ndim else float(out)


def laplace_rdp_scale(
    sensitivity: float | np.ndarray, alpha: float | np.ndarray, epsilon: float | np.ndarray
) -> float | np.ndarray:
    r"""Smallest Laplace scale :math:`b` with :math:`D_\alpha(\mathrm{Lap}(\Delta,b)\|\mathrm{Lap}(0,b)) \le \varepsilon`.

    Inverts :func:`laplace_shift_divergence` (Mironov 2017, Prop. 6) in :math:`t = \Delta/b`
    by vectorised bisection (geometric while the bracket spans more than a factor 2) on the bracket
    :math:`[\varepsilon,\ \varepsilon + \log\frac{2\alpha-1}{\alpha}/(\alpha-1)]`
    (from :math:`t - \log\frac{2\alpha-1}{\alpha}/(\alpha-1) \le D_\alpha \le t`),
    returning the feasible end.  Feasibility is tested conservatively: the computed
    :math:`D_\alpha`, raised by its relative error bound ``LOG_SHIFT_REL_ERR``, against
    :math:`\varepsilon(1 - 4u)`, at :math:`t = \Delta/b` raised by its rounding; so
    the true divergence at the returned ``b`` is at most :math:`\varepsilon` for every
    :math:`\alpha > 1` (down to :math:`1 + 10^{-15}`) and :math:`\varepsilon` down to
    :math:`10^{-300}` (issue #21: at :math:`\varepsilon = 10^{-300}`, :math:`\alpha = 2` the
    scale is :math:`7.07\cdot10^{149}`; the previous arithmetic bisection returned
    :math:`4.3\cdot10^{15}`).  With :math:`\Delta = W_\infty(P_i, P_j)` this is
    the Laplace baseline of Pierquin et al. 2024 (``method="pierquin"``).
    ``sensitivity = inf`` gives ``inf``.  Broadcasts; ``alpha > 1``.

    Parameters
    ----------
    sensitivity : array_like
        :math:`\Delta \ge 0` (``inf`` allowed).
    alpha : array_like
        Order, ``> 1``.
    epsilon : array_like
        Budget, ``>= 1e-300`` (finite).

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
    >>> bool(laplace_shift_value(1.0, b, 2.0) <= 0.5 < laplace_shift_value(1.0, b * (1 - 1e-9), 2.0))
    True
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True, allow_inf=True)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    delta, alpha, epsilon = np.broadcast_arrays(delta, alpha, epsilon)
    a = alpha - 1

    def feasible(t):
        # D_alpha(t) <= epsilon, made conservative by the relative error bound of the computed D
        return _log_i_and_rdp(t, alpha)[1] * (1 + LOG_SHIFT_REL_ERR) <= epsilon * (1 - 4 * _U)

    lo = epsilon.astype(float).copy()  # D <= t: feasible
    hi = epsilon + np.log1p(a / alpha) / a * (1 + 1e-3) + 1e-300  # D >= t - log((2 alpha - 1)/alpha)/(alpha - 1)
    for _ in range(400):
        # geometric steps while the bracket spans more than a factor 2 (epsilon down to 1e-300:
        # the root t ~ sqrt(2 epsilon / alpha) is far from both ends), then arithmetic ones
        mid = np.where(hi > 2 * lo, np.sqrt(lo) * np.sqrt(hi), 0.5 * (lo + hi))
        ok = feasible(mid)
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
        if np.all(hi - lo <= 4e-16 * hi):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(delta == 0, 0.0, delta / lo)
    # round-off guard: the returned b must satisfy the condition as evaluated, at the largest t
    # that delta / b can stand for (its rounding)
    for _ in range(50):
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where((delta == 0) | np.isinf(delta), 0.0, delta / np.where(b > 0, b, 1.0))
        bad = ~feasible(t * (1 + 2 * _U)) & np.isfinite(b) & (b > 0)
        if not bad.any():
            break
        b = np.where(bad, b * (1 + 4e-16) + 1e-300, b)
    return b if b.ndim else float(b)
