"""Accounting for repeated releases and for every secret pair.

* :mod:`~rpp.accounting.releases` -- repeated releases of one query with fresh Gaussian noise,
  composed exactly: :func:`releases_divergence`, :func:`calibrate_releases`,
  :func:`combined_scale`;
* :mod:`~rpp.accounting.budget` -- :func:`calibrate_all_pairs` (the noise for every secret pair
  of a prior model or a finite prior class) and :class:`ReleaseBudget` (a budget for repeated
  releases that refuses overspending).
"""

from .budget import ReleaseBudget, calibrate_all_pairs
from .releases import calibrate_releases, combined_scale, releases_divergence

__all__ = ["ReleaseBudget", "calibrate_all_pairs", "releases_divergence", "calibrate_releases", "combined_scale"]
