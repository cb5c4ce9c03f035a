r"""Noise calibration for (α, ε)-Rényi Pufferfish Privacy: :func:`calibrate`.

:func:`calibrate` returns the noise scale of an additive mechanism ``M(x) = x + Z`` so that
for the secret pair with conditional priors ``prior_i``, ``prior_j``

.. math::

    D_\alpha\bigl(P(M(X)\mid s_i)\,\|\,P(M(X)\mid s_j)\bigr) \le \varepsilon

(and the reverse order too unless ``directed=True``): Definition II.1 of Yang et al. 2026.
Rényi divergence is not symmetric while a secret pair is unordered, so by default both
orders are protected.  Both priors are first moved by one exact common offset
(``rpp/divergence/_centre.py``; divergences and rules are translation invariant).  Every result is
checked with the divergence of the noise
object and its error (:class:`rpp.noise.GaussianNoise`, :class:`rpp.noise.LaplaceNoise`), flagged by
``rigorous`` (the error is proved), ``within_budget`` and ``guaranteed`` (both: the budget is proved
to be met); by default (``require="proved"``) the final check is proved or calibrate refuses, and
``require="estimate"`` is the explicit opt-in for speed.

The methods are one explicit table, :data:`METHODS` (noise family → method name → rule of
:mod:`rpp.rules`):

=================  ===========================  ===================================================
noise              method                       rule (one order)
=================  ===========================  ===================================================
``"gaussian"``     ``"exact"``                  :func:`rpp.rules.exact` (two Gaussians:
                                                :func:`rpp.rules.gaussian_exact_variance`)
``"gaussian"``     ``"closed-form"``            Theorem III.5, eq. (6) (Gaussian priors)
``"gaussian"``     ``"bisection"``              Algorithm 1 as published (Gaussian priors); it
                                                may under-noise -- kept to show the flaw,
                                                flagged by ``within_budget=False``
``"gaussian"``     ``"gmm-ot"``                 Theorem IV.1 with its domain enforced
``"gaussian"``     ``"gmm-ot-tight"``           joint convexity, best coupling
``"gaussian"``     ``"pierquin"``               :math:`\theta^2 = \alpha W_\infty^2/(2\varepsilon)`
``"gaussian"``     ``"w-alpha"``,               Theorem 2 of ``awass2026`` (for Gaussian noise
                   ``"w-alpha-tight"``          the two rules are the same computation)
``"laplace"``      ``"exact"``                  :func:`rpp.rules.exact`
``"laplace"``      ``"pierquin"``               Mironov's Prop. 6 at sensitivity :math:`W_\infty`
``"laplace"``      ``"w-alpha"``                Theorem 1 of ``awass2026`` (rule ``"paper"``)
``"laplace"``      ``"w-alpha-tight"``          exact shifted-Laplace cost (rule ``"tight"``)
=================  ===========================  ===================================================
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

import rpp.rules as rules  # the package (its rules are looked up by name below)

from .._lib import validation as v
from .._lib.numerics import at_most, step_up
from ..certified import Certified
from ..divergence import binned_laplace_divergence, bins_are_few, certified_gaussian_divergence, convexity_width
from ..divergence import centred_orders as _orders  # rules and divergences are translation invariant
from ..noise import GaussianNoise, LaplaceNoise
from ..priors import Empirical, Gaussian, Prior, check_prior
from ..rules import DivergenceMemo, order_probe, search
from ._result import Calibration, PrivacyWarning

__all__ = ["calibrate", "methods", "pair_divergence", "METHODS", "NOISES"]

# The largest noise scale the round-off guard tries: the quadrature squares distances of a
# few dozen scales (and the variance is scale**2, 2 b**2 for Laplace noise), which stay
# finite in float64 below about 1e152.
_MAX_SCALE = 1e150


@dataclass(frozen=True)
class _Method:
    """One row of the method table."""

    scale: Callable[..., Any]  # rule(prior_i, prior_j, *, alpha, epsilon) -> scale, one order (rpp.rules)
    gaussian_grid: bool = False  # the rule broadcasts over alpha and epsilon for two Gaussian priors
    step_up: bool = True  # round-off guard on the result (not for "bisection")
    # The rule is the minimal feasible scale of one order ("exact"): the order probed as needing more
    # noise (rules.exact.order_probe) is solved first; if the check at its root passes for both orders
    # (the divergence does not increase with the scale) the second root is not computed, otherwise the
    # second order's search starts at the first root (``above=``), where it failed.
    minimal: bool = False
    # The rule gives the same scale for both orders (it reads the pair through a symmetric quantity:
    # W_inf, or a cost of |x - y| over the quantile coupling of two samples, whose transpose
    # couples the other order -- w-alpha's, and gmm-ot's (x - y)^2 between point masses): the
    # second order is not computed.  The final check covers both.
    symmetric: Callable[[Prior, Prior], bool] = lambda _p, _q: False


def _always(_p: Prior, _q: Prior) -> bool:
    return True


def _two_samples(p: Prior, q: Prior) -> bool:
    return isinstance(p, Empirical) and isinstance(q, Empirical)


#: The method table, ``METHODS[noise][method]`` (noise family, then method name) -> rule.
METHODS: dict[str, dict[str, _Method]] = {
    "gaussian": {
        "exact": _Method(partial(rules.exact, noise="gaussian"), gaussian_grid=True, minimal=True),
        "closed-form": _Method(rules.closed_form, gaussian_grid=True),
        "bisection": _Method(rules.published_bisection, gaussian_grid=True, step_up=False),
        "gmm-ot": _Method(rules.gmm_ot, symmetric=_two_samples),
        "gmm-ot-tight": _Method(rules.gmm_ot_tight, symmetric=_two_samples),
        "pierquin": _Method(partial(rules.pierquin, noise="gaussian"), symmetric=_always),
        "w-alpha": _Method(partial(rules.w_alpha, noise="gaussian", rule="paper"), symmetric=_two_samples),
        "w-alpha-tight": _Method(partial(rules.w_alpha, noise="gaussian", rule="paper"), symmetric=_two_samples),
    },
    "laplace": {
        "exact": _Method(partial(rules.exact, noise="laplace"), minimal=True),
        "pierquin": _Method(partial(rules.pierquin, noise="laplace"), symmetric=_always),
        "w-alpha": _Method(partial(rules.w_alpha, noise="laplace", rule="paper"), symmetric=_two_samples),
        "w-alpha-tight": _Method(partial(rules.w_alpha, noise="laplace", rule="tight"), symmetric=_two_samples),
    },
}

#: The noise families, ``NOISES[noise]`` -> noise class (``scale``, ``variance_of``, ``divergence``, ``release``).
NOISES: dict[str, type[GaussianNoise] | type[LaplaceNoise]] = {"gaussian": GaussianNoise, "laplace": LaplaceNoise}


def methods(noise: str | type = "gaussian") -> list[str]:
    """Return the names of the calibration methods of a noise family.

    Parameters
    ----------
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).

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
    noise = v.noise_family("noise", noise, sorted(METHODS))
    return sorted(METHODS[noise])


