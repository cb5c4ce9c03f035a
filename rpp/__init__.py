"""Rényi Pufferfish Privacy: the reference package of *The RPP Book*.

Priors (:class:`Gaussian`, :class:`GaussianMixture`, :class:`Empirical`), Rényi
divergences of noisy outputs (:func:`renyi_divergence`), mixture fitting
(:func:`fit_gmm`), one-dimensional optimal transport (:func:`w_infinity`,
:func:`quantile_coupling`, :func:`component_coupling`), noise objects
(:class:`~rpp.noise.GaussianNoise`, :class:`~rpp.noise.LaplaceNoise`), calibration rules (:mod:`rpp.rules`) and
noise calibration (:func:`calibrate`) that never returns less noise than the guarantee needs.

Layers (each module imports only from the rows above it; ``_numerics`` and ``_validation``
are private modules whose functions every layer may use)::

    _numerics, _validation                       kernels: log-sum-exp, quadrature, root finding; checks
    distributions                                Gaussian, GaussianMixture, Empirical
    divergence, transport, gmm, discrete         D_alpha; couplings and W_p; EM fits; finite spaces
    noise/  (gaussian, laplace_rdp,              noise objects and their closed forms
             laplace_divergence, laplace)
    rules/  (gaussian, mixture, pierquin,        sufficient conditions as pure functions
             w_alpha, exponential_family, exact)
    calibration                                  calibrate: an explicit method table over rules/
    composition/                                 Bai et al. 2026, on top of discrete and _validation;
                                                 repeated Gaussian releases and the practitioner's
                                                 calibrate_all_pairs / ReleaseBudget (on calibration)
    paper/  (queries, experiments, bench,        reproduction of the papers (datasets through
             composition_examples)               rpp.data); the library above never imports it
    data                                         the UCI loaders (imported on first use)

``import rpp`` is light: every name below is imported on first use (PEP 562 module
``__getattr__``); scikit-learn, pandas and POT are imported only by the functions that
need them.  Names of earlier versions (``rpp.laplace_rdp``, ``rpp.w_alpha_scale``,
``rpp.queries``, ``rpp.experiments``, ...) stay importable from ``rpp``; they are
documented where they live (:mod:`rpp.noise`, :mod:`rpp.rules`, :mod:`rpp.paper`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# name -> module that defines it (relative to rpp)
_PUBLIC = {
    "Gaussian": "distributions",
    "GaussianMixture": "distributions",
    "Empirical": "distributions",
    "gaussian_renyi": "divergence",
    "renyi_divergence": "divergence",
    "renyi_divergence_bound": "divergence",
    "discrete_renyi_divergence": "divergence",
    "fit_gmm": "gmm",
    "bic_curve": "gmm",
    "quantile_coupling": "transport",
    "w_infinity": "transport",
    "wasserstein": "transport",
    "component_coupling": "transport",
    "GaussianNoise": "noise",
    "LaplaceNoise": "noise",
    "closed_form_variance": "rules",
    "published_bisection_variance": "rules",
    "calibrate": "calibration",
    "Calibration": "calibration",
    "PrivacyWarning": "calibration",
    "methods": "calibration",
    "pair_divergence": "calibration",
    "calibrate_all_pairs": "composition.accounting",
    "ReleaseBudget": "composition.accounting",
}
_SUBPACKAGES = ("noise", "rules", "discrete", "composition", "paper", "data")

# Importable from rpp for the chapters and earlier versions, documented where they live.
_COMPAT = {
    "gaussian_w2_squared": "transport",
    "laplace_rdp": "noise",
    "laplace_rdp_scale": "noise",
    "log_laplace_shift_integral": "noise",
    "laplace_renyi_divergence_bound": "noise",
    "laplace_renyi_divergence": "noise",
    "laplace_noisy_logpdf": "noise",
    "w_alpha_scale": "rules",
    "w_alpha_log_moment": "rules",
    "alpha_wasserstein": "rules",
    "exponential_family_eta": "rules",
    "two_sided_geometric_renyi": "rules",
    "alpha_below_one_laplace_scale": "rules",
}
_COMPAT_MODULES = {
    "queries": "paper.queries",
    "experiments": "paper.experiments",
    "bench": "paper.bench",
    "distributions": "distributions",
    "divergence": "divergence",
    "transport": "transport",
    "gmm": "gmm",
    "calibration": "calibration",
}

__all__ = sorted(_PUBLIC) + list(_SUBPACKAGES)


def _version() -> str:
    """The distribution's version (``rpp-book`` in pyproject.toml), read from its metadata on first use."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rpp-book")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _PUBLIC or name in _COMPAT:
        module = importlib.import_module(f".{_PUBLIC.get(name) or _COMPAT[name]}", __name__)
        value = getattr(module, name)
    elif name in _SUBPACKAGES or name in _COMPAT_MODULES:
        value = importlib.import_module(f".{_COMPAT_MODULES.get(name, name)}", __name__)
    else:
        raise AttributeError(f"module 'rpp' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC) | set(_COMPAT) | set(_SUBPACKAGES) | set(_COMPAT_MODULES))


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from . import composition, data, discrete, noise, paper, rules
    from .calibration import Calibration, PrivacyWarning, calibrate, methods, pair_divergence
    from .composition.accounting import ReleaseBudget, calibrate_all_pairs
    from .distributions import Empirical, Gaussian, GaussianMixture
    from .divergence import discrete_renyi_divergence, gaussian_renyi, renyi_divergence, renyi_divergence_bound
    from .gmm import bic_curve, fit_gmm
    from .noise import GaussianNoise, LaplaceNoise
    from .rules import closed_form_variance, published_bisection_variance
    from .transport import component_coupling, quantile_coupling, w_infinity, wasserstein
