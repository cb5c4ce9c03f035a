r"""The α-Wasserstein mechanisms for Rényi Pufferfish Privacy.

Sufficient conditions of the α-Wasserstein paper (arXiv:2605.05723, cited in
the book as ``awass2026``) and the baselines they are compared with.  Every
condition has the same shape: for a coupling :math:`\pi` of the two
secret-conditioned priors :math:`P_i, P_j` and a per-pair cost :math:`c`,

.. math::

    \log \int c(x - x')\,d\pi(x, x') \;\le\; (\alpha - 1)\,\varepsilon .

It is sufficient for :math:`D_\alpha(P_i * N \,\|\, P_j * N) \le \varepsilon`
whenever :math:`e^{(\alpha-1)D_\alpha(N + x\|N + x')} \le c(x - x')`, by joint
convexity of :math:`(p, q) \mapsto \int p^\alpha q^{1-\alpha}` for
:math:`\alpha > 1` (Jensen's inequality applied to the coupling).  The
coupling used is the monotone (quantile) coupling :math:`\pi^*`, optimal for
every cost :math:`h(x - x')` with :math:`h` convex; all costs below are convex.

=========================  ==========  ==================================================
rule                       noise       per-pair cost :math:`c(d)`
=========================  ==========  ==================================================
``"paper"``                Laplace     :math:`e^{\alpha|d|/b}` (Theorem 1, eq. (12))
``"sharp"``                Laplace     :math:`e^{(\alpha-1)|d|/b}` (same proof with the
                                       likelihood-ratio bound applied to
                                       :math:`(p/q)^{\alpha-1}`; pure-DP per pair)
``"tight"``                Laplace     :math:`e^{(\alpha-1)D_\alpha(\mathrm{Lap}(d,b)\|\mathrm{Lap}(0,b))}`
                                       (exact shifted-Laplace divergence,
                                       :func:`rpp.divergence.laplace_shift_divergence`)
``"paper"``/``"tight"``    Gaussian    :math:`e^{\alpha(\alpha-1)d^2/(2\sigma^2)}` (Theorem 2,
                                       eq. (14)); this *is* the exact shifted-Gaussian
                                       divergence, so both rules coincide
=========================  ==========  ==================================================

Priors: two :class:`~rpp.Empirical` samples (exact, finite coupling from
:func:`rpp.quantile_coupling`), or two continuous priors
(:class:`~rpp.Gaussian` / :class:`~rpp.GaussianMixture`) coupled through their
quantile functions, :math:`\pi^* = (F_i^{-1}(\Phi(Z)), F_j^{-1}(\Phi(Z)))_\#\,N(0,1)`.
Two Gaussians have closed forms (:math:`x - x' \sim N(\mu_i-\mu_j, (\sigma_i-\sigma_j)^2)`);
mixtures are integrated over the normal score :math:`z` with rigorous tail
bounds (the body's error is the quadrature's estimate, ``rpp._lib.numerics.integrate_log``).  With Gaussian noise the integral is finite only if
:math:`\sigma^2 > \alpha(\alpha-1)(s_i - s_j)^2`, with :math:`s_i, s_j` the
largest component standard deviations (the quantile difference grows like
:math:`(s_i - s_j) z`); below that the condition is ``+inf``.

The Laplace closed forms are in ``rpp/divergence/_laplace_shift.py``, the exponential-family and
:math:`\alpha<1` conditions in ``rpp/rules/_exponential_family.py``, the continuous monotone
coupling in :mod:`rpp.transport`.  :func:`rpp.calibrate` uses :func:`w_alpha` for the
methods ``"w-alpha"`` (rule ``"paper"``) and ``"w-alpha-tight"`` (rule ``"tight"``).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .._lib import validation as v
from .._lib.numerics import integrate_log, lse, min_feasible, sqrt_up
from ..noise import GaussianNoise, LaplaceNoise
from ..priors import Empirical, Gaussian, Prior, check_prior
from ..transport import (
    QuantileDifference,
    mirrored,
    quantile_difference_tail,
)
from ._costs import normalised, normalised_t, pair_cost, t_of
from ._empirical import empirical_coupling, empirical_log_moment, empirical_scale

__all__ = ["w_alpha_log_moment", "alpha_wasserstein", "w_alpha", "RULES"]

#: The rules of :func:`w_alpha` for each noise family.
RULES = {"laplace": ("paper", "sharp", "tight"), "gaussian": ("paper", "tight")}


def _family_scale(noise: object) -> tuple[str, float]:
    """``(family, scale)`` of a noise object (:class:`rpp.noise.GaussianNoise` or :class:`rpp.noise.LaplaceNoise`)."""
    if isinstance(noise, GaussianNoise):
        return "gaussian", float(noise.scale)
    if isinstance(noise, LaplaceNoise):
        return "laplace", float(noise.scale)
    raise TypeError(f"noise must be an rpp.GaussianNoise or rpp.LaplaceNoise, got {type(noise).__name__}")


def _check_args(noise, rule) -> str:
    """Return the noise family (a name or a noise class) after checking it and the rule."""
    noise = v.noise_family("noise", noise, tuple(RULES))
    if rule not in RULES[noise]:
        raise ValueError(f"rule must be one of {RULES[noise]} for noise={noise!r}, got {rule!r}")
    return noise


def _check_priors(prior_i, prior_j):
    """Check that the priors are two :class:`~rpp.Empirical` samples or two continuous priors."""
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    if isinstance(prior_i, Empirical) != isinstance(prior_j, Empirical):
        raise ValueError(
            "the alpha-Wasserstein conditions need two rpp.Empirical samples or two continuous "
            f"priors (rpp.Gaussian/rpp.GaussianMixture), got {type(prior_i).__name__} and "
            f"{type(prior_j).__name__}"
        )


def _quantised(x):
    """Smallest 8 * 1.5**k >= x (so that grids repeat across noise scales and the memo is reused)."""
    k = max(0, int(np.ceil(np.log(max(x, 8.0) / 8.0) / np.log(1.5) - 1e-12)))
    return 8.0 * 1.5**k


def _initial_range(ci, cj, cost, t):
    """First half-width Z of the score range (None when the cost's integral diverges)."""
    Lmax = max(-np.log(ci.weights.min()), -np.log(cj.weights.min()))
    a_probe, C_probe = quantile_difference_tail(ci, cj, max(8.0, np.sqrt(2 * Lmax) + 1.0))
    if cost.kind == "sq":
        c = cost.k * t
        g = 1 - 2 * c * a_probe**2
        if g <= 0:
            return None
        centre, width = 2 * c * a_probe * C_probe / g, 1 / np.sqrt(g)
    else:
        k = cost.k * t if cost.kind == "abs" else (cost.alpha - 1) * t
        centre, width = k * a_probe + 0.0, 1.0
    return _quantised(max(8.0, np.sqrt(2 * Lmax) + 1.0, centre + 12 * width))


def _breakpoints(dz, grid, Z):
    """Panel ends: a grid on [-Z, Z] plus the sign changes of d (the kinks of |d|)."""
    dg = dz(grid)
    breaks = list(np.linspace(-Z, Z, int(min(200, 4 * Z + 1))))
    for k in np.flatnonzero(np.sign(dg[:-1]) * np.sign(dg[1:]) < 0):
        breaks.append(optimize.brentq(lambda z: float(dz(np.array([z]))[0]), grid[k], grid[k + 1], xtol=1e-13))
    return np.unique(np.asarray(breaks))


def _continuous_log_moment(prior_i, prior_j, cost, t, dz=None):
    r"""``(log E_{π*} c(X - X'), rel_err)`` for two continuous priors under the quantile coupling."""
    ci, cj = prior_i.components(), prior_j.components()
    if ci.weights.size == 1 and cj.weights.size == 1:
        m = ci.means[0] - cj.means[0]
        var = (np.sqrt(ci.vars[0]) - np.sqrt(cj.vars[0])) ** 2
        return cost.log_gauss_mean(m, var, t), 0.0
    ri, rj = mirrored(ci), mirrored(cj)
    Z = _initial_range(ci, cj, cost, t)
    if Z is None:
        return np.inf, 0.0
    if dz is None:
        dz = QuantileDifference(ci, cj)

    def log_f_mag(z):
        lc = cost.log(dz(z), t)
        # value and magnitude of its terms (round-off allowance of rpp._lib.numerics.integrate_log)
        return lc - 0.5 * z**2 - 0.5 * np.log(2 * np.pi), np.abs(lc) + 0.5 * z**2 + 1.0

    def log_f(z):
        return log_f_mag(z)[0]

    for _ in range(100):
        grid = np.linspace(-Z, Z, int(min(4001, 40 * Z + 1)))
        body_probe = lse(log_f(grid)) + np.log(grid[1] - grid[0])
        tails = []
        for pi, pj in ((ci, cj), (ri, rj)):
            a, C = quantile_difference_tail(pi, pj, Z)
            tails.append(cost.log_tail_bound(a, C, Z, t))
        log_tail = lse(tails)
        if not np.isfinite(log_tail):
            if cost.kind == "sq":
                return np.inf, 0.0
        elif log_tail < body_probe - 40:
            break
        Z = _quantised(Z * 1.5)
    else:  # pragma: no cover - defensive
        raise RuntimeError("could not bound the tails of the coupling integral")
    log_i, rel = integrate_log(log_f_mag, _breakpoints(dz, grid, Z))
    rel = rel + np.exp(log_tail - log_i) + 1e-13
    return log_i, rel


def w_alpha_log_moment(
    prior_i: Prior, prior_j: Prior, *, alpha: float, noise: GaussianNoise | LaplaceNoise, rule: str = "paper"
) -> float:
    r"""Left side of the α-Wasserstein condition, :math:`\log\int c(x-x')\,d\pi^*(x,x')`.

    The condition :math:`\text{value} \le (\alpha-1)\varepsilon` implies
    :math:`D_\alpha(P_i * N\|P_j * N) \le \varepsilon` (module docstring).

    ========================  ====================================================
    noise, ``rule``           :math:`c(d)`
    ========================  ====================================================
    laplace, ``"paper"``      :math:`e^{\alpha|d|/b}` -- Theorem 1, eq. (12)
    laplace, ``"sharp"``      :math:`e^{(\alpha-1)|d|/b}`
    laplace, ``"tight"``      :math:`I_\alpha(|d|/b)` (:func:`rpp.divergence.log_laplace_shift_integral`)
    gaussian, either          :math:`e^{\alpha(\alpha-1)d^2/(2\sigma^2)}` -- Theorem 2, eq. (14)
    ========================  ====================================================

    Parameters
    ----------
    prior_i, prior_j : Empirical, Empirical  or  Gaussian/GaussianMixture (both)
        The priors.
    alpha : float
        ``alpha > 1``.
    noise : GaussianNoise or LaplaceNoise
        The noise, at its scale: Laplace scale ``b`` or Gaussian standard deviation ``sigma``
        (``>= 0``).
    rule : str
        See the table.

    Returns
    -------
    float
        For mixtures an upper bound (quadrature value plus its error bound);
        ``+inf`` where the integral diverges (Gaussian noise with
        :math:`\sigma^2 \le \alpha(\alpha-1)(s_i-s_j)^2`, or ``scale = 0`` with
        priors that differ).

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> from rpp import Empirical, LaplaceNoise
    >>> round(w_alpha_log_moment(Empirical([0.0]), Empirical([1.0]), alpha=2.0, noise=LaplaceNoise(scale=1.0)), 12)
    2.0
    """
    family, scale = _family_scale(noise)
    _check_args(family, rule)
    _check_priors(prior_i, prior_j)
    alpha = float(v.alpha_order(alpha))
    scale = float(v.positive("scale", scale, allow_zero=True))
    cost = pair_cost(family, rule, alpha)
    t = t_of(family, scale)
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        d, m = empirical_coupling(prior_i, prior_j)
        if np.all(d == 0):
            return 0.0
        dn, w = normalised(d)
        return empirical_log_moment(dn, m, cost, normalised_t(family, scale, w))
    if np.isinf(t):
        same = (
            isinstance(prior_i, Gaussian)
            and isinstance(prior_j, Gaussian)
            and prior_i.mean == prior_j.mean
            and prior_i.var == prior_j.var
        )
        return 0.0 if same else np.inf
    val, rel = _continuous_log_moment(prior_i, prior_j, cost, t)
    return float(val + np.log1p(rel)) if np.isfinite(val) else np.inf


def alpha_wasserstein(prior_i: Prior, prior_j: Prior, *, alpha: float, noise: GaussianNoise | LaplaceNoise) -> float:
    r"""Return the paper's α-Wasserstein distance at a given noise scale (left sides of eqs. (12) and (14)).

    Laplace: :math:`W_\alpha = \bigl(\int e^{\alpha|x-x'|/b}d\pi^*\bigr)^{1/\alpha}` with
    :math:`d(z) = e^{|z|/b}`; Theorem 1 holds iff :math:`W_\alpha \le e^{(\alpha-1)\varepsilon/\alpha}`.
    Gaussian: :math:`W_{\alpha(\alpha-1)} = \bigl(\int e^{\alpha(\alpha-1)(x-x')^2/(2\sigma^2)}d\pi^*\bigr)^{1/(\alpha(\alpha-1))}`
    with :math:`d(z) = e^{z^2/(2\sigma^2)}`; Theorem 2 holds iff it is :math:`\le e^{\varepsilon/\alpha}`.

    Parameters
    ----------
    prior_i, prior_j : Empirical or Gaussian/GaussianMixture
        Two empirical samples or two continuous priors.
    alpha : float
        Order, ``> 1``.
    noise : GaussianNoise or LaplaceNoise
        The noise, at its scale.

    Returns
    -------
    float
        The distance.

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> from rpp import Empirical
    >>> from rpp import LaplaceNoise
    >>> round(alpha_wasserstein(Empirical([0.0]), Empirical([1.0]), alpha=2.0, noise=LaplaceNoise(scale=1.0)), 12)
    2.718281828459
    """
    lm = w_alpha_log_moment(prior_i, prior_j, alpha=alpha, noise=noise, rule="paper")
    alpha = float(alpha)
    family, _ = _family_scale(noise)
    return float(np.exp(lm / (alpha if family == "laplace" else alpha * (alpha - 1))))


def w_alpha(
    prior_i: Prior, prior_j: Prior, *, alpha: float, epsilon: float, noise: str | type = "gaussian", rule: str = "paper"
) -> float:
    r"""Smallest noise scale meeting the α-Wasserstein condition for one order :math:`D_\alpha(i\|j)`.

    Solves :func:`w_alpha_log_moment` :math:`\le (\alpha-1)\varepsilon` for the
    Laplace scale ``b`` (``noise="laplace"``) or the Gaussian standard deviation
    ``sigma`` (``noise="gaussian"``).  The left side decreases in the scale.

    * Empirical priors: in :math:`t = 1/b` (or :math:`1/\sigma^2`) the left side
      is a convex, increasing log-sum-exp; the root is found by ``brentq`` and the
      feasible side is returned.  Identical priors give 0.  Useful brackets:
      Laplace ``"paper"`` lies in
      :math:`[\frac{\alpha W_1}{(\alpha-1)\varepsilon}, \frac{\alpha W_\infty}{(\alpha-1)\varepsilon}]`,
      Gaussian in :math:`[\frac{\alpha W_2^2}{2\varepsilon}, \frac{\alpha W_\infty^2}{2\varepsilon}]` (for σ²).
    * Continuous priors: bracketed root finding on the scale (Gaussian noise:
      on :math:`\sigma^2 > \alpha(\alpha-1)(s_i-s_j)^2`).

    This protects one order; :func:`rpp.calibrate` with ``method="w-alpha"``
    (rule ``"paper"``) or ``"w-alpha-tight"`` (rule ``"tight"``) protects both.

    Parameters
    ----------
    prior_i, prior_j : Empirical or Gaussian/GaussianMixture
        Two empirical samples or two continuous priors.
    alpha : float
        Order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).
    rule : str
        See :func:`w_alpha_log_moment`.

    Returns
    -------
    float
        The scale ``b`` or :math:`\sigma`.

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> from rpp import Empirical
    >>> round(w_alpha(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0, noise="laplace"), 12)  # alpha Delta / ((alpha - 1) eps)
    2.0
    """
    family = _check_args(noise, rule)
    _check_priors(prior_i, prior_j)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    if isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical):
        return empirical_scale(prior_i, prior_j, alpha, epsilon, family, rule)
    cost = pair_cost(family, rule, alpha)
    target = (alpha - 1) * epsilon

    ci, cj = prior_i.components(), prior_j.components()
    same = (
        isinstance(prior_i, Gaussian)
        and isinstance(prior_j, Gaussian)
        and prior_i.mean == prior_j.mean
        and prior_i.var == prior_j.var
    )
    if same:
        return 0.0
    spread = float(np.max(np.abs(ci.means[:, None] - cj.means[None, :]))) + float(
        np.sqrt(ci.vars.max()) + np.sqrt(cj.vars.max())
    )
    dz = QuantileDifference(ci, cj)
    if family == "laplace":

        def f(b):
            if b <= 0:
                return np.inf
            val, rel = _continuous_log_moment(prior_i, prior_j, cost, 1.0 / b, dz)
            return val + np.log1p(rel) - target

        # each evaluation integrates over mixture quantiles: the secant search (few evaluations)
        return float(min_feasible(f, 0.0, alpha * spread / ((alpha - 1) * epsilon), rtol=1e-10, step=1.0, closest=True))
    ds = abs(np.sqrt(ci.vars.max()) - np.sqrt(cj.vars.max()))
    lo = alpha * (alpha - 1) * ds**2

    def h(z):
        if z <= lo:
            return np.inf
        val, rel = _continuous_log_moment(prior_i, prior_j, cost, 1.0 / z, dz)
        return val + np.log1p(rel) - target

    z = min_feasible(h, lo, 2 * lo + alpha * spread**2 / (2 * epsilon), rtol=1e-10, step=3.0, closest=True)  # e^3 steps
    return sqrt_up(float(z))  # sigma**2 (exactly) >= the variance checked
