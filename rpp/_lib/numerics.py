r"""Numerical kernels shared by the whole package (private module; its names are used across `rpp`).

* :func:`lse` -- the package's one log-sum-exp;
* :func:`integrate_log` -- adaptive composite Gauss-Legendre quadrature of :math:`e^{\log f}`
  with an error *estimate* (not a proved bound) (the contract of its ``log_f`` argument is documented there);
* :func:`min_feasible` -- smallest :math:`z \ge z_0` with :math:`f(z) \le 0` for a non-increasing
  :math:`f` (monotone root finding that returns the *feasible* end);
* :func:`largest_feasible` -- largest :math:`t \ge 0` with :math:`g(t) \le 0` for an increasing
  :math:`g` (the same, mirrored);
* :func:`step_up` -- the round-off guard: move a value by growing relative steps until a
  condition holds;
* :func:`sqrt_up`, :func:`sqrt_up_array` -- a noise scale from a variance, rounded up so that
  its exact square is at least the variance (one value with ``Fraction``; an array with an
  error-free product);
* :func:`at_most` -- the exact test :math:`v + e \le \varepsilon` of a budget (no slack, no
  round-off in the sum).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from .accurate import two_prod

__all__ = [
    "lse",
    "integrate_log",
    "min_feasible",
    "largest_feasible",
    "step_up",
    "sqrt_up",
    "sqrt_up_array",
    "at_most",
    "GL20",
    "GL10",
]

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
    w = None
    if b is not None:
        w = np.broadcast_to(np.asarray(b, dtype=float), a.shape)
        a = np.where(w == 0, -np.inf, a)
    m = np.max(a, axis=axis, keepdims=True)
    finite = np.isfinite(m)
    is_max = (a == m) & finite
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.exp(a - np.where(finite, m, 0.0))
        e = np.where(is_max, 0.0, terms if w is None else w * terms)  # (weights 1: the terms themselves)
    s = np.sum(e, axis=axis, keepdims=True)
    count = (
        np.sum(is_max, axis=axis, keepdims=True, dtype=float)
        if w is None
        else np.sum(np.where(is_max, w, 0.0), axis=axis, keepdims=True)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(finite, np.log1p(np.where(count > 0, s / count, 0.0)) + np.log(count) + m, m)
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())[()]


def two_sum(a, b):
    """Return ``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly (Knuth, TAOCP vol. 2, 4.2.2, Thm B)."""
    s = a + b
    bp = s - a
    return s, (a - (s - bp)) + (b - bp)


def _nodes(a, b, t, split):
    r"""Nodes ``mid + half t`` of the panels ``[a, b]``; with ``split``, as pairs ``(hi, lo)`` of floats.

    Split nodes are the real numbers ``hi + lo``: the midpoint ``(a + b)/2`` is carried exactly
    (TwoSum) and the sum with ``fl(half t)`` too, so a node is within ``u |half t|`` of its
    place (u = 2**-53) however far the panel is from 0; a plain float node near :math:`10^9`
    is rounded to :math:`6\cdot10^{-8}`, far more than the width of a narrow component there.
    """
    s, e = two_sum(a, b)
    mid, mid_lo, half = 0.5 * s, 0.5 * e, 0.5 * (b - a)
    off = half[:, None] * t
    if not split:
        return (mid[:, None] + off).ravel()
    hi, lo = two_sum(np.broadcast_to(mid[:, None], off.shape), off)
    return hi.ravel(), (lo + mid_lo[:, None]).ravel()


def _panel_rule(a, b, log_f, split=False):
    """GL20 and GL10 nodes on panels [a, b]: log-integrand values and round-off magnitudes."""
    half = 0.5 * (b - a)
    xh, xl = _nodes(a, b, GL20[0], split), _nodes(a, b, GL10[0], split)
    lh, mag = log_f(*xh) if split else log_f(xh)
    ll, _ = log_f(*xl) if split else log_f(xl)
    return lh.reshape(a.size, -1), ll.reshape(a.size, -1), half, mag.reshape(a.size, -1).max(axis=1)


def integrate_log(
    log_f: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    breaks: np.ndarray,
    max_refine: int = 40,
    max_panels: int = 20000,
    *,
    split: bool = False,
) -> tuple[float, float]:
    r"""Adaptive composite Gauss-Legendre quadrature of :math:`\int e^{\log f(x)}\,dx` over ``breaks``.

    Contract of ``log_f``: called with a 1-D float array ``x``, it returns two arrays of the
    same shape, ``(log_f(x), magnitude(x))``, where ``magnitude`` bounds the sum of the
    absolute values of the terms ``log_f`` was computed from.  ``8 eps`` times that
    magnitude is the relative round-off of the integrand, which no refinement removes and
    which is therefore charged to the error.

    With ``split=True``, ``log_f`` is called with two arrays ``(hi, lo)`` instead: each node is
    the real number ``hi + lo`` (a double-double, exact to :math:`u` of the panel's half-width
    wherever the panel lies), so that an integrand can take its differences ``x - m`` to
    relative accuracy even where ``x`` and ``m`` are near :math:`10^9` and ``x - m`` near
    :math:`10^{-4}` (issue #34, item 1).

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
        lh, ll, half, mag = _panel_rule(a, b, log_f, split)
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


def sqrt_up(var: float) -> float:
    """Return the smallest float ``theta >= sqrt(var)`` whose exact square is at least ``var``.

    A noise scale from a variance: ``float(np.sqrt(var))`` may square (in exact arithmetic) to
    a few ulps below ``var``; at the edge of a divergence's domain that is a different, and
    possibly infinite, divergence.  One ``nextafter`` step suffices.

    Examples
    --------
    >>> from fractions import Fraction
    >>> theta = sqrt_up(17.75)
    >>> Fraction(theta) ** 2 >= Fraction(17.75) and theta <= float(np.nextafter(np.sqrt(17.75), np.inf))
    True
    """
    from fractions import Fraction

    theta = float(np.sqrt(var))
    if not np.isfinite(theta):
        return theta
    while Fraction(theta) ** 2 < Fraction(float(var)):
        theta = float(np.nextafter(theta, np.inf))
    return theta


#: Variances in [_SQRT_UP_LO, _SQRT_UP_HI] take the vectorised check of :func:`sqrt_up_array`:
#: there θ² and its rounding error are normal doubles (Dekker's product is exact: no underflow of
#: the error term, no overflow of θ² or of the Veltkamp split).  The rest (subnormals, tiny and
#: huge values, NaN, negative) take the exact scalar path, :func:`sqrt_up`; 0 and inf are exact.
_SQRT_UP_LO = 2.0**-900
_SQRT_UP_HI = 2.0**1000


def sqrt_up_array(var: ArrayLike) -> np.ndarray:
    r"""Return :func:`sqrt_up` of every element: the smallest float θ whose exact square is at least the variance.

    θ₀ = ``np.sqrt(var)`` is the correctly rounded root, so either θ₀ or the next float up is
    the answer.  The exact test :math:`\theta^2 \ge v` uses Dekker's error-free product
    (``rpp._lib.accurate.two_prod``, a Veltkamp split: ``math.fma`` is Python 3.13+):
    :math:`\theta^2 = p + e` exactly with :math:`p = \mathrm{fl}(\theta^2)`, and
    :math:`p - v` is exact (Sterbenz: :math:`v/2 \le p \le 2v`), so
    :math:`\theta^2 \ge v \iff p - v \ge -e` compares two doubles.  Outside
    :math:`[2^{-900}, 2^{1000}]` (where the error term may underflow or θ² overflow), for NaN
    and for negative values, each element takes the exact scalar path, :func:`sqrt_up`
    (``fractions.Fraction``); 0 and ``inf`` are their own roots.

    Parameters
    ----------
    var : array_like
        Variances (``>= 0``; ``inf`` gives ``inf``).

    Returns
    -------
    ndarray
        θ, of the shape of ``var``; never with :math:`\theta^2 < v` exactly.

    Examples
    --------
    >>> from fractions import Fraction
    >>> v = np.array([0.0, 2.0, 17.75, 1e-310, 1e300, np.inf])
    >>> t = sqrt_up_array(v)
    >>> all(Fraction(a) ** 2 >= Fraction(b) for a, b in zip(t[:-1], v[:-1])), float(t[-1])
    (True, inf)
    """
    v = np.asarray(var, dtype=float)
    flat = v.reshape(-1)
    out = np.empty_like(flat)
    fast = (flat >= _SQRT_UP_LO) & (flat <= _SQRT_UP_HI)
    x = flat[fast]
    theta = np.sqrt(x)
    for _ in range(2):  # one step up suffices (θ₀ is the correctly rounded root); two to be sure
        p, e = two_prod(theta, theta)
        short = p - x < -e  # θ² < v exactly
        if not short.any():
            break
        theta = np.where(short, np.nextafter(theta, np.inf), theta)
    else:  # never reached (see above): the exact scalar path decides these elements
        fast[np.flatnonzero(fast)[short]] = False
        theta = theta[~short]
    out[fast] = theta
    exact = (flat == 0) | (flat == np.inf)  # sqrt(±0) = ±0, sqrt(inf) = inf: nothing to check
    out[exact] = flat[exact]
    slow = ~(fast | exact)
    if slow.any():
        out[slow] = [sqrt_up(float(z)) for z in flat[slow]]
    return out.reshape(v.shape)


def at_most(value: ArrayLike, error: ArrayLike, bound: ArrayLike) -> bool | np.ndarray:
    r"""Return whether :math:`\text{value} + \text{error} \le \text{bound}` holds exactly (real arithmetic).

    The float sum ``s = value + error`` is rounded to nearest; where it ties ``bound``, the sign of
    its exact rounding error (Knuth's TwoSum, exact in binary64 without overflow) decides.  No
    slack: a budget is met only if the upper end of the interval is at most the budget.  A
    non-finite ``value`` or ``error`` (NaN, an infinite divergence or error bound) gives ``False``, as
    does a NaN ``bound`` or a float sum that overflows; ``bound = +inf`` holds every finite pair.

    Examples
    --------
    >>> at_most(0.1, 0.2, 0.30000000000000004)  # 0.1 + 0.2 rounds to the bound, and the exact sum is below it
    True
    >>> at_most(20.0, 4e-15, 20.0), at_most(20.0, 0.0, 20.0)
    (False, True)
    """
    v, e, b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (value, error, bound)))
    with np.errstate(invalid="ignore", over="ignore"):
        s = v + e
        bb = s - v
        r = (v - (s - bb)) + (e - bb)  # exact: v + e = s + r (TwoSum), where s is finite
        tie = (s == b) & np.isfinite(s)
        out = (s < b) | (tie & (r <= 0))
    out = out & np.isfinite(v) & np.isfinite(e)
    return bool(out) if out.ndim == 0 else out


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
    point evaluated instead of stepping up from the root by ``rtol``, and replaces Brent's
    method by a safeguarded secant method (``_regula_falsi``) that stops when an infeasible
    and a feasible point lie within ``rtol`` of each other in ``y`` (fewer evaluations of a
    costly ``f``: about six from a bracket one unit of ``y`` wide).

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

    pinned: dict[float, float] = {}  # y -> z for the given points (hi, infeasible): no round trip through exp

    def zof(y):
        return pinned.get(y, lo + np.exp(y))

    def g(y):
        val = fm(zof(y))
        return val if np.isfinite(val) else 1e300

    if infeasible is None and fm(lo) <= 0:
        return lo
    hi = _feasible_upper_end(fm, lo, hi, hi_feasible)
    y_hi = np.log(hi - lo)
    # exp(log(hi - lo)) may round below hi - lo: make the upper end of the bracket reach hi,
    # where f is known to be feasible (otherwise brentq may see equal signs at both ends).
    while lo + np.exp(y_hi) < hi:
        y_hi = np.nextafter(y_hi, np.inf)
    pinned[y_hi] = hi
    y_lo = _log_offset(lo, infeasible) if infeasible is not None and lo < infeasible < hi else y_hi - step
    if infeasible is not None and lo < infeasible < hi:
        pinned[y_lo] = infeasible
    y_lo, y_hi = _step_down(lambda y: fm(zof(y)), y_lo, y_hi, step, closest)
    if y_lo is None:
        return float(lo + np.exp(y_hi))  # feasible arbitrarily close to the edge
    if closest:
        y_lo, y_hi = _regula_falsi(g, y_lo, y_hi, cache.get(zof(y_hi)), rtol)
        feasible = [z for z, val in cache.items() if val <= 0 and lo < z <= hi]
        return float(min(feasible)) if feasible else float(min(zof(y_hi), hi))
    # the proved upper end has no value yet: bisect (in y) until the feasible end is evaluated
    while lo + np.exp(y_hi) not in cache and y_hi - y_lo > rtol * 1e-2:
        y_mid = 0.5 * (y_lo + y_hi)
        y_lo, y_hi = (y_mid, y_hi) if g(y_mid) > 0 else (y_lo, y_mid)
    if lo + np.exp(y_hi) not in cache:
        return float(min(lo + np.exp(y_hi), hi))
    y = optimize.brentq(g, y_lo, y_hi, xtol=rtol * 1e-2, rtol=4 * np.finfo(float).eps, maxiter=500)
    return _step_to_feasible(fm, lo, y, hi, rtol)


