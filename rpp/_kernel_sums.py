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
_BIN = 0.25  # bin width in units of theta = sqrt(t)
_NEAR = 14.0  # radius (units of theta) of the bins summed for a node near the atoms
_REACH = 10.0  # a far node sums the atoms within sqrt(d^2 + _REACH^2 t) (d: distance to the nearest atom)
_FAR = 6.0  # a node with no atom within _FAR theta is evaluated directly on the atoms near it
_ORDER = 26  # Taylor terms per bin


def gauss_atoms_logpdf(x: np.ndarray, atoms: np.ndarray, logw: np.ndarray, t: float) -> tuple[np.ndarray, float]:
    r"""``log sum_k w_k N(x; a_k, t)`` at the points ``x`` for sorted atoms, and a bound on its relative error.

    Atoms are put in bins of width :math:`h = \theta/4` (:math:`\theta=\sqrt t`) with centres
    :math:`c`; for an atom :math:`a = c+\delta`,
    :math:`e^{-(x-a)^2/2t} = e^{-(x-c)^2/2t}e^{-\delta^2/2t}e^{y}`, :math:`y=(x-c)\delta/t`, and
    :math:`e^{y}` is replaced by its Taylor polynomial of degree 25 (the improved fast Gauss
    transform in one dimension): a node with an atom within :math:`6\theta` costs one sum over
    the bins within :math:`14\theta`, whatever the number of atoms.  Bounds, all rigorous and returned as one relative error:

    * Taylor remainder: :math:`|e^y - T(y)| \le |y|^{M}e^{|y|}/M!`, relative to :math:`e^{y}`
      at most :math:`\rho = |y|^M e^{2|y|}/M!` for the largest :math:`|y|` used;
    * atoms outside the bins summed lie farther than :math:`14\theta`: together at most
      :math:`e^{-98}/\sqrt{2\pi t}`, compared with the computed sum at each node;
    * nodes with no atom within :math:`6\theta` are summed directly over the atoms within
      :math:`r = \sqrt{d^2 + 100t}` (:math:`d` the distance to the nearest atom); the others,
      farther than :math:`r`, are at most their total weight times :math:`N(r; 0, t)`
      (:math:`e^{-50}` below the nearest atom's term per unit weight), again compared with
      the computed sum.

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
    out = np.empty(x.size)
    j = np.searchsorted(atoms, x)
    d_near = np.minimum(
        np.abs(x - atoms[np.clip(j - 1, 0, atoms.size - 1)]), np.abs(atoms[np.clip(j, 0, atoms.size - 1)] - x)
    )
    near = d_near <= _FAR * theta
    rel = 0.0
    log_drop_terms = []  # (log of the dropped mass bound) - (log of the computed sum), per node
    if near.any():
        h = _BIN * theta
        g = np.floor((atoms - atoms[0]) / h).astype(np.int64)
        n_bins = int(g[-1]) + 1
        centre = atoms[0] + (np.arange(n_bins) + 0.5) * h
        delta = (atoms - centre[g]) / theta  # in [-1/8, 1/8] (units of theta)
        wt = np.exp(logw - logw.max()) * np.exp(-0.5 * delta**2)
        mom = np.zeros((_ORDER, n_bins))
        pw = wt.copy()
        for m in range(_ORDER):
            mom[m] = np.bincount(g, weights=pw, minlength=n_bins)
            pw = pw * delta / (m + 1)  # delta^m / m! folded into the moments
        xn = x[near]
        k_win = int(np.ceil(_NEAR / _BIN)) + 1
        first = np.floor((xn - atoms[0]) / h).astype(np.int64) - k_win
        s = np.empty(xn.size)
        for c0 in range(0, xn.size, 256):  # chunks of nodes: the work arrays stay in cache
            idx = first[c0 : c0 + 256, None] + np.arange(2 * k_win + 1)
            ok = (idx >= 0) & (idx < n_bins)
            idc = np.clip(idx, 0, n_bins - 1)
            u = (xn[c0 : c0 + 256, None] - centre[idc]) / theta  # (node, bin), units of theta
            inside = ok & (np.abs(u) <= _NEAR + _BIN)
            poly = mom[_ORDER - 1].take(idc)
            for m in range(_ORDER - 2, -1, -1):  # Horner in u: sum_m u^m mom_m (mom_m holds delta^m / m!)
                np.multiply(poly, u, out=poly)
                np.add(poly, mom[m].take(idc), out=poly)
            s[c0 : c0 + 256] = np.where(inside, poly * np.exp(-0.5 * u**2), 0.0).sum(axis=1)
        out[near] = np.log(s) + logw.max() - lnorm
        y_max = (_NEAR + _BIN) * _BIN / 2  # |u| |delta| at most
        rel += y_max**_ORDER * np.exp(2 * y_max) / float(np.prod(np.arange(1, _ORDER + 1, dtype=float)))
        # bins left out: every atom there is farther than _NEAR theta
        log_drop_terms.append(-0.5 * _NEAR**2 - lnorm - out[near])
    far = ~near
    if far.any():
        xf, df = x[far], d_near[far]
        # window d + D with (2 d D + D^2) / (2t) = _REACH^2 / 2: the dropped atoms are e^{-50} below
        # the nearest one (relative to its weight); their bound is charged below
        reach = np.sqrt(df**2 + (_REACH * theta) ** 2)
        lo = np.searchsorted(atoms, xf - reach, side="left")
        hi = np.searchsorted(atoms, xf + reach, side="right")
        # nodes in order of their window's width, in chunks of about 2e6 entries, each padded to
        # its own widest window
        wid = hi - lo
        order = np.argsort(wid, kind="stable")
        far_idx = np.flatnonzero(far)
        cw = np.concatenate([[0.0], np.cumsum(np.exp(logw))])
        i0 = 0
        while i0 < order.size:
            i1 = i0 + 1
            while i1 < order.size and (i1 + 1 - i0) * max(int(wid[order[i1]]), 1) <= 2_000_000 and i1 - i0 < 256:
                i1 += 1
            sel = order[i0:i1]
            width = max(int(wid[sel].max()), 1)
            idx = lo[sel, None] + np.arange(width)
            ok = idx < hi[sel, None]
            idc = np.minimum(idx, atoms.size - 1)
            terms = np.where(ok, logw[idc] - 0.5 * (xf[sel, None] - atoms[idc]) ** 2 / t, -np.inf)
            val = lse(terms, axis=1) - lnorm
            out[far_idx[sel]] = val
            dropped = cw[lo[sel]] + (cw[-1] - cw[hi[sel]])  # weight outside the window
            with np.errstate(divide="ignore"):
                log_drop_terms.append(np.log(np.maximum(dropped, 0.0)) - 0.5 * (reach[sel] / theta) ** 2 - lnorm - val)
            i0 = i1
    if log_drop_terms:
        rel += float(np.exp(min(np.max(np.concatenate(log_drop_terms)), 700.0)))
    return out, rel
