r"""From an :math:`(\alpha, \varepsilon)`-RPP guarantee to :math:`(\varepsilon', \delta)`-Pufferfish privacy.

An :math:`(\varepsilon', \delta)` statement bounds the hockey-stick divergence

.. math::

    \delta^\star(\varepsilon') = \sup_A \bigl[P_i(A) - e^{\varepsilon'} P_j(A)\bigr]
    = \int \bigl(p_i - e^{\varepsilon'} p_j\bigr)_+

of the two output distributions of every secret pair, in each order. This module gives

* the conversions from the Rényi divergence at one order (:func:`dp_delta`, :func:`dp_epsilon`) and the
  best over a curve :math:`\alpha \mapsto \varepsilon(\alpha)` (:func:`best_dp_delta`, :func:`best_dp_epsilon`,
  the rule of Google's ``dp_accounting.rdp.compute_delta`` / ``compute_epsilon`` 0.6.0):

  - ``method="mironov"``: :math:`\delta = e^{(\alpha-1)(\varepsilon - \varepsilon')}`,
    :math:`\varepsilon' = \varepsilon + \log(1/\delta)/(\alpha-1)` (Mironov 2017, Prop. 3; it even bounds
    :math:`P_i(L > \varepsilon')`, the probabilistic notion);
  - ``method="improved"``: :math:`\delta = \frac{e^{(\alpha-1)(\varepsilon-\varepsilon')}}{\alpha}
    (1 - 1/\alpha)^{\alpha-1}`, :math:`\varepsilon' = \varepsilon + \log(1 - 1/\alpha)
    - (\log\delta + \log\alpha)/(\alpha-1)` (Canonne, Kamath & Steinke 2020, Prop. 12; Asoodeh et al.
    2020, eq. (20); Balle et al. 2020, Thm 21: three statements of one bound, event-wise notion only);

* the exact :math:`\delta^\star` and privacy-loss tail of two Gaussian output distributions:
  :func:`gaussian_shift_delta` (equal variances, Balle & Wang 2018, Thm 8) and
  :func:`gaussian_hockey_stick`, :func:`gaussian_loss_tail` (any two Gaussians: the privacy loss is a
  quadratic polynomial, so each is a sum of normal probabilities of intervals).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._lib import validation as checks

__all__ = [
    "BestConversion",
    "best_dp_delta",
    "best_dp_epsilon",
    "dp_delta",
    "dp_epsilon",
    "gaussian_hockey_stick",
    "gaussian_loss_tail",
    "gaussian_shift_delta",
]

METHODS = ("improved", "mironov")


class BestConversion(NamedTuple):
    """The best value over a set of orders and the order that attains it."""

    #: :math:`\delta` (from :func:`best_dp_delta`) or :math:`\varepsilon'` (from :func:`best_dp_epsilon`).
    value: float
    #: The order :math:`\alpha` of the curve that gives ``value``.
    alpha: float


def _orders(alpha: Any, *, allow_one: bool) -> np.ndarray:
    return checks.in_interval("alpha", alpha, low=1.0, low_open=not allow_one)


def _rdp(epsilon: Any) -> np.ndarray:
    return checks.in_interval("epsilon", epsilon, low=0.0, allow_inf=True)


def _log_delta(alpha: np.ndarray, epsilon: np.ndarray, epsilon_prime: np.ndarray, method: str) -> np.ndarray:
    """Return the log of the per-order delta; alpha > 1 everywhere, epsilon may be +inf (log delta = +inf)."""
    with np.errstate(invalid="ignore"):  # inf - inf cannot occur: epsilon_prime is finite
        log_d = (alpha - 1.0) * (epsilon - epsilon_prime)
        if method == "improved":
            log_d = log_d + (alpha - 1.0) * np.log1p(-1.0 / alpha) - np.log(alpha)
    return log_d


def dp_delta(
    *, alpha: ArrayLike, epsilon: ArrayLike, epsilon_prime: ArrayLike, method: str = "improved"
) -> float | np.ndarray:
    r"""Return the :math:`\delta` at :math:`\varepsilon'` that :math:`(\alpha, \varepsilon)`-RPP implies, order by order.

    .. math::

        \text{mironov:}\quad \delta &= e^{(\alpha-1)(\varepsilon - \varepsilon')},\\
        \text{improved:}\quad \delta &= \frac{e^{(\alpha-1)(\varepsilon - \varepsilon')}}{\alpha}
        \Bigl(1 - \frac{1}{\alpha}\Bigr)^{\alpha - 1},

    capped at 1. Sources: Mironov (2017), Prop. 3 (Markov's inequality on :math:`e^{(\alpha-1)L}`; it bounds
    the tail :math:`P_i(L > \varepsilon')` as well); Canonne, Kamath & Steinke (2020), Prop. 12 =
    Asoodeh et al. (2020), eq. (20) = Balle et al. (2020), Thm 21 (the bound
    :math:`(r - e^{\varepsilon'})_+ \le \kappa r^\alpha` under :math:`P_j`). Computed in log space.

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (finite).
    epsilon : float or array
        Rényi budgets :math:`\varepsilon \ge 0` at those orders (``inf`` gives :math:`\delta = 1`).
    epsilon_prime : float or array
        The target :math:`\varepsilon'` (finite, any sign). The three arrays broadcast.
    method : {"improved", "mironov"}

    Returns
    -------
    float or ndarray
        :math:`\delta \in [0, 1]`.

    Raises
    ------
    ValueError
        If ``alpha`` is not in (1, inf), ``epsilon`` is negative or NaN, ``epsilon_prime`` is not finite,
        or ``method`` is unknown.

    Examples
    --------
    >>> round(dp_delta(alpha=3.0, epsilon=1.0, epsilon_prime=1.0), 12)   # (2/3)^2 / 3 = 4/27
    0.148148148148
    >>> float(dp_delta(alpha=3.0, epsilon=1.0, epsilon_prime=1.0, method="mironov"))
    1.0
    """
    method = checks.one_of("method", method, METHODS)
    a, e = _orders(alpha, allow_one=False), _rdp(epsilon)
    t = checks.in_interval("epsilon_prime", epsilon_prime)
    out = np.exp(np.minimum(_log_delta(a, e, t, method), 0.0))
    return float(out) if out.ndim == 0 else out


def dp_epsilon(
    *, alpha: ArrayLike, epsilon: ArrayLike, delta: ArrayLike, method: str = "improved"
) -> float | np.ndarray:
    r"""Return the :math:`\varepsilon'` at :math:`\delta` that :math:`(\alpha, \varepsilon)`-RPP implies, order by order.

    .. math::

        \text{mironov:}\quad \varepsilon' &= \varepsilon + \frac{\log(1/\delta)}{\alpha - 1},\\
        \text{improved:}\quad \varepsilon' &= \varepsilon + \log\Bigl(1 - \frac{1}{\alpha}\Bigr)
        - \frac{\log\delta + \log\alpha}{\alpha - 1},

    floored at 0 (valid: :math:`\delta^\star(\varepsilon')` is non-increasing in :math:`\varepsilon'`, so an
    :math:`(\varepsilon', \delta)` statement with :math:`\varepsilon' < 0` implies :math:`(0, \delta)`).
    Sources as in :func:`dp_delta` (the inverse of the same bounds).

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (finite).
    epsilon : float or array
        Rényi budgets :math:`\varepsilon \ge 0` (``inf`` gives ``inf``).
    delta : float or array
        :math:`\delta \in (0, 1)`. The three arrays broadcast.
    method : {"improved", "mironov"}

    Returns
    -------
    float or ndarray
        :math:`\varepsilon' \ge 0`.

    Raises
    ------
    ValueError
        If ``alpha`` is not in (1, inf), ``epsilon`` is negative or NaN, ``delta`` is not in (0, 1), or
        ``method`` is unknown.

    Examples
    --------
    >>> round(dp_epsilon(alpha=2.0, epsilon=0.5, delta=1e-5, method="mironov"), 6)   # 0.5 + log(1e5)
    12.012925
    """
    method = checks.one_of("method", method, METHODS)
    a, e = _orders(alpha, allow_one=False), _rdp(epsilon)
    d = checks.in_interval("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    out = e - np.log(d) / (a - 1.0)
    if method == "improved":
        out = out + np.log1p(-1.0 / a) - np.log(a) / (a - 1.0)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def _curve(alpha: Any, epsilon: Any) -> tuple[np.ndarray, np.ndarray]:
    a = np.atleast_1d(_orders(alpha, allow_one=True))
    e = np.atleast_1d(_rdp(epsilon))
    if a.ndim != 1 or e.shape != a.shape or a.size == 0:
        raise ValueError("alpha and epsilon must be 1-D arrays of the same length >= 1 (a Rényi curve)")
    return a, e


def _log_kl_delta(epsilon: np.ndarray) -> np.ndarray:
    r"""Return the log of :math:`\sqrt{1 - e^{-\varepsilon}}` (Bretagnolle-Huber; -inf at 0, 0 at inf)."""
    with np.errstate(divide="ignore"):  # epsilon = 0 gives log(0) = -inf: delta = 0, intended
        return 0.5 * np.log(-np.expm1(-epsilon))


def best_dp_delta(
    *,
    alpha: ArrayLike,
    epsilon: ArrayLike,
    epsilon_prime: float,
    method: str = "improved",
    kl_bound: bool = True,
) -> BestConversion:
    r"""Return the smallest :math:`\delta` at :math:`\varepsilon'` over a Rényi curve :math:`\varepsilon(\alpha)`.

    .. math::

        \delta &= \min\Bigl(1,\ \min_k \delta_k\Bigr),\\
        \delta_k &= \min\bigl(\delta_{\text{method}}(\alpha_k, \varepsilon_k, \varepsilon'),\
        \sqrt{1 - e^{-\varepsilon_k}}\bigr),

    where :math:`\delta_{\text{method}}` is :func:`dp_delta` (only for :math:`\alpha_k > 1`) and the second
    term, with ``kl_bound`` and :math:`\varepsilon' \ge 0`, is the Bretagnolle-Huber bound
    :math:`\delta^\star(\varepsilon') \le \delta^\star(0) = \mathrm{TV} \le \sqrt{1 - e^{-\mathrm{KL}}}` with
    :math:`\mathrm{KL} \le D_{\alpha_k} \le \varepsilon_k` for :math:`\alpha_k \ge 1`. With the default
    arguments this is the rule of ``dp_accounting.rdp.compute_delta`` (dp-accounting 0.6.0), except that
    the improved bound is used at every order :math:`\alpha > 1` (dp-accounting skips
    :math:`\alpha \le 1.01`), which can only lower :math:`\delta`, validly.

    Each order's bound holds for every pair whose divergence at that order is at most
    :math:`\varepsilon_k`, so the minimum over the orders is valid when the whole curve holds.

    Parameters
    ----------
    alpha, epsilon : array
        The curve: orders :math:`\alpha_k \ge 1` (1 only contributes the KL bound) and the budgets
        :math:`\varepsilon_k \ge 0` (``inf`` allowed), 1-D, same length.
    epsilon_prime : float
        :math:`\varepsilon'`, finite.
    method : {"improved", "mironov"}
    kl_bound : bool
        Use the Bretagnolle-Huber term (only where :math:`\varepsilon' \ge 0`).

    Returns
    -------
    BestConversion
        ``(value, alpha)``: :math:`\delta` and the order that attains it.

    Raises
    ------
    ValueError
        On orders below 1, negative or NaN budgets, arrays of different lengths, a non-finite
        ``epsilon_prime`` or an unknown ``method``.

    Examples
    --------
    >>> best = best_dp_delta(alpha=[2.0, 3.0, 4.0], epsilon=[0.1, 0.15, 0.2], epsilon_prime=1.0)
    >>> best.alpha, round(best.value, 6)
    (4.0, 0.009568)
    """
    method = checks.one_of("method", method, METHODS)
    kl_bound = checks.flag("kl_bound", kl_bound)
    a, e = _curve(alpha, epsilon)
    t = checks.scalar_in_interval("epsilon_prime", epsilon_prime)
    log_d = np.full(a.shape, np.inf)
    above = a > 1.0
    log_d[above] = _log_delta(a[above], e[above], np.asarray(t), method)
    if kl_bound and t >= 0:
        log_d = np.minimum(log_d, _log_kl_delta(e))
    k = int(np.argmin(log_d))
    return BestConversion(float(np.exp(min(log_d[k], 0.0))), float(a[k]))


def best_dp_epsilon(
    *,
    alpha: ArrayLike,
    epsilon: ArrayLike,
    delta: float,
    method: str = "improved",
    kl_bound: bool = True,
) -> BestConversion:
    r"""Return the smallest :math:`\varepsilon' \ge 0` at :math:`\delta` over a Rényi curve :math:`\varepsilon(\alpha)`.

    .. math::

        \varepsilon' &= \max\Bigl(0,\ \min_k \varepsilon'_k\Bigr),\\
        \varepsilon'_k &= \begin{cases} 0 & \text{if } \sqrt{1 - e^{-\varepsilon_k}} \le \delta,\\
        \varepsilon'_{\text{method}}(\alpha_k, \varepsilon_k, \delta) & \text{otherwise,}
        \end{cases}

    the first case only with ``kl_bound=True``, the second only for :math:`\alpha_k > 1`,
    with :math:`\varepsilon'_{\text{method}}` from :func:`dp_epsilon`; the first case is the
    Bretagnolle-Huber bound :math:`\delta^\star(0) \le \sqrt{1 - e^{-\mathrm{KL}}}` (see
    :func:`best_dp_delta`). With the defaults this is the rule of ``dp_accounting.rdp.compute_epsilon``
    (dp-accounting 0.6.0; the same remark on :math:`\alpha \le 1.01` applies). An order
    :math:`\alpha_k = 1` that the KL bound does not settle gives :math:`+\infty`.

    Parameters
    ----------
    alpha, epsilon : array
        The curve, as in :func:`best_dp_delta`.
    delta : float
        :math:`\delta \in (0, 1)`.
    method : {"improved", "mironov"}
        The conversion of each order, as in :func:`dp_epsilon`.
    kl_bound : bool
        Also use the Bretagnolle-Huber bound (the first case above).

    Returns
    -------
    BestConversion
        ``(value, alpha)``: :math:`\varepsilon'` and the order that attains it.

    Raises
    ------
    ValueError
        As :func:`best_dp_delta`, and if ``delta`` is not in (0, 1).

    Examples
    --------
    >>> orders = [1.5, 2.0, 4.0, 8.0, 16.0, 32.0]
    >>> best = best_dp_epsilon(alpha=orders, epsilon=[a / 2 for a in orders], delta=1e-5)  # Gaussian, mu = 1
    >>> best.alpha, round(best.value, 4)
    (4.0, 5.0879)
    """
    method = checks.one_of("method", method, METHODS)
    kl_bound = checks.flag("kl_bound", kl_bound)
    a, e = _curve(alpha, epsilon)
    d = checks.scalar_in_interval("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    eps = np.full(a.shape, np.inf)
    above = a > 1.0
    eps[above] = (
        e[above]
        + np.log1p(-1.0 / a[above]) * (method == "improved")
        - (np.log(d) + np.log(a[above]) * (method == "improved")) / (a[above] - 1.0)
    )
    if kl_bound:
        eps[d * d + np.expm1(-e) >= 0] = 0.0
    k = int(np.argmin(eps))
    return BestConversion(float(max(eps[k], 0.0)), float(a[k]))


# ---------------------------------------------------------------------------------------------
# Exact delta* and privacy-loss tails of Gaussian pairs
# ---------------------------------------------------------------------------------------------

_SQRT2 = math.sqrt(2.0)


def _log_sub(la: float, lb: float) -> float:
    """log(e^la - e^lb), -inf when lb >= la (the difference is then 0 or rounding noise)."""
    if lb >= la:
        return -math.inf
    if lb == -math.inf:
        return la
    return la + math.log(-math.expm1(lb - la))


def _log_normal_interval(z1: float, z2: float) -> float:
    """Return the log P(z1 < Z < z2) for a standard normal Z, on the side of 0 where no cancellation occurs."""
    if z1 >= z2:
        return -math.inf
    if z1 >= 0:
        return _log_sub(float(special.log_ndtr(-z1)), float(special.log_ndtr(-z2)))
    if z2 <= 0:
        return _log_sub(float(special.log_ndtr(z2)), float(special.log_ndtr(z1)))
    tails = float(special.ndtr(z1)) + float(special.ndtr(-z2))
    if tails <= 0.5:
        return math.log1p(-tails)
    # a narrow interval around 0: erf(z2/sqrt2) and erf(-z1/sqrt2) are both >= 0, no cancellation
    return math.log(0.5 * (float(special.erf(z2 / _SQRT2)) + float(special.erf(-z1 / _SQRT2))))


def _log_abs_expm1(t: float) -> float:
    """log|e^t - 1| for t != 0, without overflow (t + log(1 - e^-t) for t > 0)."""
    return t + math.log(-math.expm1(-t)) if t > 0 else math.log(-math.expm1(t))


def _log_shift_delta(mu: float, t: float) -> float:
    r"""Return the log delta*(t) of N(mu, 1) against N(0, 1), mu >= 0 (Balle & Wang 2018, Thm 8)."""
    if mu == 0.0:
        return math.log(-math.expm1(t)) if t < 0 else -math.inf
    if math.isinf(mu):
        return 0.0
    if mu <= 1e-8 and abs(t) <= mu:
        # erfcx's difference cancels for a tiny shift: with c = -t/mu in [-1, 1] and h = mu/2,
        # delta = Phi(c + h) - e^{-2ch} Phi(c - h) = 2h (phi(c) + c Phi(c)) (1 - ch) + O(h^3)
        # (Taylor in h, phi' = -c phi), and phi(c) + c Phi(c) > 0.08 here: relative error below 1e-16.
        # (Without the factor 1 - ch, delta was mu/2 relatively too small for c < 0, 5e-9 at mu = 1e-8.)
        c = -t / mu
        lead = math.exp(-c * c / 2.0) / math.sqrt(2.0 * math.pi) + c * float(special.ndtr(c))
        return math.log(mu) + math.log(lead) + math.log1p(-c * mu / 2.0)
    a = mu / 2.0 - t / mu
    b = -mu / 2.0 - t / mu
    if a > 20.0:
        # Phi(a) > 1 - 1e-88 and e^t Phi(b) < phi(a)/|b| (Mills' ratio, e^t phi(b) = phi(a)): delta is
        # within 1e-88 of 1, so the direct difference loses nothing (erfcx(-a/sqrt2) would overflow)
        direct = float(special.ndtr(a)) - math.exp(t + float(special.log_ndtr(b)))
        if direct >= 0.5:
            return math.log(direct)
        # Phi(b) is close to 1 too (b > 20 - mu, t < 0 tiny against mu): the difference would be lost
        # (it was 0 at mu = 3e-241, t = -1e-184, delta = 1e-184); exactly,
        # delta = P(b < Z < a) - (e^t - 1) Phi(b), two terms >= 0 for t < 0
        terms = [(1.0, _log_normal_interval(b, a))]
        if t != 0.0:
            terms.append((-1.0 if t > 0 else 1.0, _log_abs_expm1(t) + float(special.log_ndtr(b))))
        return _signed_log_sum(terms)[0]
    # delta = Phi(a) - e^t Phi(b) = e^{-a^2/2} [erfcx(-a/sqrt2) - erfcx(-b/sqrt2)] / 2, since
    # e^t e^{-b^2/2} = e^{-a^2/2}; erfcx is decreasing and -b > -a, so the bracket is > 0.
    ea = float(special.erfcx(-a / _SQRT2))
    diff = ea - float(special.erfcx(-b / _SQRT2))
    old = -a * a / 2.0 - math.log(2.0) + math.log(diff) if diff > 0.0 else -math.inf
    if diff > 0.5 * ea or mu > 1.0:
        return old
    # The bracket cancels for a small shift (its two erfcx agree to about log10(1/mu) digits: delta
    # was 8e-9 too small at mu = 1e-7). Then, exactly, delta = [Phi(b + mu) - Phi(b)] - (e^t - 1) Phi(b)
    # (a = b + mu), the first term integrated over its short gap (no difference of two Phi), the
    # second with expm1; both are of the size of delta unless |t| >> mu.
    terms = [_signed_log_gap(b, mu)]
    if t != 0.0:
        terms.append((-1.0 if t > 0 else 1.0, _log_abs_expm1(t) + float(special.log_ndtr(b))))
    new, ulps = _signed_log_sum(terms)
    # the erfcx form's error: the bracket's cancellation times erfcx's ulps, plus a^2/2's
    return new if diff <= 0.0 or ulps < ea / diff + a * a / 2.0 else old


def gaussian_shift_delta(*, mu: ArrayLike, epsilon_prime: ArrayLike, log: bool = False) -> float | np.ndarray:
    r"""Exact :math:`\delta^\star(\varepsilon')` of the Gaussian shift pair :math:`N(\mu, 1)` against :math:`N(0, 1)`.

    The Gaussian mechanism with sensitivity (or mean shift) :math:`\Delta` and noise :math:`N(0, \theta^2)`
    on equal-variance outputs has :math:`\mu = \Delta/\theta` (for Gaussian priors of equal variance
    :math:`\sigma^2`, :math:`\mu = \Delta/\sqrt{\sigma^2 + \theta^2}`); both orders give the same value.

    .. math::

        \delta^\star(\varepsilon') = \Phi\Bigl(\frac{\mu}{2} - \frac{\varepsilon'}{\mu}\Bigr)
        - e^{\varepsilon'}\,\Phi\Bigl(-\frac{\mu}{2} - \frac{\varepsilon'}{\mu}\Bigr)

    (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13). With :math:`a, b` the two arguments,
    :math:`e^{\varepsilon'} e^{-b^2/2} = e^{-a^2/2}`, so
    :math:`\delta^\star = \tfrac12 e^{-a^2/2}[\operatorname{erfcx}(-a/\sqrt2) - \operatorname{erfcx}(-b/\sqrt2)]`,
    which is evaluated in log space (no underflow, no subtraction of two tiny normal probabilities).
    :math:`\mu = 0` gives :math:`(1 - e^{\varepsilon'})_+`, :math:`\mu = \infty` gives 1.

    Parameters
    ----------
    mu : float or array
        :math:`\mu = \Delta/\theta \ge 0` (``inf`` allowed).
    epsilon_prime : float or array
        :math:`\varepsilon'`, finite. Broadcasts with ``mu``.
    log : bool
        Return :math:`\log\delta^\star` (``-inf`` for 0) instead.

    Returns
    -------
    float or ndarray
        :math:`\delta^\star(\varepsilon')` (its logarithm with ``log``), broadcast over the arguments.

    Raises
    ------
    ValueError
        If ``mu`` is negative or NaN or ``epsilon_prime`` is not finite.

    Examples
    --------
    >>> round(gaussian_shift_delta(mu=1.0, epsilon_prime=1.0), 10)
    0.1269367375
    """
    m = checks.in_interval("mu", mu, low=0.0, allow_inf=True)
    t = checks.in_interval("epsilon_prime", epsilon_prime)
    log = checks.flag("log", log)
    m, t = np.broadcast_arrays(m, t)
    out = np.array(
        [_log_shift_delta(float(mm), float(tt)) for mm, tt in zip(m.ravel(), t.ravel(), strict=True)]
    ).reshape(m.shape)
    if not log:
        out = np.exp(out)
    return float(out) if out.ndim == 0 else out


# The standardised pair (m, v) within which the float computation of the loss's quadratic (its
# coefficients, discriminant and roots) cannot overflow: |m|, 1/v and v at most 1e50 keep every
# intermediate below 1e201.  The threshold t: e^t P_j(I) is computed as exp(t + log P_j(I)), whose
# two terms cancel (to about log v); |t| <= 1e6 keeps that sum accurate to 1e-10 (checked against
# 150-digit mpmath on 3,000 random pairs over the whole range, tests/accounting/test_error_contract.py).
_PAIR_LIMIT = 1e50
_T_LIMIT = 1e6


def _standardise(mean_i: Any, var_i: Any, mean_j: Any, var_j: Any) -> tuple[float, float, float]:
    """(m, v, v - 1) with P_i = N(m, v) and P_j = N(0, 1) after y -> (y - mean_j)/sqrt(var_j) (D is invariant).

    ``v - 1`` is computed as ``(var_i - var_j) / var_j`` (the subtraction is exact when the variances
    are within a factor 2, Sterbenz), not from the rounded ratio: for near-equal variances the
    ratio's last bit is a relative error of ``1e-16 / (v - 1)`` in ``v - 1``, and the loss's
    quadratic coefficient and ``log v`` inherit it (delta* came out 6e-7 too small at
    ``v - 1 = 1.6e-12`` with a shift of 1.6e-10, checked against 60-digit mpmath).

    ``ValueError`` outside the range where the float computation is reliable: ``var_i / var_j`` in
    ``[1e-50, 1e50]`` and ``|mean_i - mean_j| / sqrt(var_j) <= 1e50``.
    """
    mi = checks.scalar_in_interval("mean_i", mean_i)
    mj = checks.scalar_in_interval("mean_j", mean_j)
    vi = checks.scalar_in_interval("var_i", var_i, low=0.0, low_open=True)
    vj = checks.scalar_in_interval("var_j", var_j, low=0.0, low_open=True)
    v = vi / vj
    if not 1 / _PAIR_LIMIT <= v <= _PAIR_LIMIT:
        raise ValueError(f"var_i / var_j must lie in [1e-50, 1e50], got var_i={vi!r}, var_j={vj!r}")
    m = (mi - mj) / math.sqrt(vj)
    if not abs(m) <= _PAIR_LIMIT:
        raise ValueError(
            f"|mean_i - mean_j| / sqrt(var_j) must be at most 1e50, got mean_i={mi!r}, mean_j={mj!r}, var_j={vj!r}"
        )
    return m, v, (vi - vj) / vj


def _loss_pieces(m: float, v: float, dv: float, t: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    r"""Return the intervals whose union is {y : L(y) > t} (up to one point), each in both coordinates.

    :math:`L = \log N(m, v) - \log N(0, 1)`; each interval is given as ``((z1, z2), (y1, y2))`` with
    :math:`z = (y - m)/\sqrt v` (standard normal under :math:`P_i`) and :math:`y` (standard normal
    under :math:`P_j`).  The roots are found in the coordinate of the narrower law (:math:`z` if
    :math:`v < 1`, :math:`y` otherwise) and mapped to the other, which shrinks their round-off: in the
    wider law's coordinate they would be lost in its ulps.  In :math:`z`,
    :math:`L = \tfrac{v-1}{2} z^2 + m\sqrt v\, z + \tfrac{m^2}{2} - \tfrac12\log v - t`; in :math:`y`,
    :math:`L = \tfrac{v-1}{2v} y^2 + \tfrac{m}{v} y - \tfrac{m^2}{2v} - \tfrac12\log v - t`; the
    discriminant's numerator :math:`m^2 + (v - 1)(\log v + 2t)` (over :math:`v` in :math:`y`) has no
    cancellation of :math:`m^2` terms.  ``dv`` is :math:`v - 1` computed without the ratio's rounding
    (see :func:`_standardise`); :math:`\log v = \operatorname{log1p}(dv)`.
    """
    s = math.sqrt(v)
    if dv == 0.0:
        if m == 0.0:
            whole = (-math.inf, math.inf)
            return [(whole, whole)] if t < 0 else []
        root = t / m + m / 2.0  # L = m y - m^2/2
        y = (root, math.inf) if m > 0 else (-math.inf, root)
        return [((y[0] - m, y[1] - m), y)]
    narrow_i = v < 1.0
    log_v = math.log1p(dv) if abs(dv) <= 0.5 else math.log(v)  # dv rounds to -1 for v below 1e-16
    num = m * m + dv * (log_v + 2.0 * t)
    if narrow_i:  # z coordinates
        qa, qb, qc, disc = dv / 2.0, m * s, m * m / 2.0 - 0.5 * log_v - t, num
    else:  # y coordinates
        qa, qb, qc, disc = dv / (2.0 * v), m / v, -m * m / (2.0 * v) - 0.5 * log_v - t, num / v
    if disc <= 0.0:
        pieces = [(-math.inf, math.inf)] if qa > 0 else []
    else:
        q = -0.5 * (qb + math.copysign(math.sqrt(disc), qb))  # stable roots: q/qa and qc/q
        r1, r2 = sorted((q / qa, qc / q))
        pieces = [(-math.inf, r1), (r2, math.inf)] if qa > 0 else [(r1, r2)]

    def other(x: float) -> float:
        if math.isinf(x):
            return x
        return m + s * x if narrow_i else (x - m) / s

    both = [(p, (other(p[0]), other(p[1]))) for p in pieces]
    return both if narrow_i else [(zs, ys) for ys, zs in both]


# Gauss-Legendre nodes on [0, 1] for the integral of phi over a short interval (see _signed_log_gap)
_GL_U, _GL_W = (x / 2.0 for x in np.polynomial.legendre.leggauss(16))
_GL_U = _GL_U + 0.5
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _signed_log_gap(y: float, d: float) -> tuple[float, float]:
    r"""(sign, log|G|) of :math:`G = \Phi(y + d) - \Phi(y)`, with the gap ``d`` given (not ``(y + d) - y``).

    A short gap (:math:`|d|(|y| + |d|) \le 1/2`: :math:`\log\varphi` varies by less than 1 across it)
    is integrated by 16-point Gauss--Legendre, exact to rounding for that smooth integrand; a long one
    is the interval probability on the side of 0 without cancellation.
    """
    if d == 0.0 or math.isinf(y):
        return 0.0, -math.inf
    sign = 1.0 if d > 0 else -1.0
    if abs(d) * (abs(y) + abs(d)) <= 0.5:
        x = y + d * _GL_U
        with np.errstate(over="ignore"):  # |y| > 1e154: x * x is inf, phi is 0 (log -inf), as it should be
            log_phi = np.log(_GL_W) - x * x / 2.0
        return sign, math.log(abs(d)) + float(special.logsumexp(log_phi)) - _LOG_SQRT_2PI
    lo, hi = sorted((y, y + d))
    return sign, _log_normal_interval(lo, hi)


def _signed_log_sum(terms: list[tuple[float, float]]) -> tuple[float, float]:
    """(log of the sum, its error in ulps) of signed terms (sign, log|t|); -inf if the sum is <= 0.

    The error: each log term is off by about ``(1 + |log t|)`` ulps (an absolute error in the
    logarithm is a relative one in the term), and the cancellation ``sum|t| / |sum|`` multiplies it.
    """
    top = max((lt for _, lt in terms), default=-math.inf)
    if top == -math.inf:
        return -math.inf, 1.0
    total = math.fsum(sg * math.exp(lt - top) for sg, lt in terms)
    size = math.fsum(math.exp(lt - top) for _, lt in terms)
    if total <= 0.0:
        return -math.inf, math.inf
    return top + math.log(total), size / total * (1.0 + abs(top))


def _log_piece_delta(m: float, s: float, dv: float, t: float, piece) -> float:
    r"""Return the log of :math:`P_i(I) - e^t P_j(I)` for one interval :math:`I` of :func:`_loss_pieces`.

    Two exact rewritings, the one with less cancellation is used:

    * :math:`P_i(I)\,(1 - e^{t + \log P_j(I) - \log P_i(I)})`, good unless :math:`\delta \ll P_i(I)`;
    * :math:`[G(y_2) - G(y_1)] - (e^t - 1) P_j(I)` with :math:`G(y) = \Phi(z(y)) - \Phi(y)`,
      :math:`z(y) - y = -((s - 1) y + m)/s` and :math:`s - 1 = dv/(1 + s)` computed without forming
      :math:`z - y`: good for nearly equal laws (a tiny shift and variance ratio, where
      :math:`P_i(I)` and :math:`e^t P_j(I)` agree to many digits and their difference would keep only
      the last ones; it was 4e-8 too small at :math:`\delta = 3.5\cdot 10^{-9}`).
    """
    lp_i, lp_j = _log_probs(piece)
    old = _log_sub(lp_i, t + lp_j)
    if lp_i == -math.inf:
        return old
    ratio = math.exp(old - lp_i) if old > -math.inf else 0.0  # delta / P_i: 1 / its cancellation
    if ratio >= 0.5:
        return old
    (y1, y2) = piece[1]
    s_minus_1 = dv / (1.0 + s)
    terms = []
    for y, sign in ((y2, 1.0), (y1, -1.0)):
        if not math.isinf(y):
            sg, lg = _signed_log_gap(y, -(s_minus_1 * y + m) / s)
            terms.append((sign * sg, lg))
    if t != 0.0:
        terms.append((-1.0 if t > 0 else 1.0, _log_abs_expm1(t) + lp_j))
    new, ulps = _signed_log_sum(terms)
    return new if ulps * ratio < 1.0 + abs(lp_i) else old  # the first form's error: (1 + |log P_i|) / ratio ulps


def _log_probs(piece: tuple[tuple[float, float], tuple[float, float]]) -> tuple[float, float]:
    """(log P_i, log P_j) of an interval of :func:`_loss_pieces` (P_i = N(m, v), P_j = N(0, 1))."""
    return _log_normal_interval(*piece[0]), _log_normal_interval(*piece[1])


def _pair_args(
    mean_i: Any, var_i: Any, mean_j: Any, var_j: Any, name: str, value: Any
) -> tuple[float, float, float, float]:
    m, v, dv = _standardise(mean_i, var_i, mean_j, var_j)
    t = checks.scalar_in_interval(name, value)
    if not abs(t) <= _T_LIMIT:
        raise ValueError(f"{name} must lie in [-1e6, 1e6], got {t!r}")
    return m, v, dv, t


def gaussian_loss_tail(
    *,
    mean_i: float,
    var_i: float,
    mean_j: float,
    var_j: float,
    threshold: float,
    under: str = "i",
    log: bool = False,
) -> float:
    r"""Exact tail :math:`P_{Y \sim R}(L(Y) > t)` of the privacy loss :math:`L = \log(p_i/p_j)` of two Gaussians.

    :math:`P_i = N(\text{mean}_i, \text{var}_i)`, :math:`P_j = N(\text{mean}_j, \text{var}_j)`, and
    :math:`R = P_i` (``under="i"``, the probabilistic :math:`(\varepsilon, \delta)` notion: the probability of
    the bad outputs) or :math:`R = P_j`. After the affine change :math:`y \mapsto (y - \text{mean}_j)/
    \sqrt{\text{var}_j}` (the loss is invariant), :math:`P_j = N(0,1)`, :math:`P_i = N(m, v)` and

    .. math::

        L(y) = \frac{v - 1}{2v} y^2 + \frac{m}{v} y - \frac{m^2}{2v} - \frac12\log v,

    so :math:`\{L > t\}` is a half-line (:math:`v = 1`), the complement of an interval (:math:`v > 1`) or an
    interval (:math:`v < 1`), with the roots taken from the cancellation-free quadratic formula; each piece's
    normal probability is computed on the side of the mean where no cancellation occurs (``log_ndtr``).
    The same polynomial is derived in the book's chapter 2 (section "From RPP to (ε′, δ)").

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : float
        The two output distributions (variances > 0, everything finite).
    threshold : float
        :math:`t`, finite.
    under : {"i", "j"}
        The distribution of :math:`Y`.
    log : bool
        Return the logarithm (``-inf`` for 0).

    Returns
    -------
    float
        The tail probability (its logarithm with ``log``).

    Raises
    ------
    ValueError
        On a non-finite mean or threshold, a variance <= 0 or an unknown ``under``, and outside the range
        of a reliable float computation: ``var_i / var_j`` in ``[1e-50, 1e50]``,
        ``|mean_i - mean_j| / sqrt(var_j) <= 1e50``, ``|threshold| <= 1e6``.

    Examples
    --------
    >>> round(gaussian_loss_tail(mean_i=1.0, var_i=1.0, mean_j=0.0, var_j=1.0, threshold=0.0), 10)  # Phi(1/2)
    0.6914624613
    """
    m, v, dv, t = _pair_args(mean_i, var_i, mean_j, var_j, "threshold", threshold)
    under = checks.one_of("under", under, ("i", "j"))
    log = checks.flag("log", log)
    logs = [_log_probs(p)[0 if under == "i" else 1] for p in _loss_pieces(m, v, dv, t)]
    out = float(special.logsumexp(logs)) if logs else -math.inf
    return out if log else math.exp(out)


def gaussian_hockey_stick(
    *,
    mean_i: float,
    var_i: float,
    mean_j: float,
    var_j: float,
    epsilon_prime: float,
    log: bool = False,
) -> float:
    r"""Exact :math:`\delta^\star(\varepsilon') = \sup_A [P_i(A) - e^{\varepsilon'} P_j(A)]` of two Gaussians.

    The supremum is attained at :math:`A = \{L > \varepsilon'\}` (:math:`L = \log(p_i/p_j)`), so

    .. math::

        \delta^\star(\varepsilon') = \sum_{I} \bigl[P_i(I) - e^{\varepsilon'} P_j(I)\bigr]

    over the (one or two) intervals :math:`I` of :func:`gaussian_loss_tail`. Each term is :math:`\ge 0`
    (:math:`p_i > e^{\varepsilon'} p_j` on :math:`I`) and is computed as
    :math:`P_i(I)\,(1 - e^{\varepsilon' + \log P_j(I) - \log P_i(I)})` in log space. With equal variances the
    pair is a Gaussian shift and :func:`gaussian_shift_delta` (Balle & Wang 2018) is used, with
    :math:`\mu = |\text{mean}_i - \text{mean}_j|/\sqrt{\text{var}}`. This is the :math:`\delta` of the
    ordered pair :math:`(i, j)`; a Pufferfish statement needs the larger of both orders.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : float
        The two output distributions (variances > 0, everything finite).
    epsilon_prime : float
        :math:`\varepsilon'`, finite.
    log : bool
        Return :math:`\log\delta^\star` (``-inf`` for 0).

    Returns
    -------
    float
        :math:`\delta^\star(\varepsilon')` (its logarithm with ``log``).

    Raises
    ------
    ValueError
        On a non-finite mean or ``epsilon_prime``, or a variance <= 0, and outside the range of a
        reliable float computation: ``var_i / var_j`` in ``[1e-50, 1e50]``,
        ``|mean_i - mean_j| / sqrt(var_j) <= 1e50``, ``|epsilon_prime| <= 1e6``.

    Examples
    --------
    >>> d = gaussian_hockey_stick(mean_i=0.0, var_i=1.0, mean_j=3.5, var_j=1.21, epsilon_prime=1.0)
    >>> 0 < d < 1
    True
    """
    m, v, dv, t = _pair_args(mean_i, var_i, mean_j, var_j, "epsilon_prime", epsilon_prime)
    log = checks.flag("log", log)
    if dv == 0.0:
        out = _log_shift_delta(abs(m), t)
    else:
        terms = [_log_piece_delta(m, math.sqrt(v), dv, t, piece) for piece in _loss_pieces(m, v, dv, t)]
        out = float(special.logsumexp(terms)) if terms else -math.inf
    return out if log else math.exp(out)
