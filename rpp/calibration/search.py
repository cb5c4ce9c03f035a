r"""Noise calibration for (α, ε)-Rényi Pufferfish Privacy: :func:`calibrate`.

:func:`calibrate` returns the noise scale of an additive mechanism ``M(x) = x + Z`` so that
for the secret pair with conditional priors ``prior_i``, ``prior_j``

.. math::

    D_\alpha\bigl(P(M(X)\mid s_i)\,\|\,P(M(X)\mid s_j)\bigr) \le \varepsilon

(and the reverse order too unless ``directed=True``): Definition II.1 of Yang et al. 2026.
Rényi divergence is not symmetric while a secret pair is unordered, so by default both
orders are protected.  Both priors are first moved by one exact common offset
(``rpp.divergence.centre``; divergences and rules are translation invariant).  Every result is
checked with the divergence of the noise
object and its error (:class:`rpp.noise.GaussianNoise`, :class:`rpp.noise.LaplaceNoise`) and flagged by
``guaranteed``.

The methods are one explicit table, :data:`METHODS` (noise family → method name → rule of
:mod:`rpp.rules`):

=================  ===========================  ==============================================
noise              method                       rule (one order)
=================  ===========================  ==============================================
``"gaussian"``     ``"exact"``                  :func:`rpp.rules.exact_variance` (two Gaussians:
                                                :func:`rpp.rules.gaussian_exact_variance`)
``"gaussian"``     ``"closed-form"``            Theorem III.5, eq. (6) (Gaussian priors)
``"gaussian"``     ``"bisection"``              Algorithm 1 as published (Gaussian priors); it
                                                may under-noise -- kept to show the flaw,
                                                flagged by ``guaranteed=False``
``"gaussian"``     ``"gmm-ot"``                 Theorem IV.1 with its domain enforced
``"gaussian"``     ``"gmm-ot-tight"``           joint convexity, best coupling
``"gaussian"``     ``"pierquin"``               :math:`\theta^2 = \alpha W_\infty^2/(2\varepsilon)`
``"gaussian"``     ``"w-alpha"``,               Theorem 2 of ``awass2026`` (for Gaussian noise
                   ``"w-alpha-tight"``          the two rules are the same computation)
``"laplace"``      ``"exact"``                  :func:`rpp.rules.exact_laplace_scale`
``"laplace"``      ``"pierquin"``               Mironov's Prop. 6 at sensitivity :math:`W_\infty`
``"laplace"``      ``"w-alpha"``                Theorem 1 of ``awass2026`` (rule ``"paper"``)
``"laplace"``      ``"w-alpha-tight"``          exact shifted-Laplace cost (rule ``"tight"``)
=================  ===========================  ==============================================
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ..divergence.centre import centred_orders as _orders  # rules and divergences are translation invariant
from .._lib.numerics import sqrt_up, step_up
from ..priors import Gaussian, check_prior
from ..noise import GaussianNoise, LaplaceNoise
from ..divergence.gaussian_noise import certified_gaussian_divergence
from .result import Calibration, PrivacyWarning
from ..rules.exact import exact_laplace_scale, exact_variance, order_probe
from ..rules.gaussian import (
    closed_form_variance,
    gaussian_exact_variance,
    published_bisection_variance,
)
from ..rules.mixture import gmm_ot_tight_variance, gmm_ot_variance
from ..rules.pierquin import pierquin_laplace_scale, pierquin_variance
from ..rules.w_alpha import w_alpha_scale
from ..transport import w_infinity

__all__ = ["calibrate", "methods", "pair_divergence", "METHODS", "NOISES"]

_RTOL = 1e-9  # relative slack on epsilon when we check a returned scale (round-off only)
# The largest noise scale the round-off guard tries: the quadrature squares distances of a
# few dozen scales (and the variance is scale**2, 2 b**2 for Laplace noise), which stay
# finite in float64 below about 1e152.
_MAX_SCALE = 1e150


@dataclass(frozen=True)
class _Method:
    """One row of the method table."""

    scale: Callable[[Any, Any, float, float], float]  # (prior_i, prior_j, alpha, epsilon) -> scale, one order
    gaussian_variance: Callable[..., Any] | None = None  # vectorised variance for two Gaussian priors
    step_up: bool = True  # round-off guard on the result (not for "bisection")
    # The rule is the minimal feasible scale of one order ("exact"): the order probed as needing more
    # noise (rules.order_probe) is solved first; if the check at its root passes for both orders (the
    # divergence does not increase with the scale) the second root is not computed, otherwise the
    # second order's search starts at the first root (``above=``), where it failed.
    minimal: bool = False


def _scale_of_variance(rule: Callable[[Any, Any, float, float], float]) -> Callable[[Any, Any, float, float], float]:
    """Turn a rule returning a Gaussian noise variance into one returning the scale θ."""

    def scale(p, q, alpha, epsilon):
        return sqrt_up(rule(p, q, alpha, epsilon))  # exact square >= the variance (the domain's edge)

    return scale


def _exact_scale(p, q, alpha, epsilon, above=0.0, known=None):
    """Return the exact rule for Gaussian noise as a scale θ (``above``: a scale believed infeasible)."""
    return sqrt_up(exact_variance(p, q, alpha, epsilon, above=above**2, known=known))


def _on_gaussians(name: str, rule: Callable[..., Any]) -> Callable[[Any, Any, float, float], float]:
    """Return a vectorised rule of :mod:`rpp.rules.gaussian`, applied to two rpp.Gaussian priors."""

    def variance(p, q, alpha, epsilon):
        if not (isinstance(p, Gaussian) and isinstance(q, Gaussian)):
            raise ValueError(
                f"method {name!r} applies to two rpp.Gaussian priors, got {type(p).__name__} and {type(q).__name__}"
            )
        return float(rule(p.mean, p.var, q.mean, q.var, alpha, epsilon))

    return variance


def _pierquin_gaussian_variance(p, q, alpha, epsilon):
    return pierquin_variance(w_infinity(p, q), alpha, epsilon)


#: The method table, ``METHODS[noise][method]`` (noise family, then method name) -> rule.
METHODS: dict[str, dict[str, _Method]] = {
    "gaussian": {
        "exact": _Method(_exact_scale, gaussian_exact_variance, minimal=True),
        "closed-form": _Method(
            _scale_of_variance(_on_gaussians("closed-form", closed_form_variance)), closed_form_variance
        ),
        "bisection": _Method(
            _scale_of_variance(_on_gaussians("bisection", published_bisection_variance)),
            published_bisection_variance,
            step_up=False,
        ),
        "gmm-ot": _Method(_scale_of_variance(gmm_ot_variance)),
        "gmm-ot-tight": _Method(_scale_of_variance(gmm_ot_tight_variance)),
        "pierquin": _Method(_scale_of_variance(_pierquin_gaussian_variance)),
        "w-alpha": _Method(partial(w_alpha_scale, noise="gaussian", rule="paper")),
        "w-alpha-tight": _Method(partial(w_alpha_scale, noise="gaussian", rule="paper")),
    },
    "laplace": {
        "exact": _Method(exact_laplace_scale, minimal=True),
        "pierquin": _Method(pierquin_laplace_scale),
        "w-alpha": _Method(partial(w_alpha_scale, noise="laplace", rule="paper")),
        "w-alpha-tight": _Method(partial(w_alpha_scale, noise="laplace", rule="tight")),
    },
}

#: The noise families, ``NOISES[noise]`` -> noise class (``scale``, ``variance_of``, ``divergence``, ``release``).
NOISES: dict[str, type[GaussianNoise] | type[LaplaceNoise]] = {"gaussian": GaussianNoise, "laplace": LaplaceNoise}


def methods(noise: str = "gaussian") -> list[str]:
    """Return the names of the calibration methods of a noise family.

    Parameters
    ----------
    noise : {"gaussian", "laplace"}
        The noise family.

    Returns
    -------
    list of str
        Sorted method names.

    Raises
    ------
    ValueError
        For an unknown noise family.

    Examples
    --------
    >>> methods("laplace")
    ['exact', 'pierquin', 'w-alpha', 'w-alpha-tight']
    """
    v.one_of("noise", noise, sorted(METHODS))
    return sorted(METHODS[noise])


def pair_divergence(
    prior_i: Any, prior_j: Any, *, alpha: float, scale: float, noise: str = "gaussian", directed: bool = False
) -> tuple[float, float]:
    r"""Certified divergence of a secret pair at a noise scale, maximised over the protected orders.

    Returns ``(value, error)`` with ``value + error`` an upper bound of
    :math:`\max(D_\alpha(P_i * Z\|P_j * Z), D_\alpha(P_j * Z\|P_i * Z))` (only the first
    order with ``directed=True``), computed by the noise object's ``divergence``.
    An infinite scale gives ``(0, 0)``.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float
        Rényi order, ``> 1``.
    scale : float
        Noise scale (θ or ``b``), ``>= 0``.
    noise : {"gaussian", "laplace"}
        The noise family.
    directed : bool
        Protect :math:`D_\alpha(i\|j)` only.

    Returns
    -------
    value, error : float
        The divergence and its error (``value + error`` bounds it from above).

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution or ``directed`` not a bool.
    ValueError
        If ``alpha``, ``scale`` or ``noise`` is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> value, error = pair_divergence(Gaussian(0, 1), Gaussian(2, 1), alpha=3.0, scale=np.sqrt(11.0))
    >>> round(value, 12), bool(error < 1e-15)  # alpha Delta / (2 (1 + 11))
    (0.5, True)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    v.one_of("noise", noise, sorted(NOISES))
    directed = v.flag("directed", directed)
    alpha = float(v.alpha_order(alpha))
    scale = float(v.positive("scale", scale, allow_zero=True, allow_inf=True))
    return _certify(NOISES[noise], _orders(prior_i, prior_j, directed), alpha, scale)


