r"""Centre a pair of priors by one common, exact translation (issue #21, item 1).

Every divergence of this package is invariant under a common translation of both priors
(:math:`D_\alpha(P_c * Z \| Q_c * Z) = D_\alpha(P * Z \| Q * Z)` for :math:`P_c = P(\cdot + c)`),
and so is every calibrated scale.  Far from 0 relative to their spread (timestamps in
milliseconds, incomes in cents: means near :math:`10^9` with spreads near :math:`10^{-4}`), the
quadratures lose the digits the coordinates spend on the offset: the issue's mixtures at
:math:`10^9` gave :math:`D = 0.999999949 \pm 1.7\cdot10^{-8}` for a true :math:`1.00000055`.
:func:`centre_pair` subtracts one reference :math:`c` from every mean and atom of both priors
*exactly*: :math:`c` is a float (an atom or mean near the middle of the range, else the
midpoint rounded to the coarsest grid of the values), and the shift is kept only if every
difference :math:`x - c` is exact, which is checked by the error-free transformation TwoSum
(Knuth, TAOCP vol. 2, 4.2.2, Thm B).  Otherwise (values of very different magnitudes, where
the offset is not what costs digits) the priors are returned unchanged.  So the centred pair is
the same pair of laws, and no rounding of the shift needs to be charged to any error.

The input as given is what the divergence is computed for: an atom stored as
``1e9 + 1e-3`` in float64 is :math:`10^9 + 0.00100004673\ldots` (the resolution of float64 at
:math:`10^9` is :math:`1.2\cdot10^{-7}`), and that value is the one used.
"""

from __future__ import annotations

import numpy as np

from .._lib import cache as _cache
from .._lib import validation as v
from ..priors import Prior, check_prior

__all__ = ["centre_pair", "centre_of", "centred_orders", "shifted"]


def _exact_differences(x: np.ndarray, c: float) -> bool:
    """Return True iff every ``fl(x - c) == x - c`` (TwoSum error terms all zero)."""
    b = -c
    with np.errstate(over="ignore", invalid="ignore"):
        s = x + b
        bp = s - x
        ap = s - bp
        e = (x - ap) + (b - bp)
    return bool(np.all(np.isfinite(s)) and np.all(e == 0))


def centre_of(*priors: Prior) -> float:
    """Return a float ``c`` with every ``mean - c`` of the priors' components exact (0.0 when none helps).

    Candidates: the mean or atom nearest the midpoint of the range, then the midpoint rounded
    to a multiple of the spacing of the smallest nonzero magnitude among the values.

    Examples
    --------
    >>> from rpp import Empirical, Gaussian
    >>> centre_of(Empirical([1e9, 1e9 + 1.0]), Gaussian(mean=1e9 + 0.5, var=1.0))
    1000000000.5
    >>> centre_of(Empirical([-1.0, 1.0]))  # already centred
    0.0
    """
    x = np.concatenate([p.components().means for p in priors])
    lo, hi = float(x.min()), float(x.max())
    mid = 0.5 * lo + 0.5 * hi
    if mid == 0 or abs(mid) <= 0.5 * (hi - lo):  # already centred to within its spread
        return 0.0
    candidates = [float(x[np.argmin(np.abs(x - mid))])]
    nz = np.abs(x[x != 0])
    if nz.size:
        g = float(np.spacing(nz.min()))
        candidates.append(float(np.round(mid / g) * g))
    for c in candidates:
        if np.isfinite(c) and _exact_differences(x, c):
            return c
    return 0.0


_SHIFTED = _cache.Cache("centre.shifted", entries=4)  # recent translations: repeated calls share one copy


def shifted(prior: Prior, c: float) -> Prior:
    """``prior`` translated by ``-c`` (the caller has checked that every ``mean - c`` is exact).

    Weights and variances are copied unchanged (not renormalised), so the result is the same
    law moved by exactly ``-c``.  The last few translations are remembered (by the content of
    ``prior``), so that the calls of a calibration work on the same arrays.
    """
    if c == 0:
        return prior
    checked = check_prior("prior", prior)
    key = _cache.key(checked, float(c))
    hit = _SHIFTED.get(key)
    if hit is not None:
        return hit
    return _SHIFTED.put(key, checked._shifted(c))  # each prior moves its own parameters, exactly


def centre_pair(p: Prior, q: Prior) -> tuple[Prior, Prior, float]:
    """``(p - c, q - c, c)`` with the exact common centre ``c`` of :func:`centre_of`.

    Examples
    --------
    >>> from rpp import Empirical, Gaussian
    >>> p, q, c = centre_pair(Gaussian(mean=1e9, var=1.0), Empirical([1e9 + 2.0]))
    >>> p.mean, q.support, c
    (0.0, array([2.]), 1000000000.0)
    """
    c = centre_of(p, q)
    return shifted(p, c), shifted(q, c), c


def centred_orders(p: Prior, q: Prior, directed: bool) -> list[tuple[Prior, Prior]]:
    """Return the protected orders of a secret pair, ``[(p, q)]`` or ``[(p, q), (q, p)]``, centred by ``centre_pair``.

    Used by :func:`rpp.calibrate` and :func:`rpp.calibration.pair_divergence`: every rule and
    divergence is translation invariant, so they all work on the centred pair.

    Parameters
    ----------
    p, q : Gaussian, GaussianMixture or Empirical
        The priors given the two secrets.
    directed : bool
        True for the order ``(p, q)`` alone, False for both orders.

    Returns
    -------
    list of tuple
        The centred pairs, one per protected order.

    Raises
    ------
    TypeError
        If a prior is not an rpp distribution or ``directed`` is not a bool.

    Examples
    --------
    >>> from rpp import Empirical, Gaussian
    >>> [(a.mean, b.mean) for a, b in centred_orders(Gaussian(mean=1e9, var=1.0), Gaussian(mean=1e9 + 4.0, var=1.0), False)]
    [(0.0, 4.0), (4.0, 0.0)]
    """
    check_prior("p", p)
    check_prior("q", q)
    directed = v.flag("directed", directed)
    p, q, _ = centre_pair(p, q)
    return [(p, q)] if directed else [(p, q), (q, p)]
