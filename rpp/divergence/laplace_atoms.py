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

The quadrature itself is the certified one of :mod:`rpp.divergence.laplace_noise`
(Bernstein-ellipse bound per panel, Trefethen, *Approximation Theory and Approximation
Practice*, Thm 19.3; exact tails beyond the extreme atoms).  A gap narrower than
``_TINY * b`` (with :math:`10^5` atoms and more, almost every gap) is integrated by the
midpoint rule where its proved bound (:math:`h^3 \max|f''|/24`) meets the target of a panel,
and by 2-node Gauss-Legendre (:math:`h^5 \max|f^{(4)}|/4320`) where it does not.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .._lib.numerics import lse

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


def _log_expm1(x):
    """log(e^x - 1) for x >= 0 without overflow (-inf at 0)."""
    x = np.asarray(x, float)
    with np.errstate(divide="ignore"):
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
    :math:`T_k = \log\sum_{j\le k} e^{t_j}`, :math:`t_j = \log W_j - (r - x_j)/b`, is one
    ``numpy.logaddexp.accumulate`` (log space: nothing under- or overflows), and
    :math:`\log L_k = T_k + (r - x_k)/b`.  Its error: each input :math:`t_j` is off by at most
    :math:`u(|t_j| + 2(r-x_j)/b)`, and a log-sum is off by at most the largest error of its
    inputs (the derivatives of :math:`\log\sum e^{t_j}` are shares summing to 1); each step of
    the accumulation adds at most :math:`4u(|T_k| + 1)` (a rounded
    :math:`\max + \mathrm{log1p}(e^{-|d|})`); the final shift adds
    :math:`u(2(r-x_k)/b + |\log L_k| + 1)`.  So every position of a block is off by at most
    :math:`u(S + 2D) + 4uB(S+1) + u(2D + S + 1)`, :math:`S` the largest :math:`|t_j|, |T_j|,
    |\log L_j|` and :math:`D` the largest :math:`(r - x_j)/b` of the block.  Across blocks a
    carry is passed on by one log-add per block, whose error is the share-weighted mean of its
    operands' errors plus the rounding of the step; a point's full sum (its block's own atoms
    and the carry moved to it) is off by at most the larger of the two errors plus the
    rounding of the log-add.  Returns ``(incl, err_incl)``: sums over :math:`j \le k`.  O(N).
    A block that spans more than ``_SPAN`` (sparse atoms, where :math:`D` would cost digits) is
    summed pair by pair instead (:func:`_pairwise_local`, O(B) per point).
    """
    n = x.size
    B = _block_length(n)
    nb = -(-n // B)
    pad = nb * B - n
    xb = np.concatenate([x, np.full(pad, x[-1])]).reshape(nb, B)
    lwb = np.concatenate([lw, np.full(pad, -np.inf)]).reshape(nb, B)
    ends_x = xb[:, -1]
    dist = (ends_x[:, None] - xb) / b  # (r - x_j) / b >= 0
    t = lwb - dist
    T = np.logaddexp.accumulate(t, axis=1)
    local = T + dist  # log L_k of the block's own atoms; -inf before its first atom
    with np.errstate(invalid="ignore"):
        big = np.maximum(np.abs(t), np.abs(local))  # |T| <= |t_first| + |local| is not needed: T <= max t + log B
    S = np.where(np.isfinite(big), big, 0.0).max(axis=1) + math.log(B)
    D = dist[:, 0]  # the block's first point is the farthest from its end
    local_err = _U * (S + 2 * D) + 4 * _U * B * (S + 1) + _U * (2 * D + S + 1)  # per block
    sparse = np.flatnonzero(D > _SPAN)  # the shift to the block's end would cost digits: pair by pair
    if sparse.size:
        local[sparse], local_err[sparse] = _pairwise_local(lwb[sparse], xb[sparse], b)
    # carry across blocks (sequential over the blocks)
    carry, carry_err = np.full(nb, -np.inf), np.zeros(nb)  # full sum at each block's last point
    cur, cur_err = -math.inf, 0.0
    loc_end, loc_err_end = local[:, -1].tolist(), local_err.tolist()
    ends = ends_x.tolist()
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
    prev = np.concatenate([[-np.inf], carry[:-1]])[:, None]
    prev_err = np.concatenate([[0.0], carry_err[:-1]])
    prev_x = np.concatenate([[x[0]], ends_x[:-1]])[:, None]
    gap = (xb - prev_x) / b
    carried = prev - gap
    full = np.logaddexp(local, carried)
    # the carry moved to a point: its own error, the rounding of the gap and of the subtraction
    top = np.where(np.isfinite(carried[:, 0]), np.abs(carried[:, 0]) + gap[:, -1], 0.0)
    carried_err = np.where(np.isfinite(prev[:, 0]), prev_err + 2 * _U * top, 0.0)
    with np.errstate(invalid="ignore"):
        fmax = np.where(np.isfinite(full), np.abs(full), 0.0).max(axis=1)
    block_err = np.maximum(carried_err, local_err) + 4 * _U * (fmax + 1)
    err = np.where(np.isfinite(full), block_err[:, None], 0.0)
    return full.ravel()[:n], err.ravel()[:n]


def _moved(sums, errs, a, xs, m, b):
    r"""Prefix sums at the atoms ``a`` moved to the points ``xs``: :math:`\log S_m - |x_k - a_m|/b`.

    ``m[k]`` is the atom whose sum serves ``x_k`` (``-1`` or ``a.size``: none, ``-inf``).  The
    move adds the rounding of the distance (two operations, :math:`2u` of it) and of the
    subtraction (:math:`u` of the result) to the sum's own error: :math:`2u(|\log S| + d)`.
    """
    ok = (m >= 0) & (m < a.size)
    mm = np.where(ok, m, 0)
    d = np.abs(xs - a[mm]) / b
    val = np.where(ok, sums[mm] - d, -np.inf)
    fin = np.isfinite(val)
    err = np.where(fin, errs[mm] + 2 * _U * (np.where(fin, np.abs(val), 0.0) + d), 0.0)
    return val, err


def _layout(xs, comp):
    """Return ``(a, log w, cnt, own)``: a prior's sorted distinct atoms and their places in the merged support ``xs``.

    Independent of the scale: kept per pair (:func:`_merged`) for every ``b`` of a search.
    ``cnt[k]`` atoms are ``<= x_k``; ``own[k]`` says ``x_k`` is one of them.
    """
    a, lwa = comp.means, np.log(comp.weights)
    if a.size > 1 and not bool(np.all(np.diff(a) > 0)):
        a, inv = np.unique(a, return_inverse=True)
        lw = np.full(a.size, -np.inf)
        np.logaddexp.at(lw, inv.ravel(), lwa)  # duplicates merge
        lwa = lw
    own = np.zeros(xs.size, dtype=np.int64)
    own[np.searchsorted(xs, a)] = 1
    return a, lwa, np.cumsum(own), own


class _PrefixDensity:
    """log(2b p) at (anchor, offset) points of the merged support in O(1) per point."""

    def __init__(self, xs, comp, b, layout=None):
        # the prior's own atoms, sorted and merged (the sweeps run over them, not over the
        # merged support: half the points for two priors of equal size)
        a, lwa, cnt, own = _layout(xs, comp) if layout is None else layout
        ai, eai = _sweep(lwa, a, b)  # atoms <= a_m
        ri, eri = _sweep(lwa[::-1], -a[::-1], b)  # atoms >= a_m (mirrored)
        ri, eri = ri[::-1], eri[::-1]
        # each point x_k of the merged support (which holds every atom) from the nearest atom on
        # each side
        # atoms <= x_k and atoms > x_k at every point (every panel on the right of its anchor
        # needs them); atoms < x_k and >= x_k only at the anchors asked for (offsets < 0)
        self.left_incl, self.err_li = _moved(ai, eai, a, xs, cnt - 1, b)
        self.right_excl, self.err_re = _moved(ri, eri, a, xs, cnt, b)
        self.err_pos = np.maximum(self.err_li, self.err_re)
        self._sums, self._xs, self._cnt, self._own = (ai, eai, ri, eri, a), xs, cnt, own
        self.b = b

    def _other_sides(self, anc):
        """Return the sums over atoms ``< x_k`` and ``>= x_k`` (with errors) at the anchors ``anc``."""
        ai, eai, ri, eri, a = self._sums
        xs, cnt, own = self._xs[anc], self._cnt[anc], self._own[anc]
        le, ele = _moved(ai, eai, a, xs, cnt - own - 1, self.b)
        rin, erin = _moved(ri, eri, a, xs, cnt - own, self.b)
        return le, ele, rin, erin

    def __call__(self, anc, off, slope=False):
        """``(log(2b p), error)`` at the points; with ``slope``, also :func:`_slope` of ``log p`` and its error."""
        s = off / self.b
        pos = off >= 0
        if pos.all():  # every point on the right of its anchor (the narrow panels): no selection
            lft = self.left_incl[anc] - s
            rgt = self.right_excl[anc] + s
            val = np.logaddexp(lft, rgt)
            # the share-weighted mean of the two sides' errors is at most the larger one
            big = np.maximum(np.abs(lft), np.abs(rgt))
            big = np.where(big < np.inf, big, np.abs(val))  # a side without atoms (-inf) is exact
            err = self.err_pos[anc] + 2 * _U * (big + s) + 4 * _U * (np.abs(val) + 2)
            return (val, err, *_slope(lft, rgt, err)) if slope else (val, err)
        le, ele, rin, erin = self._other_sides(anc)
        lft = np.where(pos, self.left_incl[anc], le) - s
        rgt = np.where(pos, self.right_excl[anc], rin) + s
        err_l = np.where(pos, self.err_li[anc], ele)
        err_r = np.where(pos, self.err_re[anc], erin)
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
    # left halves anchored at k (offsets >= 0), right halves at k + 1 (offsets <= 0)
    return (
        np.concatenate([wide[gap], wide[gap] + 1, k]),
        np.concatenate([brk_lo, -brk_hi, np.zeros(k.size)]),
        np.concatenate([brk_hi, -brk_lo, 2 * hg[k]]),
    )


def _panels(log_f_delta, rule, anc, sa, sc, b, alpha):
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
# Keyed by the identity of the components' arrays, which the entries keep alive.
_XS: OrderedDict = OrderedDict()
_AT_B: OrderedDict = OrderedDict()
_XS_SIZE, _AT_B_SIZE = 4, 1
_RESULTS: OrderedDict = OrderedDict()  # recent results, keyed like the densities plus alpha and b
_RESULTS_SIZE = 32


def _key(comp):
    return (id(comp.means), id(comp.weights))


def _remember(cache, size, key, value):
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)
    return value


def _merged(P, Q):
    """Return the sorted union of the two priors' atoms (cached per pair of priors, either order)."""
    return _pair_entry(P, Q)[1]


