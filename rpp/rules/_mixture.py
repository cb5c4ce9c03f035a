r"""Noise rules for Gaussian-mixture (and empirical) priors with Gaussian noise (Yang et al. 2026, Section IV).

* :func:`gmm_ot` -- Theorem IV.1 (the ψ condition, eq. (8)) with the domain of every
  coupled component pair enforced (as printed the theorem ignores it);
* :func:`gmm_ot_tight` -- joint convexity with the exact component divergences and
  the coupling that minimises :math:`\sum\pi_{kl}e^{(\alpha-1)D_\alpha(P_k\|Q_l)}`.

Both protect one order and return the noise scale θ: the conditions are solved in the
variance :math:`\theta^2` (``gmm_ot_variance``, ``_gmm_ot_tight_variance``), and θ is
its square root rounded up (``rpp._lib.numerics.sqrt_up``).  ``gmm_ot_variance``, the kernel
of :func:`gmm_ot` on checked arguments, is also the proved start of the Gaussian search of
:func:`~rpp.rules.exact` (a name of the package, not in ``__all__``).
"""

from __future__ import annotations

import math

import numpy as np

from .._lib import validation as v
from .._lib.numerics import lse, min_feasible, sqrt_up
from ..divergence import gaussian_divergence_upper
from ..priors import Components, Empirical, Prior, check_prior
from ..transport import component_coupling, optimal_plan, quantile_coupling
from ._costs import normalised, pair_cost
from ._empirical import grid_bracket

__all__ = ["gmm_ot", "gmm_ot_tight"]

_EPS = float(np.finfo(float).eps)


def _log_psi_terms(ci: Components, cj: Components, alpha: float, z: float) -> np.ndarray:
    r"""Log-cost ψ_kl(θ²) of Theorem IV.1 (eq. 8); +inf outside the pair's domain.

    Parameters
    ----------
    ci, cj : Components
        The priors as mixtures (:func:`rpp.priors.Prior.components`).
    alpha : float
        Order, ``> 1``.
    z : float
        Noise variance :math:`\theta^2`.

    Returns
    -------
    ndarray, shape (K, L)
        :math:`\psi_{kl}(\theta)`.

    Examples
    --------
    >>> from rpp import Gaussian
    >>>
    >>> _log_psi_terms(Gaussian(mean=0, var=1).components(), Gaussian(mean=2, var=1).components(), 3.0, 11.0)  # 2 * 3 * 4 / (2 * 12)
    array([[1.]])
    """
    x = ci.vars[:, None] + z
    d = cj.vars[None, :] - ci.vars[:, None]
    dm2 = (ci.means[:, None] - cj.means[None, :]) ** 2
    alpha = np.float64(alpha)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = x + alpha * d
        if not np.isfinite(s).all():  # +inf here would turn psi into 0: less noise than needed
            raise ValueError(
                f"alpha={float(alpha)!r} is too large for these priors: alpha times a difference of their "
                "component variances overflows the double range"
            )
        # psi = (alpha - 1) alpha / (2 s) [dm2 + alpha d^2 / ((alpha - 1) x)], each factor rounded
        # the safe way: an overflow only ever makes psi +inf (more noise), and 0 * inf is 0
        inner = dm2 + alpha / (alpha - 1) * d**2 / x
        psi = np.where(inner == 0, 0.0, (alpha - 1) / (2 * s) * alpha * inner)
    ok = (s > 0) & (x > 0)
    psi = np.where(ok, psi, np.inf)
    # 0 * inf: a zero-variance pair with no offset at z = 0 has no divergence.
    psi = np.where(ok | ~((dm2 == 0) & (d == 0) & (x == 0)), psi, 0.0)
    return psi


def _args(prior_i: Prior, prior_j: Prior, alpha: float, epsilon: float) -> tuple[float, float]:
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    return float(v.alpha_order(alpha)), float(v.epsilon_budget(epsilon))


