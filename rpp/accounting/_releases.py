r"""Repeated releases of one query with fresh Gaussian noise: their exact composition.

A query value :math:`f(X)` is released :math:`k` times, :math:`Y_t = f(X) + N_t` with
independent :math:`N_t \sim N(0, \theta_t^2)`, all independent of :math:`X`.  Given a secret
:math:`s`, :math:`f(X)` has the prior :math:`P_s` (a Gaussian, a Gaussian mixture or an
empirical law).  The releases are *not* independent given :math:`s` -- they share
:math:`f(X)` -- so the additivity of Rényi divergence over product measures, on which the
linear composition of Rényi DP rests (Mironov 2017, Prop. 1), does not apply.  They compose
exactly all the same:

**Sufficient statistic.**  Let :math:`\tau = \sum_t \theta_t^{-2}` (the total precision) and
:math:`\bar Y = \tau^{-1} \sum_t \theta_t^{-2} Y_t` (for equal scales, the sample mean).
Then :math:`\bar Y = f(X) + \bar N` with :math:`\bar N \sim N(0, 1/\tau)`, and the residuals
:math:`R_t = Y_t - \bar Y = N_t - \bar N` are jointly Gaussian with :math:`\bar N` and
uncorrelated with it, :math:`\operatorname{Cov}(\bar N, N_t - \bar N) = \theta_t^{-2}
\theta_t^2/\tau - 1/\tau = 0`, hence independent of :math:`\bar N` and of :math:`X`, with a
law that does not depend on the secret.  The map :math:`Y \mapsto (\bar Y, R)` is linear and
invertible onto its image, so (data processing in both directions, and additivity over the
product :math:`\mathrm{law}(\bar Y) \otimes \mathrm{law}(R)`; van Erven & Harremoës 2014:
the data-processing inequality and additivity for product distributions)

.. math::

    D_\alpha\bigl(P(Y_{1:k} \mid s_i) \,\|\, P(Y_{1:k} \mid s_j)\bigr)
    = D_\alpha\bigl(P_i * N(0, 1/\tau) \,\|\, P_j * N(0, 1/\tau)\bigr),

for *any* priors and any order: :math:`k` releases at scale :math:`\theta` cost exactly one
release at variance :math:`\theta^2/k` (:func:`releases_divergence`), and releases at several
scales one release at the :func:`combined_scale` :math:`\tau^{-1/2}`.  For two Gaussian priors
the right-hand side is the closed form of Yang et al. 2026, Cor. III.3
(:func:`rpp.gaussian_renyi`), infinite outside the domain
:math:`(1-\alpha)(\sigma_i^2 + 1/\tau) + \alpha(\sigma_j^2 + 1/\tau) > 0`; as
:math:`\tau \to \infty` it tends to :math:`D_\alpha(P_i\|P_j)`, the divergence of the priors
themselves, infinite in the order whose first prior is the wider one once
:math:`(\alpha-1)\sigma_{\text{wide}}^2 \ge \alpha\sigma_{\text{narrow}}^2`.

The scales must be fixed in advance (or chosen independently of the released values): with
scales that depend on earlier outputs the likelihood no longer factorises as above.
Laplace noise has no such sufficient statistic (the Laplace location family is not an
exponential family), and the functions here refuse it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from .._lib.numerics import at_most, step_up
from ..calibration import Calibration, calibrate, pair_divergence
from ..certified import Certified
from ..divergence import renyi_divergence
from ..noise import GaussianNoise
from ..priors import check_prior

__all__ = ["combined_scale", "releases_divergence", "calibrate_releases"]


def per_release_scale(scale: float, k: int) -> float:
    """Return a float at most ``scale / sqrt(k)``: the scale of one of ``k`` releases, rounded down.

    The float quotient can be half an ulp above the real one (and ``sqrt(k)`` half an ulp below);
    two steps down make the divergence checked at it at least the true one.
    """
    if k == 1:
        return float(scale)
    x = float(scale / np.sqrt(k))
    return float(np.nextafter(np.nextafter(x, 0.0), 0.0))


def _gaussian_only(noise: str | type) -> None:
    noise = v.noise_family("noise", noise, ["gaussian", "laplace"])
    if noise != "gaussian":
        raise ValueError(
            "noise must be 'gaussian' for repeated releases: k Laplace-noised releases of one "
            "query have no sufficient statistic, and their joint divergence is not that of one "
            f"release at a smaller scale; got noise={noise!r}"
        )


def _releases(k: Any) -> np.ndarray:
    """Validate ``k``: integers >= 1 (scalar or array)."""
    arr = np.asarray(k)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"k must be an integer >= 1 or an array of them, got {k!r}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise ValueError(f"k must be an integer >= 1 or an array of them, got {k!r}")
    return arr


def combined_scale(scales: ArrayLike) -> float:
    r"""Scale of the one release that is worth several releases of one query: :math:`\tau^{-1/2}`.

    .. math::

        \theta_{\text{comb}} = \Bigl(\sum_t \theta_t^{-2}\Bigr)^{-1/2}

    (module docstring: the precision-weighted mean of the releases is sufficient).  A release
    at scale 0 reveals the query value (:math:`\theta_{\text{comb}} = 0`); an infinite scale
    adds nothing.  An empty list is refused: it is almost always a mistake, and its answer
    (``inf``, no release) would read as perfect privacy.

    Parameters
    ----------
    scales : array_like
        Noise standard deviations :math:`\theta_t \ge 0` of the releases (1-D, at least one).

    Returns
    -------
    float
        :math:`\theta_{\text{comb}} \in [0, \infty]`.

    Raises
    ------
    ValueError
        If ``scales`` is not 1-D, is empty or has a negative or NaN entry.

    Examples
    --------
    >>> combined_scale([2.0, 2.0, 2.0, 2.0])  # four releases at theta = 2: theta / sqrt(4)
    1.0
    >>> combined_scale([2.0, float("inf")])  # an infinite scale adds nothing
    2.0
    """
    s = v.positive("scales", scales, allow_zero=True, allow_inf=True)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"scales must be a 1-D sequence of at least one noise scale, got shape {s.shape}")
    if np.any(s == 0):
        return 0.0
    precision = float(np.sum(1.0 / s**2))
    return float(np.inf) if precision == 0 else float(1.0 / np.sqrt(precision))


def releases_divergence(
    prior_i: Any,
    prior_j: Any,
    *,
    alpha: float,
    scale: ArrayLike,
    k: ArrayLike = 1,
    directed: bool = False,
    noise: str | type = "gaussian",
) -> Certified:
    r"""Joint :math:`D_\alpha` of ``k`` releases of one query, each with fresh :math:`N(0, \theta^2)` noise.

    .. math::

        D_\alpha\bigl(P(Y_{1:k}\mid s_i)\,\|\,P(Y_{1:k}\mid s_j)\bigr)
        = D_\alpha\bigl(P_i * N(0, \theta^2/k)\,\|\,P_j * N(0, \theta^2/k)\bigr)

    (the sample mean is sufficient and the residuals carry no information about the secret:
    module docstring), maximised over both orders unless ``directed``.  Two Gaussian priors:
    the closed form :func:`rpp.gaussian_renyi` (Yang et al. 2026, Cor. III.3), ``+inf``
    outside its domain; mixtures and empirical priors: the quadrature of
    :func:`rpp.renyi_divergence` with noise scale ``scale / sqrt(k)``.  The divergence is
    non-decreasing in ``k`` (more releases are never cheaper) and, unlike the linear
    composition of Rényi DP, can exceed ``k`` times the divergence of one release.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        Priors of the query value given the secrets :math:`s_i`, :math:`s_j`.
    alpha : float
        Rényi order, ``> 1``.
    scale : float or array_like
        Noise standard deviation θ of each release, ``> 0``; broadcasts against ``k``.
    k : int or array_like of int
        Number of releases, ``>= 1``.
    directed : bool
        ``True``: :math:`D_\alpha(i\|j)` only; ``False`` (default): the larger of both orders.
    noise : {"gaussian"} or type
        Only Gaussian noise composes this way (the name or :class:`rpp.noise.GaussianNoise`);
        ``"laplace"`` is refused with a ValueError.

    Returns
    -------
    Certified
        ``value`` the joint divergence (float, or an array over ``scale`` and ``k``; ``+inf``
        where it diverges), ``error`` bounding the distance to the maximum over the orders, and
        ``rigorous`` (``True`` only if every divergence is proved: two Gaussian priors, see
        :func:`rpp.renyi_divergence`; quadrature on mixtures is an estimate).

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution, ``directed`` is not a bool or ``k`` not numeric.
    ValueError
        If ``alpha``, ``scale`` or ``k`` is out of range, or ``noise`` is not ``"gaussian"``.

    Examples
    --------
    Two Gaussian priors with equal variances: the divergence of one release at variance
    θ²/k, :math:`\alpha\Delta^2/(2(\sigma^2 + \theta^2/k))`:

    >>> from rpp import Gaussian
    >>> d = releases_divergence(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, scale=2.0, k=[1, 4])
    >>> d.value.round(12), d.rigorous
    (array([1.2, 3. ]), True)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    _gaussian_only(noise)
    directed = v.flag("directed", directed)
    alpha = float(v.alpha_order(alpha))
    scale_arr = v.positive("scale", scale)
    k_arr = _releases(k)
    theta = np.broadcast_to(scale_arr / np.sqrt(k_arr), np.broadcast_shapes(np.shape(scale_arr), np.shape(k_arr)))
    orders = [(prior_i, prior_j)] if directed else [(prior_i, prior_j), (prior_j, prior_i)]
    parts = [
        [renyi_divergence(p, q, alpha=alpha, noise=GaussianNoise(float(th))) for p, q in orders] for th in theta.ravel()
    ]
    # the maximum of the orders lies between the largest lower and the largest upper end
    value = np.array([max(float(c.value) for c in cs) for cs in parts]).reshape(theta.shape)
    upper = np.array([max(float(c.upper) for c in cs) for cs in parts]).reshape(theta.shape)
    lower = np.array([max(float(c.lower) for c in cs) for cs in parts]).reshape(theta.shape)
    with np.errstate(invalid="ignore"):
        error = np.where(np.isposinf(value), 0.0, np.maximum(upper - value, value - lower))
    rigorous = all(c.rigorous for cs in parts for c in cs)
    if value.ndim == 0:
        return Certified(float(value), float(error), rigorous=rigorous)
    return Certified(value, error, rigorous=rigorous)


