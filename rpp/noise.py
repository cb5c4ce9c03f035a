r"""Additive noise families :math:`M(x) = x + Z`, as objects.

* :class:`GaussianNoise` -- :math:`Z \sim N(0,\theta^2)`, the additive noise of the Gaussian
  mechanism (Yang et al. 2026, Sec. II);
* :class:`LaplaceNoise` -- :math:`Z \sim \mathrm{Lap}(b)`, density :math:`e^{-|z|/b}/(2b)`,
  variance :math:`2b^2`.

Each noise object has ``family``, ``scale``, ``variance``,
``divergence(prior_i, prior_j, *, alpha) -> Certified`` (:func:`rpp.renyi_divergence` with this
noise; ``rigorous`` says whether its error is proved) and ``release(x)``, which draws exact
samples of the mechanism rounded to a fine grid from the operating system's entropy
(:mod:`rpp.sampling`) and returns them as a :class:`rpp.sampling.Release` record (the value
with its provenance).  The divergence kernels live in :mod:`rpp.divergence`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ._lib import validation as v
from .certified import Certified
from .divergence import renyi_divergence
from .priors import Prior
from .sampling import Release, bit_source, sample_release

__all__ = ["AdditiveNoise", "GaussianNoise", "LaplaceNoise"]


class AdditiveNoise:
    r"""Base of :class:`~rpp.noise.GaussianNoise` and :class:`~rpp.noise.LaplaceNoise`.

    A subclass sets :attr:`family` (``"gaussian"`` or ``"laplace"``: the family that
    ``release`` samples), and defines ``variance_of(scale)`` and ``divergence(p, q, alpha)``.

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
    >>> r = nz.release(1.0)  # OS entropy; on the grid 2**-9 = largest power of two <= 2 / 1024
    >>> r.value != 1.0, (r.value / 2.0**-9).is_integer(), r.grid == 2.0**-9
    (True, True, True)
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    family: ClassVar[str] = ""

    def __init__(self, scale: float) -> None:
        self.scale = float(v.positive("scale", scale, allow_zero=True))

    def __eq__(self, other: object) -> bool:
        """Value equality: the same family and the same scale."""
        if not isinstance(other, AdditiveNoise):
            return NotImplemented
        return type(self) is type(other) and self.scale == other.scale

    def __hash__(self) -> int:
        """Return the hash of the type and the scale (equal noises hash equal)."""
        return hash((type(self).__name__, self.scale))

    def __setattr__(self, name: str, value: Any) -> None:
        """Refuse to change an attribute once set: a noise is an immutable value."""
        if name in self.__dict__:
            raise AttributeError(f"{type(self).__name__} is immutable: make a new one with another scale")
        super().__setattr__(name, value)

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

    @staticmethod
    def order(alpha: Any) -> float:
        """Return the order ``alpha`` of ``divergence`` as a float; a ValueError unless ``1 < alpha < inf``."""
        return v.alpha_scalar(alpha)

    @property
    def variance(self) -> float:
        """Noise variance at ``scale``."""
        return float(self.variance_of(self.scale))

    def release(
        self,
        x: ArrayLike,
        *,
        rng: Any = None,
        insecure_seed: Any = None,
        grid: float | None = None,
        calibration: Any = None,
    ) -> Release:
        r"""Release ``x + Z`` elementwise, rounded to a grid, sampled exactly from the OS's entropy.

        Returns :math:`g\,\mathrm{round}((x + Z)/g)` with :math:`K = \mathrm{round}(\cdot)` drawn
        exactly from its law (:func:`rpp.sampling.secure_gaussian`,
        :func:`rpp.sampling.secure_laplace`): a post-processing of ``x + Z``, so every RPP guarantee
        calibrated for this noise holds unchanged (data-processing inequality), and no
        floating-point artefact of the sampler depends on ``x`` (Mironov 2012).  At ``scale = 0``
        the value itself is returned.

        Parameters
        ----------
        x : float or array_like
            The query value(s), finite.
        rng : None or random.SystemRandom
            ``None``: the operating system's entropy.  An int seed or a numpy Generator is
            refused (ValueError): reproducible noise can be subtracted by whoever learns the seed.
        insecure_seed : int or tuple of int, optional
            Reproducible, **unsafe** noise for teaching and tests (keyword only); warns
            :class:`rpp.sampling.InsecureNoiseWarning`.  Never for a real release.
        grid : float, optional
            Output grid, a power of two in ``[scale / 2**60, scale]``; default the largest
            power of two ``<= scale / 1024`` (:func:`rpp.sampling.default_grid`).  It must not
            depend on the data.
        calibration : rpp.Calibration, optional
            The calibration this noise's scale came from, kept in the record for
            :func:`rpp.accounting.release_report`; its ``noise`` must be :attr:`family` and its
            ``scale`` this noise's scale (else a ValueError naming ``calibration``).

        Returns
        -------
        rpp.sampling.Release
            The record: ``.value`` holds the released value(s), multiples of the grid, the shape
            of ``x``; ``.source`` says where the noise came from, ``.reproducible`` whether it
            can be regenerated.  At ``scale = 0`` ``.value`` is ``x`` itself and ``.grid`` is
            None.

        Examples
        --------
        >>> r = GaussianNoise(2.0).release([0.0, 1.0])  # OS entropy; print the metadata only
        >>> r.family, r.scale, r.source, r.reproducible, r.value.shape
        ('gaussian', 2.0, 'os', False, (2,))
        """
        x = v.finite("x", x)
        if self.scale == 0:  # no noise: the value itself (the seed is still checked)
            src = bit_source(rng, insecure_seed, stacklevel=3)
            return Release(
                value=x if x.ndim else float(x),
                family=self.family,
                scale=0.0,
                grid=None,
                source="insecure_seed" if src.unsafe else "os",
                reproducible=src.unsafe,
                calibration=calibration,
            )
        return sample_release(
            self.family, x, self.scale, grid, rng, insecure_seed, stacklevel=3, calibration=calibration
        )


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
    >>> from rpp import Gaussian
    >>> d = noise.divergence(Gaussian(mean=0, var=1), Gaussian(mean=1, var=1), alpha=2.0)  # alpha Delta / (2 (1 + 4))
    >>> round(d.value, 15), d.rigorous, bool(0 <= d.error < 1e-15)
    (0.2, True, True)
    >>> (noise.release(0.0).value / 2.0**-9).is_integer()  # exact, on the grid, from OS entropy
    True
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    family = "gaussian"

    @staticmethod
    def variance_of(scale: ArrayLike) -> float | np.ndarray:
        r"""Variance :math:`\theta^2` of the noise at scale(s) :math:`\theta`."""
        return np.asarray(scale, dtype=float) ** 2

    def divergence(
        self, prior_i: Prior, prior_j: Prior, *, alpha: float, require: str = "estimate", at_most: float | None = None
    ) -> Certified:
        r""":math:`D_\alpha(P_i * N(0,\theta^2)\,\|\,P_j * N(0,\theta^2))`: :func:`rpp.renyi_divergence` with this noise.

        Proved (``rigorous=True``) for two Gaussians (the closed form with its rounding analysis);
        for mixtures and empirical priors an estimate unless ``require="proved"`` (arb).
        ``alpha`` is a single order, :math:`1 < \alpha < \infty` (the range of every noise
        object, ``AdditiveNoise.order``); anything else is a ValueError naming ``alpha``.
        ``at_most`` (with ``require="proved"``): the bound the result will be tested against, as
        in :func:`rpp.renyi_divergence`.
        """
        return renyi_divergence(
            prior_i,
            prior_j,
            alpha=self.order(alpha),
            noise=self,
            require=require,  # type: ignore[arg-type]
            at_most=at_most,
        )


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
    >>> d = noise.divergence(Empirical([0.0]), Empirical([1.0]), alpha=2.0)
    >>> bool(abs(d.value - np.log(2 / 3 * np.e + 1 / 3 * np.exp(-2))) < 1e-14), d.rigorous  # Mironov 2017, Prop. 6
    (True, True)
    """

    #: Name of the family in :func:`rpp.calibrate` (``noise=...``).
    family = "laplace"

    @staticmethod
    def variance_of(scale: ArrayLike) -> float | np.ndarray:
        r"""Variance :math:`2b^2` of the noise at scale(s) :math:`b`."""
        return 2 * np.asarray(scale, dtype=float) ** 2

    def divergence(
        self, prior_i: Prior, prior_j: Prior, *, alpha: float, require: str = "estimate", at_most: float | None = None
    ) -> Certified:
        r""":math:`D_\alpha(P_i * \mathrm{Lap}(b)\,\|\,P_j * \mathrm{Lap}(b))`: :func:`rpp.renyi_divergence` with this noise.

        Proved (``rigorous=True``) for empirical priors; for Gaussian components an estimate unless
        ``require="proved"`` (arb).  ``alpha`` is a single order, :math:`1 < \alpha < \infty`;
        anything else is a ValueError naming ``alpha``.  ``at_most`` (with ``require="proved"``): as
        in :func:`rpp.renyi_divergence`.
        """
        return renyi_divergence(
            prior_i,
            prior_j,
            alpha=self.order(alpha),
            noise=self,
            require=require,  # type: ignore[arg-type]
            at_most=at_most,
        )