def gmm_ot(prior_i: Prior, prior_j: Prior, *, alpha: float, epsilon: float) -> float:
    r"""Noise scale θ of Theorem IV.1 of Yang et al. 2026, with the domain enforced (one order).

    θ is the rounded-up square root of the smallest variance :math:`\theta^2` meeting the
    condition below (solved by ``gmm_ot_variance``).

    Sufficient condition :math:`\sum_{kl}\pi^*_{kl}e^{\psi_{kl}(\theta)} \le e^{(\alpha-1)\varepsilon}`
    with :math:`\pi^*` the W2 component coupling and

    .. math::

        \psi_{kl}(\theta) = \frac{\alpha-1}{2(\sigma_{ik}^2+\theta^2+\alpha(\sigma_{jl}^2-\sigma_{ik}^2))}
        \Bigl(\alpha(\mu_{ik}-\mu_{jl})^2 + \frac{\alpha^2(\sigma_{jl}^2-\sigma_{ik}^2)^2}{(\alpha-1)(\sigma_{ik}^2+\theta^2)}\Bigr).

    As printed the theorem ignores that each ψ bound needs
    :math:`\sigma_{ik}^2+\theta^2+\alpha(\sigma_{jl}^2-\sigma_{ik}^2) > 0`; here ψ is +inf
    outside that domain, so the condition cannot hold there.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors (read as mixtures).
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    float
        The Gaussian noise scale θ.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If ``alpha`` or ``epsilon`` is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> theta = gmm_ot(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, epsilon=0.5)
    >>> round(theta**2, 9)  # one component: exact
    11.0
    """
    alpha, epsilon = _args(prior_i, prior_j, alpha, epsilon)
    return sqrt_up(gmm_ot_variance(prior_i, prior_j, alpha, epsilon))


def gmm_ot_variance(prior_i: Prior, prior_j: Prior, alpha: float, epsilon: float) -> float:
    r"""Return the variance θ² of :func:`gmm_ot` (Theorem IV.1 with the domain enforced); arguments unchecked.

    Sufficient condition :math:`\sum_{kl}\pi^*_{kl}e^{\psi_{kl}(\theta)} \le e^{(\alpha-1)\varepsilon}`
    with :math:`\pi^*` the W2 component coupling and

    .. math::

        \psi_{kl}(\theta) = \frac{\alpha-1}{2(\sigma_{ik}^2+\theta^2+\alpha(\sigma_{jl}^2-\sigma_{ik}^2))}
        \Bigl(\alpha(\mu_{ik}-\mu_{jl})^2 + \frac{\alpha^2(\sigma_{jl}^2-\sigma_{ik}^2)^2}{(\alpha-1)(\sigma_{ik}^2+\theta^2)}\Bigr).

    As printed the theorem ignores that each ψ bound needs
    :math:`\sigma_{ik}^2+\theta^2+\alpha(\sigma_{jl}^2-\sigma_{ik}^2) > 0`; here ψ is +inf
    outside that domain, so the condition cannot hold there.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors (read as mixtures).
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    float
        :math:`\theta^2`.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> round(gmm_ot_variance(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), 3.0, 0.5), 9)  # one component: exact
    11.0
    """
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        return _empirical_ot_variance(prior_i, prior_j, alpha, epsilon)
    ci, cj = prior_i.components(), prior_j.components()
    plan = component_coupling(prior_i, prior_j)
    mask = plan > 0
    logw = np.log(plan[mask])
    target = (alpha - 1) * epsilon

    def f(z):
        psi = _log_psi_terms(ci, cj, alpha, z)[mask]
        if np.isinf(psi).any():
            return np.inf
        # the condition is evaluated in binary64: a margin of 16 ulps of its terms' magnitude keeps a
        # rounding of a few ulps from deciding it (the mutation run of #35 found the returned variance
        # 8e-17 short of the printed condition in mpmath). A margin, not a proof: the rule's scale is
        # judged by calibrate's final check
        slack = 16 * _EPS * (float(np.max(np.abs(psi))) + float(np.max(np.abs(logw))) + abs(target))
        return lse(logw + psi) - target + slack

    lo = max(0.0, float(np.max(((alpha - 1) * ci.vars[:, None] - alpha * cj.vars[None, :])[mask])))
    spread = float(np.max((ci.means[:, None] - cj.means[None, :]) ** 2) + np.max(ci.vars) + np.max(cj.vars))
    return min_feasible(f, lo, alpha * spread / (2 * epsilon) + lo)


