r"""Rényi divergences of noisy outputs: closed forms, quadrature for Gaussian and Laplace noise.

The one home of the divergence names (the modules of this package are private):

* the entry point: :func:`renyi_divergence`, the divergence of the noisy outputs under two
  priors, as a :class:`rpp.Certified` (value, error, rigorous);
* closed forms: :func:`gaussian_renyi` (Yang et al. 2026, Def. III.1) and
  :func:`discrete_renyi_divergence` (van Erven & Harremoës 2014), each a :class:`rpp.Certified`,
  with :func:`gaussian_divergence_bounds` (their proved rounding bounds) and the float kernels
  :func:`gaussian_renyi_value` and :func:`discrete_renyi_value`;
* Gaussian noise on mixtures and samples: :func:`renyi_divergence_bound` (quadrature with an
  error estimate), and the kernels of two Gaussians with their proved rounding bounds
  (:func:`gaussian_divergence_upper`, :func:`certified_gaussian_divergence`);
* proved enclosures by arb interval arithmetic (python-flint, a dependency of ``rpp-book``,
  imported on first use), used by ``renyi_divergence(..., require="proved")``:
  :func:`proved_divergence`, :func:`proved_discrete`, and :func:`convexity_width` (the width of
  the convexity bounds for many components under Gaussian noise);
* Laplace(0, b) against Laplace(Δ, b) (Mironov 2017): :func:`laplace_shift_divergence`,
  :func:`laplace_rdp_scale`, :func:`log_laplace_shift_integral`;
* Laplace noise on priors: :func:`laplace_renyi_divergence_bound`,
  :func:`laplace_renyi_divergence`, :func:`laplace_noisy_logpdf`, and a proved enclosure from
  the samples binned (a cheap check that a scale meets a budget with room to spare):
  :func:`binned_laplace_divergence`, :func:`bins_are_few`, :func:`bin_samples`;
* :func:`centred_orders`: the exact common offset that centres a pair of priors, applied to
  both orders of a pair.
"""

from ._centre import centred_orders
from ._closed_forms import (
    discrete_renyi_divergence,
    discrete_renyi_value,
    gaussian_divergence_bounds,
    gaussian_renyi,
    gaussian_renyi_value,
)
from ._gaussian_noise import certified_gaussian_divergence, gaussian_divergence_upper, renyi_divergence_bound
from ._laplace_binned import bin_samples, binned_laplace_divergence, bins_are_few
from ._laplace_noise import laplace_noisy_logpdf, laplace_renyi_divergence, laplace_renyi_divergence_bound
from ._laplace_shift import laplace_rdp_scale, laplace_shift_divergence, log_laplace_shift_integral
from ._proved import convexity_width, proved_discrete, proved_divergence
from ._renyi import renyi_divergence

__all__ = [
    "renyi_divergence",
    "gaussian_renyi",
    "discrete_renyi_divergence",
    "gaussian_divergence_bounds",
    "gaussian_renyi_value",
    "discrete_renyi_value",
    "renyi_divergence_bound",
    "gaussian_divergence_upper",
    "certified_gaussian_divergence",
    "proved_divergence",
    "proved_discrete",
    "convexity_width",
    "laplace_shift_divergence",
    "laplace_rdp_scale",
    "log_laplace_shift_integral",
    "laplace_renyi_divergence_bound",
    "laplace_renyi_divergence",
    "laplace_noisy_logpdf",
    "binned_laplace_divergence",
    "bins_are_few",
    "bin_samples",
    "centred_orders",
]