def pair_divergence(
    prior_i: Prior,
    prior_j: Prior,
    *,
    alpha: float,
    scale: float,
    noise: str | type = "gaussian",
    directed: bool = False,
    require: str = "estimate",
) -> Certified:
    r"""Divergence of a secret pair at a noise scale, maximised over the protected orders.

    A :class:`rpp.Certified` whose interval contains
    :math:`\max(D_\alpha(P_i * Z\|P_j * Z), D_\alpha(P_j * Z\|P_i * Z))` (only the first
    order with ``directed=True``): ``value`` and ``error`` are the largest of the two orders'
    (:func:`rpp.renyi_divergence` with the noise object), ``rigorous`` holds if both are proved.
    An infinite scale gives 0 (proved).

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors.
    alpha : float
        Rényi order, ``> 1``.
    scale : float
        Noise scale (θ or ``b``), ``>= 0``.
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).
    directed : bool
        Protect :math:`D_\alpha(i\|j)` only.
    require : {"estimate", "proved"}
        As in :func:`rpp.renyi_divergence`.

    Returns
    -------
    Certified
        The largest divergence over the protected orders and its error (as ``require`` asks).

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution or ``directed`` not a bool.
    ValueError
        If ``alpha``, ``scale``, ``noise`` or ``require`` is out of range, or ``require="proved"``
        and no proved path exists for the priors and noise.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> d = pair_divergence(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, scale=np.sqrt(11.0))
    >>> round(d.value, 12), d.rigorous, bool(d.error < 1e-15)  # alpha Delta / (2 (1 + 11))
    (0.5, True, True)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    noise = v.noise_family("noise", noise, sorted(NOISES))
    v.one_of("require", require, ["estimate", "proved"])
    directed = v.flag("directed", directed)
    alpha = float(v.alpha_order(alpha))
    scale = float(v.positive("scale", scale, allow_zero=True, allow_inf=True))
    return _certify(NOISES[noise], _orders(prior_i, prior_j, directed), alpha, scale, require)


def _certify(noise_cls, orders, alpha, scale, require="estimate", budget=None, memos=None, at_most=None) -> Certified:
    """Return the largest value and error of the noise's divergence over the orders; 0 for an infinite scale.

    With a ``budget`` (Laplace noise on two large samples), an order whose binned enclosure
    (:func:`_binned_check`) proves the budget met is not computed on the atoms.  ``memos``: one
    :class:`~rpp.rules.DivergenceMemo` per order, which computes (or already knows) the
    order's divergence on the atoms (default: the noise object's divergence); an order the memo
    already knows is not binned.  The orders' intervals are combined by :func:`_largest`: the
    dominant order's own interval where its lower end clears every other's upper end, else ``max
    value +- max error`` (so the dominant order is not reported to the other order's width, e.g. a
    binned order's, or a proof's of an order far below the budget).  ``at_most`` (with
    ``require="proved"``): the budget the proofs are for (:func:`rpp.renyi_divergence`'s).
    """
    if np.isinf(scale):
        return Certified(0.0, 0.0, rigorous=True)
    results = []
    for k, (p, q) in enumerate(orders):
        known = memos is not None and float(scale) in memos[k]._values
        cheap = _binned_check(noise_cls, p, q, alpha, scale, budget) if budget is not None and not known else None
        if cheap is not None:
            results.append(cheap)
        elif memos is not None and require == "estimate":
            results.append(memos[k].certified(scale))
        else:
            extra = {"at_most": at_most} if require == "proved" and at_most is not None else {}
            results.append(noise_cls(scale).divergence(p, q, alpha=alpha, require=require, **extra))
    return _largest(results)


def _largest(results) -> Certified:
    """Return an interval containing the largest of the orders' divergences, each ``value +- error``.

    If one order's lower end is at least every other's upper end, its own interval; otherwise
    ``max value +- max error`` (it contains the largest: at most ``max(value_k + error_k)``, at
    least ``value_k* - error_k*`` for the largest value).  ``rigorous`` if every order's is.
    """
    rigorous = all(r.rigorous for r in results)
    value = max(float(r.value) for r in results)
    if np.isinf(value):
        return Certified(value, 0.0, rigorous=rigorous)
    for r in results:
        if all(float(r.value) - float(r.error) >= float(o.value) + float(o.error) for o in results if o is not r):
            return Certified(float(r.value), float(r.error), rigorous=rigorous)
    return Certified(value, max(float(r.error) for r in results), rigorous=rigorous)


# Laplace noise on two samples of at least this many atoms together: a check that a scale meets
# its budget first tries the proved enclosure of the samples binned (rpp/divergence/_laplace_binned.py,
# tens of milliseconds at a million atoms each instead of a second), with bins whose term is at
# most _BINNED_SHARE of the budget; it decides only where it proves the budget met, otherwise the
# divergence of the atoms is computed.
_BINNED_MIN_ATOMS = 20_000
_BINNED_SHARE = 1e-2


def _binned_check(noise_cls, p, q, alpha, scale, budget) -> Certified | None:
    """Return the binned enclosure of one order at ``scale`` if it applies and proves ``budget`` met, else ``None``."""
    if noise_cls is not LaplaceNoise or not (isinstance(p, Empirical) and isinstance(q, Empirical)):
        return None
    if p.support.size + q.support.size < _BINNED_MIN_ATOMS or not 0 < scale < np.inf:
        return None
    rho = min(_BINNED_SHARE * budget * (alpha - 1) / (2 * alpha - 1), 1e-2)
    if not bins_are_few(p, q, 2 * rho * scale):
        return None
    c = binned_laplace_divergence(p, q, scale=scale, alpha=alpha, rho=rho)
    return c if c.rigorous and at_most(c.value, c.error, budget) else None


def _gaussian_grid(rule, orders, a_b, e_b, seconds):
    """Two Gaussian priors, Gaussian noise: one vectorised call per order, closed forms with proved rounding bounds."""
    t0 = time.perf_counter()
    scale = np.zeros(a_b.shape)
    for p, q in orders:
        scale = np.maximum(scale, rule(p, q, alpha=a_b, epsilon=e_b))
    var = scale**2  # the variance of GaussianNoise(scale), checked below
    t1 = time.perf_counter()
    seconds["rule"] += t1 - t0
    div = np.zeros(a_b.shape)
    err = np.zeros(a_b.shape)
    for p, q in orders:
        d, de = certified_gaussian_divergence(p.mean, p.var, q.mean, q.var, a_b, var)
        div, err = np.maximum(div, d), np.maximum(err, de)
    seconds["check"] += time.perf_counter() - t1
    return scale, var, div, err


def _grid_guard(orders, a_b, e_b, scale, var, div, err, seconds):
    """Step up the grid points whose proved upper end exceeds the budget (round-off of the rule), in place.

    The closed forms are computed on the variance; the proved divergence at the returned scale can
    land a few ulps above ``epsilon``.  Each such point's scale is stepped up by relative amounts
    from 1e-13 (x4 each time, up to a relative 0.1) until ``divergence + error <= epsilon``
    holds exactly (:func:`rpp._lib.numerics.at_most`); a point still above is left flagged
    (``within_budget=False``).
    """
    t0 = time.perf_counter()
    step = 1e-13
    while step < 0.2:
        bad = ~np.asarray(at_most(div, err, e_b)) & (scale > 0) & np.isfinite(scale)
        if not bad.any():
            break
        scale[bad] = scale[bad] * (1 + step)
        var[bad] = scale[bad] ** 2
        d_new, e_new = np.zeros(int(bad.sum())), np.zeros(int(bad.sum()))
        for p, q in orders:
            d, de = certified_gaussian_divergence(p.mean, p.var, q.mean, q.var, a_b[bad], var[bad])
            d_new, e_new = np.maximum(d_new, d), np.maximum(e_new, de)
        div[bad], err[bad] = d_new, e_new
        step *= 4
    seconds["check"] += time.perf_counter() - t0


def _round_off_guard(s: float, certified: Callable, a: float, e: float, noise: str, *, defer: bool = False) -> float:
    """Return the smallest scale from ``s`` up whose divergence + error meets the budget.

    A rule is computed on the variance (or on its own parametrisation); at the edge of the
    domain the round trip to the reported scale can cost a few ulps.  The scale is stepped up
    by relative amounts from 1e-13 (x4 each time, at most 12 steps, ~5.6e-7 in all, then
    doubling) until ``divergence + error <= epsilon``.  More noise lowers the divergence but
    not the error bound of its computation (a floor of the quadrature, amplified by
    1/(alpha - 1) near alpha = 1): where that floor alone exceeds ``epsilon``, no scale up to
    ``_MAX_SCALE`` meets the budget and a ``ValueError`` says so.

    ``defer=True`` (an estimate's check before a proof): the steps stop at 1e-6 relative, and where
    they do not meet the budget ``s`` itself is returned for the proof to decide (a tiny epsilon
    whose estimate's round-off floor is of its size: the proved closed forms meet it; the estimate's
    floor would have doubled the noise, or refused).
    """

    def meets(x: float) -> bool:
        value, error = certified(x)
        return x <= 0 or bool(at_most(value, error, e))

    if not np.isfinite(s):
        return s
    s0 = s
    limit = min(_MAX_SCALE, s * (1 + 1e-6)) if defer else _MAX_SCALE
    s = step_up(min(s, _MAX_SCALE), meets, rel=1e-13, grow=4.0, tiny=0.0, max_steps=12, limit=limit)
    if not meets(s):
        if defer:
            return s0
        raise ValueError(
            f"epsilon={e!r} cannot be met with its error bound at alpha={a!r} with {noise} noise: the error bound of "
            "the divergence exceeds it at every noise scale up to 1e150; use a larger epsilon or alpha"
        )
    return s


def _proved_check(noise_cls, orders, a, e, s, step, noise, memos=None) -> tuple[float, Certified]:
    """Return the proved divergence at ``s`` (arb); with ``step``, ``s`` is stepped up until its upper end meets ``e``.

    At each scale the orders are proved by :func:`_prove_at`, the one estimated largest at ``s``
    first where ``memos`` (one :class:`~rpp.rules.DivergenceMemo` per order) already know
    both estimates there (:func:`_dominant_first`; no estimate is computed for it), and from then on
    the order last proved above ``e`` first; a scale is given up after the first order proved
    above ``e``.  The scale returned has every order proved.
    """
    orders = _dominant_first(orders, memos, s)
    memo: dict[float, tuple[Certified, bool]] = {}  # scale -> (enclosure, every order proved)

    decide = False  # the proofs decide the budget (at_most) only where the scale was aimed

    def proved(x: float) -> tuple[float, float]:
        if x not in memo:
            enclosure, failed = _prove_at(noise_cls, orders, a, e, x, decide)
            memo[x] = (enclosure, failed is None)
            if failed:  # the order above the budget is proved first at the next scales
                orders.insert(0, orders.pop(failed))
        return float(memo[x][0].value), float(memo[x][0].error)

    if step and noise_cls is GaussianNoise:
        aimed = _aimed(s, memos, e, 0.5 * max(_convexity_width(o, a, s) for o in orders))
        decide, s = aimed != s, aimed
    if step:
        s = _provable(s, proved, e)
        value, error = proved(s)
        if not at_most(value, error, e) and np.isfinite(value) and value > 0:
            # a proved enclosure can be wider than the fast path's error (the convexity bounds' 1e-4 of (alpha - 1) D): jump
            # by a part of the relative excess, then by all of it, before the guard's small steps, each of
            # which costs a proof
            excess = (value + error - e) / e
            if 0 < excess < 1e-2:
                # D falls like scale^-k near s: k = 2 at large noise (D ~ 1 / scale^2), about 8 for two
                # combs of atoms (chapter 5). The first jump is 1.25 excess / k, k read off the proof at s
                # and one estimate just above it (a quarter of the excess, before, needed k >= 4: 1e3
                # atoms took three proofs; a fixed 5/8 over-noised the combs by 1e-4); then all of it
                k = _local_exponent(noise_cls, orders, a, s, value)
                first = min(1.0, 1.25 / k) if k is not None else 0.25
                for part in dict.fromkeys((first, 1.0)):
                    jump = s * (1 + part * excess)
                    if at_most(*proved(jump), e):
                        s = jump
                        break
        s = _round_off_guard(s, proved, a, e, noise)
    proved(s)
    if not memo[s][1]:  # not met (no step met the budget): every order proved, as reported
        memo[s] = (_largest([_certify(noise_cls, [o], a, s, "proved") for o in orders]), True)
    return s, memo[s][0]


# The proved check of a minimal rule aims at epsilon (1 - m), not at epsilon, where a proof is by the
# convexity bounds (Gaussian noise on more than a few components): the estimate's root sits a rounding
# error under epsilon, where no proof of finite cost decides (the convexity bounds are about 1e-5 of
# (alpha - 1) D wide by default up to 256 components in all, 1e-4 beyond), and the first proof there
# was always given up. m is half that width (rpp.divergence.convexity_width; 0 for arb's
# proofs, 2^-64 wide, which meet epsilon at the root): the proofs decide it (their halving stops once
# the upper end is below the budget, at_most of rpp.renyi_divergence) at a fraction of the density
# evaluations, for about m / k more noise (k = -d log D / d log scale: about 1 to 2 at large noise, up
# to about 8 for combs of atoms). Measured on two samples of 10,000 atoms: the proved default 4.7 ->
# 1.4 times the estimate's time (tools/bench_gate.py), the scale 9e-6 above the estimate's instead
# of 1e-7; chapter 4's spiky fits (10 components each): 5e-6 above.


def _convexity_width(order, a, s) -> float:
    """Return the default relative width of the order's proof under Gaussian noise of scale ``s`` (0 for arb, 1e-5, 1e-4)."""
    ci, cj = (prior.components() for prior in order)
    return convexity_width((ci.weights, ci.means, ci.vars), (cj.weights, cj.means, cj.vars), alpha=a, scale=s)


def _aimed(s, memos, e, margin) -> float:
    """Return the scale whose estimated divergence is ``e (1 - margin)``, from ``s`` up (``s`` if unknown or ``margin`` 0).

    Where the memos (one :class:`~rpp.rules.DivergenceMemo` per order) know both orders'
    estimates at ``s`` and the largest is above ``e (1 - margin)``, the scale moves up by
    ``(D / (e (1 - margin)))^(1 / k)``, ``k = -d log D / d log scale`` read off the largest order's memo at
    ``s`` and at the nearest scale its search estimated (1e-7 to 1e-1 away in log), else at
    ``s (1 + 2^-10)`` (one estimate, memoised); at most a relative ``4 margin``.  Only the
    scale the proof starts from moves: the proof decides (and steps up further where it fails).
    """
    if memos is None or not margin > 0 or not 0 < s < np.inf:
        return s
    known = [m.known().get(s) for m in memos]
    if any(k is None for k in known):
        return s
    tops = [value + error for value, error in known]
    dom = int(np.argmax(tops))
    d0, aim = tops[dom], e * (1 - margin)
    if not (0 < aim < d0 < np.inf):
        return s
    # the nearest scale the search already estimated, 1e-7 to 1e-1 away (its difference in D far above the
    # estimates' errors), else one estimate at s (1 + 2^-10)
    near = [
        (abs(math.log(x / s)), x, value + error)
        for x, (value, error) in memos[dom].known().items()
        if 0 < x < np.inf and 1e-7 < abs(math.log(x / s)) < 0.1 and 0 < value + error < np.inf
    ]
    if near:
        _, x1, d1 = min(near)
    else:
        x1 = s * (1 + 2.0**-10)
        try:
            d1 = sum(memos[dom](x1))
        except ValueError:
            return s
    k = math.log(d0 / d1) / math.log(x1 / s)
    if not k > 0:
        return s
    return s * min(math.exp(math.log(d0 / aim) / k), 1 + 4 * margin)


def _dominant_first(orders, memos, s) -> list:
    """Return the orders, the one estimated largest at ``s`` first where ``memos`` know both estimates there (else as given)."""
    orders = list(orders)
    if memos is None or len(orders) < 2:
        return orders
    known = [m.known().get(s) for m in memos]
    if any(k is None for k in known):
        return orders
    return [orders[k] for k in sorted(range(len(orders)), key=lambda k: -known[k][0])]


def _prove_at(noise_cls, orders, a, e, x, decide=False) -> tuple[Certified, int | None]:
    """Return ``(enclosure, failed)`` of the largest order's divergence at scale ``x``, proved order by order.

    With ``decide`` (the scale was aimed at ``e (1 - margin)``, the dominant order first) every
    order is proved for the budget (``at_most=e``: a proof stops once it places the divergence
    below ``e``): the dominant order's enclosure, the one reported, is then about as narrow as the
    margin, and the others need only clear it.  Otherwise each is proved to its default width (a
    divergence far below the budget is reported as computed, whichever order is largest).

    The first order whose proved upper end exceeds ``e`` ends it (``failed`` its index, the
    enclosure its own: the largest order's upper end is at least as high, so the scale is given up;
    the other order's proof there would be discarded with it).  Otherwise every order is proved and the
    enclosures are combined by :func:`_largest` (the dominant order's own interval where its lower
    end clears every other's upper end: ``max value +- max error`` put the other order's wider error
    on the dominant value and cost a proof more, and more noise, in both cases measured).
    """
    results = []
    for k, o in enumerate(orders):
        r = _certify(noise_cls, [o], a, x, "proved", at_most=e if decide else None)
        if len(orders) > 1 and not at_most(float(r.value), float(r.error), e):
            return r, k
        results.append(r)
    return _largest(results), None


def _local_exponent(noise_cls, orders, a, s, value) -> float | None:
    """Return ``k = -d log D / d log scale`` at ``s`` from the proved ``value`` there and one estimate at ``s (1 + 2^-10)``.

    It only sizes the first jump of :func:`_proved_check` (whose every scale is proved); None where
    the estimate is not finite, not positive or does not fall below ``value``.
    """
    h = 2.0**-10
    try:
        d1 = float(_certify(noise_cls, orders, a, s * (1 + h), "estimate").value)
    except ValueError:
        return None
    if not (0 < d1 < value < np.inf):
        return None
    return math.log(value / d1) / math.log1p(h)


def _provable(s: float, proved: Callable, budget: float) -> float:
    """Return ``s`` if its divergence is proved, else the first step up with a proof that meets ``budget``.

    A minimal rule can land exactly on the edge of the Gaussian tail condition (the smallest noise
    with a finite divergence), where no proved path applies.  The steps are relative
    ``2^-40, 2^-30, 2^-20, 2^-10`` (1e-12 to 1e-3 more noise): just past the edge the integrand
    decays slowly and its proved enclosure is wide, so the first step whose proved upper end meets
    the budget is kept (else the first step with any proof).  The ValueError of ``s`` is raised
    where no step is proved.
    """
    try:
        proved(s)
        return s
    except ValueError as first:
        provable = None
        for k in (40, 30, 20, 10):
            nxt = s * (1 + 2.0**-k)
            try:
                value, error = proved(nxt)
            except ValueError:
                continue
            if at_most(value, error, budget):
                return nxt
            provable = nxt if provable is None else provable
        if provable is None:
            raise first
        return provable


def _nudged(s: float, certified: Callable, budget: float) -> tuple[float, bool]:
    """Return ``(s', True)`` for the first of four tiny steps up from ``s`` whose check meets ``budget``, else ``(s, False)``.

    "Meets" is ``value + error <= budget`` for the check ``certified`` returns: proved where that
    check is (its ``rigorous`` flag, carried to ``Calibration.guaranteed``), an estimate otherwise.

    The first order's root meets the budget in floating point, not always exactly (the final check
    has no slack, issue #34): a few steps up (1e-12, x8; each one check) come before a second
    search of a dozen divergences.  More noise only lowers both orders' divergences.
    """
    if not 0 < s < np.inf:
        return s, False
    for k in range(4):
        nxt = s * (1 + 1e-12 * 8.0**k)
        value, error = certified(nxt)
        if at_most(value, error, budget):
            return nxt, True
    return s, False


def _point(entry, noise_cls, orders, a, e, seconds, require="estimate"):
    """One (alpha, epsilon) point: the rule's scale over the orders, the round-off guard, the final check.

    The final check is the divergence at the returned scale with its ``rigorous`` flag (the
    round-off guard's, where it computed that scale);
    with ``require="proved"`` a result that is not proved is replaced by the proved enclosure
    (:func:`rpp.divergence.proved_divergence`) and, where its upper end exceeds the budget, the scale is stepped
    up again against the proved enclosure.  Wall times are added to ``seconds``: ``"rule"`` for the rule, ``"check"`` for the
    divergence at the returned scale (and the round-off guard's steps).
    """
    memo: dict[float, Certified] = {}  # the checks at each scale tried (the last one is the final check)
    noise = "gaussian" if noise_cls is GaussianNoise else "laplace"
    # each order's divergences at noise scales, shared by a minimal rule's search and the checks
    memos = [DivergenceMemo(p, q, alpha=a, noise=noise) for p, q in orders]

    budget = e

    def check(x) -> Certified:
        if x not in memo:
            # a minimal rule's orders are computed through their memos (shared with its search)
            memo[x] = _certify(noise_cls, orders, a, x, budget=budget, memos=memos if entry.minimal else None)
        return memo[x]

    def certified(x):
        return float(check(x).value), float(check(x).error)

    t0 = time.perf_counter()
    if entry.minimal:  # the order probed as needing more noise first, its search sharing the memos
        first, second = order_probe(orders, alpha=a, epsilon=e, noise=noise, memos=memos)
        s = search(*orders[first], alpha=a, epsilon=e, noise=noise, memo=memos[first])
    else:
        s = float(entry.scale(*orders[0], alpha=a, epsilon=e))
    t_check = 0.0
    if len(orders) > 1:
        if entry.minimal:
            t_c = time.perf_counter()
            value, error = certified(s)
            feasible = s > 0 and bool(at_most(value, error, budget))  # the final check, memoised
            if not feasible:
                s, feasible = _nudged(s, certified, budget)
            t_check = time.perf_counter() - t_c
            if not feasible:
                s = max(s, search(*orders[second], alpha=a, epsilon=e, noise=noise, above=s, memo=memos[second]))
        elif not entry.symmetric(*orders[1]):
            s = max(s, float(entry.scale(*orders[1], alpha=a, epsilon=e)))
    t1 = time.perf_counter()
    seconds["rule"] += t1 - t0 - t_check
    seconds["check"] += t_check

    if entry.step_up:
        s = _round_off_guard(s, certified, a, e, noise, defer=require == "proved" and not check(s).rigorous)
    final = check(s)  # computed once: the round-off guard's last step is usually this scale
    if require == "proved" and not final.rigorous:
        s, final = _proved_check(noise_cls, orders, a, e, s, entry.step_up, noise, memos)
    seconds["check"] += time.perf_counter() - t1
    return s, final


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
    noise: str | type = "gaussian",
    directed: bool = False,
    require: str = "proved",
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
        Budget, ``epsilon >= 1e-300`` (finite).  For two Gaussian priors and the methods ``"exact"``,
        ``"closed-form"``, ``"bisection"`` with Gaussian noise, ``alpha`` and ``epsilon``
        broadcast and the whole grid is computed in one vectorised call; otherwise the
        grid is evaluated point by point.
    method : str
        A method of :func:`methods` for ``noise``.
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).
    directed : bool
        ``False`` (default) protects both :math:`D_\alpha(i\|j)` and
        :math:`D_\alpha(j\|i)`, the scale being the larger of the two;
        ``True`` protects :math:`D_\alpha(P_i\|P_j)` only (the papers' notation).
    require : {"proved", "estimate"}
        ``"proved"`` (default): the final check is proved (the fast divergence where it is proved:
        two Gaussians, Laplace noise on empirical priors; else the enclosure of
        :func:`rpp.divergence.proved_divergence`, arb or the convexity bounds for many components under Gaussian
        noise; the scale is stepped up until the proved upper end meets the budget), so
        ``rigorous`` and ``guaranteed`` are True, and a ValueError names the priors, the noise and
        the hypothesis that failed where no proved path exists (Laplace noise on more than 64
        Gaussian components, for one).  ``"estimate"``: an explicit opt-in for speed (a loop over
        many calibrations, a draft): the final check is the fast divergence, proved where it is
        and an **estimate** otherwise, and ``rigorous`` says which.

    Returns
    -------
    Calibration
        ``scale``, ``variance``, the ``divergence`` at that scale (max over the protected
        orders), its error, ``rigorous`` (the error is proved), ``within_budget`` and
        ``guaranteed`` (= proved to meet the budget), see :class:`~rpp.calibration.Calibration`.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution, or ``directed`` is not a bool.
    ValueError
        If ``alpha <= 1``, ``epsilon < 1e-300`` (or either is not finite), or ``method``/``noise``
        is unknown, or a method does not apply to the priors, or ``require="proved"`` and no
        proved path exists.
    ImportError
        If ``require="proved"`` needs python-flint and it is missing (a dependency of ``rpp-book``).

    Warns
    -----
    PrivacyWarning
        When a result does not meet the budget (only the published ``"bisection"`` can).

    Examples
    --------
    Two Gaussian priors with equal variances (Yang et al. 2026, eq. (5): θ² = αΔ/(2ε) − σ²):

    >>> from rpp import Gaussian
    >>> cal = calibrate(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, epsilon=0.5)
    >>> round(cal.variance, 9), cal.rigorous, cal.guaranteed
    (11.0, True, True)
    >>> calibrate(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, epsilon=[0.5, 1.0]).scale.shape
    (2,)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    directed = v.flag("directed", directed)
    noise = v.noise_family("noise", noise, sorted(METHODS))
    v.one_of("require", require, ["estimate", "proved"])
    if method not in METHODS[noise]:
        raise ValueError(f"method must be one of {methods(noise)} for noise={noise!r}, got {method!r}")
    entry = METHODS[noise][method]
    noise_cls = NOISES[noise]
    orders = _orders(prior_i, prior_j, directed)
    a_b, e_b = np.broadcast_arrays(alpha, epsilon)

    seconds = {"rule": 0.0, "check": 0.0}
    if entry.gaussian_grid and isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        scale, var, div, err = _gaussian_grid(entry.scale, orders, a_b, e_b, seconds)
        scale, var, div, err = (np.array(x, dtype=float) for x in (scale, var, div, err))  # writable, 0-d too
        if entry.step_up:
            _grid_guard(orders, a_b, e_b, scale, var, div, err, seconds)
        rigorous = True  # certified closed forms
    else:
        scale, div, err = np.empty(a_b.shape), np.empty(a_b.shape), np.empty(a_b.shape)
        rigorous = True
        for idx in np.ndindex(a_b.shape):
            scale[idx], c = _point(entry, noise_cls, orders, float(a_b[idx]), float(e_b[idx]), seconds, require)
            div[idx], err[idx], rigorous = float(c.value), float(c.error), rigorous and c.rigorous
        var = noise_cls.variance_of(scale)
    if np.isnan(scale).any() or np.isnan(div).any():  # pragma: no cover - defensive
        raise RuntimeError("calibration produced NaN; please report this as a bug")
    within = np.asarray(at_most(div, err, e_b))
    if not np.all(within):
        warnings.warn(
            f"method {method!r} returned noise below what (alpha, epsilon)-RPP needs for "
            f"{int(np.size(within) - np.count_nonzero(within))} of {np.size(within)} "
            "point(s); use method='exact'",
            PrivacyWarning,
            stacklevel=2,
        )
    return Calibration(
        scale=_out(scale),
        variance=_out(var),
        divergence=_out(div),
        divergence_error=_out(err),
        rigorous=bool(rigorous),
        within_budget=_out(within),
        guaranteed=_out(within & bool(rigorous)),
        method=method,
        noise=noise,
        alpha=_out(alpha),
        epsilon=_out(epsilon),
        directed=directed,
        details={"orders": len(orders), "seconds": seconds},
    )
