"""Additive noise mechanisms ``M(x) = x + Z``."""

from __future__ import annotations


from . import _validation as v

__all__ = ["GaussianMechanism"]


class GaussianMechanism:
    r"""Gaussian mechanism :math:`M(x) = x + N(0, \theta^2)` (Yang et al. 2026, Sec. II).

    Parameters
    ----------
    scale : float
        Noise standard deviation θ ≥ 0, e.g. ``rpp.calibrate(...).scale``.
    """

    def __init__(self, scale):
        self.scale = float(v.positive("scale", scale, allow_zero=True))

    def __repr__(self):
        return f"GaussianMechanism(scale={self.scale!r})"

    @property
    def variance(self):
        return self.scale ** 2

    def release(self, x, rng=None):
        """Return ``x + N(0, scale^2)`` elementwise; ``rng`` is a Generator or a seed."""
        x = v.finite("x", x)
        out = x + v.rng_from(rng).normal(0.0, self.scale, size=x.shape)
        return out if out.ndim else float(out)