def _certified_point(
    prior_i: Any,
    prior_j: Any,
    alpha: float,
    epsilon: float,
    scale: float,
    k: int,
    directed: bool,
    guard: bool,
    require: str,
) -> tuple[float, float, float, bool]:
    """Return (scale, value, error, rigorous) of k releases at ``scale``.

    With ``guard``, the scale is first stepped up by relative amounts from 1e-13 until the certified
    joint divergence meets ``epsilon`` (the round trip theta_1 -> sqrt(k) theta_1 -> theta_k / sqrt(k)
    can cost an ulp).
    """
    memo: dict[float, Certified] = {}

    def certified(x: float) -> Certified:
        if x not in memo:
            memo[x] = pair_divergence(
                prior_i, prior_j, alpha=alpha, scale=per_release_scale(x, k), directed=directed, require=require
            )
        return memo[x]

    def ok(x: float) -> bool:
        return x <= 0 or bool(at_most(float(certified(x).value), float(certified(x).error), epsilon))

    if guard:
        scale = step_up(scale, ok, rel=1e-13, grow=4.0, tiny=0.0)
    c = certified(scale)
    return scale, float(c.value), float(c.error), c.rigorous


def calibrate_releases(
    prior_i: Any,
    prior_j: Any,
    *,
    alpha: ArrayLike,
    epsilon: ArrayLike,
    k: int,
    method: str = "exact",
    directed: bool = False,
    noise: str | type = "gaussian",
    require: str = "proved",
) -> Calibration:
    r"""Noise scale per release so that ``k`` releases of one query together meet (α, ε)-RPP.

    Returns :math:`\theta_k = \sqrt{k}\,\theta_1` with :math:`\theta_1` the scale of
    :func:`rpp.calibrate` (rule ``method``) for *one* release.

    **Proof.**  Write :math:`g(v) = \max_{\text{orders}} D_\alpha(P_i * N(0, v)\|P_j * N(0, v))`.
    By :func:`releases_divergence` the joint divergence of ``k`` releases at scale θ is
    :math:`g(\theta^2/k)`, so :math:`\theta` meets the budget for ``k`` releases iff
    :math:`\theta/\sqrt{k}` meets it for one: the feasible sets satisfy
    :math:`\{\theta : g(\theta^2/k) \le \varepsilon\} = \sqrt{k}\,\{\theta_1 : g(\theta_1^2) \le
    \varepsilon\}`.  Hence the minimal scale for ``k`` releases is :math:`\sqrt{k}` times the
    minimal one for one release (``method="exact"``), and any sufficient rule for one release
    (any other ``method`` with ``within_budget=True``) gives a sufficient scale for ``k`` releases.
    :math:`\square`

    The result is then checked: the divergence of one release at variance
    :math:`\theta_k^2/k` (the noise object's value and error, proved where ``rigorous``) is computed,
    and a scale short by round-off is stepped up.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        Priors of the query value given the secrets.
    alpha : float or array_like
        Rényi order, ``> 1``.
    epsilon : float or array_like
        Budget of all ``k`` releases together, ``>= 1e-300`` (finite).
    k : int
        Number of releases, ``>= 1``.
    method : str
        A Gaussian method of :func:`rpp.methods`.
    directed : bool
        Protect :math:`D_\alpha(i\|j)` only.
    noise : {"gaussian"} or type
        The name or :class:`rpp.noise.GaussianNoise`; ``"laplace"`` is refused (no sufficient
        statistic).
    require : {"proved", "estimate"}
        As in :func:`rpp.calibrate`: ``"proved"`` (default) proves the one-release calibration and
        the joint check of the ``k`` releases; ``"estimate"`` is the explicit opt-in for speed.

    Returns
    -------
    Calibration
        ``scale`` θ_k of *each* release, ``variance`` θ_k², ``divergence`` and
        ``divergence_error`` of the ``k`` releases together, ``guaranteed``; ``details`` holds
        ``orders``, ``k`` and ``scale_one`` (θ_1).

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution or ``directed`` not a bool.
    ValueError
        If ``alpha``, ``epsilon``, ``k``, ``method``, ``noise`` or ``require`` is out of range, or no proved path exists (``require="proved"``).

    Examples
    --------
    >>> from rpp import Gaussian
    >>> one = calibrate_releases(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, epsilon=0.5, k=1)
    >>> four = calibrate_releases(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, epsilon=0.5, k=4)
    >>> round(one.variance, 9), round(four.variance, 9), four.guaranteed
    (11.0, 44.0, True)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    _gaussian_only(noise)
    k = v.integer("k", k)
    v.one_of("require", require, ["estimate", "proved"])
    one = calibrate(prior_i, prior_j, alpha=alpha, epsilon=epsilon, method=method, directed=directed, require=require)
    a_b, e_b, s1, ok1 = np.broadcast_arrays(
        *(np.asarray(x) for x in (one.alpha, one.epsilon, one.scale, one.within_budget))
    )
    scale, div, err = np.empty(a_b.shape), np.empty(a_b.shape), np.empty(a_b.shape)
    rigorous = True
    for idx in np.ndindex(a_b.shape):
        scale[idx], div[idx], err[idx], rig = _certified_point(
            prior_i,
            prior_j,
            float(a_b[idx]),
            float(e_b[idx]),
            float(np.sqrt(k) * s1[idx]),
            k,
            directed,
            bool(ok1[idx]),
            require,
        )
        rigorous = rigorous and rig
    within = np.asarray(at_most(div, err, e_b))

    def out(x: Any) -> Any:
        x = np.asarray(x)
        return x if x.ndim else x.item()

    return dataclasses.replace(
        one,
        scale=out(scale),
        variance=out(scale**2),
        divergence=out(div),
        divergence_error=out(err),
        rigorous=rigorous,
        within_budget=out(within),
        guaranteed=out(within & rigorous),
        details={**one.details, "k": k, "scale_one": one.scale},
    )
