r"""Sums of Gaussian kernels over many sorted atoms (private module): :func:`gauss_atoms_logpdf`.

The density of an empirical prior under Gaussian noise, :math:`\sum_k w_k N(x; a_k, t)`, is
a kernel sum; with :math:`10^4` atoms and thousands of quadrature nodes a direct sum is
too slow, so the atoms are binned and each bin's Gaussian is expanded in a Taylor series
(the improved fast Gauss transform in one dimension), every truncation bounded rigorously.
"""

from __future__ import annotations

import numpy as np

from ._numerics import lse

__all__ = ["gauss_atoms_logpdf"]


# Binned evaluation of sum_k w_k N(x; a_k, t) (many atoms, one variance t).
_REACH = 10.0  # a node sums the atoms within sqrt(d^2 + _REACH^2 t) (d: distance to the nearest atom)
_ORDER = 26  # Taylor terms per bin
_Y_MAX = 1.8  # largest |y| = |u delta| allowed in a Taylor series (remainder rho < 1e-18)
_LEVELS = (0.25, 0.0625, 0.015625)  # bin widths in units of theta, coarsest first
_DIRECT = 48  # a node with at most this many atoms in its window is summed directly
_CHUNK = 256  # nodes per block of the binned sums


class _Bins:
    """Non-empty bins of width ``f theta`` of the sorted atoms, with their Taylor moments."""

    def __init__(self, atoms, w, theta, f):
        h = f * theta
        g = np.floor((atoms - atoms[0]) / h).astype(np.int64)
        first = np.flatnonzero(np.diff(g, prepend=-1))  # the atoms are sorted: bins are runs
        self.centre = atoms[0] + (g[first] + 0.5) * h
        delta = (atoms - np.repeat(self.centre, np.diff(np.append(first, atoms.size)))) / theta  # |delta| <= f/2
        # moments sum_k w_k e^{-delta_k^2/2} delta_k^m / m!, m < _ORDER, by one cumulative product
        pw = np.empty((_ORDER, atoms.size))
        pw[0] = w * np.exp(-0.5 * delta**2)
        pw[1:] = delta / np.arange(1, _ORDER)[:, None]
        np.cumprod(pw, axis=0, out=pw)
        self.mom = np.add.reduceat(pw, first, axis=1)


def _binned(xs, lo_b, hi_b, bins, theta):
    """``log sum`` over the bins ``[lo_b, hi_b)`` of each node (relative to the atoms' weights)."""
    out = np.empty(xs.size)
    for c0 in range(0, xs.size, _CHUNK):
        sl = slice(c0, c0 + _CHUNK)
        b0, b1 = int(lo_b[sl].min()), int(hi_b[sl].max())
        if b1 - b0 > 4 * int((hi_b[sl] - lo_b[sl]).max()) + 64 and xs[sl].size > 1:  # scattered: halve
            half = c0 + (min(_CHUNK, xs.size - c0) + 1) // 2
            out[c0:half] = _binned(xs[c0:half], lo_b[c0:half], hi_b[c0:half], bins, theta)
            out[half : c0 + _CHUNK] = _binned(
                xs[half : c0 + _CHUNK], lo_b[half : c0 + _CHUNK], hi_b[half : c0 + _CHUNK], bins, theta
            )
            continue
        k = np.arange(b0, b1)
        inside = (k >= lo_b[sl, None]) & (k < hi_b[sl, None])
        u = (xs[sl, None] - bins.centre[b0:b1]) / theta  # (node, bin), units of theta
        q = np.where(inside, 0.5 * u**2, np.inf)
        shift = q.min(axis=1)  # the nearest bin's exponent, taken out (far nodes would underflow)
        poly = np.broadcast_to(bins.mom[_ORDER - 1, b0:b1], u.shape).copy()
        for m in range(_ORDER - 2, -1, -1):  # Horner in u: sum_m u^m mom_m (mom_m holds delta^m / m!)
            np.multiply(poly, u, out=poly)
            np.add(poly, bins.mom[m, b0:b1], out=poly)
        with np.errstate(under="ignore"):
            out[sl] = np.log(np.where(inside, poly * np.exp(shift[:, None] - q), 0.0).sum(axis=1)) - shift
    return out


