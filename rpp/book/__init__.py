"""Reproduction of the papers' experiments and examples (the library in :mod:`rpp` never imports this).

* :mod:`rpp.paper.queries` -- secret-conditioned priors of the query families of Yang et al.
  2026, Section V (RAW, MEAN, GP, BNN) built from the UCI datasets (``rpp.data``);
* :mod:`rpp.paper.experiments` -- ε-sweeps and the papers' settings (``PAPER_SETTINGS``,
  ``AWASS_SETTINGS``);
* :mod:`rpp.paper.tables` -- statistics and checks of the sweep tables: the noise reduction
  against the baseline, the verification of every calibrated point, other baselines, the
  Monte Carlo error of bootstrap quantiles (chapter 6);
* ``rpp.paper.bench`` -- the timing and tightness benchmark (``python -m rpp.paper.bench``);
* :mod:`rpp.paper.composition_examples` -- Examples 1, 3, 5, the Asia network and the
  Capture-24 states of Bai et al. 2026.

``rpp.queries`` and ``rpp.experiments`` (``from rpp import queries, experiments``) are these
modules; the submodules import pandas and scikit-learn, so they are loaded on first use.
"""

import importlib

__all__ = ["queries", "experiments", "tables", "bench", "composition_examples"]


def __getattr__(name):
    if name in __all__:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'rpp.paper' has no attribute {name!r}")