def _pair_entry(P, Q):
    """Return ``((P, Q), xs, layouts)``: the merged support and each prior's :func:`_layout` in it (cached per pair)."""
    key = tuple(sorted((_key(P), _key(Q))))
    hit = _XS.get(key)
    if hit is not None:
        _XS.move_to_end(key)
        return hit
    xs = np.union1d(P.means, Q.means)
    return _remember(_XS, _XS_SIZE, key, ((P, Q), xs, {_key(c): _layout(xs, c) for c in (P, Q)}))


def _at_scale(P, Q, xs, b):
    """``(density of P, density of Q, initial panels)`` at ``b`` (cached per pair and ``b``, either order)."""
    key = (*sorted((_key(P), _key(Q))), b)
    hit = _AT_B.get(key)
    if hit is None:
        hit = _remember(_AT_B, _AT_B_SIZE, key, ((P, Q), {}, [None]))
    else:
        _AT_B.move_to_end(key)
    dens = hit[1]
    layouts = _pair_entry(P, Q)[2]
    for comp in (P, Q):
        if _key(comp) not in dens:
            dens[_key(comp)] = _PrefixDensity(xs, comp, b, layouts[_key(comp)])
    if hit[2][0] is None:
        hit[2][0] = _initial_panels(xs, b) if xs.size > 1 else (np.empty(0, int), np.empty(0), np.empty(0))
    return dens[_key(P)], dens[_key(Q)], hit[2][0]


