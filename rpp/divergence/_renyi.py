r"""The Rényi divergence of the noisy outputs under two priors: :func:`renyi_divergence`."""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ..certified import Certified
from ..priors import Empirical, Gaussian, Prior, check_prior
from ._closed_forms import empirical_renyi_value, gaussian_divergence_bounds, gaussian_renyi, gaussian_renyi_value
from ._gaussian_noise import renyi_divergence_bound
from ._laplace_noise import laplace_divergence_flagged
from ._proved import proved_discrete, proved_or_reason

__all__ = ["renyi_divergence", "NoiseLike", "REQUIRE"]

#: The values of ``require``: ``"estimate"`` accepts an error estimate, ``"proved"`` only a proved enclosure.
REQUIRE = ("estimate", "proved")


class NoiseLike(Protocol):
    """What :func:`renyi_divergence` reads of a noise object (:class:`rpp.noise.GaussianNoise`, ...)."""

    @property
    def family(self) -> str:
        """``"gaussian"`` or ``"laplace"``."""
        ...

    @property
    def scale(self) -> float:
        """The noise scale (θ, the standard deviation, for Gaussian noise; ``b`` for Laplace noise)."""
        ...


def _gaussian_pair(p: Gaussian, q: Gaussian, alpha: np.ndarray, theta: float) -> Certified:
    """Two Gaussian priors, Gaussian noise: the closed form with its rounding analysis (alpha > 1).

    The noise variance θ² is bracketed by two floats ``z_lo <= θ² <= z_hi`` (the float
    product is within half an ulp); D decreases with the noise variance, so the true value lies
    between the proved lower bound at ``z_hi`` and the proved upper bound at ``z_lo``
    (:func:`rpp.divergence.gaussian_divergence_bounds`).
    """
    z = theta * theta
    z_lo, z_hi = (np.nextafter(z, 0.0), np.nextafter(z, np.inf)) if z > 0 else (0.0, 0.0)
    up = np.asarray(gaussian_divergence_bounds(p.mean, p.var, q.mean, q.var, alpha, z_lo)[1])
    lo = np.asarray(gaussian_divergence_bounds(p.mean, p.var, q.mean, q.var, alpha, z_hi)[0])
    with np.errstate(invalid="ignore"):
        inf = np.isposinf(up)
        value = np.where(inf, np.inf, 0.5 * (up + lo))
        error = np.where(inf, 0.0, np.nextafter(np.maximum(up - value, value - lo), np.inf))
        # At a float's distance from the domain's edge only [lo, +inf) may be proved while the
        # divergence is finite: report the closed form's value there with error +inf.
        edge = inf & np.isfinite(lo)
        if edge.any():
            z_mid = np.asarray(gaussian_renyi_value(p.mean, p.var + z, q.mean, q.var + z, alpha), dtype=float)
            value = np.where(edge & np.isfinite(z_mid), np.maximum(z_mid, lo), value)
            error = np.where(edge & np.isfinite(z_mid), np.inf, error)
    return Certified(value, error, rigorous=True)


def _describe(p: Prior, q: Prior, noise: NoiseLike | None) -> str:
    names = f"{type(p).__name__} against {type(q).__name__}"
    return f"{names} without noise" if noise is None else f"{names} with {noise.family} noise"


def _one(
    p: Prior, q: Prior, alpha: float, noise: NoiseLike | None, require: str, at_most: float | None = None
) -> Certified:
    """One order: the fast result, then (``require="proved"``) the proved path where it is not rigorous.

    Gaussian noise on mixtures and samples has no proved fast path: with ``require="proved"`` the
    estimate is not computed (it would be discarded).
    """
    family = None if noise is None or noise.scale == 0 else noise.family
    pe, qe = isinstance(p, Empirical), isinstance(q, Empirical)
    if family is None and (pe or qe):
        if not (pe and qe):  # a discrete law against a continuous one: mutually singular
            return Certified(np.inf, 0.0, rigorous=True)
        fast = Certified(float(empirical_renyi_value(p, q, alpha)), 0.0, rigorous=False)
        if require == "proved":
            return proved_discrete(p, q, alpha)
        return fast
    if family == "laplace":
        val, err, rig = laplace_divergence_flagged(p, q, alpha, float(noise.scale))  # type: ignore[union-attr]
        fast = Certified(val, err if np.isfinite(val) else 0.0, rigorous=rig)
        if rig or require != "proved":
            return fast
    elif require != "proved":
        theta = 0.0 if noise is None else float(noise.scale)
        val, err = renyi_divergence_bound(p, q, alpha, theta * theta)
        return Certified(val, err if np.isfinite(val) else 0.0, rigorous=False)
    ci, cj = p.components(), q.components()
    res = proved_or_reason(
        (ci.weights, ci.means, ci.vars),
        (cj.weights, cj.means, cj.vars),
        alpha=alpha,
        family=family or "gaussian",
        scale=0.0 if noise is None else float(noise.scale),
        at_most=at_most,
    )
    if isinstance(res, str):
        raise ValueError(
            f"require='proved': no proved path for {_describe(p, q, noise)} at alpha={alpha!r}: {res}; "
            "use require='estimate'"
        )
    return res


