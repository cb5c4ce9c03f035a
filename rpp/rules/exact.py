r"""The exact rule: the smallest noise whose divergence plus its error meets the budget (one order).

The divergence of the noisy outputs is non-increasing in the noise scale (a larger noise
is post-processing of a smaller one: :math:`N(0,\theta_2^2) = N(0,\theta_1^2) * N(0,
\theta_2^2-\theta_1^2)`; for Laplace noise :math:`\mathrm{Lap}(b_2) = \mathrm{Lap}(b_1) *
[r^2\delta_0 + (1-r^2)\mathrm{Lap}(b_2)]` with :math:`r = b_1/b_2 < 1`, comparing
characteristic functions).  So the minimal noise is found by monotone root finding
(:func:`rpp._lib.numerics.min_feasible`) on ``value + error`` of the divergence, with a
sufficient rule as the feasible upper end.  The error is a proved bound for two Gaussians
and for Laplace noise on two empirical priors, and a quadrature error *estimate* otherwise
(see :class:`rpp.Calibration`).

* :func:`exact_variance` -- Gaussian noise, any priors (two Gaussians: the vectorised
  :func:`rpp.rules.gaussian_exact_variance`);
* :func:`exact_laplace_scale` -- Laplace noise;
* :func:`order_probe` -- which of the two orders of a secret pair to solve first.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lib import validation as v
from .._lib.numerics import min_feasible
from ..noise import GaussianNoise, LaplaceNoise
from ..priors import Empirical, Gaussian, check_prior, components
from ..divergence.gaussian_noise import renyi_divergence_bound
from ..divergence.laplace_noise import laplace_renyi_divergence_bound
from .gaussian import gaussian_exact_variance
from .mixture import gmm_ot_variance
from .w_alpha import w_alpha_scale

__all__ = ["exact_variance", "exact_laplace_scale", "order_probe"]


def _log_ratio(d, epsilon):
    """``log(d / epsilon)``, of the sign of ``d - epsilon`` (``-1e300`` for ``d = 0``, ``inf`` for ``d = inf``)."""
    return float(np.log(d / epsilon)) if d > 0 else -1e300


def _known_bracket(memo, epsilon, lo, hi, proved, above):
    """``(hi, proved, hint)`` tightened by the divergences already known (``memo``, e.g. a probe's).

    The smallest feasible point known becomes the upper end if it is below the rule's, the
    largest infeasible point known below that end (or ``above``) the lower hint.
    """
    feasible = [z for z, (val, err) in memo.items() if z > lo and val + err <= epsilon]
    if feasible and (min(feasible) < hi or not proved):
        hi, proved = float(min(feasible)), False
    infeasible = [z for z, (val, err) in memo.items() if lo < z < hi and val + err > epsilon]
    infeasible += [float(above)] if lo < above < hi else []
    return hi, proved, (max(infeasible) if infeasible else None)


def _domain_lower_bound(p, q, alpha):
    """Largest noise variance at which ``D_alpha(p * N || q * N)`` is certainly infinite."""
    ci, cj = components(p), components(q)
    return max(0.0, (alpha - 1) * ci.variances.max() - alpha * cj.variances.max())


def exact_variance(
    prior_i: Any,
    prior_j: Any,
    alpha: float,
    epsilon: float,
    *,
    above: float = 0.0,
    known: dict | None = None,
) -> float:
    r"""Minimal :math:`\theta^2` with :math:`D_\alpha(P_i * N(0,\theta^2)\|P_j * N(0,\theta^2))` + error :math:`\le \varepsilon`.

    Two Gaussians: :func:`rpp.rules.gaussian_exact_variance` (closed form, Yang et al. 2026,
    Cor. III.3).  Otherwise the quadrature of :func:`rpp.divergence.renyi_divergence_bound`
    (``value + error``), bracketed by the domain edge below and :func:`rpp.rules.gmm_ot_variance`
    above (a proved sufficient rule, so it is not evaluated; :func:`rpp.calibrate` checks the
    returned variance in any case).

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``> 0``.
    above : float
        A variance believed infeasible (e.g. the other order's root, where this order
        failed the check): the search starts there.  It is evaluated first; if it is feasible
        after all, the search continues below it, so a wrong hint costs time, never noise.
    known : dict, optional
        ``{variance: (value, error)}`` of :func:`rpp.divergence.renyi_divergence_bound` for this order,
        shared with the caller: values found there are reused, new ones are added
        (:func:`rpp.calibrate` shares its checks this way).

    Returns
    -------
    float
        :math:`\theta^2 \ge 0`.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If ``alpha`` or ``epsilon`` is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> round(exact_variance(Gaussian(0, 1), Gaussian(2, 1), 3.0, 0.5), 9)  # alpha Delta / (2 eps) - 1
    11.0
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    if isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        return float(gaussian_exact_variance(prior_i.mean, prior_i.var, prior_j.mean, prior_j.var, alpha, epsilon))

    memo = {} if known is None else known

    def f(z):  # log((value + error) / epsilon): smoother in log z than the difference
        if z not in memo:
            memo[z] = renyi_divergence_bound(prior_i, prior_j, alpha, z)
        val, err = memo[z]
        return _log_ratio(val + err, epsilon)

    lo = _domain_lower_bound(prior_i, prior_j, alpha)
    hint = float(above) if above > lo else None
    if hint is None and lo == 0 and f(0.0) <= 0:
        return 0.0
    hi = gmm_ot_variance(prior_i, prior_j, alpha, epsilon)
    # two samples: the sort-based gmm-ot variance is within a small factor of the root; bracket
    # it by steps of e (the default steps of e^8 probe tiny noises, costly for large samples)
    step = 1.0 if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical) else 8.0
    proved = bool(np.isfinite(hi) and hi > lo)
    hi, proved, hint = _known_bracket(memo, epsilon, lo, hi, proved, above)
    return min_feasible(f, lo, max(hi, lo), rtol=1e-9, step=step, hi_feasible=proved, infeasible=hint, closest=True)


