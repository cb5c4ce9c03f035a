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
    """The bins of one width: centres, log scale, moments, largest |delta|, largest eta, counts."""

    def __init__(self, m, lw, eta, s, f):
        h = f * s
        key = np.floor(m / h)
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
        ends = np.concatenate([starts[1:], [m.size]])
        self.centre = 0.5 * m[starts] + 0.5 * m[ends - 1]  # increasing: the atoms are sorted
        idx = np.repeat(np.arange(starts.size), ends - starts)
        delta = (m - self.centre[idx]) / s
        self.dmax = np.maximum.reduceat(np.abs(delta), starts)
        self.eta = np.maximum.reduceat(eta, starts)
        self.count = (ends - starts).astype(float)
        self.logscale = np.maximum.reduceat(lw, starts)  # log of the largest weight of the bin
        # the rounding of lw - logscale inside each exp is at most u times this spread (the moments' gamma)
        self.spread = self.logscale - np.minimum.reduceat(lw, starts)
        base = np.exp(lw - self.logscale[idx] - 0.5 * delta * delta)  # in (0, 1]
        mom = np.empty((_ORDER, starts.size))
        term = base
        for j in range(_ORDER):
            # the bins' sums of w e^(-delta^2/2) delta^j, then over j!: j + 2 roundings of each term
            # (fl(j!) is exact to 18!, within an ulp beyond), fewer than the 2j of dividing each term
            mom[j] = np.add.reduceat(term, starts) / float(math.factorial(j))
            term *= delta
        self.mom = mom
        self.dmax_all = float(self.dmax.max())


class GaussSum:
    r"""Proved float bounds of :math:`\log\sum_k w_k N(x;\mu_k,\sigma^2)` at many points (module docstring).

    Parameters
    ----------
    lw : tuple of ndarray
        ``(lower, upper)`` bounds of :math:`\log w_k`.
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
        lw_lo, lw_hi = np.asarray(lw[0], dtype=float), np.asarray(lw[1], dtype=float)
        eta = np.asarray(eta, dtype=float)
        if not np.all(lw_hi > -np.inf):  # a weight of zero adds nothing
            keep = lw_hi > -np.inf
            m, lw_lo, lw_hi, eta = m[keep], lw_lo[keep], lw_hi[keep], eta[keep]
        order = slice(None) if bool(np.all(m[1:] >= m[:-1])) else np.argsort(m, kind="stable")
        self.m = np.ascontiguousarray(m[order], dtype=float)
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
        top = float(lw_hi.max())
        self.log_total = top + math.log(float(np.exp(lw_hi - top).sum()) * (1 + (m.size + 4) * _U) + PAD)
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
        """
        s = self.s
        n_b = L.centre.size
        half = reach + L.dmax_all * s * (1 + 4 * _U) + 4 * np.spacing(np.abs(x) + reach)
        lo_b = np.searchsorted(L.centre, x - half, side="left")
        hi_b = np.searchsorted(L.centre, x + half, side="right")
        width = int(max(1, (hi_b - lo_b).max()))
        out_lo = np.empty(x.size)
        out_hi = np.empty(x.size)
        ok = np.ones(x.size, dtype=bool)
        step = max(1, _CHUNK // width)
        for i in range(0, x.size, step):
            sl = slice(i, i + step)
            xs = x[sl, None]
            idx = lo_b[sl, None] + np.arange(width)
            valid = idx < hi_b[sl, None]
            b = np.minimum(idx, n_b - 1)
            u = (xs - L.centre[b]) / s
            mom = L.mom[:, b]  # (M, points, bins): one gather, each degree contiguous
            poly = mom[_ORDER - 1]
            for jj in range(_ORDER - 2, -1, -1):
                poly = poly * u
                poly += mom[jj]
            positive = poly > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                lp = np.log(np.where(positive, poly, 1.0))
            u2 = u * u
            log_t = np.where(valid, L.logscale[b] - 0.5 * u2 + lp, -np.inf)
            # per point, over its window: the largest |u|, spread, count, eta, |lp| and magnitude of the terms
            au = np.where(valid, np.abs(u), 0.0).max(axis=1)
            dm = np.where(valid, L.dmax[b], 0.0).max(axis=1)
            cnt = np.where(valid, L.count[b], 0.0).max(axis=1)
            spread = np.where(valid, L.spread[b], 0.0).max(axis=1)
            eta = np.where(valid, L.eta[b], 0.0).max(axis=1)
            alp = np.where(valid, np.abs(lp), 0.0).max(axis=1)
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
            # the sum's rounding, and that of t - top inside each exp (padded by PAD each)
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
