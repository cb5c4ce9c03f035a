r"""What an :math:`(\alpha, \varepsilon)`-RPP guarantee means to an attacker.

An attacker who knows the prior :math:`\rho` and weighs the secrets :math:`s_i` against :math:`s_j` updates
its odds by the likelihood ratio of the published output :math:`y`:

.. math::

    \frac{P(s_i \mid y)}{P(s_j \mid y)} = R(y)\,\frac{P(s_i)}{P(s_j)}, \qquad
    R(y) = \frac{p_i(y)}{p_j(y)} = e^{L(y)},

and :math:`(\alpha, \varepsilon)`-RPP bounds the :math:`(\alpha-1)`-th moment of that update when
:math:`s_i` is true: :math:`\mathbb{E}_{P_i}[R^{\alpha-1}] = e^{(\alpha-1)D_\alpha(P_i\|P_j)} \le
e^{(\alpha-1)\varepsilon}` (:func:`odds_moment_bound`), hence a high-probability bound on the update
(:func:`odds_update_bound`, Markov's inequality) and on the posterior (:func:`posterior_bound`). By the
data-processing inequality it also bounds every test's power (:func:`max_true_positive_rate`); for two
Gaussian output laws the power of the best test itself is :func:`gaussian_true_positive_rate`, so that
an audit can set the attacker's measured points, the best attack and the guarantee side by side; for two
Gaussian mixtures :func:`mixture_test_rates` gives the rates of the best tests, and for two discrete priors
under Laplace noise :func:`laplace_mixture_test_rates`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from .._lib import validation as checks
from ._conversions import gaussian_loss_tail

__all__ = [
    "max_true_positive_rate",
    "gaussian_true_positive_rate",
    "mixture_test_rates",
    "laplace_mixture_test_rates",
    "odds_moment_bound",
    "odds_update_bound",
    "posterior_bound",
]


def _alpha_epsilon(alpha: Any, epsilon: Any) -> tuple[np.ndarray, np.ndarray]:
    a = checks.in_interval("alpha", alpha, low=1.0, low_open=True)
    e = checks.in_interval("epsilon", epsilon, low=0.0)
    return a, e


def _out(arr: np.ndarray) -> Any:
    return float(arr) if arr.ndim == 0 else arr


def odds_moment_bound(*, alpha: ArrayLike, epsilon: ArrayLike, log: bool = False) -> float | np.ndarray:
    r"""Bound on the :math:`(\alpha-1)`-th moment of the posterior-odds update, :math:`e^{(\alpha-1)\varepsilon}`.

    .. math::

        \mathbb{E}_{Y \sim P_i}\Bigl[\Bigl(\frac{p_i(Y)}{p_j(Y)}\Bigr)^{\alpha-1}\Bigr]
        = e^{(\alpha-1) D_\alpha(P_i \| P_j)} \le e^{(\alpha-1)\varepsilon}

    (the definition of :math:`D_\alpha`, e.g. van Erven & Harremoës 2014, eq. (1); Mironov 2017, Sec. III).
    The ratio :math:`p_i/p_j` is the factor by which the output multiplies the attacker's prior odds of
    :math:`s_i` against :math:`s_j`; the bound holds for every prior of the class and, when the guarantee
    covers both orders, with :math:`i` and :math:`j` exchanged.

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (finite).
    epsilon : float or array
        Budgets :math:`\varepsilon \ge 0` (finite). Broadcasts with ``alpha``.
    log : bool
        Return :math:`(\alpha-1)\varepsilon` instead.

    Returns
    -------
    float or ndarray
        :math:`e^{(\alpha-1)\varepsilon}` (:math:`(\alpha-1)\varepsilon` with ``log``).

    Raises
    ------
    ValueError
        If ``alpha`` is not in (1, inf) or ``epsilon`` is negative or not finite.

    Examples
    --------
    >>> round(odds_moment_bound(alpha=3.0, epsilon=1.0), 6)   # E[R^2] <= e^2
    7.389056
    """
    a, e = _alpha_epsilon(alpha, epsilon)
    with np.errstate(over="ignore"):  # the bound is +inf (vacuous) beyond the double range, and says so
        out = (a - 1.0) * e
        return _out(out if checks.flag("log", log) else np.exp(out))


def odds_update_bound(*, alpha: ArrayLike, epsilon: ArrayLike, probability: ArrayLike) -> float | np.ndarray:
    r"""Return a factor :math:`F` that the odds update exceeds with probability at most ``probability``.

    .. math::

        P_{Y \sim P_i}\Bigl(\frac{p_i(Y)}{p_j(Y)} > F\Bigr) \le \beta
        \quad\text{for}\quad F = \exp\Bigl(\varepsilon + \frac{\log(1/\beta)}{\alpha - 1}\Bigr),

    by Markov's inequality on :math:`R^{\alpha-1}` and :func:`odds_moment_bound` (Mironov 2017, Prop. 3;
    the probabilistic reading of the conversion of :func:`rpp.accounting.dp_epsilon` with
    ``method="mironov"``). In words: when :math:`s_i` is true, except with probability :math:`\beta` over the
    noise and the data, the release multiplies the attacker's odds of :math:`s_i` by at most :math:`F`.

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (finite).
    epsilon : float or array
        Budgets :math:`\varepsilon \ge 0` (finite).
    probability : float or array
        :math:`\beta \in (0, 1]`. The arrays broadcast.

    Returns
    -------
    float or ndarray
        :math:`F \ge 1`.

    Raises
    ------
    ValueError
        If an argument is out of its range.

    Examples
    --------
    >>> round(odds_update_bound(alpha=3.0, epsilon=1.0, probability=0.01), 4)   # e^(1 + log(100)/2)
    27.1828
    """
    a, e = _alpha_epsilon(alpha, epsilon)
    b = checks.in_interval("probability", probability, low=0.0, high=1.0, low_open=True)
    # A factor beyond the float range is +inf: a valid (vacuous) bound, not an error to warn about.
    with np.errstate(over="ignore"):
        return _out(np.exp(e - np.log(b) / (a - 1.0)))


def posterior_bound(
    *, alpha: ArrayLike, epsilon: ArrayLike, prior: ArrayLike, probability: ArrayLike
) -> float | np.ndarray:
    r"""Return a posterior probability of :math:`s_i` that the attacker exceeds with probability at most ``probability``.

    With prior probability :math:`\pi = P(s_i \mid s_i \text{ or } s_j)` and :math:`F` from
    :func:`odds_update_bound`,

    .. math::

        P\bigl(s_i \mid y, \{s_i, s_j\}\bigr) = \frac{\pi R(y)}{\pi R(y) + 1 - \pi} \le
        \frac{\pi F}{\pi F + 1 - \pi}

    except with probability :math:`\beta` under :math:`s_i` (the map :math:`R \mapsto \pi R/(\pi R + 1 - \pi)`
    is increasing). Computed as :math:`\operatorname{expit}(\operatorname{logit}\pi + \log F)`.

    Parameters
    ----------
    alpha, epsilon : float or array
        As in :func:`odds_update_bound`.
    prior : float or array
        :math:`\pi \in [0, 1]`. The arrays broadcast.
    probability : float or array
        As in :func:`odds_update_bound`.

    Returns
    -------
    float or ndarray
        The posterior bound :math:`\pi F / (\pi F + 1 - \pi)`.

    Raises
    ------
    ValueError
        If an argument is out of its range.

    Examples
    --------
    >>> round(posterior_bound(alpha=3.0, epsilon=1.0, prior=0.5, probability=0.01), 4)
    0.9645
    """
    a, e = _alpha_epsilon(alpha, epsilon)
    b = checks.in_interval("probability", probability, low=0.0, high=1.0, low_open=True)
    p = checks.in_interval("prior", prior, low=0.0, high=1.0)
    with np.errstate(divide="ignore"):  # logit(0) = -inf and logit(1) = +inf give 0 and 1: intended
        out = special.expit(special.logit(p) + e - np.log(b) / (a - 1.0))
    return _out(out)


# ---------------------------------------------------------------------------------------------
# The hypothesis-testing trade-off
# ---------------------------------------------------------------------------------------------


def _log_binary_moment(log_p: float, log_1mp: float, log_q: float, log_1mq: float, alpha: float) -> float:
    r"""Return the log of :math:`p^\alpha q^{1-\alpha} + (1-p)^\alpha (1-q)^{1-\alpha}` = (α-1) D_α(Bern(p) ‖ Bern(q))."""
    return float(
        np.logaddexp(
            alpha * log_p + (1.0 - alpha) * log_q if log_p > -math.inf else -math.inf,
            alpha * log_1mp + (1.0 - alpha) * log_1mq if log_1mp > -math.inf else -math.inf,
        )
    )


def _largest_feasible_logit(g: Callable[[float], float], z_lo: float) -> float:
    """Return the largest z with g(z) <= 0, for g increasing from g(z_lo) <= 0.

    The upper end of a bisection bracket (g > 0 there as computed), so the answer is never below the
    exact root; +inf (b = 1) if g stays <= 0 up to z = 800, beyond which 1 - b is below the smallest
    double.
    """
    step = 1.0
    z_hi = z_lo + step
    while not g(z_hi) > 0:
        if z_hi > 800.0:  # 1 - expit(800) underflows: every representable b < 1 is feasible, answer 1
            return math.inf
        z_lo, step = z_hi, 2.0 * step
        z_hi = z_lo + step
    for _ in range(400):
        mid = 0.5 * (z_lo + z_hi)
        if mid in (z_lo, z_hi):
            break
        if g(mid) > 0:
            z_hi = mid
        else:
            z_lo = mid
    return z_hi


def _tpr_one(alpha: float, epsilon: float, fpr: float, both: bool) -> float:
    if fpr == 1.0 or math.isinf(epsilon):
        return 1.0
    if math.isinf(alpha):
        # min(1, e^eps a), through logs: e^eps alone overflows beyond eps = 709.78
        forward = 0.0 if fpr == 0.0 else math.exp(min(0.0, epsilon + math.log(fpr)))
        reverse = 1.0 - math.exp(-epsilon) * (1.0 - fpr)
        return min(forward, reverse) if both else forward
    if fpr == 0.0:
        return 0.0  # D_alpha(Bern(b) || Bern(0)) = inf for every b > 0
    if epsilon == 0.0:
        return fpr
    log_a, log_1ma = math.log(fpr), math.log1p(-fpr)
    level = (alpha - 1.0) * epsilon

    def excess(z: float) -> float:
        log_b, log_1mb = float(special.log_expit(z)), float(special.log_expit(-z))
        fwd = _log_binary_moment(log_b, log_1mb, log_a, log_1ma, alpha)
        if both:
            fwd = max(fwd, _log_binary_moment(log_a, log_1ma, log_b, log_1mb, alpha))
        return fwd - level

    if not both and -log_a <= epsilon:
        return 1.0  # b = 1: a^(1 - alpha) <= e^((alpha - 1) epsilon)
    return float(special.expit(_largest_feasible_logit(excess, float(special.logit(fpr)))))


def max_true_positive_rate(
    *, alpha: ArrayLike, epsilon: ArrayLike, false_positive_rate: ArrayLike, both_orders: bool = True
) -> float | np.ndarray:
    r"""Largest power of a test of :math:`s_j` against :math:`s_i` at a given false-positive rate.

    A test :math:`\phi` (any, possibly randomised, function of the published output) that claims
    ":math:`s_i`" has false-positive rate :math:`a = P_j(\phi = 1)` and true-positive rate
    :math:`b = P_i(\phi = 1)`. Under :math:`(\alpha, \varepsilon)`-RPP,

    .. math::

        b \le b^\star(a) = \max\bigl\{ b \in [a, 1] :\ &D_\alpha(\mathrm{Bern}(b) \,\|\, \mathrm{Bern}(a))
        \le \varepsilon\\
        &\text{and, with both orders,}\\
        &D_\alpha(\mathrm{Bern}(a) \,\|\, \mathrm{Bern}(b)) \le \varepsilon \bigr\}.

    *Proof sketch.* :math:`\phi` is a Markov kernel from the outputs to :math:`\{0, 1\}` that maps
    :math:`(P_i, P_j)` to :math:`(\mathrm{Bern}(b), \mathrm{Bern}(a))`; by the data-processing inequality
    (van Erven & Harremoës 2014, Thm 9) :math:`D_\alpha(\mathrm{Bern}(b)\|\mathrm{Bern}(a)) \le
    D_\alpha(P_i\|P_j) \le \varepsilon`, and the same for the reverse order when the guarantee covers it (RPP
    protects a secret pair in both orders). For :math:`1 < \alpha < \infty`, :math:`H(b) = b^\alpha a^{1-\alpha}
    + (1-b)^\alpha (1-a)^{1-\alpha}` and :math:`K(b) = a^\alpha b^{1-\alpha} + (1-a)^\alpha (1-b)^{1-\alpha}`
    are convex in :math:`b` and equal 1 with zero slope at :math:`b = a`, so both are increasing on
    :math:`[a, 1)` and the feasible :math:`b \ge a` form an interval :math:`[a, b^\star]`; :math:`K \to \infty`
    as :math:`b \to 1`, and :math:`H(1) = a^{1-\alpha} \le e^{(\alpha-1)\varepsilon}` iff :math:`a \ge e^{-\varepsilon}`.
    The bound is tight for the guarantee alone: a mechanism with binary output distributed as
    :math:`\mathrm{Bern}(b^\star)` / :math:`\mathrm{Bern}(a)` satisfies it and its identity test attains
    :math:`(a, b^\star)`. For :math:`\alpha = \infty`, :math:`b^\star = \min(e^\varepsilon a,\
    1 - e^{-\varepsilon}(1 - a))` (the second term with both orders), the :math:`\varepsilon`-DP region
    (Wasserman & Zhou 2010; Kairouz, Oh & Viswanath 2015). Balle et al. (2020) derive the same region from
    RDP by the same data-processing argument.

    *Computation.* :math:`b^\star` is the root of :math:`\log H(b) = (\alpha-1)\varepsilon` (and of
    :math:`\log K`), found by bisection on :math:`z = \operatorname{logit} b` with :math:`\log b` and
    :math:`\log(1-b)` from ``log_expit`` (so :math:`1 - b` keeps its digits near 1); the bracket starts at
    :math:`\operatorname{logit} a` (feasible) and doubles its step until infeasible, and the upper end of the
    final bracket is returned: a rate at which the computed divergence already exceeds :math:`\varepsilon`,
    so the value is an upper bound on the power up to the log-space evaluation's rounding.

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (``inf`` allowed: pure Pufferfish / DP).
    epsilon : float or array
        Budgets :math:`\varepsilon \ge 0` (``inf`` gives 1).
    false_positive_rate : float or array
        :math:`a \in [0, 1]`. The three arrays broadcast.
    both_orders : bool
        The guarantee bounds :math:`D_\alpha` in both orders of the pair (RPP's definition; default).

    Returns
    -------
    float or ndarray
        :math:`b^\star(a) \in [a, 1]`.

    Raises
    ------
    ValueError
        If an argument is out of its range.

    Examples
    --------
    >>> round(max_true_positive_rate(alpha=np.inf, epsilon=1.0, false_positive_rate=0.05), 6)  # e * 0.05
    0.135914
    >>> b = max_true_positive_rate(alpha=2.0, epsilon=0.5, false_positive_rate=0.05)
    >>> 0.05 < b < 1
    True
    """
    a = checks.in_interval("alpha", alpha, low=1.0, low_open=True, allow_inf=True)
    e = checks.in_interval("epsilon", epsilon, low=0.0, allow_inf=True)
    f = checks.in_interval("false_positive_rate", false_positive_rate, low=0.0, high=1.0)
    both = checks.flag("both_orders", both_orders)
    a, e, f = np.broadcast_arrays(a, e, f)
    out = np.array(
        [_tpr_one(float(x), float(y), float(z), both) for x, y, z in zip(a.ravel(), e.ravel(), f.ravel(), strict=True)]
    ).reshape(a.shape)
    return _out(out)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_mass(centre: float, half: float) -> float:
    """``log(Phi(centre + half) - Phi(centre - half))`` for ``half > 0``, without cancellation.

    By symmetry ``centre >= 0``.  A short interval (``2 half max(centre + half, 1) <= 1``) is integrated
    by 16-point Gauss--Legendre on ``phi(centre + u) = phi(centre) exp(-u (u + 2 centre) / 2)``, ``|u| <=
    half`` (the factor stays within ``e^{+-0.75}``: the rule is exact to rounding, and ``half`` enters as
    itself, so an interval narrower than the spacing of the floats near ``centre`` keeps its mass); a
    longer one on the positive side is ``Phibar(lo) (1 - Phibar(hi) / Phibar(lo))`` with the ratio at
    most about ``e^{-1/2}``; one that straddles 0 has mass above 0.19 and is a plain difference.
    """
    centre = abs(centre)
    lo, hi = centre - half, centre + half
    if 2.0 * half * max(hi, 1.0) <= 1.0:
        u = half * _GL_X
        terms = _GL_W * np.exp(-0.5 * u * (u + 2.0 * centre))
        return -0.5 * centre * centre - _LOG_SQRT_2PI + math.log(half) + math.log(math.fsum(terms))
    if lo > 0:
        top, rest = float(special.log_ndtr(-lo)), float(special.log_ndtr(-hi))
        return top + math.log1p(-math.exp(rest - top))
    return math.log(float(special.ndtr(hi) - special.ndtr(lo)))


def _log_outside(lo: float, hi: float) -> float:
    """``log(Phi(lo) + Phibar(hi))``: the mass outside ``(lo, hi)`` (two tails, no cancellation)."""
    return float(np.logaddexp(special.log_ndtr(lo), special.log_ndtr(-hi)))


def _np_power(m: float, v: float, a: float) -> float:
    """Power at false-positive rate ``a`` of the best test of ``N(0, 1)`` against ``N(m, v)``, ``v != 1``.

    ``L`` is a quadratic in ``y`` with its vertex at ``c = m / (1 - v)``: ``{L > t}`` is ``(c - w, c + w)``
    for ``v < 1`` and its complement for ``v > 1``.  The half-width ``w`` of level ``a`` is found by Brent's
    method on the log mass (monotone in ``w``), then moved to the last float on the attacker's side (the
    false-positive rate at least ``a``), where the power is evaluated.
    """
    c, sd = m / (1.0 - v), math.sqrt(v)
    inside = v < 1  # the rejection region is the interval (c - w, c + w); else its complement

    def log_fpr(w: float) -> float:
        return _log_mass(c, w) if inside else _log_outside(c - w, c + w)

    log_a = math.log(a)

    def g(w: float) -> float:  # monotone in w (increasing inside, decreasing outside); -inf made finite
        return max(log_fpr(w), -1e300) - log_a

    # the level's half-width spans hundreds of orders of magnitude (a from 5e-324 to 1): first in log w,
    # then in w on the narrow bracket that leaves (Brent's method both times)
    z_lo, z_hi = math.log(1e-300), math.log(abs(c) + 40.0)
    while g(math.exp(z_hi)) * (1 if inside else -1) < 0:
        z_hi += 1.0
        if z_hi > 690:  # pragma: no cover - a >= 5e-324 is reached long before
            raise ValueError("false_positive_rate: beyond the range of the exact tails")
    if g(1e-300) * (1 if inside else -1) > 0:  # a so small that the half-width is below 1e-300
        raise ValueError("false_positive_rate: too small for the exact tails (a half-width below 1e-300)")
    z = optimize.brentq(lambda x: g(math.exp(x)), z_lo, z_hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    lo, hi = math.exp(z) * (1 - 1e-11), math.exp(z) * (1 + 1e-11)
    if g(lo) * g(hi) < 0:
        w = optimize.brentq(g, lo, hi, xtol=5e-324, rtol=4 * np.finfo(float).eps, maxiter=200)
    else:  # a root within rounding of an end
        w = lo if abs(g(lo)) < abs(g(hi)) else hi
    step = math.inf if inside else -math.inf
    for _ in range(64):  # polish: the last float with false-positive rate >= a
        if w > 0 and log_fpr(w) >= log_a:
            break
        w = math.nextafter(w, step)
    else:  # pragma: no cover - brentq stops within a few ulps
        raise ArithmeticError("the half-width of the rejection region did not close in")
    if inside:
        return math.exp(_log_mass((c - m) / sd, w / sd))
    return math.exp(_log_outside((c - w - m) / sd, (c + w - m) / sd))


def gaussian_true_positive_rate(
    *, mean_i: float, var_i: float, mean_j: float, var_j: float, false_positive_rate: ArrayLike
) -> float | np.ndarray:
    r"""Power of the best test of :math:`P_j = N(\text{mean}_j, \text{var}_j)` against :math:`P_i = N(\text{mean}_i, \text{var}_i)`.

    By the Neyman--Pearson lemma the most powerful test at false-positive rate :math:`a` claims
    ":math:`s_i`" when the privacy loss :math:`L = \log(p_i/p_j)` exceeds the threshold :math:`t_a` with
    :math:`P_j(L > t_a) = a` (:math:`L` has no atom unless the laws are equal), and its power is

    .. math::

        \beta(a) = P_i(L > t_a),

    the trade-off curve of the pair (Dong, Roth & Su 2022, *Gaussian differential privacy*, Def. 2.1,
    as :math:`1 - T(P_j, P_i)(a)`).  No test of one output does better, so the simulated points of any
    attack lie on or below it, and every :math:`(\alpha, \varepsilon)` guarantee of the pair lies above
    it (:func:`max_true_positive_rate`).  For equal variances it is the :math:`\mu`-GDP curve
    :math:`\beta(a) = \Phi(\mu - \Phi^{-1}(1 - a))`, :math:`\mu = |\text{mean}_i - \text{mean}_j| /
    \sqrt{\text{var}}`.

    *Computation.* After the change :math:`y \mapsto (y - \text{mean}_j)/\sqrt{\text{var}_j}`,
    :math:`\{L > t\}` is a half-line (equal variances: the closed form above, with ``ndtri``), an interval
    :math:`(c - w, c + w)` (:math:`\text{var}_i < \text{var}_j`) or its complement, :math:`c` the vertex of
    :math:`L`.  The half-width :math:`w` of level :math:`a` is found by Brent's method on the log mass of
    the region (tails by ``log_ndtr``, short intervals by Gauss--Legendre: no cancellation at any
    :math:`a`), then moved to the last float at which the false-positive rate is at least :math:`a`; the
    power is taken there.  The value is an upper bound on :math:`\beta(a)` up to the rounding of the tails, never an
    understatement of what the attacker can do.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : float
        The two output laws (variances > 0; the ranges of :func:`~rpp.accounting.gaussian_loss_tail`).
    false_positive_rate : float or array
        :math:`a \in [0, 1]`.

    Returns
    -------
    float or ndarray
        :math:`\beta(a) \in [a, 1]` (0 at :math:`a = 0`, 1 at :math:`a = 1`).

    Raises
    ------
    ValueError
        If an argument is out of its range, or :math:`a` is so small that :math:`|t_a| > 10^6`.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> b = gaussian_true_positive_rate(mean_i=1.0, var_i=1.0, mean_j=0.0, var_j=1.0, false_positive_rate=0.05)
    >>> bool(abs(b - norm.cdf(1.0 - norm.ppf(0.95))) < 1e-12)  # 1-GDP
    True
    """
    gaussian_loss_tail(mean_i=mean_i, var_i=var_i, mean_j=mean_j, var_j=var_j, threshold=0.0)  # validates
    f = checks.in_interval("false_positive_rate", false_positive_rate, low=0.0, high=1.0)
    sd_j = math.sqrt(float(var_j))
    m, v = (float(mean_i) - float(mean_j)) / sd_j, float(var_i) / float(var_j)

    def one(a: float) -> float:
        if a in (0.0, 1.0) or (m == 0 and v == 1):
            return a  # no test beats guessing between equal laws; a = 0, 1: the trivial tests
        if v == 1:  # a half-line: the mu-GDP curve, mu = |m|
            return max(a, float(special.ndtr(abs(m) + special.ndtri(a))))
        return min(1.0, max(a, _np_power(m, v, a)))

    out = np.array([one(float(a)) for a in np.ravel(f)]).reshape(np.shape(f))
    return _out(out)


def _mixture_parts(name: str, law: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the ``(weights, means, sds)`` of a law with a ``components()`` view, every variance > 0."""
    if not callable(getattr(law, "components", None)):
        raise TypeError(f"{name} must have a components() view (an rpp prior), got {type(law).__name__}")
    c = law.components()
    w, m, var = (np.asarray(x, dtype=float).ravel() for x in (c.weights, c.means, c.vars))
    if not (np.all(np.isfinite(m)) and np.all(np.isfinite(var)) and np.all(var > 0)):
        raise ValueError(f"{name} needs finite means and variances > 0 (a noisy output law)")
    keep = w > 0
    return w[keep], m[keep], np.sqrt(var[keep])


