r"""The :math:`W_\infty` baseline of Pierquin et al. 2024, for Gaussian and Laplace noise.

Coupling the two secret-conditioned laws so that coupled points are at most
:math:`W_\infty(P_i, P_j)` apart, the mechanism is as private as the additive-noise
mechanism with sensitivity :math:`W_\infty`:

* Gaussian noise: :math:`\theta^2 = \alpha W_\infty^2 / (2\varepsilon)` (:func:`pierquin_variance`);
* Laplace noise: the scale solving Mironov 2017, Prop. 6, at sensitivity :math:`W_\infty`
  (:func:`pierquin_laplace_scale`, through :func:`rpp.divergence.laplace_rdp_scale`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ..divergence.laplace_shift import laplace_rdp_scale
from ..transport import w_infinity

__all__ = ["pierquin_variance", "pierquin_laplace_scale"]


def pierquin_variance(w_inf: ArrayLike, alpha: ArrayLike, epsilon: ArrayLike) -> float | np.ndarray:
    r"""Noise variance of the :math:`W_\infty` Gaussian mechanism of Pierquin et al. 2024.

    :math:`\theta^2 = \alpha W_\infty^2 / (2\varepsilon)`: adding :math:`N(0,\theta^2)`
    to a query whose two secret-conditioned laws have :math:`W_\infty \le w`
    gives :math:`D_\alpha \le \alpha w^2/(2\theta^2)` (a shift of at most
    :math:`w` between coupled points).  Vectorised; ``rpp.calibrate(...,
    method="pierquin")`` uses it with :math:`w = W_\infty(P_i, P_j)`.

    Parameters
    ----------
    w_inf : array_like
        :math:`W_\infty \ge 0` (``inf`` allowed: the result is ``inf``).
    alpha : array_like
        Rényi order, ``> 1``.
    epsilon : array_like
        Budget, ``> 0``.

    Returns
    -------
    ndarray or float
        :math:`\theta^2`.

    Raises
    ------
    ValueError
        If an argument is outside its range.

    Examples
    --------
    >>> float(pierquin_variance(1.5, 3.0, 0.5))
    6.75
    """
    w = v.positive("w_inf", w_inf, allow_zero=True, allow_inf=True)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    with np.errstate(invalid="ignore"):
        return alpha * w**2 / (2 * epsilon)


def pierquin_laplace_scale(prior_i: Any, prior_j: Any, alpha: float, epsilon: float) -> float:
    r"""Laplace scale of the :math:`W_\infty` baseline: Mironov's Prop. 6 at sensitivity :math:`W_\infty(P_i, P_j)`.

    Parameters
    ----------
    prior_i, prior_j : Empirical or Gaussian
        Priors with a :math:`W_\infty` (:func:`rpp.w_infinity`).
    alpha : float
        Rényi order, ``> 1``.
    epsilon : float
        Budget, ``> 0``.

    Returns
    -------
    float
        The scale ``b`` (``inf`` when :math:`W_\infty = \infty`, e.g. Gaussians with
        different variances).

    Examples
    --------
    >>> from rpp import Empirical
    >>> from rpp.divergence import laplace_rdp
    >>> b = pierquin_laplace_scale(Empirical([0.0]), Empirical([1.0]), 2.0, 1.0)
    >>> bool(laplace_rdp(1.0, b, 2.0) <= 1.0 < laplace_rdp(1.0, 0.9999 * b, 2.0))
    True
    """
    return float(laplace_rdp_scale(w_infinity(prior_i, prior_j), alpha, epsilon))