def _certify(noise_cls, orders, alpha, scale):
    """(max value, max error) of the noise's divergence and error over the orders; (0, 0) for an infinite scale."""
    if np.isinf(scale):
        return 0.0, 0.0
    results = [noise_cls(scale).divergence(p, q, alpha) for p, q in orders]
    return max(r[0] for r in results), max(r[1] for r in results)


def _gaussian_grid(rule, orders, a_b, e_b, seconds):
    """Two Gaussian priors, Gaussian noise: one vectorised call per order, certified closed forms."""
    t0 = time.perf_counter()
    var = np.zeros(a_b.shape)
    for p, q in orders:
        var = np.maximum(var, rule(p.mean, p.var, q.mean, q.var, a_b, e_b))
    t1 = time.perf_counter()
    seconds["rule"] += t1 - t0
    div = np.zeros(a_b.shape)
    err = np.zeros(a_b.shape)
    for p, q in orders:
        d, de = certified_gaussian_divergence(p.mean, p.var, q.mean, q.var, a_b, var)
        div, err = np.maximum(div, d), np.maximum(err, de)
    seconds["check"] += time.perf_counter() - t1
    return np.sqrt(var), var, div, err


def _round_off_guard(s: float, certified: Callable, a: float, e: float, noise: str) -> float:
    """Return the smallest scale from ``s`` up whose divergence + error meets the budget.

    A rule is computed on the variance (or on its own parametrisation); at the edge of the
    domain the round trip to the reported scale can cost a few ulps.  The scale is stepped up
    by relative amounts from 1e-13 (x4 each time, at most 12 steps, ~5.6e-7 in all, then
    doubling) until ``divergence + error <= epsilon``.  More noise lowers the divergence but
    not the error bound of its computation (a floor of the quadrature, amplified by
    1/(alpha - 1) near alpha = 1): where that floor alone exceeds ``epsilon``, no scale up to
    ``_MAX_SCALE`` can be certified and a ``ValueError`` says so.
    """

    def meets(x: float) -> bool:
        return x <= 0 or sum(certified(x)) <= e * (1 + _RTOL)

    if not np.isfinite(s):
        return s
    s = step_up(min(s, _MAX_SCALE), meets, rel=1e-13, grow=4.0, tiny=0.0, max_steps=12, limit=_MAX_SCALE)
    if not meets(s):
        raise ValueError(
            f"epsilon={e!r} cannot be certified at alpha={a!r} with {noise} noise: the error bound of "
            "the divergence exceeds it at every noise scale up to 1e150; use a larger epsilon or alpha"
        )
    return s


