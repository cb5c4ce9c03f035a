"""Noise calibration: :func:`calibrate` over an explicit method table of :mod:`rpp.rules`.

* :mod:`~rpp.calibration.search` -- :func:`calibrate`, :func:`methods`, the method table and
  :func:`pair_divergence`;
* :mod:`~rpp.calibration.result` -- :class:`~rpp.calibration.Calibration`, :class:`~rpp.calibration.PrivacyWarning`.
"""

from .result import Calibration, PrivacyWarning
from .search import calibrate, methods, pair_divergence

__all__ = ["calibrate", "Calibration", "PrivacyWarning", "methods", "pair_divergence"]
