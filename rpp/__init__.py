"""Rényi Pufferfish Privacy: the reference package of *The RPP Book*.

Priors (:class:`Gaussian`, :class:`GaussianMixture`, :class:`Empirical`), Rényi
divergences of noisy outputs (:func:`renyi_divergence`), mixture fitting
(:func:`fit_gmm`), one-dimensional optimal transport (:func:`w_infinity`,
:func:`quantile_coupling`, :func:`component_coupling`), noise objects
(:class:`GaussianNoise`, :class:`LaplaceNoise`), calibration rules (:mod:`rpp.rules`),
noise calibration (:func:`calibrate`) that never returns less noise than the guarantee needs,
accounting (:mod:`rpp.accounting`) and Bai et al.'s Pufferfish composition (:mod:`rpp.pufferfish`).

Layers (each package imports only from the rows below it)::

    accounting/     repeated releases, every secret pair, ReleaseBudget
    calibration/    calibrate: an explicit method table over rules/
    rules/          sufficient conditions as pure functions
    noise           GaussianNoise, LaplaceNoise
    divergence/, transport, gmm, pufferfish/     D_alpha; couplings and W_p; EM fits; finite spaces
                                                 and Bai et al. 2026 (pufferfish may use divergence)
    priors          Gaussian, GaussianMixture, Empirical
    _lib/           numerics, validation, accurate arithmetic (private)

:mod:`rpp.book` (the papers' reproductions, the data, the chapters' support) sits on top and is
never imported by the library.  scikit-learn and POT are imported only by the functions that
need them.
"""

from importlib.metadata import PackageNotFoundError, version

from . import (
    accounting,
    calibration,
    divergence,
    gmm,
    noise,
    priors,
    pufferfish,
    rules,
    transport,
)
from .accounting import ReleaseBudget, calibrate_all_pairs
from .calibration import Calibration, PrivacyWarning, calibrate, methods
from .certified import Certified
from .divergence import discrete_renyi_divergence, gaussian_renyi, renyi_divergence
from .gmm import bic_curve, fit_gmm
from .noise import GaussianNoise, LaplaceNoise
from .priors import Empirical, Gaussian, GaussianMixture
from .transport import component_coupling, quantile_coupling, w_infinity, wasserstein
from ._lib.cache import clear_caches, register as _register_cache
from .divergence import centre as _centre, gaussian_noise as _gaussian_noise
from importlib import import_module as _import_module

_rules_exact = _import_module("rpp.rules.exact")  # (rpp.rules.exact is also the name of a rule)

# the caches of modules that do not register their own (rpp.divergence.laplace_atoms does)
for _c in (
    _centre._SHIFTED,
    _gaussian_noise._BIN_CACHE,
    _gaussian_noise._SORTED,
    _gaussian_noise._SUMS,
    _rules_exact._BINNED,
):
    _register_cache(_c.clear)

try:
    __version__ = version("rpp-book")
except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "clear_caches",
    "Gaussian",
    "GaussianMixture",
    "Empirical",
    "Certified",
    "renyi_divergence",
    "gaussian_renyi",
    "discrete_renyi_divergence",
    "GaussianNoise",
    "LaplaceNoise",
    "fit_gmm",
    "bic_curve",
    "w_infinity",
    "wasserstein",
    "quantile_coupling",
    "component_coupling",
    "calibrate",
    "Calibration",
    "PrivacyWarning",
    "methods",
    "calibrate_all_pairs",
    "ReleaseBudget",
    "accounting",
    "calibration",
    "divergence",
    "gmm",
    "noise",
    "priors",
    "pufferfish",
    "rules",
    "transport",
]