def _step_down(h, y_lo, y_hi, step, closest):
    """Step ``y_lo`` down until ``h(y_lo) > 0``: the bracket ``(y_lo, y_hi)``, ``(None, y)`` if none is found.

    Steps of ``step``; with ``closest``, shorter ones where ``h`` is close to 0 (a slope of -1
    or steeper in ``y`` puts the root about ``|h|`` below: aim past it).
    """
    for _ in range(200 * max(1, int(np.ceil(8.0 / step)))):
        val = h(y_lo)
        if val > 0:
            return y_lo, y_hi
        down = min(step, 1.5 * -val + 0.05) if closest and np.isfinite(val) else step
        y_hi, y_lo = y_lo, y_lo - down
    return None, y_lo


def _quadratic_step(points, y_lo, y_hi):
    """Root in ``(y_lo, y_hi)`` of the parabola ``g(y)`` through three ``(y, g)`` points, else ``nan``.

    The interpolant of ``g`` in ``y`` (not inverse interpolation: a divergence that flattens
    at large noise makes ``y(g)`` badly conditioned).  Newton's form
    ``g = g1 + d1 (y - y1) + d2 (y - y1)(y - y2)``; of its real roots the one in the bracket
    (the closer to the last point if both are).
    """
    (y1, g1), (y2, g2), (y3, g3) = points
    if not all(abs(v) < 1e299 for v in (g1, g2, g3)) or len({y1, y2, y3}) < 3:
        return np.nan
    d1 = (g2 - g1) / (y2 - y1)
    d2 = ((g3 - g2) / (y3 - y2) - d1) / (y3 - y1)
    # in t = y - y1: d2 t^2 + (d1 - d2 (y2 - y1)) t + g1 = 0
    bq = d1 - d2 * (y2 - y1)
    if d2 == 0:
        roots = [-g1 / bq] if bq != 0 else []
    else:
        disc = bq * bq - 4 * d2 * g1
        if disc < 0:
            return np.nan
        q = -0.5 * (bq + math.copysign(math.sqrt(disc), bq))  # no cancellation
        roots = [q / d2] + ([g1 / q] if q != 0 else [])
    inside = [y1 + t for t in roots if y_lo < y1 + t < y_hi]
    return min(inside, key=lambda y: abs(y - y3)) if inside else np.nan