def _empirical_ot_variance(prior_i, prior_j, alpha, epsilon):
    r"""Both rules for two empirical priors: a sort (:func:`rpp.quantile_coupling`), never an LP.

    Point masses have equal (zero) variances, so
    :math:`\psi_{kl}(\theta) = \alpha(\alpha-1)(x_k-y_l)^2/(2\theta^2) = (\alpha-1)D_\alpha(P_k\|Q_l)`:
    both the W2 cost and the cost :math:`e^{\psi}` of ``"gmm-ot-tight"`` are convex functions of
    :math:`x_k-y_l`, for which the monotone (quantile) coupling is optimal in one dimension
    (Santambrogio 2015, Thm 2.9).  The two rules coincide; the condition
    :math:`\log\sum\pi_{kl}e^{\psi_{kl}} \le (\alpha-1)\varepsilon` decreases in
    :math:`\theta^2` and is solved on the ``O(n)`` atoms of the coupling.
    """
    x, y, mass = quantile_coupling(prior_i, prior_j)
    d2 = (x - y) ** 2
    if not np.any(d2 > 0):
        return 0.0
    logw = np.log(mass)
    c = alpha * (alpha - 1) / 2 * d2
    target = (alpha - 1) * epsilon

    def f(z):
        if not z > 0:
            return np.inf
        psi = c / z  # (alpha - 1) D_alpha of each coupled pair of point masses, exactly
        top = float(np.max(psi))
        if top <= 0.5:
            return _small_log_value(mass, psi) - target
        slack = 16 * _EPS * (top + float(np.max(np.abs(logw))) + abs(target))  # as in gmm_ot
        return lse(logw + psi) - target + slack

    hi, below = alpha * float(d2.max()) / (2 * epsilon), None
    # many pairs: the condition is w-alpha's Gaussian one (c = k t d^2, t = w^2 / z), whose grid
    # bracket in t gives one in z; min_feasible checks both ends, so it only saves passes
    dn, w = normalised(x - y)
    bracket = grid_bracket(dn, mass, pair_cost("gaussian", "paper", alpha), target, epsilon / alpha)
    if bracket is not None:
        hi, below = min(hi, w * w / bracket[0]), w * w / bracket[1]
    return min_feasible(f, 0.0, hi, infeasible=below)


def _small_log_value(mass, psi):
    r"""Bound from above :math:`\log\sum_k \pi_k e^{\psi_k}` for a coupling :math:`\pi` and :math:`0 \le \psi_k \le 1/2`.

    A coupling's masses sum to 1, so the value is :math:`\operatorname{log1p}(s)` with
    :math:`s = \sum_k \pi_k \operatorname{expm1}(\psi_k)`, a sum of non-negative terms: its error
    is relative to the value, where :func:`~rpp._lib.numerics.lse` of :math:`\log\pi_k + \psi_k`
    errs by a few ulps of :math:`\max_k|\log\pi_k|` (an absolute error that a budget
    :math:`(\alpha-1)\varepsilon \lesssim 10^{-15}` cannot absorb: no noise would be feasible).
    Bounds: each product and ``expm1`` within 2u, the float sum of :math:`n` non-negative terms
    within :math:`(n-1)u` of the exact one (Higham 2002, eq. 4.4), so :math:`(n+4)u` relatively; a
    mass is a difference of two cumulative sums of the priors' weights, each within :math:`(n-1)u`
    of its exact value (the same bound; they lie in [0, 1]), so within :math:`(2n + 1)u`
    absolutely, which adds :math:`(2n+1)u\sum_k\operatorname{expm1}(\psi_k)`; ``log1p`` within 1u,
    which the final factor covers.  The value is a candidate for the calibration's final, proved
    check.
    """
    terms = np.expm1(psi)
    n = mass.size
    s = float(np.dot(mass, terms)) * (1 + (n + 4) * _EPS) + (2 * n + 2) * _EPS * float(np.sum(terms)) * (1 + n * _EPS)
    return math.log1p(s) * (1 + 4 * _EPS)


def _pair_log_costs(ci, cj, alpha, z):
    """(α-1)·D_α between every noisy component pair (+inf outside the domain)."""
    vi = ci.vars[:, None] + z
    vj = cj.vars[None, :] + z
    if np.any(vi <= 0) or np.any(vj <= 0):
        # point masses without noise: divergence is 0 for equal atoms, +inf otherwise
        same = (ci.means[:, None] == cj.means[None, :]) & (vi == vj)
        out = np.where(same, 0.0, np.inf)
        ok = (vi > 0) & (vj > 0)
        if ok.any():
            shape = ok.shape
            with np.errstate(over="ignore"):  # an overflow is a +inf cost: more noise, never less
                out[ok] = (alpha - 1) * gaussian_divergence_upper(
                    np.broadcast_to(ci.means[:, None], shape)[ok],
                    np.broadcast_to(ci.vars[:, None], shape)[ok],
                    np.broadcast_to(cj.means[None, :], shape)[ok],
                    np.broadcast_to(cj.vars[None, :], shape)[ok],
                    alpha,
                    z,
                )
        return out
    # certified upper bound (robust to round-off at the edge of the domain); an overflow is +inf
    with np.errstate(over="ignore"):
        return (alpha - 1) * gaussian_divergence_upper(
            ci.means[:, None], ci.vars[:, None], cj.means[None, :], cj.vars[None, :], alpha, z
        )


