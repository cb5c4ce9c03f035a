"""The common part of the additive noise objects: ``M(x) = x + Z`` with ``Z`` of a given scale."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v

__all__ = ["AdditiveNoise"]


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
        return f"{type(self).__name__}(scale={self.scale!r})"

    @staticmethod
    def variance_of(scale: ArrayLike) -> Any:  # pragma: no cover - defined by every subclass
        raise NotImplementedError

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    @staticmethod
    def order(alpha: Any) -> float:
        """The order ``alpha`` of :meth:`divergence` as a float; a ValueError unless ``1 < alpha < inf``."""
        return v.alpha_scalar(alpha)

    @property
    def variance(self) -> float:
        """Noise variance at :attr:`scale`."""
        return float(self.variance_of(self.scale))

    def release(self, x: ArrayLike, rng: Any = None) -> Any:
        """Return ``x + Z`` elementwise; ``rng`` is ``None``, an int seed or a Generator."""
        x = v.finite("x", x)
        out = x + self._draw(v.rng_from(rng), x.shape)
        return out if out.ndim else float(out)
