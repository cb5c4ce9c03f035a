r"""Additive noise families :math:`M(x) = x + Z`, as objects.

* :class:`GaussianNoise` -- :math:`Z \sim N(0,\theta^2)`, the additive noise of the Gaussian
  mechanism (Yang et al. 2026, Sec. II); its divergence between two noisy priors is the closed
  form of Corollary III.3 for two Gaussians (:func:`rpp.divergence.gaussian_divergence_upper`
  bounds it from above including round-off) and quadrature with an error estimate otherwise
  (:func:`rpp.divergence.renyi_divergence_bound`);
* :class:`LaplaceNoise` -- :math:`Z \sim \mathrm{Lap}(b)`, density :math:`e^{-|z|/b}/(2b)`,
  variance :math:`2b^2`; its divergence is :func:`rpp.divergence.laplace_renyi_divergence_bound`.

Each noise object has ``scale``, ``variance``, ``divergence(p, q, alpha) -> (value, error)``
(``value + error`` is an upper bound) and ``release(x, rng=...)``.  The divergence kernels
live in :mod:`rpp.divergence`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ._lib import validation as v
from .divergence.gaussian_noise import (
    certified_gaussian_divergence,
    renyi_divergence_bound,
)
from .divergence.laplace_noise import laplace_renyi_divergence_bound
from .priors import Gaussian, check_prior

__all__ = ["AdditiveNoise", "GaussianNoise", "LaplaceNoise"]


class AdditiveNoise:
    r"""Base of :class:`~rpp.noise.GaussianNoise` and :class:`~rpp.noise.LaplaceNoise`.

    A subclass sets :attr:`name`, and defines ``variance_of(scale)``, ``divergence(p, q, alpha)``
    and ``_draw(rng, shape)`` (a sample of the noise).

    **Range of the order.**  Every noise object's ``divergence`` takes a single order
    :math:`1 < \alpha < \infty` (the range of the RPP definition, Yang et al. 2026, Def. II.1)
    and rejects anything else -- ``alpha = 1``, ``alpha < 1``, ``inf``, NaN, an array -- with the
    same ``ValueError`` naming ``alpha`` and this range (:meth:`order`).  The KL limit
    ``alpha = 1`` is available for Gaussians from :func:`rpp.gaussian_renyi`.

    Parameters
    ----------
    scale : float
        Noise scale, ``>= 0``.

    Raises
    ------
    ValueError
        If ``scale`` is negative, infinite or NaN.

    Examples
    --------
    >>> from rpp.noise import GaussianNoise
    >>> nz = GaussianNoise(2.0)  # a subclass
    >>> isinstance(nz, AdditiveNoise), nz.variance
    (True, 4.0)
    >>> nz.release(1.0, rng=0) != 1.0
    True
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    name: ClassVar[str] = ""

    def __init__(self, scale: float) -> None:
        self.scale = float(v.positive("scale", scale, allow_zero=True))

    def __repr__(self) -> str:
        """Return the parameters, for display."""
        return f"{type(self).__name__}(scale={self.scale!r})"

    @staticmethod
    def variance_of(scale: ArrayLike) -> float | np.ndarray:  # pragma: no cover - defined by every subclass
        """Variance of the noise at scale(s) ``scale``.

        Parameters
        ----------
        scale : array_like
            Noise scale(s), ``>= 0``.

        Returns
        -------
        float or ndarray
            The variance(s).
        """
        raise NotImplementedError

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def order(alpha: Any) -> float:
        """Return the order ``alpha`` of :meth:`divergence` as a float; a ValueError unless ``1 < alpha < inf``."""
        return v.alpha_scalar(alpha)

    @property
    def variance(self) -> float:
        """Noise variance at :attr:`scale`."""
        return float(self.variance_of(self.scale))

    def release(self, x: ArrayLike, rng: Any = None) -> float | np.ndarray:
        """Return ``x + Z`` elementwise; ``rng`` is ``None``, an int seed or a Generator."""
        x = v.finite("x", x)
        out = x + self._draw(v.rng_from(rng), x.shape)
        return out if out.ndim else float(out)


class GaussianNoise(AdditiveNoise):  # numpydoc ignore=PR02
    r"""Additive Gaussian noise :math:`N(0, \theta^2)` (the Gaussian mechanism, Yang et al. 2026, Sec. II).

    Parameters
    ----------
    scale : float
        Standard deviation :math:`\theta \ge 0`, e.g. ``rpp.calibrate(...).scale``.

    Raises
    ------
    ValueError
        If ``scale`` is negative, infinite or NaN.

    Examples
    --------
    >>> noise = GaussianNoise(2.0)
    >>> noise.variance
    4.0
    >>> value, error = noise.divergence(Gaussian(0, 1), Gaussian(1, 1), alpha=2.0)  # alpha Delta / (2 (1 + 4))
    >>> value, bool(0 <= error < 1e-15)
    (0.2, True)
    >>> noise.release(0.0, rng=1) == GaussianNoise(2.0).release(0.0, rng=1)
    True
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    name = "gaussian"

    @staticmethod
    def variance_of(scale: ArrayLike) -> float | np.ndarray:
        r"""Variance :math:`\theta^2` of the noise at scale(s) :math:`\theta`."""
        return np.asarray(scale, dtype=float) ** 2

    def divergence(self, p: Any, q: Any, alpha: float) -> tuple[float, float]:
        r"""``(value, error)`` of :math:`D_\alpha(p * N(0,\theta^2)\,\|\,q * N(0,\theta^2))`.

        ``value + error`` is a proved upper bound for two Gaussians; for mixtures and
        empirical priors ``error`` is the quadrature's error *estimate* (``|GL20 - GL10|``
        per panel) plus a rigorous tail bound, not a proof.

        Two :class:`~rpp.Gaussian` priors: the closed form (Corollary III.3) with the
        round-off margin of :func:`gaussian_divergence_upper`; otherwise
        :func:`rpp.divergence.renyi_divergence_bound`.

        ``alpha`` is a single order, :math:`1 < \alpha < \infty` (the range of every noise
        object, ``AdditiveNoise.order``); anything else is a ValueError naming ``alpha``.
        """
        alpha = self.order(alpha)
        check_prior("p", p)
        check_prior("q", q)
        z = self.scale**2
        if isinstance(p, Gaussian) and isinstance(q, Gaussian):
            return certified_gaussian_divergence(p.mean, p.var, q.mean, q.var, alpha, z)
        return renyi_divergence_bound(p, q, alpha, z)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.normal(0.0, self.scale, size=shape)


class LaplaceNoise(AdditiveNoise):  # numpydoc ignore=PR02
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
    def variance_of(scale: ArrayLike) -> float | np.ndarray:
        r"""Variance :math:`2b^2` of the noise at scale(s) :math:`b`."""
        return 2 * np.asarray(scale, dtype=float) ** 2

    def divergence(self, p: Any, q: Any, alpha: float) -> tuple[float, float]:
        r"""``(value, error)`` of :math:`D_\alpha(p * \mathrm{Lap}(b)\,\|\,q * \mathrm{Lap}(b))` (:func:`rpp.divergence.laplace_renyi_divergence_bound`).

        ``alpha`` is a single order, :math:`1 < \alpha < \infty` (the range of every noise
        object, ``AdditiveNoise.order``); anything else is a ValueError naming ``alpha``.
        """
        return laplace_renyi_divergence_bound(p, q, self.order(alpha), self.scale)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size=shape)
