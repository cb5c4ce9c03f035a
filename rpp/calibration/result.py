"""The result of a calibration (:class:`Calibration`) and the warning of a missed guarantee (:class:`PrivacyWarning`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Calibration", "PrivacyWarning"]


class PrivacyWarning(UserWarning):
    """Issued when a calibration does not meet the requested (α, ε) guarantee.

    Examples
    --------
    >>> import warnings
    >>> from rpp import Gaussian, calibrate
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     cal = calibrate(Gaussian(0, 0.25), Gaussian(0, 16), alpha=3, epsilon=0.5, method="bisection")
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
        Error of ``divergence``.  A proved bound for two Gaussian priors (closed form with its
        round-off, :func:`rpp.divergence.certified_gaussian_divergence`) and for Laplace noise on two
        empirical priors (Bernstein-ellipse bound per panel, ``rpp.divergence.laplace_atoms``);
        otherwise (Gaussian noise on mixtures or samples, Laplace noise on Gaussian components)
        an *error estimate*: :math:`|GL_{20}-GL_{10}|` per quadrature panel, plus rigorous
        bounds on the tails, on binned sums and on round-off.
    guaranteed : bool or ndarray
        ``divergence + divergence_error <= epsilon * (1 + 1e-9)``: the 1e-9 relative slack
        absorbs the round-off of the check itself (``_RTOL``).  Where ``divergence_error`` is an
        estimate (see above), so is the guarantee: it holds as far as the quadrature estimate
        does.
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
    >>> cal = calibrate(Gaussian(0, 1), Gaussian(2, 1), alpha=3, epsilon=0.5)
    >>> round(cal.variance, 9), cal.guaranteed, cal.details["orders"], sorted(cal.details["seconds"])
    (11.0, True, 2, ['check', 'rule'])
    """

    scale: Any
    variance: Any
    divergence: Any
    divergence_error: Any
    guaranteed: Any
    method: str
    noise: str
    alpha: Any
    epsilon: Any
    directed: bool
    details: dict = field(default_factory=dict, repr=False)
