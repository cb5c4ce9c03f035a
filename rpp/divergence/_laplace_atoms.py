r"""Laplace noise on two empirical priors: the certified quadrature, with prefix-sum densities.

Between consecutive atoms :math:`x_k < y < x_{k+1}` of the merged support, the output density
of an empirical prior (atoms :math:`a_j`, weights :math:`w_j`) after :math:`\mathrm{Lap}(b)` is

.. math::

    2b\,p(x_k + s) &= L_k e^{-s/b} + R_k e^{s/b},\\
    L_k &= \sum_{a_j \le x_k} w_j e^{-(x_k-a_j)/b},\\
    R_k &= \sum_{a_j > x_k} w_j e^{-(a_j-x_k)/b},

(and on the left of :math:`x_k`, :math:`s<0`, with the sums split at :math:`a_j < x_k`).  The
sums follow from one pass in each direction over the prior's *own* atoms,
:math:`L_m = L_{m-1}e^{-(a_m-a_{m-1})/b} + w_m`, done in log space, and are moved to each
point of the merged support from the nearest own atom on that side
(:math:`L(x_k) = L_m e^{-(x_k-a_m)/b}`); so a node costs :math:`O(1)` instead of :math:`O(N)`,
and a divergence :math:`O(N)` per panel level instead of :math:`O(N^2)`.  The floating-point
error of the pass is bounded along it (each step adds at most a few ulps of its operands, and
carries the previous error damped by the share of the carried sum, at most 1), the move adds
the rounding of its distance and subtraction, and both are charged to the error.  The dense
evaluation over all atoms (``dense=True``, the previous implementation) is kept as the
reference of the tests.

The quadrature itself is the certified one of ``rpp/divergence/_laplace_noise.py``
(Bernstein-ellipse bound per panel, Trefethen, *Approximation Theory and Approximation
Practice*, Thm 19.3; exact tails beyond the extreme atoms).  A gap narrower than
``_TINY * b`` (with :math:`10^5` atoms and more, almost every gap) is integrated by the
midpoint rule where its proved bound (:math:`h^3 \max|f''|/24`) meets the target of a panel,
and by 2-node Gauss-Legendre (:math:`h^5 \max|f^{(4)}|/4320`) where it does not.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from .._lib import cache as _cache
from .._lib.numerics import lse
from .._lib.parallel import MIN_ITEMS, thread_map

__all__ = ["atoms_log_integral"]


def _rule(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return n, x, w, float(np.max(np.diff(np.concatenate([[-1.0], x, [1.0]]))))


# Gauss-Legendre rules: 20 nodes, and 4 nodes for panels narrower than _NARROW * b (there the
# Bernstein ellipse is huge, rho ~ 2 y_m / h, and 4 nodes reach the target; the bound decides).
_GL20, _GL4, _GL2 = _rule(20), _rule(4), _rule(2)
_NARROW = 0.01
# Panels narrower than _TINY * b: 2-node Gauss-Legendre with the derivative bound of its error
# (_tiny_panels); many atoms (1e5 and more) make almost every gap such a panel.
_TINY = 4e-3
# Semi-minor axes (in units of b) tried for the Bernstein ellipse of each panel.
_YM = np.array([0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.25])
_TOL = 1e-15  # target error of one panel, relative to the integral
_MAX_PANELS = 400_000
_MAX_LEVELS = 200  # bisection levels
_CHUNK = 2_000_000  # entries of a (points x atoms) work array (dense evaluation)
_U = 2.0**-53
_PANEL_CHUNK = 1 << 15  # nodes evaluated at once (_chunked)


def _log_expm1(x):
    """log(e^x - 1) for x >= 0 without overflow (-inf at 0)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore"):
        if x.ndim and bool((x <= 30).all()):  # (error exponents: tiny) one branch, the same values
            return np.log(np.expm1(x))
        return np.where(x > 30, x + np.log1p(-np.exp(-np.maximum(x, 30.0))), np.log(np.expm1(np.minimum(x, 30.0))))


def _lae(a, c):
    """math-level log(e^a + e^c) for floats (-inf allowed)."""
    if a < c:
        a, c = c, a
    if c == -math.inf:
        return a
    return a + math.log1p(math.exp(c - a))


_SPAN = 32.0  # largest span of a block of _sweep, in units of b


