r"""Additive noise families :math:`M(x) = x + Z`, as objects, and their closed forms.

* :class:`GaussianNoise` -- :math:`N(0,\theta^2)`; :func:`gaussian_divergence_upper`, the
  certified closed form of its divergence between two Gaussian priors;
* :class:`LaplaceNoise` -- :math:`\mathrm{Lap}(b)`; Mironov's closed forms
  :func:`laplace_rdp`, :func:`laplace_rdp_scale`, :func:`log_laplace_shift_integral`, and the
  divergence of Laplace-noised priors :func:`laplace_renyi_divergence_bound`,
  :func:`laplace_renyi_divergence`, with the output density :func:`laplace_noisy_logpdf`.

Each noise object has ``scale``, ``variance``, ``divergence(p, q, alpha) -> (value, error)``
(``value + error`` is an upper bound) and ``release(x, rng=...)``.
"""

from .gaussian import GaussianNoise, certified_gaussian_divergence, gaussian_divergence_upper
from .laplace import LaplaceNoise
from .laplace_divergence import laplace_noisy_logpdf, laplace_renyi_divergence, laplace_renyi_divergence_bound
from .laplace_rdp import laplace_rdp, laplace_rdp_scale, log_laplace_shift_integral

__all__ = [
    "GaussianNoise",
    "LaplaceNoise",
    "gaussian_divergence_upper",
    "certified_gaussian_divergence",
    "laplace_rdp",
    "laplace_rdp_scale",
    "log_laplace_shift_integral",
    "laplace_renyi_divergence_bound",
    "laplace_renyi_divergence",
    "laplace_noisy_logpdf",
]
