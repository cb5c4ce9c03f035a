"""Book support: the reproduction of the papers' experiments and examples, and the data (never imported by the library).

* :mod:`rpp_book.queries` -- secret-conditioned priors of the query families of Yang et al.
  2026, Section V (RAW, MEAN, GP, BNN) built from the UCI datasets (:mod:`rpp_book.data`);
* :mod:`rpp_book.experiments` -- ε-sweeps and the papers' settings (``PAPER_SETTINGS``,
  ``AWASS_SETTINGS``);
* :mod:`rpp_book.tables` -- statistics and checks of the sweep tables: the noise reduction
  against the baseline, the verification of every calibrated point, other baselines, the
  Monte Carlo error of bootstrap quantiles (chapter 6);
* ``rpp_book.bench`` -- the timing and tightness benchmark (``python -m rpp_book.bench``)
  and the worst-case sweep (``rpp_book.worst_case``);
* :mod:`rpp_book.composition_examples` -- Examples 1, 3, 5, the Asia network and the
  Capture-24 states of Bai et al. 2026;
* ``rpp_book.topk``, ``rpp_book.chain_data`` -- the Top-:math:`k` mechanisms and the
  activity chains of chapter 8;
* :mod:`rpp_book.data` -- the three UCI data sets, packaged and verified.

The chapters import these modules (``from rpp_book import queries, experiments``); they need
pandas and scikit-learn.
"""

from rpp._lib.optional import missing

try:  # the book support's tables and loaders: pandas, from the [chapters] extra
    import pandas  # noqa: F401
except ImportError as exc:
    raise missing("pandas", "rpp_book (the book support)", extra="chapters") from exc

# bench (the command line ``python -m rpp_book.bench``) is not imported here: runpy would run a
# second copy of a module already in sys.modules.  ``from rpp_book import bench`` imports it.
from . import (
    chain_data,
    composition_examples,
    data,
    experiments,
    queries,
    tables,
    topk,
    worst_case,
)

__all__ = [
    "queries",
    "experiments",
    "tables",
    "worst_case",
    "composition_examples",
    "topk",
    "chain_data",
    "data",
]
