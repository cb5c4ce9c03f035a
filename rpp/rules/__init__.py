r"""Calibration rules as pure functions, one signature: the noise scale one order :math:`D_\alpha(i\|j)` needs.

Every rule is ``rule(prior_i, prior_j, *, alpha, epsilon[, noise]) -> scale``: the Gaussian
noise standard deviation θ or the Laplace scale ``b`` (``noise="gaussian" | "laplace"``, only in
the rules that serve both families).  A rule solved in the variance θ² returns its square root
rounded up, so that θ² is at least the variance the rule proved.

==============================  ==============================================================  ===========
rule                            what                                                            noise
==============================  ==============================================================  ===========
:func:`closed_form`             Theorem III.5, eq. (6), two Gaussian priors                     Gaussian
:func:`published_bisection`     Algorithm 1 as published (it can under-noise)                   Gaussian
:func:`gmm_ot`                  Theorem IV.1 with its domain enforced                           Gaussian
:func:`gmm_ot_tight`            joint convexity, best coupling                                  Gaussian
:func:`exact`                   the minimal scale (closed form for two Gaussians, quadrature    both
                                otherwise)
:func:`pierquin`                the :math:`W_\infty` baseline of Pierquin et al. 2024           both
:func:`w_alpha`                 the α-Wasserstein conditions (``awass2026``)                    both
:func:`exponential_family`      eq. (13) of ``awass2026``: the scale :math:`1/\eta`             exp. family
:func:`alpha_below_one`         the :math:`\alpha<1` condition of ``awass2026``                 Laplace
==============================  ==============================================================  ===========

Also: :func:`sensitivity_scale` (an additive mechanism of a given sensitivity),
:func:`w_alpha_log_moment` and :func:`alpha_wasserstein` (the α-Wasserstein condition at a noise
object), :func:`two_sided_geometric_renyi` (the divergence after discrete Laplace noise), the
parameter-vectorised kernels of two Gaussian priors (θ², as in the paper:
:func:`closed_form_variance`, :func:`published_bisection_variance`,
:func:`gaussian_exact_variance`), and the search of :func:`exact` that :func:`rpp.calibrate`
shares (:func:`search`, :func:`order_probe`, :class:`DivergenceMemo`).  This package is the one
home of these names (its modules are private).

:func:`rpp.calibrate` maps its method names onto these functions in one explicit table.
"""

from ._exact import DivergenceMemo, exact, order_probe, search
from ._exponential_family import alpha_below_one, exponential_family, two_sided_geometric_renyi
from ._gaussian import (
    closed_form,
    closed_form_variance,
    gaussian_exact_variance,
    published_bisection,
    published_bisection_variance,
)
from ._mixture import gmm_ot, gmm_ot_tight
from ._pierquin import pierquin, sensitivity_scale
from ._w_alpha import alpha_wasserstein, w_alpha, w_alpha_log_moment

__all__ = [
    "closed_form",
    "published_bisection",
    "gmm_ot",
    "gmm_ot_tight",
    "exact",
    "pierquin",
    "sensitivity_scale",
    "w_alpha",
    "w_alpha_log_moment",
    "alpha_wasserstein",
    "exponential_family",
    "alpha_below_one",
    "two_sided_geometric_renyi",
    "closed_form_variance",
    "published_bisection_variance",
    "gaussian_exact_variance",
    "search",
    "order_probe",
    "DivergenceMemo",
]
