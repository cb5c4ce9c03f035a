r"""The :math:`W_\infty` baseline of Pierquin et al. 2024, for Gaussian and Laplace noise.

Coupling the two secret-conditioned laws so that coupled points are at most
:math:`W_\infty(P_i, P_j)` apart, the mechanism is as private as the additive-noise
mechanism with sensitivity :math:`W_\infty`:

* Gaussian noise: :math:`\theta = W_\infty\sqrt{\alpha / (2\varepsilon)}`;
* Laplace noise: the scale solving Mironov 2017, Prop. 6, at sensitivity :math:`W_\infty`
  (through :func:`rpp.divergence.laplace_rdp_scale`).

:func:`pierquin` is the rule (two priors); :func:`sensitivity_scale` the scale of an additive
mechanism of a given sensitivity, vectorised.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from .._lib.numerics import sqrt_up, sqrt_up_array
from ..divergence import laplace_rdp_scale
from ..priors import Prior, check_prior
from ..transport import w_infinity

__all__ = ["pierquin", "sensitivity_scale"]


def sensitivity_scale(
    sensitivity: ArrayLike, *, alpha: ArrayLike, epsilon: ArrayLike, noise: str | type = "gaussian"
) -> float | np.ndarray:
    r"""Noise scale of an additive mechanism of sensitivity :math:`w` with :math:`D_\alpha \le \varepsilon`.

    * Gaussian noise (Mironov 2017, Prop. 7): :math:`D_\alpha(N(0,\theta^2)\|N(w,\theta^2)) =
      \alpha w^2/(2\theta^2)`, so :math:`\theta^2 = \alpha w^2 / (2\varepsilon)`; θ is its
      square root rounded up.
    * Laplace noise: the scale solving Mironov 2017, Prop. 6 at sensitivity :math:`w`
      (:func:`rpp.divergence.laplace_rdp_scale`).

    With :math:`w = W_\infty(P_i, P_j)` this is the baseline of Pierquin et al. 2024
    (:func:`pierquin`).  Vectorised.

    Parameters
    ----------
    sensitivity : array_like
        :math:`w \ge 0` (``inf`` allowed: the scale is ``inf``).
    alpha : array_like
        Rényi order, ``> 1``.
    epsilon : array_like
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).

    Returns
    -------
    float or ndarray
        The noise scale: θ or ``b``.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> round(float(sensitivity_scale(1.5, alpha=3.0, epsilon=0.5)) ** 2, 12)  # alpha w^2 / (2 eps)
    6.75
    """
    noise = v.noise_family("noise", noise, ("gaussian", "laplace"))
    w = v.positive("sensitivity", sensitivity, allow_zero=True, allow_inf=True)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    if noise == "laplace":
        return laplace_rdp_scale(w, alpha, epsilon)
    with np.errstate(invalid="ignore", over="ignore"):  # beyond the double range the scale is +inf (safe)
        var = np.asarray(alpha * np.asarray(w, float) ** 2 / (2 * epsilon), dtype=float)
    if var.ndim == 0:
        return sqrt_up(float(var))
    return sqrt_up_array(var)


def pierquin(prior_i: Prior, prior_j: Prior, *, alpha: float, epsilon: float, noise: str | type = "gaussian") -> float:
    r"""Noise scale of the :math:`W_\infty` baseline of Pierquin et al. 2024 (one order; in fact both).

    Coupling the two secret-conditioned laws so that coupled points are at most
    :math:`W_\infty(P_i, P_j)` apart, the mechanism is as private as the additive mechanism of
    sensitivity :math:`W_\infty` (:func:`sensitivity_scale`): Gaussian noise
    :math:`\theta = W_\infty\sqrt{\alpha/(2\varepsilon)}`, Laplace noise Mironov's Prop. 6.

    Parameters
    ----------
    prior_i, prior_j : Empirical or Gaussian
        Priors with a :math:`W_\infty` (:func:`rpp.w_infinity`).
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``>= 1e-300`` (finite).
    noise : {"gaussian", "laplace"} or type
        The noise family, by name or as the class (:class:`rpp.noise.GaussianNoise`,
        :class:`rpp.noise.LaplaceNoise`).

    Returns
    -------
    float
        The scale θ or ``b`` (``inf`` when :math:`W_\infty = \infty`, e.g. Gaussians with
        different variances).

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution.
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> from rpp import Empirical
    >>> from rpp.divergence import laplace_shift_divergence
    >>> b = pierquin(Empirical([0.0]), Empirical([1.0]), alpha=2.0, epsilon=1.0, noise="laplace")
    >>> bool(laplace_shift_divergence(1.0, b, 2.0).value <= 1.0 < laplace_shift_divergence(1.0, 0.9999 * b, 2.0).value)
    True
    """
    check_prior("prior_i", prior_i)
    check_prior("prior_j", prior_j)
    return float(sensitivity_scale(w_infinity(prior_i, prior_j), alpha=alpha, epsilon=epsilon, noise=noise))
