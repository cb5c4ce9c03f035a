"""Noise calibration: :func:`calibrate` over an explicit method table of :mod:`rpp.rules`.

The one home of the calibration names (the modules of this package are private):
:func:`calibrate` (the search over the method table, ending with a check of the divergence at
the returned scale, error included), :func:`methods` (the method names of a noise family),
:func:`pair_divergence` (the divergence of a secret pair in both protected orders), and the
result types :class:`Calibration` and :class:`PrivacyWarning`.
"""

from ._result import Calibration, PrivacyWarning
from ._search import calibrate, methods, pair_divergence

__all__ = ["calibrate", "Calibration", "PrivacyWarning", "methods", "pair_divergence"]