def _mixture_logpdf(x: np.ndarray, w: np.ndarray, m: np.ndarray, sd: np.ndarray) -> np.ndarray:
    z = (x[..., None] - m) / sd
    return np.asarray(special.logsumexp(-0.5 * z * z - np.log(sd) - _LOG_SQRT_2PI, b=w, axis=-1))


def _mixture_mass(lo: float, hi: float, w: np.ndarray, m: np.ndarray, sd: np.ndarray) -> float:
    """``P(lo < Y < hi)`` of the mixture, each component on the side of its mean without cancellation."""
    zl, zh = (lo - m) / sd, (hi - m) / sd
    right = zl > 0  # the interval lies right of the mean: difference of upper tails
    mass = np.where(right, special.ndtr(-zl) - special.ndtr(-zh), special.ndtr(zh) - special.ndtr(zl))
    return float(np.clip(math.fsum(w * mass), 0.0, 1.0))


def mixture_test_rates(
    law_i: Any, law_j: Any, *, threshold: ArrayLike, points_per_sd: int = 64
) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the rates of the likelihood-ratio test "claim :math:`s_i` when :math:`L > t`" for two Gaussian mixtures.

    :math:`P_i` and :math:`P_j` are one-dimensional Gaussian mixtures :math:`\sum_k w_k N(\mu_k,
    \sigma_k^2)` (any rpp law with a ``components()`` view and variances > 0, such as a prior
    convolved with Gaussian noise), :math:`L = \log(p_i/p_j)` the privacy loss and

    .. math::

        a(t) = P_j(L > t), \qquad b(t) = P_i(L > t).

    By the Neyman--Pearson lemma (Lehmann & Romano, *Testing Statistical Hypotheses*, 3rd ed. 2005,
    Thm. 3.2.1) these tests are the most powerful at their false-positive rate, so the points
    :math:`(a(t), b(t))` trace the trade-off curve of the pair (Dong, Roth & Su 2022, *Gaussian
    differential privacy*, Def. 2.1, as :math:`1 - T(P_j, P_i)`); for two single Gaussians it is
    :func:`gaussian_true_positive_rate`.

    *Computation.* The region :math:`\{L > t\}` is a finite union of intervals whose ends are roots of
    :math:`L - t`. They are bracketed by the sign changes of :math:`L - t` on a grid of step
    :math:`\min_k \sigma_k / \text{points\_per\_sd}` over :math:`[\min_k(\mu_k - 40\sigma_k), \max_k(\mu_k +
    40\sigma_k)]` (beyond it every component has mass below :math:`10^{-300}`), and refined by Brent's
    method; each interval's mass is the sum of its components' normal probabilities, each taken on the
    side of its mean where no cancellation occurs. The returned rates are the exact rates (to rounding)
    of the test that claims :math:`s_i` on the region found, so they are always attainable; that region
    is :math:`\{L > t\}` except where two roots lie closer than the grid step.

    Parameters
    ----------
    law_i, law_j : prior
        The output laws under :math:`s_i` and :math:`s_j` (e.g. ``prior.convolve(scale=theta)``).
    threshold : float or array
        :math:`t`, finite.
    points_per_sd : int
        Grid points per smallest standard deviation (at least 8); the grid has at most ``2_000_000``
        points.

    Returns
    -------
    false_positive_rate, true_positive_rate : ndarray
        :math:`a(t)` and :math:`b(t)`, in the shape of ``threshold``.

    Raises
    ------
    TypeError
        If a law has no ``components()`` view.
    ValueError
        On a non-finite threshold, a variance <= 0, ``points_per_sd < 8`` or a grid too large.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> from rpp.priors import Gaussian
    >>> a, b = mixture_test_rates(Gaussian(mean=1.0, var=1.0), Gaussian(mean=0.0, var=1.0), threshold=0.5)
    >>> bool(abs(a - norm.sf(1.0)) < 1e-12 and abs(b - norm.sf(0.0)) < 1e-12)  # L = y - 1/2
    True
    """
    wi, mi, si = _mixture_parts("law_i", law_i)
    wj, mj, sj = _mixture_parts("law_j", law_j)
    t_all = checks.finite("threshold", threshold)
    k = checks.integer("points_per_sd", points_per_sd, 8)
    means, sds = np.concatenate([mi, mj]), np.concatenate([si, sj])
    lo, hi = float(np.min(means - 40 * sds)), float(np.max(means + 40 * sds))
    n = math.ceil((hi - lo) / (float(np.min(sds)) / k)) + 1
    if n > 2_000_000:
        raise ValueError(f"the grid would need {n} points (more than 2_000_000): the laws' scales differ too much")
    y = np.linspace(lo, hi, n)

    def loss(x: Any) -> Any:
        x = np.asarray(x, dtype=float)
        return _mixture_logpdf(x, wi, mi, si) - _mixture_logpdf(x, wj, mj, sj)

    grid_loss = loss(y)
    fpr, tpr = np.empty(t_all.shape), np.empty(t_all.shape)
    for idx, t in np.ndenumerate(t_all):
        above = grid_loss > t
        roots = [
            optimize.brentq(lambda x, t=t: float(loss(x)) - t, y[c], y[c + 1], xtol=1e-15 * max(1.0, abs(y[c])))
            for c in np.flatnonzero(above[1:] != above[:-1])
        ]
        edges = [-math.inf, *roots, math.inf]
        inside = bool(above[0])  # the side left of the first root
        a = b = 0.0
        for left, right in itertools.pairwise(edges):
            if inside:
                a += _mixture_mass(left, right, wj, mj, sj)
                b += _mixture_mass(left, right, wi, mi, si)
            inside = not inside
        fpr[idx], tpr[idx] = min(a, 1.0), min(b, 1.0)
    return fpr, tpr


def _atoms_of(name: str, prior: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``(weights, atoms)`` of a discrete prior (a ``components()`` view with every variance 0)."""
    if not callable(getattr(prior, "components", None)):
        raise TypeError(f"{name} must have a components() view (an rpp prior), got {type(prior).__name__}")
    c = prior.components()
    w, x, var = (np.asarray(v, dtype=float).ravel() for v in (c.weights, c.means, c.vars))
    if not (np.all(np.isfinite(x)) and np.all(var == 0)):
        raise ValueError(f"{name} must be a discrete prior with finite atoms (an rpp.Empirical)")
    keep = w > 0
    return w[keep], x[keep]


