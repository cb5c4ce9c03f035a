r"""The α-Wasserstein condition on two samples, and its grid for many pairs (private module).

Two :class:`~rpp.Empirical` priors are coupled by the monotone (quantile) coupling
(:func:`rpp.quantile_coupling`): distances :math:`d_k = x_k - y_k` with masses :math:`m_k`.  The
condition of :func:`rpp.rules.w_alpha` on them is

.. math::

    g(t) = \log \sum_k m_k\,c(d_k; t) - (\alpha - 1)\varepsilon \;\le\; 0,

increasing in :math:`t = 1/b` or :math:`1/\sigma^2` (the cost :math:`c` of
:mod:`rpp.rules._costs` grows with :math:`|d|` and :math:`t`); the rule is the largest root.  It is
evaluated on the normalised distances :math:`d_k/w` (:func:`rpp.rules._costs.normalised`) at
:math:`t_w`.  With many pairs the distances rounded up (down) to a grid of :data:`GRID_STEPS` points
per octave give a condition above (below) it: their roots bracket the rule's
(:func:`grid_bracket`), and the rounded-up one alone is a proved scale (:func:`gridded_scale`).

One owner for :func:`rpp.rules.w_alpha` (two samples), ``"gmm-ot"`` on two samples
(``rpp/rules/_mixture.py``: the Gaussian cost's bracket) and the Laplace start of
:func:`rpp.rules.exact` (the gridded scale).  Names without a leading underscore are this
package's (``rpp.rules``) own, not the public API.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._lib.numerics import largest_feasible, lse, step_up
from ..priors import Empirical
from ..transport import quantile_coupling
from ._costs import Cost, U, normalised, normalised_t, pair_cost, scale_of

# Many atoms: the distances rounded to a grid of GRID_STEPS points per octave bracket the root
# (the cost grows with |d|: rounding every distance up can only raise the condition, down only
# lower it), so the exact condition, a pass over every pair, is solved in that narrow bracket.
#: Number of coupled pairs from which the grid brackets the root (and the ``"lap"`` cost may use
#: its closed form, :func:`condition`); below it a pass over every pair is cheap.
GRID_MIN_PAIRS = 20_000
#: Grid points per octave of distance (a step of ``2**(1/256) - 1``, about 0.27 %).
GRID_STEPS = 256


def empirical_coupling(prior_i: Empirical, prior_j: Empirical) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(d, m)``: the distances ``x - y`` of the monotone coupling of two samples and their masses.

    Parameters
    ----------
    prior_i, prior_j : Empirical
        The two samples.

    Returns
    -------
    (ndarray, ndarray)
        The coupled distances and their masses (:func:`rpp.quantile_coupling`).
    """
    x, y, m = quantile_coupling(prior_i, prior_j)
    return x - y, m


def log_moment_of_logs(d: np.ndarray, logm: np.ndarray, cost: Cost, t: float) -> float:
    r"""Return :math:`\log\sum_k m_k\,c(d_k; t)` from the log masses (``0`` or ``+inf`` at ``t = inf``).

    Parameters
    ----------
    d : ndarray
        Distances.
    logm : ndarray
        Their log masses.
    cost : Cost
        The per-pair cost (:func:`rpp.rules._costs.pair_cost`).
    t : float
        The cost's parameter.

    Returns
    -------
    float
        The log-sum-exp (:func:`rpp._lib.numerics.lse`) of :math:`\log m_k + \log c(d_k; t)`.
    """
    if np.isinf(t):
        return 0.0 if np.all(d == 0) else np.inf
    return float(lse(logm + cost.log(d, t)))


def empirical_log_moment(d: np.ndarray, m: np.ndarray, cost: Cost, t: float) -> float:
    r"""Return :math:`\log\sum_k m_k\,c(d_k; t)`, the left side of the condition (:func:`log_moment_of_logs`).

    Parameters
    ----------
    d, m : ndarray
        Distances and their masses.
    cost : Cost
        The per-pair cost.
    t : float
        The cost's parameter.

    Returns
    -------
    float
        The log moment.
    """
    return log_moment_of_logs(d, np.log(m), cost, t)