def _regula_falsi(g, y_lo, y_hi, g_hi, tol):
    """Shrink ``[y_lo, y_hi]`` (``g(y_lo) > 0``, ``g(y_hi) <= 0`` evaluated or proved) to width ``tol``.

    A safeguarded secant method on ``g``, which is smooth in ``y``: while the upper end has
    no value, the step assumes a slope of ``-1`` (a divergence of noisy laws falls like
    ``1/t`` for large noise ``t``; near small noise it falls faster) and aims past the root by
    a margin, at most one unit of ``y``; then the secant through the last two points
    evaluated.  A step outside the bracket, or a bracket that did not shrink by half in three
    steps, is a bisection; a step within ``tol / 2`` of an end is moved to ``tol / 2`` from it,
    so that the bracket closes from both sides.  ``g_hi`` is the upper end's value if known.
    Returns the final bracket.
    """
    g_lo = g(y_lo)
    g_hi = g_hi if g_hi is None or np.isfinite(g_hi) else None
    last = [(y_lo, g_lo)] + ([(y_hi, g_hi)] if g_hi is not None else [])
    widths = [y_hi - y_lo]
    for _ in range(200):
        w = y_hi - y_lo
        if w <= tol and g_hi is not None:
            break
        if g_hi is None:
            y = y_lo + min(1.2 * g_lo + 0.01, 1.0)
        else:
            y = _quadratic_step(last[-3:], y_lo, y_hi) if len(last) >= 3 else np.nan
            if not y_lo < y < y_hi:  # the secant through the last two points
                (y1, g1), (y2, g2) = last[-2], last[-1]
                y = y2 - g2 * (y2 - y1) / (g2 - g1) if g2 != g1 and abs(g1) < 1e299 and abs(g2) < 1e299 else np.nan
            if not y_lo < y < y_hi:  # the chord of the bracket (regula falsi)
                y = y_lo + w * g_lo / (g_lo - g_hi)
        if (len(widths) > 3 and widths[-1] > 0.5 * widths[-4]) or not np.isfinite(y):
            y = 0.5 * (y_lo + y_hi)
        y = min(max(y, y_lo + 0.5 * tol), y_hi - 0.5 * tol)
        if not y_lo < y < y_hi:
            break
        gy = g(y)
        if gy > 0:
            y_lo, g_lo = y, gy
        else:
            y_hi, g_hi = y, gy
        last.append((y, gy))
        widths.append(y_hi - y_lo)
    return y_lo, y_hi


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