def _plan_value(plan, logc):
    """Log sum_kl pi_kl exp(logc_kl) over every positive entry of a coupling (+inf if it uses an infinite cost)."""
    mask = plan > 0
    if np.any(~np.isfinite(logc) & mask):
        return np.inf
    return lse(np.log(plan[mask]) + logc[mask])


def _tight_value(ci, cj, wi, wj, alpha, z, w2_plan):
    r"""Log of min over couplings of :math:`\sum\pi_{kl}e^{(\alpha-1)D_\alpha(P_k\|Q_l)}` (an upper bound of it).

    Candidates, each an exact coupling of the weights and evaluated exactly in
    log space: the network-simplex optimum for the cost
    :math:`e^{(\alpha-1)D_\alpha}` (its plan can be numerically poor when the
    costs span dozens of orders of magnitude: a round-off mass on a huge cost
    ruins it), the optimum for the linearised cost :math:`(\alpha-1)D_\alpha`,
    and the W2 coupling of ``"gmm-ot"``.  The smallest value is used, so the
    bound never exceeds that of ``"gmm-ot"`` at the same noise.
    """
    logc = _pair_log_costs(ci, cj, alpha, z)
    finite = np.isfinite(logc)
    if not finite.any():
        return np.inf
    top = logc[finite].max()
    C = np.where(finite, np.exp(logc - top), 2.0)
    L = np.where(finite, logc - logc[finite].min(), 2 * (top - logc[finite].min()) + 1)
    L = L / max(L.max(), 1e-300)
    candidates = [optimal_plan(wi, wj, C), optimal_plan(wi, wj, L), w2_plan]
    return min(_plan_value(p, logc) for p in candidates)


def gmm_ot_tight(prior_i: Prior, prior_j: Prior, *, alpha: float, epsilon: float) -> float:
    r"""Noise scale θ of joint convexity with exact component divergences and the best coupling (one order).

    θ is the rounded-up square root of the variance of ``_gmm_ot_tight_variance`` (below).

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors (read as mixtures).
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    float
        The Gaussian noise scale θ.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If ``alpha`` or ``epsilon`` is out of range.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> theta = gmm_ot_tight(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3.0, epsilon=0.5)
    >>> round(theta**2, 9)
    11.0
    """
    alpha, epsilon = _args(prior_i, prior_j, alpha, epsilon)
    return sqrt_up(_gmm_ot_tight_variance(prior_i, prior_j, alpha, epsilon))


def _gmm_ot_tight_variance(prior_i: Prior, prior_j: Prior, alpha: float, epsilon: float) -> float:
    r"""Return the variance θ² of :func:`gmm_ot_tight`; arguments unchecked.

    For any coupling :math:`\pi` of the mixture weights, joint convexity of
    :math:`(p,q)\mapsto\int p^\alpha q^{1-\alpha}` (α > 1) gives
    :math:`e^{(\alpha-1)D_\alpha(P\|Q)} \le \sum_{kl}\pi_{kl} e^{(\alpha-1)D_\alpha(P_k\|Q_l)}`.
    The right side is minimised over :math:`\pi` by an OT problem with cost
    :math:`e^{(\alpha-1)D_\alpha(P_k\|Q_l)}` (:func:`rpp.transport.optimal_plan`, at every θ;
    see ``_tight_value`` for the safeguards); the calibration is the minimal θ
    with that minimum ≤ :math:`e^{(\alpha-1)\varepsilon}`.
    It always lies between ``"exact"`` and ``"gmm-ot"``.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The secret-conditioned priors (read as mixtures).
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).

    Returns
    -------
    float
        :math:`\theta^2`.

    Examples
    --------
    >>> from rpp import Gaussian
    >>> round(_gmm_ot_tight_variance(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), 3.0, 0.5), 9)
    11.0
    """
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        return _empirical_ot_variance(prior_i, prior_j, alpha, epsilon)  # the same rule, see there
    ci, cj = prior_i.components(), prior_j.components()
    target = (alpha - 1) * epsilon
    wi, wj = ci.weights.astype(np.float64), cj.weights.astype(np.float64)
    w2_plan = component_coupling(prior_i, prior_j)

    def f(z):
        return _tight_value(ci, cj, wi, wj, alpha, z, w2_plan) - target

    lo = max(0.0, float(np.min((alpha - 1) * ci.vars[:, None] - alpha * cj.vars[None, :])))
    hi = gmm_ot_variance(prior_i, prior_j, alpha, epsilon)
    return min_feasible(f, lo, max(hi, lo))
