"""The common part of the additive noise objects: ``M(x) = x + Z`` with ``Z`` of a given scale."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v

__all__ = ["AdditiveNoise"]


class AdditiveNoise:
    """Base of :class:`~rpp.noise.GaussianNoise` and :class:`~rpp.noise.LaplaceNoise`.

    A subclass sets :attr:`name`, and defines ``variance_of(scale)``, ``divergence(p, q, alpha)``
    and ``_draw(rng, shape)`` (a sample of the noise).

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

    @property
    def variance(self) -> float:
        """Noise variance at :attr:`scale`."""
        return float(self.variance_of(self.scale))

    def release(self, x: ArrayLike, rng: Any = None) -> Any:
        """Return ``x + Z`` elementwise; ``rng`` is ``None``, a seed or a Generator."""
        x = v.finite("x", x)
        out = x + self._draw(v.rng_from(rng), x.shape)
        return out if out.ndim else float(out)
