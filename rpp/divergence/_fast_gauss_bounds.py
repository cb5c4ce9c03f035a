r"""Proved float bounds of :math:`\log p(x)` for a mixture of many Gaussians of one variance.

The proved path of many atoms under Gaussian noise (``_convex_gaussian`` of ``rpp/divergence/_proved.py``)
needs, at a few thousand points :math:`x`, an interval that contains

.. math::

    \log p(x), \qquad p(x) = \sum_{k=1}^{n} w_k\,\frac{1}{\sqrt{2\pi\sigma^2}}
    \exp\Bigl(-\frac{(x-\mu_k)^2}{2\sigma^2}\Bigr),

with one variance :math:`\sigma^2` (atoms plus Gaussian noise).  Summing every term costs
:math:`n` exponentials per point; this module costs a fixed number of operations per point,
whatever :math:`n`, with the **improved fast Gauss transform** in one dimension (Yang, Duraiswami,
Gumerov and Davis 2003; Raykar and Duraiswami 2005): the atoms are put in bins of width
:math:`h = f\sigma` with centres :math:`c_b`, and for an atom :math:`\mu = c_b + \delta s`
(:math:`s` the float of :math:`\sigma`) and :math:`u = (x - c_b)/s`,

.. math::

    e^{-(u-\delta)^2/2} = e^{-u^2/2}\,e^{-\delta^2/2}\,e^{u\delta}, \qquad
    e^{u\delta} = \sum_{j<M}\frac{(u\delta)^j}{j!} + R_M, \quad
    |R_M| \le \frac{|u\delta|^M}{M!}e^{|u\delta|},

so a bin contributes :math:`e^{-u^2/2}\sum_{j<M} A_{b,j} u^j` with the moments
:math:`A_{b,j} = \sum_{k \in b} w_k e^{-\delta_k^2/2}\delta_k^j/j!`, computed once.

**What makes the result a bound** (every term of the sum is positive):

* *Taylor*: with :math:`y = |u|\,\delta_{\max,b}`, the remainder of a bin is at most
  :math:`A_{b,0}\,y^M e^{y}/M!`, and the bin's sum is at least :math:`A_{b,0}e^{-y}`.
* *Rounding of the moments and of Horner's scheme* (Higham 2002, Thm 5.3 and eq. 3.5): at most
  :math:`\gamma\sum_j |A_{b,j}||u|^j \le \gamma A_{b,0}e^{y}` with
  :math:`\gamma = (n_b + 4M + 16 + 2\Delta_b)\,u_{53} + ` ``PAD`` (:math:`\Delta_b` the spread of the
  bin's log weights, rounded inside each exponential; every ``exp`` and ``log`` padded by ``PAD``,
  1e-12 relative, as in the rest of the proved path; numpy documents at most 4 ulp).  So a bin's
  computed value is within a factor :math:`1 \pm e^{2y}(\gamma + y^M/M!)` of its exact sum.
* *The model against the truth*: the exact inputs are the weights' log bounds, the means within
  :math:`\eta_k` of their floats and the variance within ``[s2_lo, s2_hi]``; for an atom within
  :math:`R` of :math:`x` these move its term's log by at most
  :math:`E_w + \tfrac12|\log r| + R^2|1-1/r|/(2s^2) + (2R\eta + \eta^2)/(2\sigma^2_{lo})`
  (:math:`r = \sigma^2/s^2`), and the rounding of :math:`u` and :math:`\delta` moves it by at
  most :math:`2.1\,u_{53}(|u|+\delta_{\max})^2 + ` the same for :math:`\delta` (both taken into
  the atom's position).
* *The atoms left out* of a point's window (bins whose centre is farther than its reach
  :math:`\sqrt{d^2 + (10 s)^2}`, :math:`d` the distance to the nearest atom) are at least
  :math:`D_0` away, and add at most
  :math:`W (2\pi\sigma_{lo}^2)^{-1/2}e^{-D_0^2/(2\sigma_{hi}^2)}` (:math:`W` the total weight).

A point whose Taylor argument would exceed 1.8 at the finest level, or whose bound fails to be
positive, is returned as not done; the caller sums its terms directly.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

__all__ = ["GaussSum"]

_U = 2.0**-53
PAD = 1e-12  # the relative pad of every exp and log (as rpp/divergence/_proved.py)
_ORDER = 22  # M: the Taylor polynomial has degree M - 1
_FACT = float(math.factorial(_ORDER))  # a float: numpy < 2 makes an object array of a Python int this large
_LEVELS = (1 / 4, 1 / 16, 1 / 64, 1 / 256)  # bin widths in units of s
_Y_MAX = 1.8
_REACH = 10.0  # in units of s beyond the nearest atom (in quadrature): e^-50 per unit weight
_CHUNK = 1 << 15  # entries (points x bins) per block


class _Level:
    """The bins of one width: centres, log scale, moments, largest |delta|, largest eta, counts.

    The centres, counts and largest |delta| of every bin are made at once; the rest (the
    moments, a pass over the atoms per degree) only for the bins a point's window reaches
    (:meth:`need`), so a finer level asked for by a few points far out costs the atoms near them.
    """

    def __init__(self, m, lw, eta, s, f):
        h = f * s
        key = m / h
        np.floor(key, out=key)
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        ends = np.concatenate([starts[1:], [m.size]])
        self.m, self.lw, self.eta_atoms, self.s = m, lw, eta, s
        self.starts, self.ends = starts, ends
        self.centre = 0.5 * m[starts] + 0.5 * m[ends - 1]  # increasing: the atoms are sorted
        # fl(fl(m - c) / s) is non-decreasing in m (every rounding is), so the largest |delta| of a bin
        # is at its first or last atom: the same float as the maximum over all its atoms
        first, last = (m[starts] - self.centre) / s, (m[ends - 1] - self.centre) / s
        self.dmax = np.maximum(np.abs(first), np.abs(last))
        self.count = (ends - starts).astype(float)
        nb = starts.size
        # zeros where not made yet: a window's padding beyond its bins reads them, masked out
        self.eta = np.zeros(nb)
        self.logscale = np.zeros(nb)
        self.spread = np.zeros(nb)
        self.mom = np.zeros((_ORDER, nb))
        self.made = np.zeros(nb, dtype=bool)
        self._table = None
        # a sum is shared (rpp/divergence/_proved.py keeps it in a cache): the bins are made, and the table of
        # their maxima replaced, under this lock; a table is dropped whenever bins are made
        self._lock = threading.Lock()
        self.dmax_all = float(self.dmax.max())

    def need(self, lo_b, hi_b):
        """Make the moments of every bin in some ``[lo_b[i], hi_b[i])`` (bins not made yet, in runs)."""
        nb = self.centre.size
        cover = np.zeros(nb + 1, dtype=np.int64)
        np.add.at(cover, lo_b, 1)
        np.add.at(cover, hi_b, -1)
        wanted = np.cumsum(cover[:nb]) > 0
        with self._lock:
            todo = wanted & ~self.made
            if not todo.any():
                return
            edge = np.diff(np.concatenate([[0], todo.astype(np.int8), [0]]))
            for b0, b1 in zip(np.flatnonzero(edge == 1), np.flatnonzero(edge == -1), strict=True):
                self._make(int(b0), int(b1))
            self._table = None

    def _make(self, b0, b1):
        """Make the moments, log scales, spreads and largest eta of the bins ``b0 <= b < b1``."""
        a0, a1 = int(self.starts[b0]), int(self.ends[b1 - 1])
        starts = self.starts[b0:b1] - a0
        m, eta = self.m[a0:a1], self.eta_atoms[a0:a1]
        idx = np.repeat(np.arange(b1 - b0), self.ends[b0:b1] - self.starts[b0:b1])
        delta = self.centre[b0:b1][idx]
        np.subtract(m, delta, out=delta)
        delta /= self.s  # (m - c) / s
        self.eta[b0:b1] = np.maximum.reduceat(eta, starts)
        q = 0.5 * delta
        q *= delta  # 0.5 * delta * delta
        if np.ndim(self.lw) == 0:  # one weight: lw - logscale = 0 exactly, the spread 0
            self.logscale[b0:b1] = self.lw
            np.negative(q, out=q)  # 0 - q
            term = np.exp(q, out=q)
        else:
            lw = self.lw[a0:a1]
            logscale = np.maximum.reduceat(lw, starts)  # log of the largest weight of the bin
            self.logscale[b0:b1] = logscale
            # the rounding of lw - logscale inside each exp is at most u times this spread (the moments' gamma)
            self.spread[b0:b1] = logscale - np.minimum.reduceat(lw, starts)
            arg = lw - logscale[idx]
            arg -= q
            term = np.exp(arg, out=arg)  # in (0, 1]
        for j in range(_ORDER):
            # the bins' sums of w e^(-delta^2/2) delta^j, then over j!: j + 2 roundings of each term
            # (fl(j!) is exact to 18!, within an ulp beyond), fewer than the 2j of dividing each term
            self.mom[j, b0:b1] = np.add.reduceat(term, starts) / float(math.factorial(j))
            term *= delta
        self.made[b0:b1] = True

    def window_max(self, lo_b, hi_b):
        """Per point, the largest ``dmax``, ``count``, ``spread`` and ``eta`` over the bins ``[lo_b, hi_b)`` (0 if none).

        From a table of the maxima over runs of 2^k bins (made after the bins' moments): two look-ups a point.
        """
        with self._lock:  # (made after every bin these windows need: see need)
            table = self._table
            if table is None:
                table = [np.stack([self.dmax, self.count, self.spread, self.eta])]
                k = 1
                while 1 << k <= self.centre.size:
                    prev, h = table[-1], 1 << (k - 1)
                    table.append(np.maximum(prev[:, :-h], prev[:, h:]))  # the maximum over [i, i + 2^k)
                    k += 1
                self._table = table
        size = hi_b - lo_b
        some = size > 0
        level = np.where(some, np.frexp(np.maximum(size, 1))[1] - 1, 0)  # floor(log2(size)), exactly
        out = np.zeros((4, lo_b.size))
        for kk in np.unique(level[some]):
            sel = some & (level == kk)
            row = table[kk]
            out[:, sel] = np.maximum(row[:, lo_b[sel]], row[:, hi_b[sel] - (1 << int(kk))])
        return out[0], out[1], out[2], out[3]


class GaussSum:
    r"""Proved float bounds of :math:`\log\sum_k w_k N(x;\mu_k,\sigma^2)` at many points (module docstring).

    Parameters
    ----------
    lw : tuple of ndarray or of float
        ``(lower, upper)`` bounds of :math:`\log w_k`: arrays, or two floats, the bounds of every
        :math:`\log w_k` (one weight: no array is made of them).
    m : ndarray
        Floats of the means, :math:`|m_k - \mu_k| \le \eta_k`.
    eta : ndarray
        The bounds :math:`\eta_k \ge 0`.
    s2, s2_lo, s2_hi : float
        The float of :math:`\sigma^2` and bounds :math:`s2_{lo} \le \sigma^2 \le s2_{hi}`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> m = np.sort(rng.normal(size=5000))
    >>> lw = np.full(m.size, -np.log(m.size))
    >>> g = GaussSum((lw - 1e-12, lw + 1e-12), m, np.zeros(m.size), 0.25, 0.25, 0.25)
    >>> x = np.array([-3.0, 0.0, 2.0])
    >>> lo, hi, done = g.log_bounds(x)
    >>> d = -(x[:, None] - m) ** 2 / 0.5 + lw - 0.5 * np.log(2 * np.pi * 0.25)
    >>> exact = np.log(np.exp(d).sum(axis=1))
    >>> bool(done.all() and np.all(lo <= exact) and np.all(exact <= hi) and np.all(hi - lo < 1e-9))
    True
    """

    def __init__(self, lw, m, eta, s2, s2_lo, s2_hi):
        m = np.asarray(m, dtype=float)
        eta = np.asarray(eta, dtype=float)
        one = np.ndim(lw[0]) == 0 and np.ndim(lw[1]) == 0 and float(lw[1]) > -np.inf
        lw_lo: Any
        lw_hi: Any
        if one:  # one weight for every atom (a sample): floats, the same operations as on arrays of them
            lw_lo, lw_hi = float(lw[0]), float(lw[1])
        else:
            lw_lo = np.broadcast_to(np.asarray(lw[0], dtype=float), m.shape)
            lw_hi = np.broadcast_to(np.asarray(lw[1], dtype=float), m.shape)
            if not np.all(lw_hi > -np.inf):  # a weight of zero adds nothing
                keep = lw_hi > -np.inf
                m, lw_lo, lw_hi, eta = m[keep], lw_lo[keep], lw_hi[keep], eta[keep]
        order = slice(None) if bool(np.all(m[1:] >= m[:-1])) else np.argsort(m, kind="stable")
        self.m = np.ascontiguousarray(m[order], dtype=float)
        if not one:
            lw_lo, lw_hi = lw_lo[order], lw_hi[order]
        self.lw = 0.5 * lw_lo + 0.5 * lw_hi
        # the model's weights are exp(lw) (floats): the true ones within e^(+-E_w) of them
        self.e_w = float(np.max(np.maximum(lw_hi - self.lw, self.lw - lw_lo) + PAD * (1 + np.abs(self.lw)))) + 4 * _U
        self.eta = eta[order]
        self.s = math.sqrt(s2)
        ss = self.s * self.s
        r_lo, r_hi = s2_lo / ss * (1 - 4 * _U), s2_hi / ss * (1 + 4 * _U)
        self.r_half_log = 0.5 * max(abs(math.log(r_lo)), abs(math.log(r_hi))) + PAD
        self.r_quad = max(abs(1 - 1 / r_lo), abs(1 - 1 / r_hi)) * (1 + 4 * _U)
        self.s2_lo, self.s2_hi = min(s2_lo, ss) * (1 - 4 * _U), s2_hi
        self.log_norm = 0.5 * math.log(2 * math.pi * ss)
        top = float(np.max(lw_hi))
        # one weight: every exp(lw_hi - top) is exp(0) = 1 and their float sum is the count, exactly
        total = float(m.size) if one else float(np.exp(lw_hi - top).sum())
        self.log_total = top + math.log(total * (1 + (m.size + 4) * _U) + PAD)
        self.eta_all = float(self.eta.max())
        self._levels: dict[int, _Level] = {}

    def _level(self, k: int) -> _Level:
        if k not in self._levels:
            self._levels[k] = _Level(self.m, self.lw, self.eta, self.s, _LEVELS[k])
        return self._levels[k]

    def log_bounds(self, x: np.ndarray):
        r"""Return ``(lo, hi, done)``: :math:`\log p(x) \in [lo, hi]` where ``done`` (floats, padded outward)."""
        x = np.asarray(x, dtype=float)
        lo = np.full(x.size, -np.inf)
        hi = np.full(x.size, np.inf)
        done = np.zeros(x.size, dtype=bool)
        s = self.s
        j = np.searchsorted(self.m, x)
        near = np.minimum(
            np.abs(x - self.m[np.clip(j - 1, 0, self.m.size - 1)]), np.abs(self.m[np.clip(j, 0, self.m.size - 1)] - x)
        )
        reach = np.sqrt(near * near + (_REACH * s) ** 2) * (1 + 4 * _U)
        r_u = reach / s
        level = np.full(x.size, -1)
        for k in reversed(range(len(_LEVELS))):
            f = _LEVELS[k]
            level[(r_u + f) * (0.55 * f) <= _Y_MAX] = k
        for k in range(len(_LEVELS)):
            sel = np.flatnonzero(level == k)
            if sel.size:
                a, b, ok = self._bounds_at(self._level(k), x[sel], reach[sel])
                lo[sel], hi[sel], done[sel] = a, b, ok
        return lo, hi, done

    def _bounds_at(self, L: _Level, x, reach):
        r"""Bounds at the points ``x`` from the bins of ``L`` within ``reach`` (plus the bins' spread) of each.

        The error terms are taken per point, over its window (the largest :math:`|u|`, spread, count
        and :math:`\eta` of its bins), so one log-sum-exp gives both ends.

        Each point's row holds ``width`` entries: its window's bins, then padding (entries masked to
        :math:`e^{-\infty} = 0`).  Where the windows span most of the bins (``n_b <= 1.5 width``) every
        row holds all ``n_b`` bins, those outside its window masked the same way, and ``width = n_b``:
        the float sum of a row is of ``width`` non-negative terms, some exactly 0, so its rounding is
        within :math:`(\mathrm{width} - 1)u` of it (Higham 2002, eq. 4.4, any order of summation), inside
        the pad :math:`(\mathrm{width} + 4)u` taken below; the other terms are the same floats either way.
        """
        s = self.s
        n_b = L.centre.size
        half = reach + L.dmax_all * s * (1 + 4 * _U) + 4 * np.spacing(np.abs(x) + reach)
        lo_b = np.searchsorted(L.centre, x - half, side="left")
        hi_b = np.searchsorted(L.centre, x + half, side="right")
        L.need(lo_b, hi_b)
        width = int(max(1, (hi_b - lo_b).max()))
        # where the windows span most of the bins, every point meets every bin (those beyond its window
        # masked out, as the padding is): the moments then broadcast, with no gather
        full = n_b <= 1.5 * width
        if full:
            width = n_b
        out_lo = np.empty(x.size)
        out_hi = np.empty(x.size)
        ok = np.ones(x.size, dtype=bool)
        step = max(1, _CHUNK // width)
        for i in range(0, x.size, step):
            sl = slice(i, i + step)
            xs = x[sl, None]
            if full:
                b = np.arange(n_b)[None, :]
                valid = (b >= lo_b[sl, None]) & (b < hi_b[sl, None])
                u = (xs - L.centre[None, :]) / s
                # Horner's scheme (the same operations on each entry); the masked bins far away may overflow
                with np.errstate(over="ignore", invalid="ignore"):
                    poly = np.empty(u.shape)
                    poly[:] = L.mom[_ORDER - 1]
                    for jj in range(_ORDER - 2, -1, -1):
                        poly *= u
                        poly += L.mom[jj]
            else:
                idx = lo_b[sl, None] + np.arange(width)
                valid = idx < hi_b[sl, None]
                b = np.minimum(idx, n_b - 1)
                u = (xs - L.centre[b]) / s
                # Horner's scheme, each degree's moments gathered into one buffer (kept in cache)
                poly = L.mom[_ORDER - 1][b]
                tmp = np.empty_like(poly)
                for jj in range(_ORDER - 2, -1, -1):
                    poly *= u
                    np.take(L.mom[jj], b, out=tmp)
                    poly += tmp
            positive = poly > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                lp = np.log(np.where(positive, poly, 1.0))
            u2 = u * u
            one = np.ndim(self.lw) == 0  # one weight: every bin's log scale is lw
            log_t = np.where(valid, (self.lw if one else L.logscale[b]) - 0.5 * u2 + lp, -np.inf)
            # per point, over its window: the largest |u|, spread, count, eta, |lp| and magnitude of the terms;
            # the window is a run of bins, u falls along it (the centres increase, every rounding is
            # monotone): its largest |u| is at an end; the bins' own maxima from L's table of runs
            some = hi_b[sl] > lo_b[sl]
            ends_u = (x[sl, None] - L.centre[np.stack([lo_b[sl], np.maximum(hi_b[sl] - 1, 0)], axis=1)]) / s
            au = np.where(some, np.abs(ends_u).max(axis=1), 0.0)
            dm, cnt, spread, eta = L.window_max(lo_b[sl], hi_b[sl])
            alp = np.where(valid, np.abs(lp), 0.0).max(axis=1)
            if one:  # max(|lw| + u^2) = |lw| + (max |u|)^2: fl(u u) and fl(c + .) are monotone
                mag = np.where(some, abs(self.lw) + au * au, 0.0)
            else:
                mag = np.where(valid, np.abs(L.logscale[b]) + u2, 0.0).max(axis=1)
            bad = (valid & ~positive).any(axis=1)
            # Taylor and rounding of the moments and of Horner: a factor 1 +- rel of each bin's exact sum
            y = au * dm * (1 + 4 * _U)
            gamma = (cnt + 4 * _ORDER + 16 + 2 * spread) * _U + PAD
            rel = np.exp(np.minimum(2 * y, 700.0)) * (gamma + y**_ORDER / _FACT) * (1 + 1e-6)
            bad |= ~(rel < 1e-3)
            relc = np.minimum(rel, 0.5)
            # the model against the truth: an atom within R = (|u| + dmax) s of x; its position moved by the
            # roundings of u and delta and by eta; the weights, the variance
            R = (au + dm) * s * (1 + 4 * _U)
            du = 2.1 * _U * (au + dm) * (au + dm) + 2.1 * _U * dm * (au + dm)
            pert = (
                self.e_w
                + self.r_half_log
                + R * R * self.r_quad / (2 * self.s2_lo)
                + (2 * R * eta + eta * eta) / (2 * self.s2_lo)
                + du
            )
            # each log term's rounding: the log of the polynomial, u * u / 2 and the two additions
            pad = PAD * (1 + alp) + 4 * _U * (mag + alp)
            # a bin's computed value P within a factor 1 +- rel of its sum S: log S <= log P - log(1 - rel),
            # log S >= log P - log(1 + rel) >= log P + log(1 - rel)
            up = pert + pad - np.log1p(-relc)
            down = pert + pad - np.log1p(-relc)
            top = log_t.max(axis=1, keepdims=True)
            top = np.where(np.isfinite(top), top, 0.0)
            # the sum's rounding (width terms, the masked ones 0), and that of t - top inside each exp (PAD each)
            sum_pad = (width + 4) * _U + 4 * _U * (1 + np.abs(top[:, 0]) + mag + alp) + PAD
            with np.errstate(divide="ignore"):
                s_mid = np.log(np.exp(log_t - top).sum(axis=1)) + top[:, 0]
            s_hi = s_mid + np.log1p(sum_pad) + up
            s_lo = s_mid + np.log1p(-sum_pad) - down
            s_hi += PAD * (1 + np.abs(s_hi))
            s_lo -= PAD * (1 + np.abs(s_lo))
            # the atoms outside the window: at least D0 from x (the nearest bins left out, less
            # their spread and the means' rounding)
            xl = x[sl]
            gap_l = np.where(lo_b[sl] > 0, xl - L.centre[np.maximum(lo_b[sl] - 1, 0)], np.inf)
            gap_r = np.where(hi_b[sl] < n_b, L.centre[np.minimum(hi_b[sl], n_b - 1)] - xl, np.inf)
            d0 = np.minimum(gap_l, gap_r) * (1 - 4 * _U) - L.dmax_all * s * (1 + 4 * _U) - self.eta_all
            d0 -= 4 * np.spacing(np.abs(xl) + np.abs(d0))
            d0 = np.maximum(d0, 0.0)
            with np.errstate(over="ignore", invalid="ignore"):
                log_out = self.log_total - 0.5 * math.log(2 * math.pi * self.s2_lo) - d0 * d0 / (2 * self.s2_hi)
            finite = np.isfinite(log_out)
            log_out = np.where(finite, log_out + PAD * (1 + np.abs(np.where(finite, log_out, 0.0))), -np.inf)
            # in units of the window's sum: hi += the outside (its norm is the true one, s_hi lacks it)
            hi_all = np.logaddexp(s_hi - self.log_norm, log_out)
            hi_all += PAD * (1 + np.abs(hi_all)) + 2 * _U
            lo_all = s_lo - self.log_norm
            lo_all -= PAD * (1 + np.abs(lo_all)) + 2 * _U
            good = ~bad & np.isfinite(s_lo) & np.isfinite(hi_all)
            out_lo[sl], out_hi[sl], ok[sl] = lo_all, hi_all, good
        return out_lo, out_hi, ok
