"""The result of a calibration (:class:`~rpp.calibration.Calibration`) and the warning of a missed guarantee (:class:`~rpp.calibration.PrivacyWarning`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Calibration", "PrivacyWarning"]


class PrivacyWarning(UserWarning):
    """Issued when a calibration does not meet the requested (α, ε) guarantee.

    Examples
    --------
    >>> import warnings
    >>> from rpp import Gaussian, calibrate
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     cal = calibrate(Gaussian(mean=0, var=0.25), Gaussian(mean=0, var=16), alpha=3, epsilon=0.5, method="bisection")
    >>> w[0].category.__name__, cal.guaranteed
    ('PrivacyWarning', False)
    """


@dataclass(frozen=True)
class Calibration:
    r"""Result of :func:`calibrate` (scalars for scalar ``alpha`` and ``epsilon``, arrays otherwise).

    Attributes
    ----------
    scale : float or ndarray
        Noise scale: the standard deviation θ for Gaussian noise, ``b`` for Laplace noise.
    variance : float or ndarray
        Noise variance (θ² for Gaussian noise, 2b² for Laplace noise).
    divergence : float or ndarray
        Exact D_α of the noisy outputs at ``scale``, maximised over the
        protected orders (quadrature value for non-Gaussian priors).
    divergence_error : float or ndarray
        Error of ``divergence``: a proved bound where ``rigorous`` is True (two Gaussian priors:
        closed form with its round-off; Laplace noise on empirical priors: Bernstein-ellipse
        bounds per panel; otherwise the arb enclosure of :func:`rpp.divergence.proved_divergence` in the final
        check), else an *error estimate* (:math:`|GL_{20}-GL_{10}|` per quadrature panel).
    rigorous : bool
        True iff every reported ``divergence_error`` is proved (:class:`rpp.Certified`).
    within_budget : bool or ndarray
        ``divergence + divergence_error <= epsilon * (1 + 1e-9)``: the 1e-9 relative slack
        absorbs the round-off of the check itself (``_RTOL``).  With ``rigorous=False`` this holds
        as far as the error estimate does.
    guaranteed : bool or ndarray
        ``within_budget and rigorous``: the (α, ε) budget is **proved** to be met.
    method : str
        The method used.
    noise : str
        The noise family.
    alpha : float or ndarray
        The order(s).
    epsilon : float or ndarray
        The budget(s).
    directed : bool
        Whether only :math:`D_\alpha(i\|j)` was protected.
    details : dict
        ``"orders"``: how many orders were protected (1 or 2); ``"seconds"``:
        ``{"rule": s, "check": s}``, the wall time spent in the rule and in the final check
        (the divergence at the returned scale and the round-off guard), summed over the grid.

    Examples
    --------
    >>> from rpp import Gaussian, calibrate
    >>> cal = calibrate(Gaussian(mean=0, var=1), Gaussian(mean=2, var=1), alpha=3, epsilon=0.5)
    >>> round(cal.variance, 9), cal.rigorous, cal.guaranteed, cal.details["orders"], sorted(cal.details["seconds"])
    (11.0, True, True, 2, ['check', 'rule'])
    """

    scale: float | np.ndarray
    variance: float | np.ndarray
    divergence: float | np.ndarray
    divergence_error: float | np.ndarray
    rigorous: bool
    within_budget: bool | np.ndarray
    guaranteed: bool | np.ndarray
    method: str
    noise: str
    alpha: float | np.ndarray
    epsilon: float | np.ndarray
    directed: bool
    details: dict[str, Any] = field(default_factory=dict, repr=False)
