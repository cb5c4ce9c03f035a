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
object), :func:`two_sided_geometric_renyi` (the divergence after discrete Laplace noise), and in
:mod:`rpp.rules.gaussian` the parameter-vectorised kernels (θ², as in the paper).

:func:`rpp.calibrate` maps its method names onto these functions in one explicit table.
"""

from .exact import exact
from .exponential_family import alpha_below_one, exponential_family, two_sided_geometric_renyi
from .gaussian import closed_form, published_bisection
from .mixture import gmm_ot, gmm_ot_tight
from .pierquin import pierquin, sensitivity_scale
from .w_alpha import alpha_wasserstein, w_alpha, w_alpha_log_moment

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
]
