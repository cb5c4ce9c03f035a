r"""The per-pair costs of the α-Wasserstein conditions and their parameter ``t`` (private module).

One owner for the cost table of ``rpp/rules/_w_alpha.py``'s docstring, used by
``rpp/rules/_w_alpha.py`` (both kinds of prior), :mod:`rpp.rules._empirical` (two samples: the
condition on every pair and its grid) and, through the latter, ``rpp/rules/_mixture.py`` and
``rpp/rules/_exact.py``.  A cost is written :math:`\log c(d; t)` with :math:`t = 1/b` (Laplace
noise of scale :math:`b`) or :math:`t = 1/\sigma^2` (Gaussian noise of standard deviation
:math:`\sigma`):

=========================  ==========  ==================================================
rule                       noise       :math:`\log c(d; t)` (``Cost.kind``, ``Cost.k``)
=========================  ==========  ==================================================
``"paper"``                Laplace     :math:`\alpha t|d|` (``"abs"``, :math:`\alpha`;
                                       awass2026, Theorem 1, eq. (12))
``"sharp"``                Laplace     :math:`(\alpha-1) t|d|` (``"abs"``, :math:`\alpha-1`)
``"tight"``                Laplace     :math:`\log I_\alpha(t|d|)` (``"lap"``;
                                       :func:`rpp.divergence.log_laplace_shift_integral`)
``"paper"``/``"tight"``    Gaussian    :math:`\alpha(\alpha-1)t d^2/2` (``"sq"``,
                                       :math:`\alpha(\alpha-1)/2`; awass2026, Theorem 2, eq. (14))
=========================  ==========  ==================================================

Names without a leading underscore are this package's (``rpp.rules``) own, not the public API.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..divergence import log_laplace_shift_integral

#: Unit round-off of binary64.
U = 2.0**-53


class Cost:
    r"""Log of a per-pair cost :math:`\log c(d; t)`, increasing in :math:`|d|` and :math:`t`.

    Parameters
    ----------
    kind : {"abs", "sq", "lap"}
        ``"abs"`` (:math:`k\,t\,|d|`), ``"sq"`` (:math:`k\,t\,d^2`) or ``"lap"``
        (:math:`\log I_\alpha(t|d|)`).
    k : float
        The rate constant (unused by ``"lap"``).
    alpha : float
        The order.
    """

    def __init__(self, kind, k, alpha):
        self.kind, self.k, self.alpha = kind, float(k), float(alpha)

    def log(self, d, t):
        r"""Return :math:`\log c(d; t)` elementwise (``"lap"``: :func:`rpp.divergence.log_laplace_shift_integral`)."""
        d = np.abs(np.asarray(d, float))
        if self.kind == "abs":
            return self.k * t * d
        if self.kind == "sq":
            return self.k * t * d**2
        return log_laplace_shift_integral(t * d, self.alpha)

    def log_closed_form(self, d, t):
        r"""``(log c(d; t), E)`` of the ``"lap"`` cost by its closed form in three passes, ``E`` bounding each value's error.

        :math:`\log I_\alpha(s) = (\alpha-1)s + \log\frac{\alpha}{2\alpha-1}
        + \operatorname{log1p}\bigl(\frac{\alpha-1}{\alpha}e^{-(2\alpha-1)s}\bigr)`, :math:`s = t|d|`
        (Mironov 2017, Prop. 6).  With :math:`A, B, C` its three terms, each within a few ulps of
        itself (the exponent's relative error times :math:`e^{-(2\alpha-1)s}(2\alpha-1)s \le 1/e`
        enters :math:`C` as at most :math:`1.1u`) and two additions: at most
        :math:`5u|A| + 6u|B| + 13u \le E = 8u(\max A + |B| + 2)` absolute.  Absolute, not
        relative: near :math:`\alpha = 1` (a condition of order :math:`\alpha - 1`) the accurate
        :meth:`log` is needed (:func:`rpp.rules._empirical.condition` decides).
        """
        a = self.alpha
        s = t * np.abs(np.asarray(d, float))
        big = (a - 1) * s
        b_const = math.log(a / (2 * a - 1))
        val = big + b_const + np.log1p((a - 1) / a * np.exp(-(2 * a - 1) * s))
        err = 8 * U * (float(np.max(big, initial=0.0)) + abs(b_const) + 2)
        return val, err

    # -- D ~ N(m, var): closed forms of log E c(D) ---------------------------------
    @staticmethod
    def _log_mean_exp_abs(k, m, var):
        """Log E exp(k|D|), D ~ N(m, var) (any real k)."""
        if var == 0:
            return k * abs(m)
        s = np.sqrt(var)
        return float(
            np.logaddexp(
                k * m + k**2 * var / 2 + special.log_ndtr(m / s + k * s),
                -k * m + k**2 * var / 2 + special.log_ndtr(-m / s + k * s),
            )
        )

    def log_gauss_mean(self, m, var, t):
        r"""Return :math:`\log E\,c(D; t)`, :math:`D \sim N(m, \mathrm{var})`, in closed form (``+inf`` where it diverges)."""
        if self.kind == "abs":
            return self._log_mean_exp_abs(self.k * t, m, var)
        if self.kind == "sq":
            c = self.k * t
            g = 1 - 2 * c * var
            if g <= 0:
                return np.inf
            return float(-0.5 * np.log(g) + c * m**2 / g)
        a = self.alpha
        la = np.log(a / (2 * a - 1)) + self._log_mean_exp_abs((a - 1) * t, m, var)
        lb = np.log((a - 1) / (2 * a - 1)) + self._log_mean_exp_abs(-a * t, m, var)
        return float(np.logaddexp(la, lb))

    def log_tail_bound(self, a, C, Z, t):
        r"""Log of a bound on :math:`\int_Z^\infty c(a z + C)\,\varphi(z)\,dz` (``a, C >= 0``)."""
        if self.kind in ("abs", "lap"):
            k = self.k * t if self.kind == "abs" else (self.alpha - 1) * t  # I_alpha(s) <= e^{(alpha-1)s}
            return k * C + k**2 * a**2 / 2 + special.log_ndtr(-(Z - k * a))
        c = self.k * t
        g = 1 - 2 * c * a**2
        if g <= 0:
            return np.inf
        centre = 2 * c * a * C / g
        return -0.5 * np.log(g) + 2 * c**2 * a**2 * C**2 / g + c * C**2 + special.log_ndtr(-np.sqrt(g) * (Z - centre))


def pair_cost(noise: str, rule: str, alpha: float) -> Cost:
    r"""Return the per-pair cost of ``rule`` with ``noise`` noise at order ``alpha`` (the module's table).

    Parameters
    ----------
    noise : {"gaussian", "laplace"}
        The noise family (checked by the caller).
    rule : str
        ``"paper"``, ``"sharp"`` or ``"tight"`` (Gaussian noise: the same cost for every rule).
    alpha : float
        The order, ``> 1``.

    Returns
    -------
    Cost
        :math:`\log c(d; t)`, with :math:`t = 1/\sigma^2` (Gaussian) or :math:`1/b` (Laplace).
    """
    if noise == "gaussian":
        return Cost("sq", alpha * (alpha - 1) / 2, alpha)  # t = 1/sigma^2
    if rule == "paper":
        return Cost("abs", alpha, alpha)  # t = 1/b
    if rule == "sharp":
        return Cost("abs", alpha - 1, alpha)
    return Cost("lap", 1.0, alpha)


def t_of(noise: str, scale: float) -> float:
    """Return the cost's parameter ``t``: ``1/b`` (Laplace) or ``1/sigma**2`` (Gaussian); ``+inf`` for scale 0.

    Parameters
    ----------
    noise : {"gaussian", "laplace"}
        The noise family.
    scale : float
        The Laplace scale ``b`` or the Gaussian standard deviation ``sigma``, ``>= 0``.

    Returns
    -------
    float
        ``t``.
    """
    scale = np.float64(scale)
    with np.errstate(divide="ignore", over="ignore"):
        return float(1.0 / scale if noise == "laplace" else 1.0 / scale**2)


def scale_of(noise: str, t: float) -> float:
    """Return the noise scale of the cost's parameter ``t``, the inverse of :func:`t_of`.

    Parameters
    ----------
    noise : {"gaussian", "laplace"}
        The noise family.
    t : float
        ``1/b`` (Laplace) or ``1/sigma**2`` (Gaussian), ``>= 0``.

    Returns
    -------
    float
        ``b = 1/t`` or ``sigma = 1/sqrt(t)`` (``+inf`` for ``t = 0``).
    """
    t = np.float64(t)
    with np.errstate(divide="ignore"):
        return float(1.0 / t if noise == "laplace" else 1.0 / np.sqrt(t))


# The empirical condition depends on the scale only through |d|/b (Laplace) or (d/sigma)^2
# (Gaussian). It is evaluated on distances normalised by their largest value w and on
# t_w = w/b or (w/sigma)^2, never on t = 1/b or 1/sigma^2 themselves: those overflow for tiny
# distances (atoms 1e-309 apart give 1/w = inf) although the condition is scale-free.
def normalised(d: np.ndarray) -> tuple[np.ndarray, float]:
    """Return ``(d / w, w)``, the distances over their largest magnitude ``w`` (``d`` itself if ``w = 0``).

    Parameters
    ----------
    d : ndarray
        Coupled distances.

    Returns
    -------
    (ndarray, float)
        The normalised distances (in ``[-1, 1]``) and ``w``.
    """
    w = float(np.max(np.abs(d)))
    return (d / w if w > 0 else d), w


def normalised_t(noise: str, scale: float, w: float) -> float:
    """Return ``t_w``, the parameter ``t`` of the normalised distances: ``w / b`` (Laplace) or ``(w / sigma)**2`` (Gaussian).

    Computed as the ratio ``w / scale`` (never through ``t``, which may overflow).

    Parameters
    ----------
    noise : {"gaussian", "laplace"}
        The noise family.
    scale : float
        The noise scale, ``>= 0``.
    w : float
        The largest distance (:func:`normalised`).

    Returns
    -------
    float
        ``t_w``: the cost of ``d / w`` at ``t_w`` is that of ``d`` at ``t``.
    """
    with np.errstate(divide="ignore", over="ignore"):
        r = np.float64(w) / np.float64(scale)
    return float(r if noise == "laplace" else r * r)
