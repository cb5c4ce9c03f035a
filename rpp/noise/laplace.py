r"""Laplace noise :math:`Z \sim \mathrm{Lap}(b)`, density :math:`e^{-|z|/b}/(2b)`, variance :math:`2b^2`."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .base import AdditiveNoise
from .laplace_divergence import laplace_renyi_divergence_bound

__all__ = ["LaplaceNoise"]


class LaplaceNoise(AdditiveNoise):
    r"""Additive Laplace noise :math:`\mathrm{Lap}(b)` (the Laplace mechanism :math:`M(x) = x + Z`).

    Parameters
    ----------
    scale : float
        Laplace scale :math:`b \ge 0`, e.g. ``rpp.calibrate(..., noise="laplace").scale``.

    Raises
    ------
    ValueError
        If ``scale`` is negative, infinite or NaN.

    Examples
    --------
    >>> from rpp import Empirical
    >>> noise = LaplaceNoise(1.0)
    >>> noise.variance
    2.0
    >>> val, err = noise.divergence(Empirical([0.0]), Empirical([1.0]), alpha=2.0)
    >>> bool(abs(val - np.log(2 / 3 * np.e + 1 / 3 * np.exp(-2))) < 1e-14)  # Mironov 2017, Prop. 6
    True
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    name = "laplace"

    @staticmethod
    def variance_of(scale: ArrayLike) -> Any:
        r"""Variance :math:`2b^2` of the noise at scale(s) :math:`b`."""
        return 2 * np.asarray(scale, dtype=float) ** 2

    def divergence(self, p: Any, q: Any, alpha: float) -> tuple[float, float]:
        r"""``(value, error)`` of :math:`D_\alpha(p * \mathrm{Lap}(b)\,\|\,q * \mathrm{Lap}(b))` (:func:`rpp.laplace_renyi_divergence_bound`).

        ``alpha`` is a single order, :math:`1 < \alpha < \infty` (the range of every noise
        object, ``AdditiveNoise.order``); anything else is a ValueError naming ``alpha``.
        """
        return laplace_renyi_divergence_bound(p, q, self.order(alpha), self.scale)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size=shape)