def renyi_divergence(
    prior_i: Prior,
    prior_j: Prior,
    *,
    alpha: ArrayLike,
    noise: NoiseLike | None = None,
    require: Literal["estimate", "proved"] = "estimate",
    at_most: float | None = None,
) -> Certified:
    r"""Rényi divergence of the noisy outputs under two priors, with its error and whether it is proved.

    .. math::

        D_\alpha\bigl(P_i * Z \,\|\, P_j * Z\bigr)
        = \frac{1}{\alpha-1}\log\int p_Z(x)^\alpha\, q_Z(x)^{1-\alpha}\,dx ,

    the privacy loss of the mechanism :math:`M(x) = x + Z` for the secret pair whose
    conditional priors are :math:`P_i, P_j` (Yang et al. 2026, Definition II.1 and
    Corollary III.3).  ``noise`` is a noise object (:class:`rpp.noise.GaussianNoise`,
    :class:`rpp.noise.LaplaceNoise`; anything with ``family`` and ``scale``), ``None`` for the
    divergence of the priors themselves.

    Paths, and what ``rigorous`` says about each (:class:`rpp.Certified`):

    * two :class:`~rpp.Gaussian` priors with Gaussian noise or none, ``alpha > 1``: the closed form
      with its rounding analysis (:func:`rpp.divergence.gaussian_divergence_bounds`),
      **proved**; other orders (``0 < alpha < 1``, ``alpha = 1`` (KL), ``alpha = inf``) the closed form
      :func:`gaussian_renyi` without a rounding analysis (``error`` an estimate, not proved);
    * Gaussian noise on mixtures and empirical priors: adaptive Gauss-Legendre quadrature,
      ``error`` an **estimate** (:math:`|GL_{20}-GL_{10}|` per panel, plus proved tail bounds);
    * Laplace noise: single atoms against single atoms (Mironov 2017, Prop. 6) and two empirical
      priors (Bernstein-ellipse bounds per panel) are **proved**; Gaussian components an estimate;
    * no noise: two empirical priors the discrete divergence (measured accuracy, not proved);
      an empirical prior against a continuous one ``+inf`` (mutually singular, proved).

    With ``require="proved"`` a result that is not proved is replaced by the proved enclosure of
    :func:`rpp.divergence.proved_divergence` (arb interval arithmetic: ``flint.acb.integral`` on the body,
    analytic tail bounds; 0.02-2 s per order on few components; under Gaussian noise, more than
    64 components are bounded by the convexity of :math:`\log p + x^2/(2\theta^2)` on float panels
    with outward rounding, about 1e-4 of :math:`(\alpha-1)D` wide, 0.1-0.5 s per order at 100 atoms and 1-10 s at
    1,000-10,000), and where no proved path exists a ValueError says for which priors and noise and why.

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        The two priors; the divergence is :math:`D_\alpha(P_i * Z\|P_j * Z)`.
    alpha : float or array_like
        Order in (0, 1) or (1, inf) (two Gaussians: also 1 and ``inf``).  An array gives arrays
        in the result (evaluated point by point except for two Gaussians).
    noise : noise object or None
        The additive noise; ``None`` (or scale 0): no noise.
    require : {"estimate", "proved"}
        ``"estimate"`` (default) returns the fast result, proved or not (see ``rigorous``);
        ``"proved"`` returns only proved enclosures.
    at_most : float, optional
        With ``require="proved"`` only: a bound :math:`\varepsilon \ge 0` the caller will test the
        divergence against (a calibration's budget).  The convexity bounds of many components
        stop narrowing their enclosure once its upper end is at most ``at_most``; the enclosure
        still contains the divergence, only as narrow as that decision needs.  Other paths
        ignore it.

    Returns
    -------
    Certified
        ``value`` (``+inf`` where the integral diverges, never NaN), ``error`` and ``rigorous``
        (for an array of orders: ``True`` only if every entry is proved).

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it), or ``require="proved"`` and no
        proved path exists for the priors and noise.
    ImportError
        If ``require="proved"`` needs python-flint and it is missing (a dependency of ``rpp-book``).

    Examples
    --------
    >>> from rpp.noise import GaussianNoise
    >>> d = renyi_divergence(Gaussian(mean=0, var=1), Gaussian(mean=1, var=1), alpha=2.0, noise=GaussianNoise(1.0))
    >>> round(d.value, 15), d.rigorous, bool(d.error < 1e-15)  # alpha Delta / (2 (1 + 1))
    (0.5, True, True)
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    v.one_of("require", require, list(REQUIRE))
    if at_most is not None:
        if require != "proved":
            raise ValueError("at_most is only for require='proved' (it narrows a proof's work), got require='estimate'")
        at_most = float(v.positive("at_most", at_most, allow_zero=True))
    if noise is not None:
        if getattr(noise, "family", None) not in ("gaussian", "laplace"):
            raise ValueError(f"noise must be a GaussianNoise or LaplaceNoise object or None, got {noise!r}")
        v.positive("noise.scale", noise.scale, allow_zero=True)
    gauss_noise = noise is None or noise.family == "gaussian" or noise.scale == 0
    if isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian) and gauss_noise:
        a = v.alpha_order(alpha, allow_below_one=True, allow_one=True, allow_inf=True)
        theta = 0.0 if noise is None else float(noise.scale)
        if np.all((a > 1) & np.isfinite(a)):
            return _gaussian_pair(prior_i, prior_j, a, theta)
        if require == "proved":
            raise ValueError(
                f"require='proved': the Gaussian closed form is proved only for 1 < alpha < inf, got {alpha!r}"
            )
        z = theta * theta
        return gaussian_renyi(prior_i.mean, prior_i.var + z, prior_j.mean, prior_j.var + z, a)
    a = v.alpha_order(alpha, allow_below_one=True)
    if a.ndim == 0:
        return _one(prior_i, prior_j, float(a), noise, require, at_most)
    parts = [_one(prior_i, prior_j, float(x), noise, require, at_most) for x in a.ravel()]
    value = np.array([float(c.value) for c in parts]).reshape(a.shape)
    error = np.array([float(c.error) for c in parts]).reshape(a.shape)
    return Certified(value, error, rigorous=all(c.rigorous for c in parts))