def largest_feasible(g: Callable[[float], float], t0: float, bracket: tuple[float, float] | None = None) -> float:
    """Largest ``t >= 0`` with ``g(t) <= 0`` for an increasing ``g`` with ``g(0) < 0``; the result is feasible.

    The bracket is grown from ``[0, t0]`` by doubling (or is ``bracket = (lo, hi)``, a narrow
    one believed to hold the root: used if ``g(lo) <= 0 < g(hi)``, otherwise the doubling), the
    root found by Brent's method, and the result stepped down until ``g`` is non-positive there.
    Returns ``inf`` when ``g`` stays non-positive up to ``1e300``.

    Examples
    --------
    >>> t = largest_feasible(lambda t: t - 3.0, 1.0)
    >>> bool(3.0 * (1 - 1e-14) < t <= 3.0)
    True
    """
    from scipy import optimize

    values: dict[float, float] = {}

    def gm(t):  # each point once (Brent's method asks again for the ends of its bracket)
        t = float(t)
        if t not in values:
            values[t] = g(t)
        return values[t]

    if bracket is not None and 0 < bracket[0] < bracket[1] < np.inf and gm(bracket[0]) <= 0 < gm(bracket[1]):
        lo, hi = bracket
    else:
        lo, hi = 0.0, t0
        for _ in range(2000):
            if gm(hi) > 0:
                break
            if hi > 1e300:
                return np.inf
            lo, hi = hi, hi * 2
        else:  # pragma: no cover
            return np.inf
    root = optimize.brentq(gm, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=500)
    t = min(max(root, lo), hi)
    step = 4e-16 * t
    while gm(t) > 0 and t > lo:
        t = max(lo, t - step)
        step *= 4
    return float(t)
