r"""Auditing a release by attack: an empirical lower bound on the leakage, with its confidence.

A guarantee is an *upper* bound on what any attacker can learn. An attack run on simulated releases
gives a *lower* bound: a test :math:`\phi` of :math:`s_j` against :math:`s_i` with false-positive rate
:math:`a = P_j(\phi = 1)` and true-positive rate :math:`b = P_i(\phi = 1)` is a Markov kernel from the
outputs to :math:`\{0, 1\}`, so by the data-processing inequality (van Erven & Harremoës 2014, Thm 9)

.. math::

    D_\alpha(P_i \,\|\, P_j) &\;\ge\; D_\alpha\bigl(\mathrm{Bern}(b) \,\|\, \mathrm{Bern}(a)\bigr),\\
    D_\alpha(P_j \,\|\, P_i) &\;\ge\; D_\alpha\bigl(\mathrm{Bern}(a) \,\|\, \mathrm{Bern}(b)\bigr)

(:func:`renyi_lower_bound`; the converse of :func:`rpp.accounting.max_true_positive_rate`).
The rates are measured on finitely many simulated releases, so the audit reports exact (Clopper--Pearson)
confidence intervals for them (:func:`rate_interval`) and the smallest divergence compatible with both
intervals (:func:`audit_threshold_attack`, :meth:`ThresholdAudit.epsilon_lower_bound`): the standard way
to audit differential privacy empirically (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021), here for
secret pairs of correlated data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._lib import validation as checks

__all__ = ["ThresholdAudit", "audit_threshold_attack", "rate_interval", "renyi_lower_bound"]

# Relative widening of the Clopper-Pearson ends: betaincinv is accurate to a few ulps, and an interval
# must not become narrower than the exact one by rounding.
_WIDEN = 1e-12


_MAX_COUNT = 2.0**53


def rate_interval(
    *, successes: ArrayLike, trials: ArrayLike, confidence: float = 0.95
) -> tuple[np.ndarray | float, np.ndarray | float]:
    r"""Exact (Clopper--Pearson) confidence interval for a binomial proportion.

    For :math:`k` successes in :math:`n` trials and level :math:`c`, with :math:`\beta = 1 - c`,

    .. math::

        p_{\mathrm{low}} = B^{-1}\bigl(\tfrac{\beta}{2};\ k,\ n - k + 1\bigr), \qquad
        p_{\mathrm{high}} = B^{-1}\bigl(1 - \tfrac{\beta}{2};\ k + 1,\ n - k\bigr),

    :math:`B^{-1}` the quantile function of the beta law, :math:`p_{\mathrm{low}} = 0` for :math:`k = 0`
    and :math:`p_{\mathrm{high}} = 1` for :math:`k = n` (Clopper & Pearson 1934). Equivalently,
    :math:`p_{\mathrm{low}}` solves :math:`P(\mathrm{Bin}(n, p) \ge k) = \beta/2` and :math:`p_{\mathrm{high}}`
    solves :math:`P(\mathrm{Bin}(n, p) \le k) = \beta/2`. The interval covers the true proportion with
    probability at least :math:`c` for every :math:`p`, and each end is a one-sided bound at level
    :math:`1 - \beta/2`. The ends are widened by a relative :math:`10^{-12}` so that rounding in the beta
    quantile never makes the interval narrower than the exact one.

    Parameters
    ----------
    successes : int or array of int
        :math:`k \ge 0`.
    trials : int or array of int
        :math:`n \ge 1`, with :math:`k \le n`. Broadcasts with ``successes``.
    confidence : float
        :math:`c \in (0, 1)`.

    Returns
    -------
    (low, high) : floats or ndarrays
        The interval's ends, :math:`0 \le p_{\mathrm{low}} \le k/n \le p_{\mathrm{high}} \le 1`.

    Raises
    ------
    ValueError
        If a count is negative or not an integer, ``trials`` is below 1, above :math:`2^{53}` or below
        ``successes``, or ``confidence`` is not in (0, 1).

    Examples
    --------
    >>> low, high = rate_interval(successes=5, trials=100)
    >>> round(low, 4), round(high, 4)
    (0.0164, 0.1128)
    """
    k = checks.in_interval("successes", successes, low=0.0)
    n = checks.in_interval("trials", trials, low=1.0)
    c = checks.scalar_in_interval("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    if np.any(k != np.round(k)):
        raise ValueError("successes must be whole numbers >= 0")
    if np.any(n != np.round(n)):
        raise ValueError("trials must be whole numbers >= 1")
    if np.any(n > _MAX_COUNT):
        # beyond 2**53 a count is not exact in a double, and the beta quantile drifts (its lower end
        # came out 15 % too low at 1e17 trials): an interval narrower than the exact one
        raise ValueError("trials must be at most 2**53 (9.007e15)")
    k, n = np.broadcast_arrays(k, n)
    if np.any(k > n):
        raise ValueError("successes must not exceed trials")
    tail = 0.5 * (1.0 - c)
    with np.errstate(divide="ignore", invalid="ignore"):  # the k = 0 and k = n ends are set below
        low = np.where(k > 0, special.betaincinv(k, n - k + 1, tail), 0.0)
        high = np.where(k < n, special.betaincinv(k + 1, n - k, 1.0 - tail), 1.0)
    low = np.clip(low * (1.0 - _WIDEN), 0.0, 1.0)
    high = np.where(high < 1.0, np.clip(high * (1.0 + _WIDEN), 0.0, 1.0), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _log_binary_moment(p: float, q: float, alpha: float) -> float:
    """Log of p^alpha q^(1-alpha) + (1-p)^alpha (1-q)^(1-alpha): (alpha - 1) D_alpha(Bern(p) || Bern(q))."""
    terms = []
    for x, y in ((p, q), (1.0 - p, 1.0 - q)):
        if x == 0.0:
            continue
        if y == 0.0:
            return math.inf
        terms.append(alpha * math.log(x) + (1.0 - alpha) * math.log(y))
    return float(np.logaddexp.reduce(terms))


def _binary_renyi(p: float, q: float, alpha: float) -> float:
    """D_alpha(Bern(p) || Bern(q)) for alpha in (1, inf]; inf where Bern(p) is not absolutely continuous."""
    if p == q:
        return 0.0
    if math.isinf(alpha):
        out = 0.0
        for x, y in ((p, q), (1.0 - p, 1.0 - q)):
            if x > 0.0:
                out = max(out, math.inf if y == 0.0 else math.log(x / y))
        return out
    return max(0.0, _log_binary_moment(p, q, alpha) / (alpha - 1.0))


def renyi_lower_bound(
    *,
    alpha: ArrayLike,
    false_positive_rate: ArrayLike,
    true_positive_rate: ArrayLike,
    both_orders: bool = True,
) -> float | np.ndarray:
    r"""Smallest RPP level at order :math:`\alpha` compatible with a test of the given rates.

    A test with false-positive rate :math:`a` and true-positive rate :math:`b` proves, by the
    data-processing inequality (van Erven & Harremoës 2014, Thm 9; the argument of Balle et al. 2020 for
    Rényi DP), that every :math:`(\alpha, \varepsilon)`-RPP guarantee of the pair has

    .. math::

        \varepsilon \;\ge\; \max\bigl\{ D_\alpha(\mathrm{Bern}(b) \,\|\, \mathrm{Bern}(a)),\
        D_\alpha(\mathrm{Bern}(a) \,\|\, \mathrm{Bern}(b)) \bigr\},

    the second term only with ``both_orders`` (RPP's definition covers both orders of a pair). For
    :math:`\alpha = \infty` (Pufferfish privacy) the terms are :math:`\log\max(b/a, (1-b)/(1-a))` and
    :math:`\log\max(a/b, (1-a)/(1-b))`. This is the inverse of
    :func:`rpp.accounting.max_true_positive_rate`: :math:`b \le b^\star(a)` at level
    :math:`\varepsilon` if and only if the value returned is at most :math:`\varepsilon` (for :math:`b \ge a`).
    Computed in log space; :math:`+\infty` where one Bernoulli law puts mass where the other has none.

    Parameters
    ----------
    alpha : float or array
        Orders :math:`\alpha > 1` (``inf`` allowed).
    false_positive_rate : float or array
        :math:`a \in [0, 1]`.
    true_positive_rate : float or array
        :math:`b \in [0, 1]`. The three arrays broadcast.
    both_orders : bool
        Include the reverse order (default).

    Returns
    -------
    float or ndarray
        The lower bound on :math:`\varepsilon`, :math:`\ge 0` (0 when :math:`a = b`).

    Raises
    ------
    ValueError
        If an argument is out of its range.

    Examples
    --------
    >>> round(renyi_lower_bound(alpha=np.inf, false_positive_rate=0.05, true_positive_rate=0.1), 6)
    0.693147
    """
    a = checks.in_interval("alpha", alpha, low=1.0, low_open=True, allow_inf=True)
    f = checks.in_interval("false_positive_rate", false_positive_rate, low=0.0, high=1.0)
    t = checks.in_interval("true_positive_rate", true_positive_rate, low=0.0, high=1.0)
    both = checks.flag("both_orders", both_orders)
    a, f, t = np.broadcast_arrays(a, f, t)
    out = np.empty(a.shape)
    for idx in np.ndindex(a.shape):
        al, fp, tp = float(a[idx]), float(f[idx]), float(t[idx])
        val = _binary_renyi(tp, fp, al)
        if both:
            val = max(val, _binary_renyi(fp, tp, al))
        out[idx] = val
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class ThresholdAudit:
    r"""The measured rates of a threshold attack and their confidence intervals.

    Returned by :func:`audit_threshold_attack`; one entry per threshold :math:`\tau` of the test "claim
    :math:`s_i` when the score exceeds :math:`\tau`".

    Attributes
    ----------
    thresholds : ndarray
        The thresholds :math:`\tau`.
    false_positive_rate : ndarray
        The measured rate :math:`\hat a = \#\{\text{score}_j > \tau\}/n_j`.
    true_positive_rate : ndarray
        The measured rate :math:`\hat b = \#\{\text{score}_i > \tau\}/n_i`.
    false_positive_interval : tuple of ndarray
        Clopper--Pearson interval ``(low, high)`` of :math:`a` (:func:`rate_interval`) at level
        :math:`1 - (1 - c)/2`.
    true_positive_interval : tuple of ndarray
        The same for :math:`b`; the two intervals hold together with probability at least :math:`c`
        (union bound), for each threshold.
    confidence : float
        :math:`c`.
    n_i : int
        Simulated releases under :math:`s_i`.
    n_j : int
        Simulated releases under :math:`s_j`.
    """

    thresholds: np.ndarray
    false_positive_rate: np.ndarray
    true_positive_rate: np.ndarray
    false_positive_interval: tuple[np.ndarray, np.ndarray]
    true_positive_interval: tuple[np.ndarray, np.ndarray]
    confidence: float
    n_i: int
    n_j: int

    def epsilon_lower_bound(self, *, alpha: float, both_orders: bool = True) -> np.ndarray:
        r"""Lower confidence bound on the RPP level at order :math:`\alpha`, one per threshold.

        The smallest :func:`renyi_lower_bound` over the box of the two confidence intervals: 0 if the
        intervals overlap, otherwise its value at the corner where the rates are closest
        (:math:`(a_{\mathrm{high}}, b_{\mathrm{low}})` when :math:`b_{\mathrm{low}} > a_{\mathrm{high}}`). The
        binary divergence grows as :math:`b` and :math:`a` move apart, in both orders, so that corner is the
        minimum. With probability at least ``confidence`` (for each threshold chosen before the attack's
        samples were drawn), the pair's true level is at least this value.

        Parameters
        ----------
        alpha : float
            Order :math:`\alpha > 1` (``inf`` allowed).
        both_orders : bool
            As in :func:`renyi_lower_bound`.

        Returns
        -------
        ndarray
            One lower bound per threshold, :math:`\ge 0`.

        Raises
        ------
        ValueError
            If ``alpha`` is not in (1, inf].
        """
        a_lo, a_hi = self.false_positive_interval
        b_lo, b_hi = self.true_positive_interval
        above = b_lo > a_hi
        below = b_hi < a_lo
        fp = np.where(above, a_hi, np.where(below, a_lo, 0.5))
        tp = np.where(above, b_lo, np.where(below, b_hi, 0.5))
        return np.asarray(
            renyi_lower_bound(alpha=alpha, false_positive_rate=fp, true_positive_rate=tp, both_orders=both_orders)
        ).reshape(fp.shape)


def audit_threshold_attack(
    *, scores_i: ArrayLike, scores_j: ArrayLike, thresholds: ArrayLike, confidence: float = 0.95
) -> ThresholdAudit:
    r"""Measure a threshold attack's rates on simulated releases, with exact confidence intervals.

    The attacker computes a score from each published output (for the Bayesian attacker who knows the
    prior: the log-likelihood ratio :math:`\log p_i(y) - \log p_j(y)`, whose threshold tests are the most
    powerful, Neyman--Pearson) and claims :math:`s_i` when the score exceeds :math:`\tau`. ``scores_i`` are
    the scores of releases simulated under :math:`s_i`, ``scores_j`` under :math:`s_j`; then
    :math:`\hat a(\tau) = \#\{\text{scores}_j > \tau\}/n_j` and :math:`\hat b(\tau) = \#\{\text{scores}_i >
    \tau\}/n_i`, with :func:`rate_interval` at level :math:`1 - (1 - c)/2` each.

    The intervals are valid only for thresholds fixed *before* the scores were drawn (for instance from
    a separate simulation): a threshold picked from the same samples to make the attack look strongest
    selects on the noise. :meth:`ThresholdAudit.epsilon_lower_bound` turns the intervals into a lower
    confidence bound on the leakage, to be set beside the certified upper bound.

    Parameters
    ----------
    scores_i, scores_j : array
        Finite 1-D arrays of scores (at least one each).
    thresholds : float or 1-D array
        Finite thresholds :math:`\tau`.
    confidence : float
        Joint level :math:`c \in (0, 1)` of the two intervals of each threshold.

    Returns
    -------
    ThresholdAudit
        Rates, intervals and sample sizes.

    Raises
    ------
    ValueError
        If a score or threshold is not finite, an array is empty or not 1-D, or ``confidence`` is not in
        (0, 1).

    Examples
    --------
    >>> audit = audit_threshold_attack(scores_i=[0.5, 2.0, 3.0, 4.0], scores_j=[0.0, 0.1, 0.2, 5.0],
    ...                                thresholds=[1.0])
    >>> audit.false_positive_rate.tolist(), audit.true_positive_rate.tolist()
    ([0.25], [0.75])
    """
    s_i = checks.vector("scores_i", scores_i)
    s_j = checks.vector("scores_j", scores_j)
    tau = checks.finite("thresholds", thresholds)
    if tau.ndim > 1:
        raise ValueError(f"thresholds must be a number or a 1-D array, got an array with {tau.ndim} dimensions")
    tau = np.atleast_1d(tau)
    c = checks.scalar_in_interval("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True)
    per_rate = 1.0 - 0.5 * (1.0 - c)
    k_i = s_i.size - np.searchsorted(np.sort(s_i), tau, side="right")  # #{score > tau}
    k_j = s_j.size - np.searchsorted(np.sort(s_j), tau, side="right")
    fp_lo, fp_hi = rate_interval(successes=k_j, trials=np.full(tau.shape, s_j.size), confidence=per_rate)
    tp_lo, tp_hi = rate_interval(successes=k_i, trials=np.full(tau.shape, s_i.size), confidence=per_rate)
    return ThresholdAudit(
        thresholds=tau,
        false_positive_rate=k_j / s_j.size,
        true_positive_rate=k_i / s_i.size,
        false_positive_interval=(np.atleast_1d(fp_lo), np.atleast_1d(fp_hi)),
        true_positive_interval=(np.atleast_1d(tp_lo), np.atleast_1d(tp_hi)),
        confidence=c,
        n_i=int(s_i.size),
        n_j=int(s_j.size),
    )