def exact_laplace_scale(
    prior_i: Any,
    prior_j: Any,
    alpha: float,
    epsilon: float,
    *,
    above: float = 0.0,
    known: dict | None = None,
) -> float:
    r"""Minimal Laplace scale ``b`` whose divergence plus its error is at most ε (one order).

    The divergence is :func:`rpp.divergence.laplace_renyi_divergence_bound`.  For two samples the
    joint-convexity scale of ``"w-alpha-tight"`` (:func:`rpp.rules.w_alpha_scale`, rule ``"tight"``)
    is a feasible upper end, not evaluated since it is proved; for continuous priors the
    Laplace scale of the ``"gmm-ot"`` variance (:math:`2b^2 = \theta^2`; the coupling rule
    would integrate over mixture quantiles, seconds at 50 components), and 1 for mixed priors,
    are checked and grown by doubling; :func:`rpp.calibrate` checks the returned scale in any
    case.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``> 0``.
    above : float
        A scale believed infeasible, where the search starts (as in :func:`exact_variance`).
    known : dict, optional
        ``{scale: (value, error)}`` of :func:`rpp.divergence.laplace_renyi_divergence_bound` for this
        order, shared with the caller (as in :func:`exact_variance`).

    Returns
    -------
    float
        ``b >= 0``.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If ``alpha`` or ``epsilon`` is out of range.

    Examples
    --------
    >>> from rpp import Empirical
    >>> b = exact_laplace_scale(Empirical([0.0]), Empirical([1.0]), 2.0, 1.0)
    >>> from rpp.divergence import laplace_rdp
    >>> bool(laplace_rdp(1.0, b, 2.0) <= 1.0 < laplace_rdp(1.0, 0.999 * b, 2.0))
    True
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))

    memo = {} if known is None else known

    def f(b):
        if b not in memo:
            memo[b] = laplace_renyi_divergence_bound(prior_i, prior_j, alpha, b)
        val, err = memo[b]
        return _log_ratio(val + err, epsilon)

    hint = float(above) if above > 0 else None
    if hint is None and f(0.0) <= 0:
        return 0.0
    hi, proved = _laplace_start(prior_i, prior_j, alpha, epsilon)
    hi, proved, hint = _known_bracket(memo, epsilon, 0.0, hi, proved, above)
    # the upper end is within a small factor of the root: bracket it by steps of e
    return min_feasible(f, 0.0, hi, rtol=1e-10, step=1.0, hi_feasible=proved, infeasible=hint, closest=True)


def _laplace_start(prior_i, prior_j, alpha, epsilon):
    r"""``(b, proved)``: the upper end of the Laplace search.

    Two samples: the joint-convexity scale of ``"w-alpha-tight"`` (a sort; proved).  Two
    continuous priors: that rule integrates over mixture quantiles (seconds at 50 components),
    so the Laplace scale of the ``"gmm-ot"`` variance (:math:`2b^2 = \theta^2`), not proved,
    checked and grown by doubling.  Mixed priors: 1, likewise.
    """
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        b = w_alpha_scale(prior_i, prior_j, alpha, epsilon, noise="laplace", rule="tight")
        return (float(b), True) if np.isfinite(b) and b > 0 else (1.0, False)
    if isinstance(prior_i, Empirical) or isinstance(prior_j, Empirical):
        return 1.0, False
    b = float(np.sqrt(gmm_ot_variance(prior_i, prior_j, alpha, epsilon) / 2))
    return (b, False) if np.isfinite(b) and b > 0 else (1.0, False)


def order_probe(orders: list, alpha: float, epsilon: float, known: list[dict], *, noise: str) -> tuple[int, int]:
    r"""Which order of a secret pair needs more noise: ``(first, second)``, the order to solve first.

    The root of :math:`\max(D_\alpha(i\|j), D_\alpha(j\|i))` is the larger of the two
    orders' roots; solving the right order first spares the other's root (one check at the
    first root suffices, the divergence being non-increasing in the noise).  Both orders'
    divergences are computed at a probe scale one step of :math:`e` (in the variance
    :math:`\theta^2`, or in the Laplace scale ``b``) below the smaller of the two orders'
    cheap sufficient scales (``"gmm-ot"``; for Laplace noise the upper end of
    :func:`exact_laplace_scale`'s search),
    and stored in ``known`` (the callers' shared ``{θ² or b: (value, error)}`` dicts, one per
    order), where :func:`exact_variance` and :func:`exact_laplace_scale` find them and start
    from the tightest bracket they give.  If one order meets the budget at the probe and the
    other does not, the latter is solved first; otherwise both are computed at a second point
    a step of :math:`e` towards their roots, each order's root is estimated by the secant of
    :math:`\log(D/\varepsilon)` against the log of the noise parameter through its two
    points, and the larger is solved first (a divergence that is larger at the probe but flat
    can need less noise than a steep one).  A wrong guess costs the second root, never noise:
    the caller checks both orders at the result.

    Parameters
    ----------
    orders : list of two (prior, prior) pairs
        The protected orders of the secret pair.
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``> 0``.
    known : list of two dict
        Divergences already computed, per order (updated in place).
    noise : {"gaussian", "laplace"}

    Returns
    -------
    first, second : int
        Indices of the order to solve first and second.

    Examples
    --------
    >>> from rpp import Empirical
    >>> p, q = Empirical([0.0, 0.1]), Empirical([0.0, 3.0])
    >>> known = [{}, {}]
    >>> order_probe([(p, q), (q, p)], 2.0, 1.0, known, noise="gaussian")  # D(q||p) needs more
    (1, 0)
    >>> [len(k) for k in known]  # one probe each, kept for the root finder: D(p||q) meets the budget there
    [1, 1]
    """
    if len(orders) < 2:
        return 0, 1
    gauss = noise == "gaussian"
    if gauss:
        bounds = [float(np.sqrt(gmm_ot_variance(p, q, alpha, epsilon))) for p, q in orders]
    else:
        bounds = [_laplace_start(p, q, alpha, epsilon)[0] for p, q in orders]
    probe = min(bounds) * np.exp(-0.5 if gauss else -1.0)  # a step of e in theta^2 or in b
    if not (np.isfinite(probe) and probe > 0):
        return 0, 1
    key = (lambda s: float(s) ** 2) if gauss else float
    noise_cls = GaussianNoise if gauss else LaplaceNoise

    def log_ratios(scale):  # log((value + error) / epsilon) of both orders, kept in known
        out = []
        for k, (p, q) in enumerate(orders):
            if key(scale) not in known[k]:
                known[k][key(scale)] = noise_cls(scale).divergence(p, q, alpha)
            out.append(_log_ratio(sum(known[k][key(scale)]), epsilon))
        return out

    g0 = log_ratios(probe)
    if (g0[0] > 0) != (g0[1] > 0):  # one order infeasible at the probe, the other not: decided
        return (1, 0) if g0[1] > 0 else (0, 1)
    # a second point a step of e towards both roots; each order's root in y = log(noise parameter)
    # by the secant through its two points (slope -1 when it is not negative and finite): an order
    # whose divergence falls steeply may need more noise than one that is larger but flat
    second = probe * np.exp((1.0 if g0[0] > 0 else -1.0) * (0.5 if gauss else 1.0))
    g1 = log_ratios(second)
    dy = np.log(key(probe) / key(second))
    roots = []
    for a, b in zip(g0, g1, strict=True):
        slope = (a - b) / dy if np.isfinite(a) and np.isfinite(b) else -1.0
        roots.append(a / -slope if slope < 0 else (np.inf if a > 0 else -np.inf))
    return (1, 0) if roots[1] > roots[0] else (0, 1)