def condition(dn: np.ndarray, m: np.ndarray, cost: Cost, target: float) -> Callable[[float], float]:
    r"""Return ``g(t_w)``: the empirical condition on every pair minus ``target`` (increasing; the rule is its largest root).

    Many pairs (:data:`GRID_MIN_PAIRS`) with the ``"lap"`` cost: the closed form of
    :meth:`rpp.rules._costs.Cost.log_closed_form` (three passes instead of a series per pair), its
    error bound :math:`E` and the rounding of the log-sum-exp added to the condition, where that
    charge is below ``1e-12`` of the target (so that the root moves by less than about that);
    otherwise the accurate cost.

    *The charge.*  With :math:`\ell_k = \log m_k` (:math:`|\ell_k| \le T`), :math:`v_k` the
    closed form (within :math:`E` of the true cost), :math:`a_k = \mathrm{fl}(\ell_k + v_k)`,
    :math:`M = \max_k a_k`, :math:`A = \max_k |a_k|` and :math:`S = \sum_k e^{a_k - M}` summed
    by ``math.fsum`` (correctly rounded): each term is off by at most :math:`E + u|v_k| + 3u|\ell_k|
    \le E + u A + 4uT` (``np.log`` and the addition; :math:`|v_k| \le A + T`), which moves the
    log-sum-exp by as much (it is 1-Lipschitz in the sup norm); :math:`a_k - M` is rounded within
    :math:`2uA`, ``np.exp`` within :math:`2u` (a few ulps, the model of
    :meth:`~rpp.rules._costs.Cost.log_closed_form`), the sum within :math:`u`: :math:`\log S` within
    :math:`2uA + 3u + 2u\log S` after ``math.log``; the last addition :math:`M + \log S` within
    :math:`u(A + \log S)`.  In all at most :math:`E + 4u(T + A) + 3u(\log S + 1)`; the code charges
    :math:`E + 5u(T + A + \log S)`, which covers it and the products of the small factors, since
    :math:`T \ge \log n \ge \log 20000 > 9` (the masses sum to 1, so one is at most :math:`1/n`).

    Parameters
    ----------
    dn, m : ndarray
        Normalised distances and their masses.
    cost : Cost
        The per-pair cost.
    target : float
        :math:`(\alpha - 1)\varepsilon`.

    Returns
    -------
    callable
        ``g(t_w)``, ``<= 0`` where the condition holds.
    """
    logm = np.log(m)
    if cost.kind == "lap" and dn.size >= GRID_MIN_PAIRS:
        top = float(np.max(np.abs(logm)))

        def g_fast(t_w):
            if np.isinf(t_w):
                return 0.0 - target if np.all(dn == 0) else np.inf
            val, err = cost.log_closed_form(dn, t_w)
            terms = logm + val
            big = float(np.max(terms))
            # correctly rounded sum (math.fsum): the bound below does not depend on NumPy's
            # summation order (pairwise in blocks: a worst case of ~30u at 20000 terms)
            log_s = math.log(math.fsum(np.exp(terms - big)))
            charge = err + 5 * U * (top + float(np.max(np.abs(terms))) + log_s)
            return big + log_s + charge - target

        if 8 * U * (abs(math.log(cost.alpha / (2 * cost.alpha - 1))) + 4 + top) <= 1e-12 * target:
            return g_fast
    return lambda t_w: float(log_moment_of_logs(dn, logm, cost, t_w)) - target