def _point(entry, noise_cls, orders, a, e, seconds):
    """One (alpha, epsilon) point: the rule's scale over the orders, then the round-off guard.

    Wall times are added to ``seconds``: ``"rule"`` for the rule, ``"check"`` for the
    divergence at the returned scale (and the round-off guard's steps).
    """
    memo: dict[float, tuple[float, float]] = {}
    known: list[dict] = [{} for _ in orders]  # each order's divergences, shared by a minimal rule and the checks
    squared = noise_cls is GaussianNoise  # the variance θ**2, computed as GaussianNoise does; b for Laplace

    def key(x: float) -> float:
        return float(x) ** 2 if squared else float(x)

    def certified(x):
        if x not in memo:
            if np.isinf(x) or not entry.minimal:
                memo[x] = _certify(noise_cls, orders, a, x)
            else:
                for k, (p, q) in enumerate(orders):
                    if key(x) not in known[k]:
                        known[k][key(x)] = noise_cls(x).divergence(p, q, a)
                res = [known[k][key(x)] for k in range(len(orders))]
                memo[x] = (max(r[0] for r in res), max(r[1] for r in res))
        return memo[x]

    t0 = time.perf_counter()
    noise = "gaussian" if squared else "laplace"  # a minimal rule: the order probed as needing more noise first
    first, second = order_probe(orders, a, e, known, noise=noise) if entry.minimal else (0, 1)
    extra = {"known": known[first]} if entry.minimal else {}
    s = float(entry.scale(*orders[first], a, e, **extra))
    t_check = 0.0
    if len(orders) > 1:
        if entry.minimal:
            t_c = time.perf_counter()
            feasible = s > 0 and sum(certified(s)) <= e * (1 + _RTOL)  # the final check, memoised
            t_check = time.perf_counter() - t_c
            if not feasible:
                s = max(s, float(entry.scale(*orders[second], a, e, above=s, known=known[second])))
        else:
            s = max(s, float(entry.scale(*orders[1], a, e)))
    t1 = time.perf_counter()
    seconds["rule"] += t1 - t0 - t_check
    seconds["check"] += t_check

    if entry.step_up:
        s = _round_off_guard(s, certified, a, e, noise)
    d, de = certified(s)
    seconds["check"] += time.perf_counter() - t1
    return s, d, de


