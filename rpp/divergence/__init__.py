r"""Rényi divergences of noisy outputs: closed forms, quadrature for Gaussian and Laplace noise.

* :mod:`~rpp.divergence.renyi` -- :func:`renyi_divergence`, THE entry point: the divergence of
  the noisy outputs under two priors, as a :class:`rpp.Certified` (value, error, rigorous);
* :mod:`~rpp.divergence.proved` -- proved enclosures by arb interval arithmetic (python-flint,
  a dependency of ``rpp-book``, imported on first use), used by ``renyi_divergence(..., require="proved")``;
* :mod:`~rpp.divergence.closed_forms` -- :func:`gaussian_renyi`, :func:`discrete_renyi_divergence`
  (each a :class:`rpp.Certified`; ``gaussian_divergence_bounds``, the proved rounding bounds);
* :mod:`~rpp.divergence.gaussian_noise` -- Gaussian noise on mixtures and samples:
  ``renyi_divergence_bound`` (quadrature with an error estimate), the kernel sums of many
  atoms, the edge of the tail condition, and the internal kernels of two Gaussians with their
  proved rounding bounds (``gaussian_divergence_upper``, ``certified_gaussian_divergence``);
* :mod:`~rpp.divergence.laplace_shift` -- Laplace(0, b) against Laplace(Δ, b) (Mironov 2017):
  :func:`laplace_shift_divergence`, :func:`laplace_rdp_scale`, :func:`log_laplace_shift_integral`;
* :mod:`~rpp.divergence.laplace_noise` -- Laplace noise on priors:
  ``laplace_renyi_divergence_bound``, ``laplace_renyi_divergence``,
  :func:`laplace_noisy_logpdf`; :mod:`~rpp.divergence.laplace_atoms`, its sweep over the atoms
  of empirical priors; :mod:`~rpp.divergence.laplace_binned`, a proved enclosure from the samples
  binned (a cheap check that a scale meets a budget with room to spare);
* :mod:`~rpp.divergence.centre` -- the exact common offset that centres a pair of priors.
"""

from .closed_forms import discrete_renyi_divergence, gaussian_renyi
from .laplace_noise import laplace_noisy_logpdf
from .laplace_shift import laplace_rdp_scale, laplace_shift_divergence, log_laplace_shift_integral
from .renyi import renyi_divergence

__all__ = [
    "renyi_divergence",
    "gaussian_renyi",
    "discrete_renyi_divergence",
    "laplace_shift_divergence",
    "laplace_rdp_scale",
    "log_laplace_shift_integral",
    "laplace_noisy_logpdf",
]