def gridded(dn: np.ndarray, m: np.ndarray, up: bool) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(d, m)``: the normalised distances rounded up (``up``) or down to the grid, their masses gathered.

    Parameters
    ----------
    dn, m : ndarray
        Normalised distances and their masses.
    up : bool
        Round up (each grid point at least the distance it stands for) or down.

    Returns
    -------
    (ndarray, ndarray)
        The grid points in increasing order (0 first if a distance is 0) and their masses.
    """
    a = np.abs(dn)
    zero = a == 0
    some = bool(zero.any())  # (usually none: no copies)
    k = np.log2(a[~zero] if some else a)
    k *= GRID_STEPS
    (np.ceil if up else np.floor)(k, out=k)
    k = k.astype(np.int64)
    k0 = int(k.min()) if k.size else 0
    k -= k0
    mass = np.bincount(k, weights=m[~zero] if some else m)  # integer keys in a bounded range: no sort
    keys = np.flatnonzero(mass)
    # the grid point is at least the distance it stands for despite the roundings of log2/ceil/exp2
    d, mass = np.exp2((keys + k0) / GRID_STEPS) * (1 + 1e-12 if up else 1 - 1e-12), mass[keys]
    if np.any(zero):
        d, mass = np.r_[0.0, d], np.r_[m[zero].sum(), mass]
    return d, mass


def _gridded_root(dn, m, cost, target, t0, up):
    """Return the root of the condition on the gridded distances (:func:`gridded`), an estimate of a bracket end."""
    d, mass = gridded(dn, m, up)
    return largest_feasible(lambda t: empirical_log_moment(d, mass, cost, t) - target, t0)


def grid_bracket(dn: np.ndarray, m: np.ndarray, cost: Cost, target: float, t0: float) -> tuple[float, float] | None:
    r"""Return ``(lo, hi)``, believed to hold the largest root of the condition in ``t_w``: its roots on the distances rounded up and down to the grid.

    ``None`` below :data:`GRID_MIN_PAIRS` pairs (a pass over every pair is then cheap).  An
    estimate: its users check both ends on every pair before they rely on it.

    Parameters
    ----------
    dn, m : ndarray
        Normalised distances and their masses.
    cost : Cost
        The per-pair cost.
    target : float
        :math:`(\alpha - 1)\varepsilon`.
    t0 : float
        A first guess of the root (:func:`rpp._lib.numerics.largest_feasible`).

    Returns
    -------
    (float, float) or None
        The bracket, or ``None``.
    """
    if dn.size < GRID_MIN_PAIRS:
        return None
    lo = _gridded_root(dn, m, cost, target, t0, up=True) * (1 - 1e-9)
    hi = _gridded_root(dn, m, cost, target, t0, up=False) * (1 + 1e-9)
    return (lo, hi) if 0 < lo < hi < np.inf else None


def _stepped_scale(g, noise, t_w, w):
    """Return the scale of the root ``t_w`` of ``g``, stepped up until ``g`` holds there (the round-off guard, in the units it is checked in)."""
    scale = w * scale_of(noise, t_w)
    return float(step_up(scale, lambda s: g(normalised_t(noise, s, w)) <= 0, tiny=float(np.spacing(scale))))


def empirical_scale(
    prior_i: Empirical, prior_j: Empirical, alpha: float, epsilon: float, noise: str, rule: str, *, grid: bool = False
) -> float:
    r"""Return the scale of :func:`rpp.rules.w_alpha` for two samples; arguments checked by the caller.

    ``grid=False``: the smallest scale meeting the condition on every pair (:func:`condition`),
    its root found by :func:`rpp._lib.numerics.largest_feasible` in the bracket of
    :func:`grid_bracket` (or by doubling), then stepped up until the condition holds.

    ``grid=True``: the same on the distances rounded up to the grid (:func:`gridded`).  The cost
    grows with :math:`|d|`, so the condition on the rounded-up distances implies the exact one:
    the scale is at least the rule's (by at most about ``2**(1/256) - 1``, 0.27 %, of it) and as
    proved; it costs a pass over the pairs and a root on about a thousand grid points
    (:func:`rpp.rules.exact`'s Laplace search starts from it).

    Parameters
    ----------
    prior_i, prior_j : Empirical
        The two samples.
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``> 0``.
    noise : {"gaussian", "laplace"}
        The noise family.
    rule : str
        The rule (``RULES`` of ``rpp/rules/_w_alpha.py``).
    grid : bool
        On the gridded distances.

    Returns
    -------
    float
        The Laplace scale ``b`` or the Gaussian standard deviation ``sigma`` (0 for identical samples).
    """
    cost = pair_cost(noise, rule, alpha)
    target = (alpha - 1) * epsilon
    d, m = empirical_coupling(prior_i, prior_j)
    if np.all(d == 0):
        return 0.0
    dn, w = normalised(d)
    if grid:
        dg, mg = gridded(dn, m, up=True)

        def g(t_w):
            return empirical_log_moment(dg, mg, cost, t_w) - target

        return _stepped_scale(g, noise, largest_feasible(g, epsilon / alpha), w)
    g = condition(dn, m, cost, target)
    # (a million pairs: a pass over them costs about 10 ms even for the cheap costs, and the
    # grid's bracket saves most passes; below GRID_MIN_PAIRS, or if the bracket fails its check
    # at the ends, the doubling search of largest_feasible itself)
    t_w = largest_feasible(g, epsilon / alpha, bracket=grid_bracket(dn, m, cost, target, epsilon / alpha))
    return _stepped_scale(g, noise, t_w, w)