def _out(x):
    x = np.asarray(x)
    return x if x.ndim else x.item()


def calibrate(
    prior_i: Any,
    prior_j: Any,
    *,
    alpha: ArrayLike,
    epsilon: ArrayLike,
    method: str = "exact",
    noise: str = "gaussian",
    directed: bool = False,
) -> Calibration:
    r"""Noise scale for (α, ε)-Rényi Pufferfish Privacy of one secret pair.

    The rule ``method`` of the noise family ``noise`` (table in the module docstring) gives
    a scale for each protected order and the larger is kept; the divergence and its error at
    that scale is then computed and a scale short by round-off is stepped up.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        Distributions of the query output given the secrets :math:`s_i` and :math:`s_j`.
    alpha : float or array_like
        Rényi order, ``alpha > 1``.
    epsilon : float or array_like
        Budget, ``epsilon > 0``.  For two Gaussian priors and the methods ``"exact"``,
        ``"closed-form"``, ``"bisection"`` with Gaussian noise, ``alpha`` and ``epsilon``
        broadcast and the whole grid is computed in one vectorised call; otherwise the
        grid is evaluated point by point.
    method : str
        A method of :func:`methods` for ``noise``.
    noise : {"gaussian", "laplace"}
        The noise family.
    directed : bool
        ``False`` (default) protects both :math:`D_\alpha(i\|j)` and
        :math:`D_\alpha(j\|i)`, the scale being the larger of the two;
        ``True`` protects :math:`D_\alpha(P_i\|P_j)` only (the papers' notation).

    Returns
    -------
    Calibration
        ``scale``, ``variance``, the exact ``divergence`` at that scale (max over
        the protected orders), its error (bound or estimate, see :class:`Calibration`) and the
        ``guaranteed`` flag.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution, or ``directed`` is not a bool.
    ValueError
        If ``alpha <= 1``, ``epsilon <= 0`` (or either is not finite), or ``method``/``noise``
        is unknown, or a method does not apply to the priors.

    Warns
    -----
    PrivacyWarning
        When a result does not meet the budget (only the published ``"bisection"`` can).

    Examples
    --------
    Two Gaussian priors with equal variances (Yang et al. 2026, eq. (5): θ² = αΔ/(2ε) − σ²):

    >>> from rpp import Gaussian
    >>> cal = calibrate(Gaussian(0, 1), Gaussian(2, 1), alpha=3, epsilon=0.5)
    >>> round(cal.variance, 9), cal.guaranteed
    (11.0, True)
    >>> calibrate(Gaussian(0, 1), Gaussian(2, 1), alpha=3, epsilon=[0.5, 1.0]).scale.shape
    (2,)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    directed = v.flag("directed", directed)
    v.one_of("noise", noise, sorted(METHODS))
    if method not in METHODS[noise]:
        raise ValueError(f"method must be one of {methods(noise)} for noise={noise!r}, got {method!r}")
    entry = METHODS[noise][method]
    noise_cls = NOISES[noise]
    orders = _orders(prior_i, prior_j, directed)
    a_b, e_b = np.broadcast_arrays(alpha, epsilon)

    seconds = {"rule": 0.0, "check": 0.0}
    if entry.gaussian_variance is not None and isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        scale, var, div, err = _gaussian_grid(entry.gaussian_variance, orders, a_b, e_b, seconds)
    else:
        scale, div, err = np.empty(a_b.shape), np.empty(a_b.shape), np.empty(a_b.shape)
        for idx in np.ndindex(a_b.shape):
            scale[idx], div[idx], err[idx] = _point(entry, noise_cls, orders, float(a_b[idx]), float(e_b[idx]), seconds)
        var = noise_cls.variance_of(scale)
    if np.isnan(scale).any() or np.isnan(div).any():  # pragma: no cover - defensive
        raise RuntimeError("calibration produced NaN; please report this as a bug")
    guaranteed = (div + err) <= e_b * (1 + _RTOL)
    if not np.all(guaranteed):
        warnings.warn(
            f"method {method!r} returned noise below what (alpha, epsilon)-RPP needs for "
            f"{int(np.size(guaranteed) - np.count_nonzero(guaranteed))} of {np.size(guaranteed)} "
            "point(s); use method='exact'",
            PrivacyWarning,
            stacklevel=2,
        )
    return Calibration(
        scale=_out(scale),
        variance=_out(var),
        divergence=_out(div),
        divergence_error=_out(err),
        guaranteed=_out(guaranteed),
        method=method,
        noise=noise,
        alpha=_out(alpha),
        epsilon=_out(epsilon),
        directed=directed,
        details={"orders": len(orders), "seconds": seconds},
    )