def _log_sum(logs):
    r"""``(log sum e^{l_i}, rel)``: the sum and a bound on its relative error.

    Each term :math:`e^{l_i - m}` is off by at most :math:`u|l_i - m| + 4u` (the rounded
    exponent and ``numpy.exp``), so the sum by at most the share-weighted mean of those (all
    terms are positive); the terms are summed in rows of 256 (in any order: relative error at
    most :math:`255u`, Higham, *Accuracy and Stability of Numerical Algorithms*, 4.2) and the
    row sums by ``math.fsum`` (correctly rounded), plus :math:`u` for the log.
    """
    m = float(np.max(logs))
    if m == -math.inf:
        return m, 0.0
    d = logs - m
    e = np.exp(d)
    # rows of 256 summed in any order (relative error <= 255u), the row sums by fsum
    k = -(-e.size // 256)
    rows = np.concatenate([e, np.zeros(k * 256 - e.size)]).reshape(k, 256).sum(axis=1)
    s = math.fsum(rows)
    mean_d = float(np.dot(e, np.abs(d))) / s
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
    key = (_key(P), _key(Q), float(alpha), float(b), bool(dense))
    hit = _RESULTS.get(key)
    if hit is not None:  # the same divergence again (a calibration's final check): no new quadrature
        _RESULTS.move_to_end(key)
        return hit[1]
    out = _atoms_log_integral(P, Q, alpha, b, dense)
    _remember(_RESULTS, _RESULTS_SIZE, key, ((P, Q), out))
    return out


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
    curved = hasattr(dp, "left_incl") and hasattr(dq, "left_incl")

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
        gl, fp, bound = np.empty(anc.size), np.empty(anc.size), np.empty(anc.size)
        width = sc - sa
        tiny = width < _TINY * b
        narrow = (width < 2 * _NARROW * b) & ~tiny
        if tiny.any():
            gl[tiny], fp[tiny], bound[tiny] = _midpoint_panels(log_f_delta, anc[tiny], sa[tiny], sc[tiny], b, alpha)
        for rule, sel in ((_GL4, narrow), (_GL20, ~narrow & ~tiny)):
            if sel.any():
                gl[sel], fp[sel], bound[sel] = _panels(log_f_delta, rule, anc[sel], sa[sel], sc[sel], b, alpha)
        total = lse(np.concatenate([lse(np.concatenate(logs))[None], gl]))
        redo = tiny & (bound > np.log(_TOL) + total)  # the midpoint's bound misses the target: two nodes
        if redo.any():
            gl[redo], fp[redo], bound[redo] = _tiny_panels(log_f_delta, anc[redo], sa[redo], sc[redo], b, alpha)
            total = lse(np.concatenate([lse(np.concatenate(logs))[None], gl]))
        ok = bound <= np.log(_TOL) + total
        logs.append(gl[ok])
        errs.append(np.logaddexp(bound[ok], fp[ok]))
        n_done += int(ok.sum())
        bad = ~ok
        if not bad.any():
            break
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
    log_i, rel_sum = _log_sum(np.concatenate(logs))
    # the panels' errors (their sum rounded up by a relative 1e-9, far above its round-off)
    rel = float(np.exp(min(lse(np.concatenate(errs)) - log_i, 700.0))) * (1 + 1e-9)
    # summation of the panel sums (positive terms, math.fsum) and the logs
    rel += rel_sum
    return log_i, rel
