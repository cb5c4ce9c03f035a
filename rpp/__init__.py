"""Rényi Pufferfish Privacy: the reference package of *The RPP Book*.

Priors (:class:`Gaussian`, :class:`GaussianMixture`, :class:`Empirical`), Rényi
divergences of noisy outputs (:func:`renyi_divergence`), mixture fitting
(:func:`fit_gmm`), one-dimensional optimal transport (:func:`w_infinity`,
:func:`quantile_coupling`, :func:`component_coupling`), noise objects
(:class:`GaussianNoise`, :class:`LaplaceNoise`) whose releases are :class:`Release` records
(the noisy value with its provenance), calibration rules (:mod:`rpp.rules`),
noise calibration (:func:`calibrate`) that never returns less noise than the guarantee needs,
accounting (:mod:`rpp.accounting`) and Bai et al.'s Pufferfish composition (:mod:`rpp.pufferfish`).

One path per name: the names above are aliases of their homes (``rpp.calibrate`` is
``rpp.calibration.calibrate``); a subpackage's modules are private, and its namespace is the one
home of their names (``rpp.divergence.renyi_divergence_bound``, ``rpp.rules.closed_form_variance``).

Layers (each package imports only from the rows below it)::

    accounting/     repeated releases, every secret pair, ReleaseBudget
    calibration/    calibrate: an explicit method table over rules/
    rules/          sufficient conditions as pure functions
    noise           GaussianNoise, LaplaceNoise
    divergence/, transport, gmm, pufferfish/     D_alpha; couplings and W_p; EM fits; finite spaces
                                                 and Bai et al. 2026 (pufferfish may use divergence)
    priors, sampling     Gaussian, GaussianMixture, Empirical; secure noise, Release
    _lib/           numerics, validation, accurate arithmetic (private)

The papers' reproductions, the data and the chapters' support are not part of this package:
they are the book's, the module ``rpp_book`` of its own distribution ``rpp-book-support``
(``support/`` in the repository), which imports ``rpp`` and is never imported by it.  scikit-learn and POT are imported only by the functions that
need them.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names for type checkers and IDEs; at run time they load on first use
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
    from ._lib.cache import cache_info, clear_caches, set_cache_budget
    from .accounting import ReleaseBudget, calibrate_all_pairs
    from .calibration import Calibration, PrivacyWarning, calibrate, methods
    from .certified import Certified
    from .divergence import discrete_renyi_divergence, gaussian_renyi, renyi_divergence
    from .gmm import bic_curve, fit_gmm
    from .noise import GaussianNoise, LaplaceNoise
    from .priors import Empirical, Gaussian, GaussianMixture
    from .sampling import Release
    from .transport import component_coupling, quantile_coupling, w_infinity, wasserstein

#: Where each curated name lives (PEP 562): ``import rpp`` loads no submodule, numpy or scipy;
#: ``rpp.calibrate`` (or ``from rpp import calibrate``) imports :mod:`rpp.calibration` on first use.
_LAZY = {
    "accounting": ".accounting",
    "calibration": ".calibration",
    "divergence": ".divergence",
    "gmm": ".gmm",
    "noise": ".noise",
    "priors": ".priors",
    "pufferfish": ".pufferfish",
    "rules": ".rules",
    "transport": ".transport",
    "ReleaseBudget": ".accounting",
    "calibrate_all_pairs": ".accounting",
    "Calibration": ".calibration",
    "PrivacyWarning": ".calibration",
    "calibrate": ".calibration",
    "methods": ".calibration",
    "Certified": ".certified",
    "discrete_renyi_divergence": ".divergence",
    "gaussian_renyi": ".divergence",
    "renyi_divergence": ".divergence",
    "bic_curve": ".gmm",
    "fit_gmm": ".gmm",
    "GaussianNoise": ".noise",
    "LaplaceNoise": ".noise",
    "Release": ".sampling",
    "Empirical": ".priors",
    "Gaussian": ".priors",
    "GaussianMixture": ".priors",
    "component_coupling": ".transport",
    "quantile_coupling": ".transport",
    "w_infinity": ".transport",
    "wasserstein": ".transport",
    "clear_caches": "._lib.cache",
    "cache_info": "._lib.cache",
    "set_cache_budget": "._lib.cache",
}


def __getattr__(name: str) -> Any:
    """Load a curated name (or ``__version__``) on first access (PEP 562) and cache it in the package."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value: Any = version("rpp-book")
        except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
            value = "0+unknown"
    elif name in _LAZY:
        module = importlib.import_module(_LAZY[name], __name__)
        value = module if name == _LAZY[name][1:] else getattr(module, name)
    elif not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
        # any other submodule (rpp.sampling, rpp.certified...), an attribute once the eager
        # import loaded it
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Return the module's attributes, with the curated names not yet loaded."""
    return sorted(set(globals()) | set(__all__) | {"__version__"})


__all__ = [
    "Gaussian",
    "GaussianMixture",
    "Empirical",
    "Certified",
    "renyi_divergence",
    "gaussian_renyi",
    "discrete_renyi_divergence",
    "GaussianNoise",
    "LaplaceNoise",
    "Release",
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
    "clear_caches",
    "cache_info",
    "set_cache_budget",
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
