"""Rényi Pufferfish Privacy: the reference package of *The RPP Book*.

Priors (:class:`Gaussian`, :class:`GaussianMixture`, :class:`Empirical`),
Rényi divergences of noisy outputs (:func:`renyi_divergence`), mixture fitting
(:func:`fit_gmm`), one-dimensional optimal transport (:func:`w_infinity`,
:func:`quantile_coupling`, :func:`component_coupling`) and noise calibration
(:func:`calibrate`) that never returns less noise than the guarantee needs.
"""

from .distributions import Empirical, Gaussian, GaussianMixture
from .divergence import discrete_renyi_divergence, gaussian_renyi, renyi_divergence, renyi_divergence_bound
from .gmm import bic_curve, fit_gmm
from .transport import component_coupling, gaussian_w2_squared, quantile_coupling, w_infinity, wasserstein
from .calibration import (Calibration, PrivacyWarning, calibrate, closed_form_variance, methods,
                          published_bisection_variance)
from .mechanisms import GaussianMechanism
from . import composition, data, discrete, experiments, queries

from importlib.metadata import version as _version

__version__ = _version("rpp-book")  # one version string: pyproject.toml

__all__ = [
    "Gaussian", "GaussianMixture", "Empirical",
    "gaussian_renyi", "renyi_divergence", "renyi_divergence_bound", "discrete_renyi_divergence",
    "fit_gmm", "bic_curve",
    "quantile_coupling", "w_infinity", "wasserstein", "gaussian_w2_squared", "component_coupling",
    "Calibration", "PrivacyWarning", "calibrate", "closed_form_variance", "published_bisection_variance",
    "methods", "GaussianMechanism",
    "composition", "data", "discrete", "experiments", "queries",
]

# Importing rpp.laplace and rpp.w_alpha registers noise="laplace" and the "w-alpha" / "w-alpha-tight"
# methods with calibrate (alpha-Wasserstein mechanisms, chapter 5).
from .laplace import (LaplaceMechanism, laplace_noisy_logpdf, laplace_renyi_divergence,
                      laplace_renyi_divergence_bound)
from .w_alpha import (alpha_below_one_laplace_scale, alpha_wasserstein, exponential_family_eta,
                      laplace_rdp, laplace_rdp_scale, log_laplace_shift_integral, two_sided_geometric_renyi,
                      w_alpha_log_moment, w_alpha_scale)

__all__ += ["LaplaceMechanism", "laplace_noisy_logpdf", "laplace_renyi_divergence",
            "laplace_renyi_divergence_bound", "alpha_below_one_laplace_scale", "alpha_wasserstein",
            "exponential_family_eta", "laplace_rdp", "laplace_rdp_scale", "log_laplace_shift_integral",
            "two_sided_geometric_renyi", "w_alpha_log_moment", "w_alpha_scale"]
