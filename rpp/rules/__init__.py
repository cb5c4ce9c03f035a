r"""Calibration rules as pure functions: each returns the noise one order :math:`D_\alpha(i\|j)` needs.

* ``gaussian`` -- Theorem III.5 closed form, Algorithm 1 as published, the exact (corrected)
  Gaussian calibration, vectorised;
* ``mixture`` -- Theorem IV.1 with its domain (``"gmm-ot"``), the tight joint-convexity
  coupling (``"gmm-ot-tight"``);
* ``exact`` -- the minimal noise by quadrature with an error estimate (any priors; a proved
  bound only in closed form for two Gaussians and for Laplace noise on empirical priors);
* ``pierquin`` -- the :math:`W_\infty` baseline of Pierquin et al. 2024;
* ``w_alpha`` -- the α-Wasserstein conditions (``awass2026``);
* ``exponential_family`` -- exponential-family noise and the :math:`\alpha<1` condition.

:func:`rpp.calibrate` maps its method names onto these functions in one explicit table.
"""

from .exact import exact_laplace_scale, exact_variance
from .exponential_family import (
    alpha_below_one_laplace_scale,
    exponential_family_eta,
    two_sided_geometric_renyi,
)
from .gaussian import (
    closed_form_variance,
    gaussian_exact_variance,
    published_bisection_variance,
)
from .mixture import gmm_ot_tight_variance, gmm_ot_variance, log_psi_terms
from .pierquin import pierquin_laplace_scale, pierquin_variance
from .w_alpha import alpha_wasserstein, w_alpha_log_moment, w_alpha_scale

__all__ = [
    "closed_form_variance",
    "published_bisection_variance",
    "gaussian_exact_variance",
    "log_psi_terms",
    "gmm_ot_variance",
    "gmm_ot_tight_variance",
    "exact_variance",
    "exact_laplace_scale",
    "pierquin_variance",
    "pierquin_laplace_scale",
    "w_alpha_log_moment",
    "alpha_wasserstein",
    "w_alpha_scale",
    "exponential_family_eta",
    "two_sided_geometric_renyi",
    "alpha_below_one_laplace_scale",
]