def gauss_atoms_logpdf(
    x: np.ndarray, atoms: np.ndarray, logw: np.ndarray, t: float, cache: dict | None = None
) -> tuple[np.ndarray, float]:
    r"""``log sum_k w_k N(x; a_k, t)`` at the points ``x`` for sorted atoms, and a bound on its relative error.

    Each node :math:`x` sums the atoms within :math:`r = \sqrt{d^2 + 100t}` of it (:math:`d`:
    the distance to the nearest atom); the others, farther than :math:`r`, are at most their
    total weight times :math:`N(r; 0, t)`, i.e. :math:`e^{-50}` below the nearest atom's term
    per unit weight, a bound compared with the computed sum at each node and charged.  A
    node with at most 48 atoms in its window sums them directly (in log space); otherwise
    the atoms are put in bins of width :math:`h = f\theta` (:math:`\theta=\sqrt t`,
    :math:`f \in \{1/4, 1/16, 1/64\}`, the coarsest with :math:`|y| \le 1.8` below) with
    centres :math:`c`, and for an atom :math:`a = c + \delta\theta`,
    :math:`e^{-(x-a)^2/2t} = e^{-u^2/2}e^{-\delta^2/2}e^{y}`, :math:`u = (x-c)/\theta`,
    :math:`y=u\delta`, with :math:`e^{y}` replaced by its Taylor polynomial of degree 25 (the
    improved fast Gauss transform in one dimension): a node costs one sum over the non-empty
    bins within :math:`r + h/2`, whatever the number of atoms.  Nodes farther than about
    :math:`230\theta` from the atoms with more than 48 atoms in their window are summed
    directly.  The Taylor remainder is :math:`|e^y - T(y)| \le |y|^{M}e^{|y|}/M!`, relative to
    :math:`e^{y}` at most :math:`\rho = |y|^M e^{2|y|}/M!` for the largest :math:`|y|` used
    (:math:`M = 26`), a rigorous bound for the whole sum (all terms are positive).

    Parameters
    ----------
    x : ndarray
        Points (1-D).
    atoms : ndarray
        Sorted atoms.
    logw : ndarray
        Log weights of the atoms (summing to 1 or less).
    t : float
        Variance, ``> 0``.
    cache : dict, optional
        The bins and moments of earlier calls with the same ``atoms``, ``logw`` and ``t`` (a
        quadrature evaluates one density at several sets of nodes): read and filled.

    Returns
    -------
    log_p : ndarray
        The log density at ``x``.
    rel : float
        Bound on :math:`|\hat p - p|/\hat p` over all points (without the round-off of the sums,
        a few ulps of the terms, which callers charge separately).

    Examples
    --------
    >>> a = np.linspace(-3, 3, 2001)
    >>> lw = np.full(a.size, -np.log(a.size))
    >>> x = np.array([-40.0, 0.1, 2.5])
    >>> lp, rel = gauss_atoms_logpdf(x, a, lw, 0.25)
    >>> d = (x[:, None] - a) ** 2 / (-2 * 0.25) + lw - 0.5 * np.log(2 * np.pi * 0.25)
    >>> bool(np.allclose(lp, lse(d, axis=1), rtol=1e-14) and rel < 1e-14)
    True
    """
    theta = float(np.sqrt(t))
    lnorm = 0.5 * np.log(2 * np.pi * t)
    top = float(logw.max())
    out = np.empty(x.size)
    j = np.searchsorted(atoms, x)
    d_near = np.minimum(
        np.abs(x - atoms[np.clip(j - 1, 0, atoms.size - 1)]), np.abs(atoms[np.clip(j, 0, atoms.size - 1)] - x)
    )
    reach = np.sqrt(d_near**2 + (_REACH * theta) ** 2)
    lo = np.searchsorted(atoms, x - reach, side="left")
    hi = np.searchsorted(atoms, x + reach, side="right")
    cw = np.concatenate([[0.0], np.cumsum(np.exp(logw))])
    dropped = cw[lo] + (cw[-1] - cw[hi])  # weight outside each node's window
    rel = 0.0
    # binned: the coarsest level whose Taylor argument stays below _Y_MAX
    level = np.full(x.size, -1)
    r_u = reach / theta
    for k, f in reversed(list(enumerate(_LEVELS))):
        level[(r_u + f / 2) * (f / 2) <= _Y_MAX] = k
    level[hi - lo <= _DIRECT] = -1
    w = np.exp(logw - top)
    for k, f in enumerate(_LEVELS):
        sel = np.flatnonzero(level == k)
        if sel.size == 0:
            continue
        if cache is None or k not in cache:
            bins = _Bins(atoms, w, theta, f)
            if cache is not None:
                cache[k] = bins
        bins = cache[k] if cache is not None else bins
        half = reach[sel] + 0.5 * f * theta
        lo_b = np.searchsorted(bins.centre, x[sel] - half, side="left")
        hi_b = np.searchsorted(bins.centre, x[sel] + half, side="right")
        order = np.argsort(lo_b, kind="stable")
        sel, lo_b, hi_b = sel[order], lo_b[order], hi_b[order]
        out[sel] = _binned(x[sel], lo_b, hi_b, bins, theta) + top - lnorm
        y_max = float(((reach[sel] / theta + f / 2) * (f / 2)).max())
        rel = max(rel, y_max**_ORDER * np.exp(2 * y_max) / float(np.prod(np.arange(1, _ORDER + 1, dtype=float))))
    direct = np.flatnonzero(level < 0)
    if direct.size:
        # nodes in order of their window's width, in chunks of about 2e6 entries, each padded to its own widest window
        wid = hi[direct] - lo[direct]
        direct = direct[np.argsort(wid, kind="stable")]
        i0 = 0
        while i0 < direct.size:
            i1 = i0 + 1
            while (
                i1 < direct.size
                and (i1 + 1 - i0) * max(int(hi[direct[i1]] - lo[direct[i1]]), 1) <= 2_000_000
                and i1 - i0 < 256
            ):
                i1 += 1
            sel = direct[i0:i1]
            width = max(int((hi[sel] - lo[sel]).max()), 1)
            idx = lo[sel, None] + np.arange(width)
            ok = idx < hi[sel, None]
            idc = np.minimum(idx, atoms.size - 1)
            terms = np.where(ok, logw[idc] - 0.5 * (x[sel, None] - atoms[idc]) ** 2 / t, -np.inf)
            out[sel] = lse(terms, axis=1) - lnorm
            i0 = i1
    with np.errstate(divide="ignore"):
        log_drop = np.log(np.maximum(dropped, 0.0)) - 0.5 * (reach / theta) ** 2 - lnorm - out
    if log_drop.size:
        rel += float(np.exp(min(float(np.max(log_drop)), 700.0)))
    return out, rel
