"""Helpers of :func:`rpp.transport.mixture_quantile_at_score` (row-wise log-sum-exp, CDF-table brackets)."""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["TABLE_MIN", "lse_rows", "narrow_brackets"]


def lse_rows(a):
    """Log-sum-exp of each row of a finite 2-D array (no -inf, no weights)."""
    m = a.max(axis=1)
    return m + np.log(np.exp(a - m[:, None]).sum(axis=1))


TABLE_MIN = 128  # scores per call from which the brackets are first narrowed on a table of the CDF
TABLE_SIZE = 257


def narrow_brackets(c, lw, s, z, target, lo, hi):
    """Narrow the brackets ``[lo, hi]`` of :func:`rpp.transport.mixture_quantile_at_score` in place.

    ``log F`` (scores ``z <= 0``) and ``log(1 - F)`` (``z > 0``) on ``TABLE_SIZE`` points
    spanning every bracket: each root lies between the two table points whose values
    straddle its target (up to their round-off, which moves the root by as little), so that
    the safeguarded Newton iteration starts from a bracket a table step wide.  Saves most
    of the iterations on the thousands of scores of a quadrature.
    """
    xs = np.linspace(lo.min(), hi.max(), TABLE_SIZE)
    u = (xs[:, None] - c.means[None, :]) / s[None, :]
    for side, sign in ((z <= 0, 1.0), (z > 0, -1.0)):
        if not side.any():
            continue
        table = sign * lse_rows(lw + special.log_ndtr(sign * u))  # increasing in x
        k = np.searchsorted(table, sign * target[side])  # table[k - 1] < t <= table[k]
        idx = np.flatnonzero(side)
        new_lo = np.maximum(lo[idx], xs[np.maximum(k - 1, 0)])
        new_hi = np.minimum(hi[idx], xs[np.minimum(k, xs.size - 1)])
        ok = new_lo <= new_hi  # else round-off put the root outside the table's bracket: keep the original
        lo[idx[ok]], hi[idx[ok]] = new_lo[ok], new_hi[ok]