def _laplace_mixture_logpdf(y: np.ndarray, w: np.ndarray, x: np.ndarray, b: float) -> np.ndarray:
    return np.asarray(special.logsumexp(-np.abs(y[..., None] - x) / b, b=w, axis=-1)) - math.log(2 * b)


def _laplace_mixture_mass(lo: float, hi: float, w: np.ndarray, x: np.ndarray, b: float) -> float:
    """``P(lo < Y < hi)`` for ``Y = X + Lap(b)``, each atom's mass without cancellation."""
    with np.errstate(over="ignore", invalid="ignore"):  # the branches not taken may overflow
        right = 0.5 * (np.exp(-(lo - x) / b) - np.exp(-(hi - x) / b))  # lo >= x: upper tails
        left = 0.5 * (np.exp((hi - x) / b) - np.exp((lo - x) / b))  # hi <= x: lower tails
        across = 1.0 - 0.5 * np.exp(-(x - lo) / b) - 0.5 * np.exp(-(hi - x) / b)
    mass = np.where(lo >= x, right, np.where(hi <= x, left, across))
    return float(np.clip(math.fsum(w * mass), 0.0, 1.0))


def laplace_mixture_test_rates(
    prior_i: Any, prior_j: Any, *, scale: float, threshold: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    r"""Return the rates of the likelihood-ratio test "claim :math:`s_i` when :math:`L > t`" for two discrete priors plus Laplace noise.

    :math:`P_i` and :math:`P_j` are the laws of :math:`X + \mathrm{Lap}(b)` when :math:`X` follows the
    discrete prior of :math:`s_i` or :math:`s_j` (atoms :math:`x_k`, weights :math:`w_k`), :math:`L =
    \log(p_i/p_j)` the privacy loss and

    .. math::

        a(t) = P_j(L > t), \qquad b(t) = P_i(L > t).

    By the Neyman--Pearson lemma (Lehmann & Romano, *Testing Statistical Hypotheses*, 3rd ed. 2005,
    Thm. 3.2.1) these tests are the most powerful at their false-positive rate, so the points
    :math:`(a(t), b(t))` trace the trade-off curve of the pair (Dong, Roth & Su 2022, Def. 2.1); where
    :math:`L` is constant on a set of positive mass the curve joins the points on either side of that
    value by a segment (randomised tests), which a plot of the points draws.

    *Computation, exact.* Between two consecutive atoms :math:`u < v` of either prior every density is
    :math:`A e^{-y/b} + B e^{y/b}`, so :math:`p_i/p_j = (A_i + B_i z)/(A_j + B_j z)` with :math:`z =
    e^{2y/b}`, a Möbius function of :math:`z` with a positive denominator: :math:`L` is monotone there,
    and constant below the smallest atom and above the largest (only one kind of term is left). So :math:`\{L > t\}` is found without search: on each interval
    whose ends lie on either side of :math:`t` the one root is found by Brent's method, and each piece's
    mass is the sum of closed-form Laplace masses, every atom's taken on its own side without
    cancellation.

    Parameters
    ----------
    prior_i, prior_j : prior
        Discrete priors (``components()`` with every variance 0, such as :class:`rpp.Empirical`).
    scale : float
        The Laplace scale :math:`b > 0`.
    threshold : float or array
        :math:`t`, finite.

    Returns
    -------
    false_positive_rate, true_positive_rate : ndarray
        :math:`a(t)` and :math:`b(t)`, in the shape of ``threshold``.

    Raises
    ------
    TypeError
        If a prior has no ``components()`` view.
    ValueError
        On a prior that is not discrete, a scale <= 0 or so small that (span of the atoms + 1) / scale
        exceeds 1e250, or a non-finite threshold.

    Examples
    --------
    >>> import math
    >>> from rpp.priors import Empirical
    >>> a, b = laplace_mixture_test_rates(Empirical([1.0]), Empirical([0.0]), scale=1.0, threshold=0.0)
    >>> bool(abs(a - 0.5 * math.exp(-0.5)) < 1e-15 and abs(b - (1 - 0.5 * math.exp(-0.5))) < 1e-15)
    True
    """
    wi, xi = _atoms_of("prior_i", prior_i)
    wj, xj = _atoms_of("prior_j", prior_j)
    b_scale = float(checks.positive("scale", scale))
    t_all = checks.finite("threshold", threshold)
    knots = np.union1d(xi, xj)
    if (float(np.ptp(knots)) + 1.0) / b_scale > 1e250:
        raise ValueError("scale is too small for a float computation: the atoms' span over scale exceeds 1e250")

    def loss(y: Any) -> Any:
        y = np.asarray(y, dtype=float)
        return _laplace_mixture_logpdf(y, wi, xi, b_scale) - _laplace_mixture_logpdf(y, wj, xj, b_scale)

    knot_loss = loss(knots)
    fpr, tpr = np.empty(t_all.shape), np.empty(t_all.shape)
    for idx, t in np.ndenumerate(t_all):
        above = knot_loss > t
        pieces = [(-math.inf, float(knots[0]))] if above[0] else []  # L is constant below the atoms
        for k in range(knots.size - 1):
            u, v = float(knots[k]), float(knots[k + 1])
            if above[k] and above[k + 1]:
                pieces.append((u, v))
            elif above[k] != above[k + 1]:  # one root: L is monotone between two atoms
                r = optimize.brentq(lambda y, t=t: float(loss(y)) - t, u, v, xtol=1e-15 * max(1.0, abs(u), abs(v)))
                pieces.append((u, r) if above[k] else (r, v))
        if above[-1]:
            pieces.append((float(knots[-1]), math.inf))
        a = math.fsum(_laplace_mixture_mass(lo, hi, wj, xj, b_scale) for lo, hi in pieces)
        b = math.fsum(_laplace_mixture_mass(lo, hi, wi, xi, b_scale) for lo, hi in pieces)
        fpr[idx], tpr[idx] = min(a, 1.0), min(b, 1.0)
    return fpr, tpr