def _pairwise_local(lwb, xb, b):
    r"""Within-block prefix log-sums of the rows ``xb`` (blocks), summed pair by pair, and each row's error bound.

    For each point, a masked log-sum-exp over the block's earlier points of
    :math:`\log W_j - (x_k - x_j)/b` (at most :math:`B` positive terms: relative error below
    :math:`(B+4)u`, plus :math:`2u` times the share-weighted mean exponent for their rounding).
    Used for the blocks that span more than ``_SPAN`` (sparse atoms), in chunks of bounded memory.
    """
    nb, B = xb.shape
    local, err = np.empty((nb, B)), np.zeros(nb)
    tri = np.tri(B, dtype=bool)[None]
    step = max(1, 2_000_000 // (B * B))
    for i in range(0, nb, step):
        xs, lws = xb[i : i + step], lwb[i : i + step]
        d = (xs[:, :, None] - xs[:, None, :]) / b  # (block, k, j): (x_k - x_j) / b
        with np.errstate(invalid="ignore"):
            t = np.where(tri, lws[:, None, :] - d, -np.inf)
        top = t.max(axis=2)
        safe = np.where(np.isfinite(top), top, 0.0)
        e = np.exp(t - safe[:, :, None])
        tot = e.sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            loc = np.log(tot) + safe
            mean_expo = (e * np.where(tri, d, 0.0)).sum(axis=2) / tot
        loc = np.where(np.isfinite(top), loc, -np.inf)
        row_err = np.where(np.isfinite(loc), 2 * _U * (mean_expo + np.abs(loc) + B + 4), 0.0)
        local[i : i + step], err[i : i + step] = loc, row_err.max(axis=1)
    return local, err


def _block_length(n):
    """Block length of :func:`_sweep` for ``n`` points: about sqrt(n), between 16 and 128."""
    return int(min(128, max(16, 2 ** round(np.log2(max(n, 1)) / 2))))


def _sweep(lw, x, b):
    r"""Prefix log-sums :math:`\log L_k = \log\sum_{j\le k} W_j e^{-(x_k-x_j)/b}` with absolute error bounds.

    ``lw`` are :math:`\log W_j` (``-inf`` for no atom) at the increasing points ``x``.  Blocks of
    :math:`B \le 128` points: inside a block, relative to its last point :math:`r`,
    :math:`T_k = \log\sum_{j\le k} e^{t_j}`, :math:`t_j = \log W_j - (r - x_j)/b`, is a running
    sum relative to the row's largest term (:func:`_block_local`), and
    :math:`\log L_k = T_k + (r - x_k)/b`.  Its error: each input :math:`t_j` is off by at most
    :math:`u(|t_j| + 2(r-x_j)/b)`, and a log-sum is off by at most the largest error of its
    inputs (the derivatives of :math:`\log\sum e^{t_j}` are shares summing to 1); the sum itself
    adds at most :math:`4uB(S + 1)` (in log space each of at most :math:`B` steps adds
    :math:`4u(|T_k| + 1)`, a rounded :math:`\max + \mathrm{log1p}(e^{-|d|})`; the running sum of
    :func:`_block_local` stays below that); the final shift adds
    :math:`u(2(r-x_k)/b + |\log L_k| + 1)`.  So every position of a block is off by at most
    :math:`u(S + 2D) + 4uB(S+1) + u(2D + S + 1)`, :math:`S` the largest :math:`|t_j|, |T_j|,
    |\log L_j|` and :math:`D` the largest :math:`(r - x_j)/b` of the block.  Across blocks a
    carry (:func:`_carry`) gives the full sums at the blocks' last points; a point's full sum (its block's own atoms
    and the carry moved to it) is off by at most the larger of the two errors plus the
    rounding of the log-add.  Returns ``(incl, err_incl)``: sums over :math:`j \le k`.  O(N).
    A block that spans more than ``_SPAN`` (sparse atoms, where :math:`D` would cost digits) is
    summed pair by pair instead (:func:`_pairwise_local`, O(B) per point).
    """
    n = x.size
    B = _block_length(n)
    nb = -(-n // B)

    def blocks(values, fill, sl):  # the blocks sl of the points as rows of B (the last one padded)
        lo, hi = sl.start * B, min(sl.stop * B, n)
        seg = values[lo:hi]
        short = (min(sl.stop, nb) - sl.start) * B - seg.size
        return (np.concatenate([seg, np.full(short, fill)]) if short else seg).reshape(-1, B)

    ends_x = x[np.minimum(np.arange(1, nb + 1) * B, n) - 1]  # each block's last point (the padding repeats it)
    rows = max(1, _PANEL_CHUNK // B)  # blocks per chunk: the temporaries have a chunk's size
    local, local_err = np.empty((nb, B)), np.empty(nb)
    for i in range(0, nb, rows):
        sl = slice(i, i + rows)
        local[sl], local_err[sl] = _block_local(blocks(lw, -np.inf, sl), blocks(x, x[-1], sl), b)
    carry, carry_err = _carry(local[:, -1], local_err, ends_x, b)
    prev = np.concatenate([[-np.inf], carry[:-1]])
    prev_err = np.concatenate([[0.0], carry_err[:-1]])
    prev_x = np.concatenate([[x[0]], ends_x[:-1]])
    full, err = local, np.empty((nb, B))  # the full sums overwrite the local ones, chunk by chunk
    for i in range(0, nb, rows):
        sl = slice(i, i + rows)
        gap = (blocks(x, x[-1], sl) - prev_x[sl, None]) / b
        carried = prev[sl, None] - gap
        full[sl] = np.logaddexp(local[sl], carried)
        # the carry moved to a point: its own error, the rounding of the gap and of the subtraction
        top = np.where(np.isfinite(carried[:, 0]), np.abs(carried[:, 0]) + gap[:, -1], 0.0)
        carried_err = np.where(np.isfinite(prev[sl]), prev_err[sl] + 2 * _U * top, 0.0)
        fin = np.isfinite(full[sl])
        fmax = np.where(fin, np.abs(full[sl]), 0.0).max(axis=1)
        block_err = np.maximum(carried_err, local_err[sl]) + 4 * _U * (fmax + 1)
        err[sl] = np.where(fin, block_err[:, None], 0.0)
    return full.ravel()[:n], err.ravel()[:n]


def _carry(loc_end, loc_err, ends, b):
    r"""``(carry, err)``: the full sums at the blocks' last points from the blocks' own sums there.

    :math:`\log\sum_{j \le m} e^{\ell_j - (E_m - E_j)/b}`, :math:`\ell_j` block :math:`j`'s own
    sum at its last point :math:`E_j`: a carry passed on by one log-add per block, whose error is
    the share-weighted mean of its operands' errors plus the rounding of the step (the move by
    :math:`(E_m - E_{m-1})/b` adds :math:`2u` of it and of the result).  (A sweep of the blocks'
    ends would be vectorised, but its bound, that of a whole block, is far looser than this one.)
    """
    nb = loc_end.size
    carry, carry_err = np.full(nb, -np.inf), np.zeros(nb)  # full sum at each block's last point
    cur, cur_err = -math.inf, 0.0
    loc_end, loc_err_end = loc_end.tolist(), loc_err.tolist()
    ends = ends.tolist()
    for m in range(nb):
        if cur != -math.inf:
            step = (ends[m] - ends[m - 1]) / b
            cur = cur - step
            cur_err = cur_err + 2 * _U * (abs(cur) + step)
        new = _lae(cur, loc_end[m])
        if new != -math.inf:
            frac = math.exp(cur - new) if cur != -math.inf else 0.0
            cur_err = frac * cur_err + (1 - frac) * loc_err_end[m] + 4 * _U * (abs(new) + 1)
        cur = new
        carry[m], carry_err[m] = cur, cur_err
    return carry, carry_err


def _block_local(lwb, xb, b):
    r"""Within-block prefix log-sums of the rows ``xb`` (blocks of :func:`_sweep`) and each block's error bound.

    :math:`T_k = M + \log\sum_{j \le k} e^{t_j - M}`, :math:`M` the row's largest :math:`t_j`: an
    exponential, a running sum and a log per point instead of a log-add per point.  Rows with a
    term below :math:`e^{M - 600}` (which could underflow) take ``numpy.logaddexp.accumulate``.
    The bound of :func:`_sweep` covers both: with :math:`S` and :math:`B` as there, the
    subtraction and the exponential add at most :math:`2uS + 4u` to a term (in log), the running
    sum of at most :math:`B` positive terms :math:`1.01Bu`, the log and the shift back
    :math:`8uS + uS`; :math:`11uS + 1.01Bu + 4u \le 4uB(S + 1)` for :math:`B \ge 16`.
    """
    B = xb.shape[1]
    dist = (xb[:, -1:] - xb) / b  # (r - x_j) / b >= 0
    t = lwb - dist
    top = t.max(axis=1, keepdims=True)
    top = np.where(top > -np.inf, top, 0.0)  # a row without atoms: every term is 0
    with np.errstate(divide="ignore"):
        T = np.log(np.cumsum(np.exp(t - top), axis=1)) + top
    low = np.flatnonzero(np.where(t > -np.inf, t, np.inf).min(axis=1) < top[:, 0] - 600.0)
    if low.size:  # terms that could underflow: in log space
        T[low] = np.logaddexp.accumulate(t[low], axis=1)
    local = T + dist  # log L_k of the block's own atoms; -inf before its first atom
    with np.errstate(invalid="ignore"):
        big = np.maximum(np.abs(t), np.abs(local))  # |T| <= |t_first| + |local| is not needed: T <= max t + log B
    S = np.where(np.isfinite(big), big, 0.0).max(axis=1) + math.log(B)
    D = dist[:, 0]  # the block's first point is the farthest from its end
    local_err = _U * (S + 2 * D) + 4 * _U * B * (S + 1) + _U * (2 * D + S + 1)  # per block
    sparse = np.flatnonzero(D > _SPAN)  # the shift to the block's end would cost digits: pair by pair
    if sparse.size:
        local[sparse], local_err[sparse] = _pairwise_local(lwb[sparse], xb[sparse], b)
    return local, local_err


def _moved(sums, errs, a, xs, m, b):
    r"""Prefix sums at the atoms ``a`` moved to the points ``xs``: :math:`\log S_m - |x_k - a_m|/b`.

    ``m[k]`` is the atom whose sum serves ``x_k`` (``-1`` or ``a.size``: none, ``-inf``).  The
    move adds the rounding of the distance (two operations, :math:`2u` of it) and of the
    subtraction (:math:`u` of the result) to the sum's own error: :math:`2u(|\log S| + d)`.
    """
    ok = (m >= 0) & (m < a.size)
    every = bool(ok.all())  # (inside a chunk of the support, usually: no selections)
    mm = m if every else np.where(ok, m, 0)
    d = np.abs(xs - a[mm]) / b
    val = sums[mm] - d if every else np.where(ok, sums[mm] - d, -np.inf)
    fin = np.isfinite(val)
    if fin.all():
        return val, errs[mm] + 2 * _U * (np.abs(val) + d)
    err = np.where(fin, errs[mm] + 2 * _U * (np.where(fin, np.abs(val), 0.0) + d), 0.0)
    return val, err


def _own_atoms(comp):
    """Return ``(a, log w)``: a prior's atoms sorted, duplicates merged (their weights added)."""
    a, lwa = comp.means, np.log(comp.weights)
    if a.size > 1 and not bool(np.all(a[1:] > a[:-1])):
        a, inv = np.unique(a, return_inverse=True)
        lw = np.full(a.size, -np.inf)
        np.logaddexp.at(lw, inv.ravel(), lwa)  # duplicates merge
        lwa = lw
    return a, lwa


def _layout(xs, comp):
    """Return ``(a, log w, cnt)``: a prior's sorted distinct atoms and their places in the merged support ``xs``.

    Independent of the scale: kept per pair (:func:`_pair_entry`) for every ``b`` of a search.
    ``cnt[k]`` atoms are ``<= x_k`` (so ``x_k`` is one of them where ``cnt`` steps up at ``k``).
    """
    a, lwa = _own_atoms(comp)
    return a, lwa, np.searchsorted(a, xs, side="right")


def _merge(P, Q):
    """Return ``(xs, layout of P, layout of Q)``: the sorted union of two priors' atoms and their :func:`_layout` in it.

    One stable argsort of the two sorted atom lists (a merge: linear time) instead of a sort of
    the union and a binary search per atom; the same arrays as ``numpy.union1d`` and :func:`_layout`.
    ``cnt`` of P is the running count of P's atoms along the merged list, read at the last copy
    of each distinct point; Q's is the rest of the count there.
    """
    (a, la), (c, lc) = _own_atoms(P), _own_atoms(Q)
    both = np.concatenate([a, c])
    order = np.argsort(both, kind="stable")
    srt = both[order]
    last = np.empty(srt.size, dtype=bool)  # the last copy of each distinct point
    np.not_equal(srt[1:], srt[:-1], out=last[:-1])
    last[-1:] = True
    ends = np.flatnonzero(last)
    xs = srt[ends]
    cnt_a = np.cumsum(order < a.size)[ends]
    cnt_c = ends + 1 - cnt_a
    return xs, (a, la, cnt_a), (c, lc, cnt_c)


class _PrefixDensity:
    """log(2b p) at (anchor, offset) points of the merged support in O(1) per point.

    Holds the prefix sums at the prior's own atoms only; the sums at the anchors asked for
    are moved there at each call (:func:`_moved`), so the memory is that of the prior, not of
    the merged support, and a call on a chunk of panels works on arrays of the chunk's size.
    """

    def __init__(self, xs, comp, b, layout=None):
        # the prior's own atoms, sorted and merged (the sweeps run over them, not over the
        # merged support: half the points for two priors of equal size)
        a, lwa, cnt = _layout(xs, comp) if layout is None else layout
        ai, eai = _sweep(lwa, a, b)  # atoms <= a_m
        ri, eri = _sweep(lwa[::-1], -a[::-1], b)  # atoms >= a_m (mirrored)
        self._sums = (ai, eai, ri[::-1], eri[::-1], a)
        self._xs, self._cnt = xs, cnt
        self.b = b

    def _sides(self, anc, pos):
        r"""Return the sums on each side of the anchors ``anc`` (logs, with errors), from the nearest atoms.

        On the right of an anchor (``pos``) the sides are the atoms :math:`\le x_k` and
        :math:`> x_k`; on its left, :math:`< x_k` and :math:`\ge x_k`.
        """
        ai, eai, ri, eri, a = self._sums
        xs, cnt = self._xs[anc], self._cnt[anc]
        if pos is True:
            last = cnt - 1
        else:  # x_k is one of the atoms where cnt steps up at k
            own = cnt - np.where(anc > 0, self._cnt[np.maximum(anc - 1, 0)], 0)
            last = cnt - 1 - np.where(pos, 0, own)
        lft, err_l = _moved(ai, eai, a, xs, last, self.b)
        rgt, err_r = _moved(ri, eri, a, xs, last + 1, self.b)
        return lft, err_l, rgt, err_r

    def __call__(self, anc, off, slope=False):
        """``(log(2b p), error)`` at the points; with ``slope``, also :func:`_slope` of ``log p`` and its error."""
        s = off / self.b
        pos = off >= 0
        if pos.all():  # every point on the right of its anchor (the narrow panels): no selection
            lft, err_l, rgt, err_r = self._sides(anc, True)
            lft -= s
            rgt += s
            val = np.logaddexp(lft, rgt)
            # the share-weighted mean of the two sides' errors is at most the larger one
            big = np.maximum(np.abs(lft), np.abs(rgt))
            if not (big < np.inf).all():
                big = np.where(big < np.inf, big, np.abs(val))  # a side without atoms (-inf) is exact
            err = np.maximum(err_l, err_r) + 2 * _U * (big + s) + 4 * _U * (np.abs(val) + 2)
            return (val, err, *_slope(lft, rgt, err)) if slope else (val, err)
        lft, err_l, rgt, err_r = self._sides(anc, pos)
        lft -= s
        rgt += s
        val = np.logaddexp(lft, rgt)
        # the error of each side (its pass, the rounding of s and of the shift) weighted by its
        # share of the sum (the derivative of the log-add), plus the rounding of the log-add
        with np.errstate(invalid="ignore"):
            e_l = np.where(lft > -np.inf, np.exp(lft - val) * (err_l + 2 * _U * (np.abs(lft) + np.abs(s))), 0)
            e_r = np.where(rgt > -np.inf, np.exp(rgt - val) * (err_r + 2 * _U * (np.abs(rgt) + np.abs(s))), 0)
        err = e_l + e_r + 4 * _U * (np.abs(val) + 2)
        if not slope:
            return val, err
        # each side's own error (not weighted by its share) bounds its log's error
        side = np.maximum(err_l + 2 * _U * (np.abs(np.where(lft > -np.inf, lft, 0)) + np.abs(s)), 0)
        side = np.maximum(side, err_r + 2 * _U * (np.abs(np.where(rgt > -np.inf, rgt, 0)) + np.abs(s)))
        return (val, err, *_slope(lft, rgt, side))


def _slope(lft, rgt, err):
    r"""``(sigma, error)``: :math:`b\,(\log p)' = \tanh((\log R_s - \log L_s)/2)` at points where :math:`2bp = L_s + R_s`.

    ``lft``, ``rgt`` are the logs of the two sides, :math:`L e^{-s/b}` and :math:`R e^{s/b}`,
    each within ``err`` (a bound on either side's error); the derivative of :math:`\log(L e^{-y/b} + R e^{y/b})`
    is :math:`(R e^{y/b} - L e^{-y/b})/(b(L e^{-y/b} + R e^{y/b}))`.  The difference of the
    logs is off by at most ``2 err`` plus its rounding, and :math:`|\tanh'| \le 1/2`: the error of
    :math:`\sigma` is at most ``err`` plus a few ulps.  A side without atoms gives
    :math:`\sigma = \pm 1` exactly.
    """
    with np.errstate(invalid="ignore"):
        d = rgt - lft
    fin = np.isfinite(d)
    if fin.all():  # both sides have atoms (the usual case: no selections)
        return np.tanh(0.5 * d), err + _U * (np.abs(d) + 4)
    sigma = np.where(fin, np.tanh(0.5 * np.where(fin, d, 0.0)), np.sign(np.nan_to_num(d)))
    return sigma, np.where(fin, err + _U * (np.abs(np.where(fin, d, 0.0)) + 4), 0.0)


class _DenseDensity:
    """log(2b p) at (anchor, offset) points summing over all atoms (reference, O(N) per point)."""

    def __init__(self, xs, comp, b):
        self.lw = np.log(comp.weights)
        self.d = comp.means[None, :] - xs[:, None]  # atom positions relative to every anchor
        self.b = b

    def __call__(self, anc, off):
        out_l, out_e = np.empty(off.size), np.empty(off.size)
        step = max(1, _CHUNK // self.lw.size)  # bound the memory of the (nodes x atoms) arrays
        for i in range(0, off.size, step):
            sl = slice(i, i + step)
            e = np.abs(self.d[anc[sl]] - off[sl, None]) / self.b
            t = self.lw - e
            m = t.max(axis=1, keepdims=True)
            w = np.exp(t - m)
            sw = w.sum(axis=1)
            out_l[sl] = np.log(sw) + m[:, 0]
            # the softmax-weighted exponent and the log: its round-off is below 4u times that
            out_e[sl] = 4 * _U * ((w * e).sum(axis=1) / sw + np.abs(out_l[sl]) + 4)
        return out_l, out_e


def _initial_panels(xs, b):
    """Panels of every gap: split at its midpoint, each half geometrically (offsets b 2^j), vectorised.

    A gap narrower than ``2 _NARROW b`` is one panel anchored at its left atom (offsets below
    ``b`` stay exact there; splitting it would only double the panels): with many atoms almost
    every gap, so those are set apart first.
    """
    hg = 0.5 * np.diff(xs)
    narrow = hg < _NARROW * b
    k = np.flatnonzero(narrow)
    wide = np.flatnonzero(~narrow)
    if wide.size == 0:
        return k, np.zeros(k.size), 2 * hg[k]
    hw = hg[wide]
    with np.errstate(divide="ignore"):
        jmax = np.clip(np.ceil(np.log2(np.maximum(hw / b, 1.0))), 0, 1100).astype(int)
    j = np.arange(-1, int(jmax.max(initial=0)))
    o = b * 2.0**j  # candidate offsets, increasing
    keep = (j[None, :] < jmax[:, None]) & (o[None, :] < hw[:, None])
    cnt = keep.sum(axis=1)  # geometric offsets per half
    # per half: breakpoints 0, o[keep], hg -> cnt + 1 panels
    npan = cnt + 1
    gap = np.repeat(np.arange(hw.size), npan)
    start = np.cumsum(npan) - npan
    pos = np.arange(gap.size) - start[gap]  # panel index within the half
    brk_lo = np.where(pos == 0, 0.0, o[np.maximum(pos - 1, 0)])
    brk_hi = np.where(pos == cnt[gap], hw[gap], o[np.minimum(pos, o.size - 1) if o.size else pos])
    # left halves anchored at k (offsets >= 0), right halves at k + 1 (offsets <= 0), then the
    # narrow gaps, written in place (a million atoms: no concatenated copies)
    nw, n = gap.size, 2 * gap.size + k.size
    anc, sa, sc = np.empty(n, dtype=k.dtype), np.empty(n), np.empty(n)
    anc[:nw], anc[nw : 2 * nw], anc[2 * nw :] = wide[gap], wide[gap] + 1, k
    sa[:nw], sa[nw : 2 * nw], sa[2 * nw :] = brk_lo, -brk_hi, 0.0
    sc[:nw], sc[nw : 2 * nw] = brk_hi, -brk_lo
    np.multiply(hg[k], 2, out=sc[2 * nw :])
    return anc, sa, sc


def _panels(log_f_delta, anc, sa, sc, b, alpha, *, rule):
    """GL value, its floating-point error and the rigorous Bernstein-ellipse bound of each panel (logs)."""
    n_gl, gx, gw, gap = rule
    mid, half = 0.5 * (sa + sc), 0.5 * (sc - sa)
    nodes = mid[:, None] + half[:, None] * gx
    lf, dl = log_f_delta(np.repeat(anc, n_gl), nodes.ravel())
    lf, dl = lf.reshape(nodes.shape), dl.reshape(nodes.shape)
    m = lf.max(axis=1)
    with np.errstate(divide="ignore"):  # a panel of zero width (bisected to the last ulp) adds 0
        gl = m + np.log(np.exp(lf - m[:, None]) @ gw) + np.log(half)
    # floating-point error of the GL sum: sum_i w_i f_i (e^{delta_i} - 1) <= GL * (e^{max delta} - 1)
    fp = gl + _log_expm1(dl.max(axis=1))
    # rigorous error bound per panel (Trefethen, ATAP Thm 19.3), minimised over the ellipse size
    ht = np.maximum(half / b, 1e-300)
    ym = _YM[None, :]
    semi_major = np.hypot(ym, ht[:, None])
    with np.errstate(over="ignore"):
        log_rho = np.arcsinh(ym / ht[:, None])  # rho = (ym + semi_major) / ht, stably
    # max of |f| on the ellipse: the largest node value moved by the Lipschitz constant of log f
    # over the distance to the nearest node (real part: inside the panel at most half the largest
    # gap between nodes; beyond its ends the ellipse's overhang plus the end gap) and the cosine
    # factor (imaginary part)
    end_gap = 1.0 - gx[-1]
    reach = np.maximum(ym**2 / (semi_major + ht[:, None]) + end_gap * ht[:, None], 0.5 * gap * ht[:, None])
    L = alpha + abs(1 - alpha)  # Lipschitz constant of log f in units of b
    log_m = m[:, None] + L * reach + max(alpha - 1, 0.0) * (-np.log(np.cos(ym)))
    with np.errstate(divide="ignore"):  # rho -> 1 (a panel far wider than b): an infinite bound, bisected
        log_b = np.log(half)[:, None] + np.log(64 / 15) + log_m - 2 * n_gl * log_rho - np.log(-np.expm1(-2 * log_rho))
    return gl, fp, log_b.min(axis=1)


def _chunked(rule, nodes, log_f_delta, anc, sa, sc, b, alpha):
    """Apply a panel rule (``nodes`` per panel) to the panels in chunks of at most ``_PANEL_CHUNK`` nodes: ``(gl, fp, bound)``.

    The panels are independent, so this only bounds the memory: every array of a chunk (the
    densities' sums, sides, slopes, ...) has the chunk's size, not the support's (a million
    atoms: a few megabytes instead of a gigabyte, and no fresh pages for each temporary).
    """
    n = anc.size
    step = max(1, _PANEL_CHUNK // nodes)
    if n <= step:
        return rule(log_f_delta, anc, sa, sc, b, alpha)
    out = np.empty((3, n))

    def chunk(i):
        sl = slice(i, i + step)
        out[0, sl], out[1, sl], out[2, sl] = rule(log_f_delta, anc[sl], sa[sl], sc[sl], b, alpha)

    thread_map(chunk, range(0, n, step))  # the chunks side by side on the cores (rpp._lib.parallel)
    return out[0], out[1], out[2]


def _level(log_f_delta, anc, sa, sc, b, alpha):
    """``(gl, fp, bound)`` of every panel of a level, each by its rule, in chunks of panels side by side.

    The rule of a panel is chosen by its width: the corrected midpoint rule below ``_TINY * b``,
    4-node Gauss-Legendre below ``2 _NARROW * b``, 20 nodes above.  Each chunk chooses for its
    own panels, so no array of the level's size is made besides the three results.
    """
    out = np.empty((3, anc.size))
    rules = ((_midpoint_panels, 1), (partial(_panels, rule=_GL4), _GL4[0]), (partial(_panels, rule=_GL20), _GL20[0]))

    def chunk(i):
        sl = slice(i, i + _PANEL_CHUNK)
        a, lo, hi = anc[sl], sa[sl], sc[sl]
        width = hi - lo
        tiny = width < _TINY * b
        narrow = (width < 2 * _NARROW * b) & ~tiny
        res = out[:, sl]
        for (rule, nodes), sel in zip(rules, (tiny, narrow, ~narrow & ~tiny), strict=True):
            if sel.all():
                res[0], res[1], res[2] = _chunked(rule, nodes, log_f_delta, a, lo, hi, b, alpha)
            elif sel.any():
                res[0, sel], res[1, sel], res[2, sel] = _chunked(
                    rule, nodes, log_f_delta, a[sel], lo[sel], hi[sel], b, alpha
                )

    thread_map(chunk, range(0, anc.size, _PANEL_CHUNK))
    return out[0], out[1], out[2]


def _pieces(parts, size):
    """Yield the concatenation of the arrays ``parts`` in consecutive pieces of ``size`` entries (the last one shorter)."""
    buf, n = [], 0
    for a in parts:
        i = 0
        while i < a.size:
            take = min(size - n, a.size - i)
            buf.append(a[i : i + take])
            n, i = n + take, i + take
            if n == size:
                yield buf[0] if len(buf) == 1 else np.concatenate(buf)
                buf, n = [], 0
    if n:
        yield buf[0] if len(buf) == 1 else np.concatenate(buf)


def _lse_parts(parts):
    """:func:`rpp._lib.numerics.lse` of the concatenation of ``parts``; beyond ``_PANEL_CHUNK`` entries, the lse of its pieces' lses."""
    if sum(a.size for a in parts) <= _PANEL_CHUNK:
        return float(lse(np.concatenate(parts)))
    return float(lse(np.array(thread_map(lambda piece: float(lse(piece)), _pieces(parts, _PANEL_CHUNK)))))


def _k4(alpha):
    r"""Bound on :math:`b^4 |f^{(4)}|/f` for :math:`f = p^\alpha q^{1-\alpha}` between two atoms (:func:`_tiny_panels`)."""
    L = alpha + abs(1 - alpha)
    g2 = max(alpha, abs(1 - alpha))
    return 2 * L + 4 * (4 / (3 * math.sqrt(3))) * L * L + 3 * g2 * g2 + 6 * g2 * L * L + L**4


def _tiny_panels(log_f_delta, anc, sa, sc, b, alpha):
    r"""2-node Gauss-Legendre on panels between two atoms, with a proved derivative bound of its error (logs).

    Between consecutive atoms :math:`\varphi = \log(2b\,p)` is :math:`\log(L e^{-y/b} + R e^{y/b})`,
    so (units of ``b``) :math:`\varphi' = \sigma = \tanh(\cdot) \in [-1, 1]`,
    :math:`\varphi'' = 1 - \sigma^2 \in [0, 1]`, :math:`|\varphi'''| = |2\sigma(1-\sigma^2)| \le 4/(3\sqrt3)`,
    :math:`|\varphi^{(4)}| = |(6\sigma^2 - 2)(1-\sigma^2)| \le 2`; for
    :math:`g = \log f = \alpha\varphi_p + (1-\alpha)\varphi_q`: :math:`|g'| \le L = \alpha + |1-\alpha|`,
    :math:`|g''| \le \max(\alpha, |1-\alpha|)`, :math:`|g'''| \le 4L/(3\sqrt3)`, :math:`|g^{(4)}| \le 2L`, and
    :math:`f^{(4)}/f = g^{(4)} + 4g'''g' + 3g''^2 + 6g''g'^2 + g'^4` is bounded by :func:`_k4` (over
    :math:`b^4`).  The error of the 2-node rule on a panel of width :math:`h` is
    :math:`h^5 f^{(4)}(\xi)/4320` (Davis & Rabinowitz, *Methods of Numerical Integration*, 2.7),
    and :math:`\max f` on the panel is at most the larger node value times :math:`e^{Lh/b}`
    (:math:`\log f` is :math:`L/b`-Lipschitz), with the nodes' own round-off added.
    """
    _, gx, gw, _ = _GL2
    mid, half = 0.5 * (sa + sc), 0.5 * (sc - sa)
    nodes = mid[:, None] + half[:, None] * gx
    lf, dl = log_f_delta(np.repeat(anc, 2), nodes.ravel())
    lf, dl = lf.reshape(nodes.shape), dl.reshape(nodes.shape)
    m = lf.max(axis=1)
    d = dl.max(axis=1)
    L = alpha + abs(1 - alpha)
    with np.errstate(divide="ignore"):  # a panel of zero width adds 0
        lhalf = np.log(half)
        gl = m + np.log(np.exp(lf - m[:, None]) @ gw) + lhalf
        fp = gl + _log_expm1(d)
        const = -4 * math.log(b) - math.log(4320) + math.log(_k4(alpha)) + 5 * math.log(2)
        bound = 5 * lhalf + const + m + d + L * (2 * half / b)
    return gl, fp, bound


def _midpoint_panels(log_f_delta, anc, sa, sc, b, alpha):
    r"""Apply the corrected midpoint rule to panels between two atoms, with a proved bound of its error (logs).

    On a panel of width :math:`h` and midpoint :math:`m` (Taylor's theorem about :math:`m`, the
    odd terms integrating to 0):

    .. math::

        \int f = h f(m) + \frac{h^3}{24} f''(m) + R, \qquad |R| \le \frac{h^5}{1920}\max|f^{(4)}|,

    with :math:`f''(m) = k f(m)/b^2` from the slopes of the two densities at the node
    (:func:`_log_integrand`, ``curvature=True``) and :math:`\max|f^{(4)}| \le k_4 \max f/b^4`
    (:func:`_k4`, the derivative bounds of :func:`_tiny_panels`), :math:`\max f` at most the
    midpoint value times :math:`e^{Lh/(2b)}` (:math:`\log f` is :math:`L/b`-Lipschitz).  The
    node's round-off, the error of :math:`k` (times :math:`h^2/(24b^2)`) and the rounding of the
    sums are charged to the floating-point part.  One node, one derivative: on the narrowest gaps
    (a million atoms) the remainder is far below the target of a panel, and a panel whose bound
    is not is done again by :func:`_tiny_panels`.  Densities without slopes (the dense reference)
    get the plain midpoint rule, :math:`|R| \le h^3 \max|f''|/24`, :math:`|f''| \le (g_2 + L^2) f / b^2`,
    :math:`g_2 = \max(\alpha, |1-\alpha|)` (Davis & Rabinowitz, *Methods of Numerical Integration*, 2.6).
    """
    mid, half = 0.5 * (sa + sc), 0.5 * (sc - sa)
    L = alpha + abs(1 - alpha)
    with np.errstate(divide="ignore"):  # a panel of zero width adds 0
        lh = np.log(2 * half)
    if not getattr(log_f_delta, "curvature", False):
        lf, d = log_f_delta(anc, mid)
        k2 = max(alpha, abs(1 - alpha)) + L * L
        gl = lf + lh
        # the node's error, and the rounding of the sum of two logs
        fp = gl + _log_expm1(d + 2 * _U * (np.abs(lf) + np.abs(lh)))
        bound = 3 * lh + math.log(k2 / 24) - 2 * math.log(b) + lf + d + L * half / b
        return gl, fp, bound
    lf, d, k, k_err = log_f_delta(anc, mid, curvature=True)
    r2 = (2 * half / b) ** 2 / 24  # (h/b)^2 / 24, to a few ulps
    c = r2 * k  # the correction, relative to h f(m): |c| < 1e-5 where h < 0.004 b
    gl = lf + lh + np.log1p(c)
    c_err = r2 * k_err + 8 * _U * np.abs(c)
    fp = gl + _log_expm1(d + 2 * _U * (np.abs(lf) + np.abs(lh) + 1) + 2 * c_err)
    const = math.log(_k4(alpha) / 1920) - 4 * math.log(b)
    bound = 5 * lh + const + lf + d + L * half / b
    return gl, fp, bound


# Shared state of the divergences of one pair: the merged support of two priors (for every b)
# and, at the last few b, the prefix densities and the initial panels -- both orders of a pair
# (and the final check of a calibration) evaluate the same densities at the same scales.
# Keyed by the content of the components' arrays (rpp._lib.cache: an array changed in place is
# another key, never a stale result); read and written under rpp._lib.cache.LOCK.
_XS = _cache.Cache("laplace_atoms.merged", entries=4)
_AT_B = _cache.Cache("laplace_atoms.densities", entries=1)
_RESULTS = _cache.Cache("laplace_atoms.results", entries=32)  # recent results: the pair's keys, alpha, b


def _key(comp):
    """Return the content key of a prior's components (atoms and weights)."""
    return _cache.key(comp.means, comp.weights)


def _frozen_components(comp):
    """``comp`` itself if its atoms and weights are immutable, else a copy with read-only copies of them."""
    if _cache.immutable(comp.means) and _cache.immutable(comp.weights):
        return comp
    return type(comp)(_cache.frozen(comp.weights), _cache.frozen(comp.means), comp.vars)


def _merged(P, Q):
    """Return the sorted union of the two priors' atoms (cached per pair of priors, either order)."""
    return _pair_entry(P, Q)[0]


def _pair_entry(P, Q):
    """Return ``(xs, layouts)``: the merged support and each prior's :func:`_layout` in it (cached per pair)."""
    kp, kq = _key(P), _key(Q)
    key = tuple(sorted((kp, kq)))
    hit = _XS.get(key)
    if hit is not None:
        return hit
    xs, lay_p, lay_q = _merge(P, Q)
    return _XS.put(key, (xs, {kp: lay_p, kq: lay_q}))


def _at_scale(P, Q, xs, b):
    """``(density of P, density of Q, initial panels)`` at ``b`` (cached per pair and ``b``, either order)."""
    kp, kq = _key(P), _key(Q)
    key = (*sorted((kp, kq)), b)
    with _cache.LOCK:
        hit = _AT_B.get(key)
        dens, panels = (dict(hit[0]), hit[1]) if hit is not None else ({}, None)
    layouts = _pair_entry(P, Q)[1]
    todo = [(k, comp) for k, comp in ((kp, P), (kq, Q)) if k not in dens]
    todo = list(dict(todo).items())  # one density per distinct content
    built = thread_map(lambda kc: _PrefixDensity(xs, kc[1], b, layouts[kc[0]]), todo, parallel=xs.size >= MIN_ITEMS)
    for (k, _comp), density in zip(todo, built, strict=True):
        dens[k] = density
    if panels is None:
        panels = _initial_panels(xs, b) if xs.size > 1 else (np.empty(0, int), np.empty(0), np.empty(0))
    if todo or hit is None:
        _AT_B.put(key, (dens, panels))  # stored whole, so that its size is counted
    return dens[kp], dens[kq], panels


def _log_sum(parts):
    r"""``(log sum e^{l_i}, rel)``: the sum over the arrays ``parts`` and a bound on its relative error.

    Each term :math:`e^{l_i - m}` is off by at most :math:`u|l_i - m| + 4u` (the rounded
    exponent and ``numpy.exp``), so the sum by at most the share-weighted mean of those (all
    terms are positive); the terms are summed in rows of 256 (in any order: relative error at
    most :math:`255u`, Higham, *Accuracy and Stability of Numerical Algorithms*, 4.2) and the
    row sums by ``math.fsum`` (correctly rounded), plus :math:`u` for the log; a term of ``-inf``
    (a panel of no width) adds nothing and has no share.  The rows are
    those of the concatenation, taken in pieces of ``_PANEL_CHUNK`` (a multiple of 256); the
    weighted mean is rounded up by a relative 1e-12 for its own summation.
    """
    m = max((float(np.max(a)) for a in parts if a.size), default=-math.inf)
    if m == -math.inf:
        return m, 0.0
    rows, dots = [], []
    for piece in _pieces(parts, _PANEL_CHUNK):
        d = piece - m
        e = np.exp(d)
        # rows of 256 summed in any order (relative error <= 255u), the row sums by fsum
        k = -(-e.size // 256)
        rows.append(np.concatenate([e, np.zeros(k * 256 - e.size)]).reshape(k, 256).sum(axis=1))
        ad = np.abs(d)
        if not np.isfinite(piece).all():
            ad[~np.isfinite(piece)] = 0.0  # a panel that adds 0 (-inf: no width) has no share (not 0 * inf)
        dots.append(float(np.dot(e, ad)))
    s = math.fsum(np.concatenate(rows))
    mean_d = dots[0] / s if len(dots) == 1 else math.fsum(dots) * (1 + 1e-12) / s
    return m + math.log(s), _U * (mean_d + 8 + 256)


def atoms_log_integral(P, Q, alpha, b, dense=False):
    r"""``(log I, rel_err)`` for :math:`I = \int p^\alpha q^{1-\alpha}`, p, q Laplace mixtures at atoms (certified).

    ``P``, ``Q`` are the priors' components (all variances 0); ``rel_err`` bounds
    :math:`|\hat I - I|/\hat I` rigorously (Bernstein-ellipse bound per panel, exact tails,
    round-off of the densities and of the sums).  Points are an anchor atom plus an offset,
    so offsets near an atom stay exact even when ``b`` is far below the spacing of the atoms'
    coordinates.  ``dense=True`` evaluates the densities over all atoms (the reference).

    Examples
    --------
    >>>
    >>> from rpp import Empirical
    >>> P, Q = Empirical([0.0]).components(), Empirical([1.0]).components()
    >>> li, rel = atoms_log_integral(P, Q, 2.0, 1.0)
    >>> bool(abs(li - np.log(2 / 3 * np.e + 1 / 3 * np.exp(-2))) < 1e-14 and rel < 1e-12)  # Mironov, Prop. 6
    True
    """
    P, Q = _frozen_components(P), _frozen_components(Q)  # the cached densities keep the arrays
    key = (_key(P), _key(Q), float(alpha), float(b), bool(dense))
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit  # the same divergence again (a calibration's final check)
    return _RESULTS.put(key, _atoms_log_integral(P, Q, alpha, b, dense))


def _log_integrand(dp, dq, alpha, b):
    r"""``log_f_delta(anc, off) -> (log f, error)``: :math:`f = p^\alpha q^{1-\alpha}` from the two densities' logs.

    ``log_f_delta(anc, off, curvature=True)`` (prefix densities only) also returns
    :math:`k = b^2 f''/f = b^2(g'' + g'^2)`, :math:`g = \log f`, and a bound on its error: with
    :math:`\sigma_p = b(\log p)'` (:func:`_slope`), :math:`b^2(\log p)'' = 1 - \sigma_p^2`
    between atoms, so :math:`k = \alpha(1-\sigma_p^2) + (1-\alpha)(1-\sigma_q^2) + (\alpha\sigma_p +
    (1-\alpha)\sigma_q)^2`; each :math:`\sigma` within :math:`\delta` moves it by at most
    :math:`2(1 + L)(\alpha\delta_p + |1-\alpha|\delta_q)` (:math:`|\sigma| \le 1`), plus its rounding.
    ``log_f_delta.curvature`` says whether the densities provide it.
    """
    lnorm = np.log(2 * b)
    L = alpha + abs(1 - alpha)
    curved = isinstance(dp, _PrefixDensity) and isinstance(dq, _PrefixDensity)

    def log_f_delta(anc, off, curvature=False):
        if curvature:
            lp, ep, sp, esp = dp(anc, off, slope=True)
            lq, eq, sq, esq = dq(anc, off, slope=True)
        else:
            lp, ep = dp(anc, off)
            lq, eq = dq(anc, off)
        val = alpha * (lp - lnorm) + (1 - alpha) * (lq - lnorm)
        delta = alpha * ep + abs(1 - alpha) * eq + 4 * _U * (alpha * abs(lnorm) + abs(1 - alpha) * abs(lnorm) + 4)
        if not curvature:
            return val, delta
        gp = alpha * sp + (1 - alpha) * sq
        k = alpha * (1 - sp * sp) + (1 - alpha) * (1 - sq * sq) + gp * gp
        k_err = 2 * (1 + L) * (alpha * esp + abs(1 - alpha) * esq) + 16 * _U * (2 * L + L * L)
        return val, delta, k, k_err

    log_f_delta.curvature = curved  # type: ignore[attr-defined]
    return log_f_delta


def _atoms_log_integral(P, Q, alpha, b, dense):
    xs = _merged(P, Q)
    if dense:
        dp, dq = _DenseDensity(xs, P, b), _DenseDensity(xs, Q, b)
        initial = _initial_panels(xs, b) if xs.size > 1 else (np.empty(0, int), np.empty(0), np.empty(0))
    else:
        dp, dq, initial = _at_scale(P, Q, xs, b)
    log_f_delta = _log_integrand(dp, dq, alpha, b)
    n_at = xs.size
    ends, dends = log_f_delta(np.array([0, n_at - 1]), np.zeros(2))
    # exact tails: beyond the extreme atoms f(y) = f(Y) e^{-|y - Y|/b}
    logs = [np.log(b) + ends]
    errs = [np.log(b) + ends + _log_expm1(dends)]
    anc, sa, sc = initial
    n_done = 0
    for it in range(_MAX_LEVELS):
        if anc.size == 0:
            break
        gl, fp, bound = _level(log_f_delta, anc, sa, sc, b, alpha)
        total = _lse_parts([np.array([_lse_parts(logs)]), gl])
        redo = np.flatnonzero(bound > np.log(_TOL) + total)
        redo = redo[sc[redo] - sa[redo] < _TINY * b]  # the midpoint's bound misses the target: two nodes
        if redo.size:
            gl[redo], fp[redo], bound[redo] = _chunked(
                _tiny_panels, 2, log_f_delta, anc[redo], sa[redo], sc[redo], b, alpha
            )
            total = _lse_parts([np.array([_lse_parts(logs)]), gl])
        ok = bound <= np.log(_TOL) + total
        n_ok = int(np.count_nonzero(ok))
        if n_ok == ok.size:  # every panel met its target (a million atoms: all at the first level)
            logs.append(gl)
            errs.append(np.logaddexp(bound, fp))
            break
        logs.append(gl[ok])
        errs.append(np.logaddexp(bound[ok], fp[ok]))
        n_done += n_ok
        bad = ~ok
        if 2 * bad.sum() + n_done > _MAX_PANELS or it == _MAX_LEVELS - 1:
            # budget spent: keep the remaining panels with their (rigorous) bounds
            logs.append(gl[bad])
            errs.append(np.logaddexp(bound[bad], fp[bad]))
            break
        # bisect the panels whose bound is too large
        na, nsa, nsc = anc[bad], sa[bad], sc[bad]
        nm = 0.5 * (nsa + nsc)
        anc = np.concatenate([na, na])
        sa, sc = np.concatenate([nsa, nm]), np.concatenate([nm, nsc])
    log_i, rel_sum = _log_sum(logs)
    # the panels' errors (their sum rounded up by a relative 1e-9, far above its round-off)
    rel = float(np.exp(min(_lse_parts(errs) - log_i, 700.0))) * (1 + 1e-9)
    # summation of the panel sums (positive terms, math.fsum) and the logs
    rel += rel_sum
    return log_i, rel
