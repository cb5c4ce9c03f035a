r"""Numerical kernels shared by the whole package (private module; its names are used across `rpp`).

* :func:`lse` -- the package's one log-sum-exp;
* :func:`integrate_log` -- adaptive composite Gauss-Legendre quadrature of :math:`e^{\log f}`
  with an error *estimate* (not a proved bound) (the contract of its ``log_f`` argument is documented there);
* :func:`min_feasible` -- smallest :math:`z \ge z_0` with :math:`f(z) \le 0` for a non-increasing
  :math:`f` (monotone root finding that returns the *feasible* end);
* :func:`largest_feasible` -- largest :math:`t \ge 0` with :math:`g(t) \le 0` for an increasing
  :math:`g` (the same, mirrored);
* :func:`step_up` -- the round-off guard: move a value by growing relative steps until a
  condition holds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["lse", "integrate_log", "min_feasible", "largest_feasible", "step_up", "gauss_atoms_logpdf", "GL20", "GL10"]

#: Gauss-Legendre rules (nodes, weights) on [-1, 1] with 20 and 10 nodes.
GL20 = np.polynomial.legendre.leggauss(20)
GL10 = np.polynomial.legendre.leggauss(10)
# Relative accuracy asked of the panel quadrature before the error is reported.
_QUAD_RTOL = 1e-12


def lse(a: ArrayLike, axis: int | None = None, b: ArrayLike | None = None):
    r"""Log-sum-exp :math:`\log\sum_k b_k e^{a_k}` along ``axis`` (all entries if ``None``).

    The package's one log-sum-exp, with the algorithm of :func:`scipy.special.logsumexp`
    (without its array-API overhead): the maximal terms are taken out of the sum, so that
    :math:`\log(m + s) = \log m + \operatorname{log1p}(s/m) + a_{\max}` keeps full relative
    accuracy when one term dominates.  Entries may be ``-inf`` (they contribute 0; an all
    ``-inf`` slice gives ``-inf``); ``b`` are non-negative weights (default 1).

    Parameters
    ----------
    a : array_like
        Log-terms.
    axis : int, optional
        Axis to sum over.
    b : array_like, optional
        Weights, broadcast against ``a``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> float(lse([0.0, 0.0]))  # log 2
    0.6931471805599453
    >>> float(lse([1000.0, -np.inf]))
    1000.0
    >>> float(lse(np.log([0.2, 0.5, 0.3])))
    0.0
    """
    a = np.asarray(a, dtype=float)
    if b is not None:
        w = np.broadcast_to(np.asarray(b, dtype=float), a.shape)
        a = np.where(w == 0, -np.inf, a)
    else:
        w = np.ones(a.shape)
    m = np.max(a, axis=axis, keepdims=True)
    finite = np.isfinite(m)
    is_max = (a == m) & finite
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.where(is_max, 0.0, w * np.exp(a - np.where(finite, m, 0.0)))
    s = np.sum(e, axis=axis, keepdims=True)
    count = np.sum(np.where(is_max, w, 0.0), axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(finite, np.log1p(np.where(count > 0, s / count, 0.0)) + np.log(count) + m, m)
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())[()]


def _panel_rule(a, b, log_f):
    """GL20 and GL10 nodes on panels [a, b]: log-integrand values and round-off magnitudes."""
    mid, half = 0.5 * (a + b), 0.5 * (b - a)
    xh = (mid[:, None] + half[:, None] * GL20[0]).ravel()
    xl = (mid[:, None] + half[:, None] * GL10[0]).ravel()
    lh, mag = log_f(xh)
    ll, _ = log_f(xl)
    return lh.reshape(a.size, -1), ll.reshape(a.size, -1), half, mag.reshape(a.size, -1).max(axis=1)


def integrate_log(
    log_f: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    breaks: np.ndarray,
    max_refine: int = 40,
    max_panels: int = 20000,
) -> tuple[float, float]:
    r"""Adaptive composite Gauss-Legendre quadrature of :math:`\int e^{\log f(x)}\,dx` over ``breaks``.

    Contract of ``log_f``: called with a 1-D float array ``x``, it returns two arrays of the
    same shape, ``(log_f(x), magnitude(x))``, where ``magnitude`` bounds the sum of the
    absolute values of the terms ``log_f`` was computed from.  ``8 eps`` times that
    magnitude is the relative round-off of the integrand, which no refinement removes and
    which is therefore charged to the error.

    Panels (initially the intervals between consecutive ``breaks``) whose
    :math:`|GL_{20} - GL_{10}|` exceeds both that floor and their share of the target
    accuracy (:math:`10^{-12}` of the integral spread over the initial panels) are bisected;
    refinement stops after ``max_refine`` rounds or ``max_panels`` panels.

    Returns
    -------
    log_i : float
        Log of the GL20 estimate :math:`\hat I`.
    rel_err : float
        Estimate of :math:`|\hat I - I|/\hat I`: the sum over panels of :math:`|GL_{20}-GL_{10}|`
        (conservative for a smooth integrand resolved by the panels, GL20 being far more
        accurate than GL10, but not a proof) plus the round-off floor.

    Examples
    --------
    >>> li, err = integrate_log(lambda x: (-0.5 * x**2, 0.5 * x**2), np.linspace(-40, 40, 9))
    >>> bool(abs(li - 0.5 * np.log(2 * np.pi)) < 1e-13 and err < 1e-11)
    True
    """
    a, b = breaks[:-1], breaks[1:]
    n0 = a.size
    done_logs, done_errs = [], []
    log_tol = None
    for it in range(max_refine + 1):
        lh, ll, half, mag = _panel_rule(a, b, log_f)
        m = max(lh.max(), ll.max())
        if not np.isfinite(m):
            m = 0.0
        sh = half * (np.exp(lh - m) @ GL20[1])
        sl = half * (np.exp(ll - m) @ GL10[1])
        noise = 8 * np.finfo(float).eps * (mag + 1) * sh
        err = np.abs(sh - sl) + noise
        if log_tol is None:  # fixed per-panel allowance from the first pass
            log_tol = m + np.log(max(sh.sum(), 1e-300)) + np.log(_QUAD_RTOL / n0)
        tol = np.exp(min(log_tol - m, 700.0)) + 2 * noise
        bad = err > tol
        good = ~bad
        if good.any():
            done_logs.append(m + np.log(max(sh[good].sum(), 1e-300)))
            done_errs.append(m + np.log(max(err[good].sum(), 1e-300)))
        if not bad.any():
            break
        if it == max_refine or 2 * bad.sum() + a.size > max_panels:
            # Budget spent: keep GL20 on the remaining panels and charge their error estimate.
            done_logs.append(m + np.log(max(sh[bad].sum(), 1e-300)))
            done_errs.append(m + np.log(max(err[bad].sum(), 1e-300)))
            break
        mids = 0.5 * (a[bad] + b[bad])
        a, b = np.concatenate([a[bad], mids]), np.concatenate([mids, b[bad]])
    log_i = float(lse(done_logs))
    rel_err = float(np.exp(lse(done_errs) - log_i))
    return log_i, rel_err


def step_up(
    x: float,
    ok: Callable[[float], bool],
    *,
    rel: float = 4e-16,
    grow: float = 1.0,
    tiny: float = 1e-300,
    max_steps: int = 100,
    limit: float = np.inf,
) -> float:
    """Round-off guard: return ``x`` moved up by relative steps until ``ok(x)`` holds.

    The step starts at ``rel * x + tiny`` and is multiplied by ``grow`` after each move
    (``grow = 1``: constant steps); after ``max_steps`` moves the steps also double at
    each move.  Once ``x`` would exceed ``limit``, ``limit`` is returned (the caller knows
    it to be feasible).  A point that fails ``ok`` is never returned: ``RuntimeError``
    when none is found.

    Examples
    --------
    >>> step_up(1.0, lambda x: x > 1.0)
    1.0000000000000004
    """
    step = rel
    for i in range(max_steps + 1100):
        if ok(x):
            return x
        if i >= max_steps:  # the usual steps did not suffice: grow them geometrically
            step *= 2
        nxt = x * (1 + step) + tiny
        if nxt >= limit:
            return limit
        x = nxt
        step *= grow
    # Never return a point that fails the check: a silent under-noise is worse than an error.
    raise RuntimeError(f"round-off guard: no feasible point found above {x!r}")


def min_feasible(
    f: Callable[[float], float],
    lo: float,
    hi: float,
    rtol: float = 1e-11,
    step: float = 8.0,
    *,
    hi_feasible: bool = False,
    infeasible: float | None = None,
    closest: bool = False,
) -> float:
    """Smallest ``z >= lo`` with ``f(z) <= 0`` for a non-increasing ``f``; the returned ``z`` is feasible.

    ``lo`` is the edge of the domain (``f`` may be ``+inf`` there).  Near that edge the
    divergences behave like ``-log(z - lo)``, so the root is searched in
    ``y = log(z - lo)`` where ``f`` is smooth and nearly linear (Brent's method), after a
    feasible upper end has been found by doubling ``hi`` and an infeasible lower end by
    steps of ``step`` in ``y`` below it (a small ``step`` suits a ``hi`` known to be close
    to the root, and saves evaluations of a costly ``f``).  The end of the final bracket on
    the feasible side is returned, and checked.

    Two hints save evaluations of a costly ``f``: ``hi_feasible=True`` says that ``f(hi) <= 0``
    is known (a proved sufficient rule): ``hi`` is then not evaluated, the bracket is
    bisected in ``y`` until its feasible end has a value, and ``hi`` itself may be returned
    unchecked (the caller's check then decides); ``infeasible`` is a point in ``(lo, hi)``
    believed infeasible, where the downward steps start (it is evaluated; if it is feasible
    after all, the steps continue below it); ``closest=True`` returns the smallest feasible
    point evaluated (within Brent's tolerance of the root) instead of stepping up from the
    root by ``rtol``.

    Examples
    --------
    >>> z = min_feasible(lambda z: 1.0 / (1.0 + z) - 0.5, 0.0, 10.0)  # root z = 1
    >>> bool(1.0 <= z < 1.0 + 1e-9)
    True
    >>> f = lambda z: 1.0 / (1.0 + z) - 0.5
    >>> z = min_feasible(f, 0.0, 10.0, hi_feasible=True, infeasible=0.5, closest=True)
    >>> bool(f(z) <= 0 and abs(z - 1.0) < 1e-9)  # feasible as evaluated (here z may be 1 - 1 ulp)
    True
    """
    from scipy import optimize

    cache: dict[float, float] = {}

    def fm(z):  # memoised: the quadrature near the domain edge is the costly part
        if z not in cache:
            cache[z] = f(z)
        return cache[z]

    def g(y):
        val = fm(lo + np.exp(y))
        return val if np.isfinite(val) else 1e300

    if infeasible is None and fm(lo) <= 0:
        return lo
    hi = _feasible_upper_end(fm, lo, hi, hi_feasible)
    y_hi = np.log(hi - lo)
    # exp(log(hi - lo)) may round below hi - lo: make the upper end of the bracket reach hi,
    # where f is known to be feasible (otherwise brentq may see equal signs at both ends).
    while lo + np.exp(y_hi) < hi:
        y_hi = np.nextafter(y_hi, np.inf)
    y_lo = _log_offset(lo, infeasible) if infeasible is not None and lo < infeasible < hi else y_hi - step
    for _ in range(200 * max(1, int(np.ceil(8.0 / step)))):
        if fm(lo + np.exp(y_lo)) > 0:
            break
        y_hi, y_lo = y_lo, y_lo - step
    else:
        return float(lo + np.exp(y_lo))  # feasible arbitrarily close to the edge
    # the proved upper end has no value yet: bisect (in y) until the feasible end is evaluated
    while lo + np.exp(y_hi) not in cache and y_hi - y_lo > rtol * 1e-2:
        y_mid = 0.5 * (y_lo + y_hi)
        y_lo, y_hi = (y_mid, y_hi) if g(y_mid) > 0 else (y_lo, y_mid)
    if lo + np.exp(y_hi) not in cache:
        return float(min(lo + np.exp(y_hi), hi))
    y = optimize.brentq(g, y_lo, y_hi, xtol=rtol * 1e-2, rtol=4 * np.finfo(float).eps, maxiter=500)
    # The smallest feasible point evaluated: Brent's bracket ends on it, within xtol of the root.
    feasible = [z for z, val in cache.items() if val <= 0 and lo < z <= hi]
    if closest and feasible:
        return float(min(feasible))
    return _step_to_feasible(fm, lo, y, hi, rtol)


def _log_offset(lo, z):
    """``y`` with ``lo + e^y <= z`` (``log(z - lo)``, moved down by an ulp if it rounds above)."""
    y = float(np.log(z - lo))
    return float(np.nextafter(y, -np.inf)) if lo + np.exp(y) > z else y


def _feasible_upper_end(fm, lo, hi, known):
    """``hi`` if it is ``known`` feasible, else ``hi`` grown (doubling from ``lo``) until ``fm(hi) <= 0``."""
    if known:
        return hi
    for _ in range(2000):
        if fm(hi) <= 0:
            return hi
        hi = lo + (hi - lo) * 2 + 1e-12
    raise RuntimeError("no feasible noise found")  # pragma: no cover


def _step_to_feasible(fm, lo, y, hi, rtol):
    """Step ``z = lo + e^y`` up by growing steps in ``y`` until ``fm(z) <= 0`` (or ``hi`` is reached)."""
    step = max(rtol, 1e-15)
    z = lo + np.exp(y)
    while fm(z) > 0:
        y = y + step
        step *= 2
        z = lo + np.exp(y)
        if z >= hi:
            return float(hi)
    return float(min(z, hi))


def largest_feasible(g: Callable[[float], float], t0: float) -> float:
    """Largest ``t >= 0`` with ``g(t) <= 0`` for an increasing ``g`` with ``g(0) < 0``; the result is feasible.

    The bracket is grown from ``[0, t0]`` by doubling, the root found by Brent's method,
    and the result stepped down until ``g`` is non-positive there.  Returns ``inf`` when
    ``g`` stays non-positive up to ``1e300``.

    Examples
    --------
    >>> t = largest_feasible(lambda t: t - 3.0, 1.0)
    >>> bool(3.0 * (1 - 1e-14) < t <= 3.0)
    True
    """
    from scipy import optimize

    lo, hi = 0.0, t0
    for _ in range(2000):
        if g(hi) > 0:
            break
        if hi > 1e300:
            return np.inf
        lo, hi = hi, hi * 2
    else:  # pragma: no cover
        return np.inf
    root = optimize.brentq(g, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=500)
    t = min(max(root, lo), hi)
    step = 4e-16 * t
    while g(t) > 0 and t > lo:
        t = max(lo, t - step)
        step *= 4
    return float(t)


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
