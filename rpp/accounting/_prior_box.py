r"""A proved worst case of two joint linear queries over a box of bivariate Gaussian priors.

The prior class is a box: under the secret :math:`s \in \{i, j\}` a record is
:math:`x \sim N(\mu_s, \Sigma_s)` in :math:`\mathbb{R}^2`, with the mean difference
:math:`\delta = \mu_i - \mu_j` in a box and each covariance given by two standard deviations and
a correlation, each in an interval. The release is :math:`y = Ax + \eta`, :math:`A` a
:math:`2 \times 2` query matrix, :math:`\eta \sim N(0, \operatorname{diag}(\theta^2))`.
:func:`prior_box_divergence` proves, in ball arithmetic, an upper bound on the largest
:math:`D_\alpha` of the release over the whole box (both orders of the pair), or finds a member
of the box whose divergence is proved to exceed the budget. :func:`prior_box_side_divergence` does
the same for an adversary who also knows one of the target's two attributes, its value anywhere
in a declared range (each secret's means then in a box of their own).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as checks
from .._lib.arb import precision

__all__ = ["PriorBoxBound", "PriorBoxSideBound", "prior_box_divergence", "prior_box_side_divergence"]

#: Working precision of the ball arithmetic (bits).
PREC = 128
#: Number of covariance parameters: (sd_1, sd_2, correlation) of each secret's prior.
_NPAR = 6


class PriorBoxBound(NamedTuple):
    r"""Result of :func:`prior_box_divergence`."""

    #: True when :math:`D_\alpha \le \varepsilon` is proved for every member of the box.
    proved: bool
    #: Proved upper bound on the largest divergence over the box (``inf`` unless ``proved``).
    upper: float
    #: Proved lower bound on it, the largest lower end of the members evaluated at a point.
    lower: float
    #: True when a member was found whose divergence is proved to exceed epsilon.
    counterexample: bool
    #: The member that gives ``lower``, ``(delta, sd_i, corr_i, sd_j, corr_j)``; ``None`` when the
    #: search stopped before it enclosed any member's divergence (then ``lower`` is ``-inf``).
    worst: tuple[tuple[float, float], tuple[float, float], float, tuple[float, float], float] | None
    #: Number of (sub-box, divergence) pairs examined.
    boxes: int
    #: Wall-clock time of the search, in seconds.
    seconds: float


class PriorBoxSideBound(NamedTuple):
    """Result of :func:`prior_box_side_divergence`."""

    #: True when :math:`D_\alpha \le \varepsilon` is proved for every member and known value.
    proved: bool
    #: Proved upper bound on the largest divergence over the box (``inf`` unless ``proved``).
    upper: float
    #: Proved lower bound on it, the largest lower end of the members evaluated at a point.
    lower: float
    #: True when a member was found whose divergence is proved to exceed epsilon.
    counterexample: bool
    #: The member that gives ``lower``,
    #: ``(known value, mean_i, sd_i, corr_i, mean_j, sd_j, corr_j)``; ``None`` when the search
    #: stopped before it enclosed any member's divergence (then ``lower`` is ``-inf``).
    worst: (
        tuple[float, tuple[float, float], tuple[float, float], float, tuple[float, float], tuple[float, float], float]
        | None
    )
    #: Number of (sub-box, divergence) pairs examined.
    boxes: int
    #: Wall-clock time of the search, in seconds.
    seconds: float


class _Dual:
    """An arb ball with its gradient (forward differentiation) over the six covariance parameters."""

    __slots__ = ("g", "v")

    def __init__(self, v: Any, g: tuple[Any, ...]) -> None:
        self.v, self.g = v, g

    def __add__(self, o: Any) -> _Dual:
        if isinstance(o, _Dual):
            return _Dual(self.v + o.v, tuple(a + b for a, b in zip(self.g, o.g, strict=True)))
        return _Dual(self.v + o, self.g)

    __radd__ = __add__

    def __sub__(self, o: Any) -> _Dual:
        if isinstance(o, _Dual):
            return _Dual(self.v - o.v, tuple(a - b for a, b in zip(self.g, o.g, strict=True)))
        return _Dual(self.v - o, self.g)

    def __rsub__(self, o: Any) -> _Dual:
        return _Dual(o - self.v, tuple(-a for a in self.g))

    def __neg__(self) -> _Dual:
        return _Dual(-self.v, tuple(-a for a in self.g))

    def __mul__(self, o: Any) -> _Dual:
        if isinstance(o, _Dual):
            return _Dual(self.v * o.v, tuple(a * o.v + self.v * b for a, b in zip(self.g, o.g, strict=True)))
        return _Dual(self.v * o, tuple(a * o for a in self.g))

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> _Dual:
        if isinstance(o, _Dual):
            inv = 1 / o.v
            val = self.v * inv
            return _Dual(val, tuple((a - val * b) * inv for a, b in zip(self.g, o.g, strict=True)))
        return _Dual(self.v / o, tuple(a / o for a in self.g))

    def log(self) -> _Dual:
        return _Dual(self.v.log(), tuple(a / self.v for a in self.g))


def _log(x: Any) -> Any:
    return x.log()


class _Problem:
    """The closed form of the release's divergence, in arb: one order, one vertex of the means.

    Subclasses say how the two release laws depend on the six covariance parameters ``x`` (arb or
    :class:`_Dual`) and on the fixed data of a vertex: :meth:`laws` returns the two release
    covariances (``[v00, v01, v11]``) and the release's mean difference (``i`` less ``j``).
    """

    def __init__(self, flint: Any, queries: np.ndarray, scales: np.ndarray, alpha: float) -> None:
        self.flint = flint
        self.a = [[flint.arb(float(queries[r, t])) for t in range(2)] for r in range(2)]
        self.noise = [flint.arb(float(scales[0])) ** 2, flint.arb(0), flint.arb(float(scales[1])) ** 2]
        self.alpha = flint.arb(float(alpha))

    def prepare(self, vertex: tuple[float, ...]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def laws(self, x: list[Any], data: Any) -> tuple[list[Any], list[Any], tuple[Any, Any]]:  # pragma: no cover
        raise NotImplementedError

    def _sigma(self, x: list[Any], data: Any, first: int) -> tuple[list[Any], list[Any], list[Any], tuple[Any, Any]]:
        v_i, v_j, shift = self.laws(x, data)
        p, q = (v_i, v_j) if first == 0 else (v_j, v_i)  # the order (first || other)
        m = shift if first == 0 else (-shift[0], -shift[1])
        s = [self.alpha * qq + (1 - self.alpha) * pp for pp, qq in zip(p, q, strict=True)]
        return p, q, s, m

    def value(self, x: list[Any], data: Any, first: int) -> Any | None:
        """D_alpha(first || other) at the parameters ``x`` (arb or _Dual); None off the proved domain."""
        p, q, s, (m0, m1) = self._sigma(x, data, first)
        al = self.alpha
        det_s = s[0] * s[2] - s[1] * s[1]
        det_p = p[0] * p[2] - p[1] * p[1]
        det_q = q[0] * q[2] - q[1] * q[1]
        val = lambda z: z.v if isinstance(z, _Dual) else z
        if not (val(s[0]) > 0 and val(det_s) > 0 and val(det_p) > 0 and val(det_q) > 0):
            return None
        quad = s[2] * (m0 * m0) - s[1] * (2 * m0 * m1) + s[0] * (m1 * m1)
        logs = _log(det_s) - (1 - al) * _log(det_p) - al * _log(det_q)
        return al * quad / (2 * det_s) - logs / (2 * (al - 1))

    def certainly_off_domain(self, x: list[Any], data: Any, first: int) -> bool:
        """Whether Sigma_alpha is proved not positive definite at the point ``x`` (then D = +inf)."""
        s = self._sigma(x, data, first)[2]
        return bool(s[0] <= 0 or s[0] * s[2] - s[1] * s[1] <= 0)


class _BoxProblem(_Problem):
    """No side information: V_s = A Sigma_s A^T + diag(theta^2); the vertex is delta, shift A delta."""

    def __init__(self, flint: Any, queries: np.ndarray, scales: np.ndarray, alpha: float) -> None:
        super().__init__(flint, queries, scales, alpha)
        a = self.a
        # M = A S A^T + diag(theta^2): M_rt = sum_pq A_rp S_pq A_tq, S symmetric (s00, s01, s11)
        self.coef = [
            (a[r][0] * a[t][0], a[r][0] * a[t][1] + a[r][1] * a[t][0], a[r][1] * a[t][1])
            for r, t in ((0, 0), (0, 1), (1, 1))
        ]

    def prepare(self, vertex: tuple[float, ...]) -> tuple[Any, Any]:
        d = [self.flint.arb(float(x)) for x in vertex]
        return (self.a[0][0] * d[0] + self.a[0][1] * d[1], self.a[1][0] * d[0] + self.a[1][1] * d[1])

    def _release_cov(self, sd1: Any, sd2: Any, corr: Any) -> list[Any]:
        s = (sd1 * sd1, corr * sd1 * sd2, sd2 * sd2)
        return [c[0] * s[0] + c[1] * s[1] + c[2] * s[2] + t for c, t in zip(self.coef, self.noise, strict=True)]

    def laws(self, x: list[Any], data: Any) -> tuple[list[Any], list[Any], tuple[Any, Any]]:
        return self._release_cov(*x[:3]), self._release_cov(*x[3:]), data


class _SideProblem(_Problem):
    """The target's attribute ``known`` = v known: the release given v less A_K v is a x_U + eta.

    With k the known attribute, u the other, a = A[:, u], under each secret s
    B_s = rho_s sd_{s,u} / sd_{s,k}, c_s = sd_{s,u}^2 (1 - rho_s^2), m_s = mu_{s,u} + B_s (v - mu_{s,k}):
    V_s = c_s a a^T + diag(theta^2) and the mean difference a (m_i - m_j). The vertex is
    (v, mu_i, mu_j), five numbers.
    """

    def __init__(self, flint: Any, queries: np.ndarray, scales: np.ndarray, alpha: float, known: int) -> None:
        super().__init__(flint, queries, scales, alpha)
        self.k, self.u = known, 1 - known
        col = (self.a[0][self.u], self.a[1][self.u])
        self.col = col
        self.outer = (col[0] * col[0], col[0] * col[1], col[1] * col[1])

    def prepare(self, vertex: tuple[float, ...]) -> tuple[Any, ...]:
        v, mi0, mi1, mj0, mj1 = (self.flint.arb(float(x)) for x in vertex)
        mean_i, mean_j = (mi0, mi1), (mj0, mj1)
        # (mu_{s,u}, v - mu_{s,k}) per secret: exact differences of floats enclosed in arb
        return (mean_i[self.u], v - mean_i[self.k], mean_j[self.u], v - mean_j[self.k])

    def _conditional(self, sds: list[Any], corr: Any, mean_u: Any, gap: Any) -> tuple[list[Any], Any]:
        sd_k, sd_u = sds[self.k], sds[self.u]
        c = sd_u * sd_u * (1 - corr * corr)
        m = (corr * sd_u / sd_k) * gap + mean_u
        return [o * c + t for o, t in zip(self.outer, self.noise, strict=True)], m

    def laws(self, x: list[Any], data: Any) -> tuple[list[Any], list[Any], tuple[Any, Any]]:
        v_i, m_i = self._conditional(x[:2], x[2], data[0], data[1])
        v_j, m_j = self._conditional(x[3:5], x[5], data[2], data[3])
        d = m_i - m_j
        return v_i, v_j, (d * self.col[0], d * self.col[1])


def _up(flint: Any, x: Any) -> float:
    """Return the upper end of the ball ``x`` as a float rounded up (``float()`` rounds to nearest)."""
    end = x.upper()
    f = float(end)
    return float(np.nextafter(f, math.inf)) if flint.arb(f) < end else f


def _down(flint: Any, x: Any) -> float:
    """Return the lower end of the ball ``x`` as a float rounded down."""
    end = x.lower()
    f = float(end)
    return float(np.nextafter(f, -math.inf)) if flint.arb(f) > end else f


def _ball(flint: Any, lo: float, hi: float) -> Any:
    return flint.arb(lo) if lo == hi else flint.arb(lo).union(flint.arb(hi))


def _checked_box(name: str, low_end: Any, high_end: Any, size: int, **bounds: Any) -> tuple[np.ndarray, np.ndarray]:
    lo = checks.in_interval(f"{name}_low", low_end, **bounds)
    hi = checks.in_interval(f"{name}_high", high_end, **bounds)
    if lo.shape != (size,) * (lo.ndim > 0) or lo.shape != hi.shape or (size > 1 and lo.ndim != 1):
        what = f"1-D arrays of length {size}" if size > 1 else "single numbers"
        raise ValueError(f"{name}_low and {name}_high must be {what}")
    if np.any(lo > hi):
        raise ValueError(f"{name}_low must be <= {name}_high")
    return np.atleast_1d(lo), np.atleast_1d(hi)


def prior_box_divergence(
    *,
    delta_low: ArrayLike,
    delta_high: ArrayLike,
    sd_i_low: ArrayLike,
    sd_i_high: ArrayLike,
    corr_i_low: float,
    corr_i_high: float,
    sd_j_low: ArrayLike,
    sd_j_high: ArrayLike,
    corr_j_low: float,
    corr_j_high: float,
    queries: ArrayLike,
    scales: ArrayLike,
    alpha: float,
    epsilon: float,
    both_orders: bool = True,
    max_boxes: int = 200_000,
) -> PriorBoxBound:
    r"""Prove :math:`D_\alpha \le \varepsilon` for every prior of a box, covariances included.

    Under the secret :math:`s` the record is :math:`x \sim N(\mu_s, \Sigma_s)` in
    :math:`\mathbb{R}^2`, :math:`\Sigma_s` with standard deviations
    :math:`\sigma_{s,1}, \sigma_{s,2}` and correlation :math:`\rho_s`; the release :math:`y = Ax + \eta`,
    :math:`\eta \sim N(0, \operatorname{diag}(\theta^2))`, has the law
    :math:`N(A\mu_s, V_s)`, :math:`V_s = A\Sigma_s A^\top + \operatorname{diag}(\theta^2)`. With
    :math:`\Delta = A\delta`, :math:`\delta = \mu_i - \mu_j`, and
    :math:`V_\alpha = \alpha V_j + (1-\alpha) V_i \succ 0`,

    .. math::

        D_\alpha(i\,\|\,j) &= \tfrac{\alpha}{2}\Delta^\top V_\alpha^{-1}\Delta\\
        &\quad - \frac{1}{2(\alpha - 1)}
        \log\frac{\det V_\alpha}{(\det V_i)^{1-\alpha}(\det V_j)^{\alpha}},

    :math:`+\infty` where :math:`V_\alpha` is not positive definite (the 2 × 2 determinants and
    adjugate written out). For fixed covariances it is a convex quadratic of :math:`\delta`, so
    its maximum over the box of :math:`\delta` is at one of its vertices; the other order
    exchanges :math:`i, j` and negates :math:`\delta`.

    *Method.* For each vertex of :math:`\delta` and each order, a branch and bound over the six
    covariance parameters in ball arithmetic (python-flint's ``arb``, 128 bits). On a sub-box
    the divergence and its gradient are enclosed at once (forward differentiation of the closed
    form in balls); its upper end is the smaller of the direct enclosure and the mean-value form
    :math:`D(m) + \sum_k \partial_k D(\text{box})\,(x_k - m_k)` around the midpoint :math:`m`.
    A sub-box whose upper end is :math:`\le \varepsilon` is accepted. Where a partial derivative
    has a proved sign on the sub-box, the maximum lies on the face it points to and the search
    continues on that face (no slack: at the corner where a calibration meets
    :math:`\varepsilon`, the gradient's signs reduce the sub-box to the corner, which is then
    evaluated as a point). Otherwise the sub-box is split in two across the parameter with the
    largest :math:`|\partial_k D|` times width. The search stops with a counterexample when a
    member's divergence is proved :math:`> \varepsilon` (or :math:`V_\alpha` proved not positive
    definite there), and refuses (``proved=False``) after ``max_boxes`` sub-boxes.

    Parameters
    ----------
    delta_low, delta_high : array (2,)
        The box of the mean difference :math:`\mu_i - \mu_j` (in the record's units).
    sd_i_low, sd_i_high : array (2,)
        The intervals of the two standard deviations under the secret :math:`i`, :math:`> 0`.
    corr_i_low, corr_i_high : float
        The interval of the correlation under :math:`i`, in :math:`(-1, 1)`.
    sd_j_low, sd_j_high : array (2,)
        As ``sd_i_low, sd_i_high``, under the secret :math:`j`.
    corr_j_low, corr_j_high : float
        As ``corr_i_low, corr_i_high``, under :math:`j`.
    queries : array (2, 2)
        :math:`A`, one row per published statistic.
    scales : array (2,)
        The noise standard deviations :math:`\theta > 0`.
    alpha : float
        Order :math:`\alpha > 1`.
    epsilon : float
        The budget :math:`\varepsilon > 0`.
    both_orders : bool
        Both orders of the pair (default) or :math:`(i\,\|\,j)` alone.
    max_boxes : int
        Budget of sub-boxes, in :math:`[1, 10^8]`.

    Returns
    -------
    PriorBoxBound
        ``proved``, the proved ``upper`` bound on the worst divergence (``inf`` unless proved),
        a proved ``lower`` bound and its member ``worst``, ``counterexample``, the number of
        ``boxes`` and the time in ``seconds``.

    Raises
    ------
    ValueError
        On a box end outside its range (standard deviations :math:`> 0`, correlations in
        :math:`(-1, 1)`), a low end above its high end, a singular or mis-shaped ``queries``, a
        scale :math:`\le 0`, :math:`\alpha \le 1`, :math:`\varepsilon \le 0` or ``max_boxes`` out
        of range.

    Examples
    --------
    >>> box = dict(delta_low=[1.0, -1.0], delta_high=[2.0, -0.5],
    ...            sd_i_low=[1.0, 1.0], sd_i_high=[1.2, 1.1], corr_i_low=0.1, corr_i_high=0.3,
    ...            sd_j_low=[0.9, 1.0], sd_j_high=[1.0, 1.2], corr_j_low=-0.2, corr_j_high=0.0,
    ...            queries=[[1.0, 0.0], [0.0, 1.0]], scales=[3.0, 3.0], alpha=2.0)
    >>> b = prior_box_divergence(**box, epsilon=1.0)
    >>> b.proved, b.upper <= 1.0, b.lower <= b.upper
    (True, True, True)
    >>> c = prior_box_divergence(**box, epsilon=0.5)  # a member is proved above 0.5
    >>> c.proved, c.counterexample, c.lower > 0.5
    (False, True, True)
    """
    d_lo, d_hi = _checked_box("delta", delta_low, delta_high, 2)
    common = _checked_common(
        sd=(sd_i_low, sd_i_high, sd_j_low, sd_j_high),
        corr=(corr_i_low, corr_i_high, corr_j_low, corr_j_high),
        queries=queries,
        scales=scales,
        alpha=alpha,
        epsilon=epsilon,
        both_orders=both_orders,
        max_boxes=max_boxes,
    )
    vertices = sorted(set(itertools.product(*zip(d_lo, d_hi, strict=True))))
    a_mat, theta, alpha_f = common.queries, common.scales, common.alpha
    found = _Search(lambda flint: _BoxProblem(flint, a_mat, theta, alpha_f), common.eps, common.budget).run(
        vertices, common.orders, common.lo, common.hi
    )
    worst = None
    if found.worst is not None:
        (delta, x) = found.worst
        worst = ((float(delta[0]), float(delta[1])), *_covariance_member(x))
    return PriorBoxBound(
        proved=found.proved,
        upper=found.upper,
        lower=found.lower,
        counterexample=found.counterexample,
        worst=worst,
        boxes=found.boxes,
        seconds=found.seconds,
    )


def prior_box_side_divergence(
    *,
    mean_i_low: ArrayLike,
    mean_i_high: ArrayLike,
    sd_i_low: ArrayLike,
    sd_i_high: ArrayLike,
    corr_i_low: float,
    corr_i_high: float,
    mean_j_low: ArrayLike,
    mean_j_high: ArrayLike,
    sd_j_low: ArrayLike,
    sd_j_high: ArrayLike,
    corr_j_low: float,
    corr_j_high: float,
    queries: ArrayLike,
    scales: ArrayLike,
    alpha: float,
    epsilon: float,
    known: ArrayLike,
    known_low: ArrayLike,
    known_high: ArrayLike,
    both_orders: bool = True,
    max_boxes: int = 200_000,
) -> PriorBoxSideBound:
    r"""Prove :math:`D_\alpha \le \varepsilon` over a box of priors for an adversary who knows one attribute.

    The prior class is that of :func:`prior_box_divergence`, with each secret's two means in a
    box (rather than their difference); the adversary also knows the target's attribute
    :math:`k` (``known=[k]``) to be :math:`x_k = v`, for any :math:`v` in
    ``[known_low, known_high]``. With :math:`u` the other attribute and :math:`a = A_{:,u}`,
    given :math:`x_k = v` the release less :math:`A_{:,k} v` (the same under both secrets) is
    :math:`a x_u + \eta`, and under the secret :math:`s`

    .. math::

        x_u \mid v, s \sim N(m_s, c_s),\\
        m_s = \mu_{s,u} + \beta_s (v - \mu_{s,k}),\\
        \beta_s = \rho_s \sigma_{s,u} / \sigma_{s,k},\\
        c_s = \sigma_{s,u}^2 (1 - \rho_s^2),

    so the release's law is :math:`N(a m_s, V_s)`,
    :math:`V_s = c_s a a^\top + \operatorname{diag}(\theta^2)`, and :math:`D_\alpha` is the
    closed form of :func:`prior_box_divergence` with :math:`\Delta = a (m_i - m_j)`. For fixed
    covariances :math:`V_s` does not depend on :math:`(v, \mu_i, \mu_j)` and :math:`\Delta` is
    affine in them, so :math:`D_\alpha` is convex in them and its maximum over their box is at
    one of its :math:`2^5` vertices. Unlike the case without side information the mean
    difference depends on the covariance parameters (through :math:`\beta_s`); the enclosures
    below include that dependence.

    *Method.* As in :func:`prior_box_divergence`: for each vertex of :math:`(v, \mu_i, \mu_j)`
    and each order, a branch and bound over the six covariance parameters in ball arithmetic
    (128 bits), each sub-box bounded by the smaller of the direct enclosure and the mean-value
    form, reduced to a face where a partial derivative has a proved sign, otherwise split; a
    member proved above :math:`\varepsilon` is a counterexample, and the search refuses after
    ``max_boxes`` sub-boxes.

    Parameters
    ----------
    mean_i_low, mean_i_high : array (2,)
        The box of the two means under the secret :math:`i`.
    sd_i_low, sd_i_high, corr_i_low, corr_i_high : array (2,), float
        As in :func:`prior_box_divergence`.
    mean_j_low, mean_j_high : array (2,)
        The box of the two means under the secret :math:`j`.
    sd_j_low, sd_j_high, corr_j_low, corr_j_high : array (2,), float
        As in :func:`prior_box_divergence`.
    queries, scales, alpha, epsilon
        As in :func:`prior_box_divergence`.
    known : array of int
        ``[0]`` or ``[1]``: the attribute the adversary knows.
    known_low, known_high : array (1,)
        The range of its value, ``known_low <= known_high``.
    both_orders, max_boxes
        As in :func:`prior_box_divergence`.

    Returns
    -------
    PriorBoxSideBound
        As :class:`PriorBoxBound`; ``worst`` is
        ``(v, mean_i, sd_i, corr_i, mean_j, sd_j, corr_j)``.

    Raises
    ------
    ValueError
        As in :func:`prior_box_divergence`, and on a non-finite mean or known value, a low end
        above its high end, or ``known`` other than ``[0]`` or ``[1]``.

    Examples
    --------
    >>> box = dict(mean_i_low=[1.0, 0.0], mean_i_high=[1.5, 0.5],
    ...            mean_j_low=[0.0, 0.0], mean_j_high=[0.5, 0.5],
    ...            sd_i_low=[1.0, 1.0], sd_i_high=[1.2, 1.1], corr_i_low=0.1, corr_i_high=0.3,
    ...            sd_j_low=[0.9, 1.0], sd_j_high=[1.0, 1.2], corr_j_low=-0.2, corr_j_high=0.0,
    ...            queries=[[1.0, 0.0], [0.0, 1.0]], scales=[3.0, 3.0], alpha=2.0,
    ...            known=[0], known_low=[-2.0], known_high=[2.0])
    >>> b = prior_box_side_divergence(**box, epsilon=1.0)
    >>> b.proved, b.upper <= 1.0, b.lower <= b.upper
    (True, True, True)
    >>> c = prior_box_side_divergence(**box, epsilon=0.05)  # a member is proved above 0.05
    >>> c.proved, c.counterexample, c.lower > 0.05
    (False, True, True)
    """
    mi_lo, mi_hi = _checked_box("mean_i", mean_i_low, mean_i_high, 2)
    mj_lo, mj_hi = _checked_box("mean_j", mean_j_low, mean_j_high, 2)
    common = _checked_common(
        sd=(sd_i_low, sd_i_high, sd_j_low, sd_j_high),
        corr=(corr_i_low, corr_i_high, corr_j_low, corr_j_high),
        queries=queries,
        scales=scales,
        alpha=alpha,
        epsilon=epsilon,
        both_orders=both_orders,
        max_boxes=max_boxes,
    )
    k_idx = np.asarray(known)
    if k_idx.shape != (1,) or k_idx.dtype.kind not in "iu" or int(k_idx[0]) not in (0, 1):
        raise ValueError("known must be [0] or [1] (the one attribute of two the adversary knows)")
    k = int(k_idx[0])
    v_lo, v_hi = _checked_box("known", known_low, known_high, 1)
    ends = [(v_lo[0], v_hi[0]), *zip(mi_lo, mi_hi, strict=True), *zip(mj_lo, mj_hi, strict=True)]
    vertices = sorted(set(itertools.product(*ends)))
    a_mat, theta, alpha_f = common.queries, common.scales, common.alpha
    found = _Search(lambda flint: _SideProblem(flint, a_mat, theta, alpha_f, k), common.eps, common.budget).run(
        vertices, common.orders, common.lo, common.hi
    )
    worst = None
    if found.worst is not None:
        (vertex, x) = found.worst
        sd_i, corr_i, sd_j, corr_j = _covariance_member(x)
        worst = (
            float(vertex[0]),
            (float(vertex[1]), float(vertex[2])),
            sd_i,
            corr_i,
            (float(vertex[3]), float(vertex[4])),
            sd_j,
            corr_j,
        )
    return PriorBoxSideBound(
        proved=found.proved,
        upper=found.upper,
        lower=found.lower,
        counterexample=found.counterexample,
        worst=worst,
        boxes=found.boxes,
        seconds=found.seconds,
    )


def _covariance_member(x: np.ndarray) -> tuple[tuple[float, float], float, tuple[float, float], float]:
    return (float(x[0]), float(x[1])), float(x[2]), (float(x[3]), float(x[4])), float(x[5])


class _Common(NamedTuple):
    lo: np.ndarray
    hi: np.ndarray
    queries: np.ndarray
    scales: np.ndarray
    alpha: float
    eps: float
    orders: tuple[int, ...]
    budget: int


def _checked_common(
    *,
    sd: tuple[Any, Any, Any, Any],
    corr: tuple[Any, Any, Any, Any],
    queries: Any,
    scales: Any,
    alpha: Any,
    epsilon: Any,
    both_orders: Any,
    max_boxes: Any,
) -> _Common:
    """Check the arguments shared by the two proofs; return them with the covariance box."""
    si_lo, si_hi = _checked_box("sd_i", sd[0], sd[1], 2, low=0.0, low_open=True)
    sj_lo, sj_hi = _checked_box("sd_j", sd[2], sd[3], 2, low=0.0, low_open=True)
    open_unit = {"low": -1.0, "high": 1.0, "low_open": True, "high_open": True}
    ri_lo, ri_hi = _checked_box("corr_i", corr[0], corr[1], 1, **open_unit)
    rj_lo, rj_hi = _checked_box("corr_j", corr[2], corr[3], 1, **open_unit)
    a_mat = checks.in_interval("queries", queries)
    if a_mat.shape != (2, 2):
        raise ValueError("queries must be a 2 x 2 matrix")
    if not abs(np.linalg.det(a_mat)) > 1e-300 or np.linalg.cond(a_mat) > 1e12:
        raise ValueError("queries must be an invertible 2 x 2 matrix (condition number <= 1e12)")
    theta = checks.in_interval("scales", scales, low=0.0, low_open=True)
    if theta.shape != (2,):
        raise ValueError("scales must be a 1-D array of length 2")
    alpha_f = checks.scalar_in_interval("alpha", alpha, low=1.0, low_open=True)
    eps = checks.scalar_in_interval("epsilon", epsilon, low=0.0, low_open=True)
    both = checks.flag("both_orders", both_orders)
    budget = checks.integer("max_boxes", max_boxes)
    if budget > 10**8:
        raise ValueError("max_boxes must be an integer in [1, 1e8]")
    return _Common(
        lo=np.concatenate([si_lo, ri_lo, sj_lo, rj_lo]),
        hi=np.concatenate([si_hi, ri_hi, sj_hi, rj_hi]),
        queries=a_mat,
        scales=theta,
        alpha=alpha_f,
        eps=eps,
        orders=(0, 1) if both else (0,),
        budget=budget,
    )


class _Found(NamedTuple):
    """What a search found: the verdict, the bounds, the member of the lower bound, the cost."""

    proved: bool
    upper: float
    lower: float
    counterexample: bool
    worst: tuple[tuple[float, ...], np.ndarray] | None
    boxes: int
    seconds: float


class _Search:
    """The branch and bound over the six covariance parameters, for each vertex and order."""

    def __init__(self, problem: Any, eps: float, budget: int) -> None:
        self.problem, self.eps, self.budget = problem, eps, budget
        self.lower = -math.inf
        self.worst_point: tuple[tuple[float, ...], np.ndarray] | None = None
        self.boxes = 0

    def _point(self, x: np.ndarray, data: Any, first: int) -> Any:
        """Proved enclosure of D at a point (arb), +inf as an exact arb when off the domain."""
        args = [self.flint.arb(float(v)) for v in x]
        d = self.prob.value(args, data, first)
        if d is None or not d.is_finite():
            if self.prob.certainly_off_domain(args, data, first):
                return self.flint.arb("inf")
            return None
        return d

    def _note(self, d: Any, vertex: tuple[float, ...], x: np.ndarray) -> None:
        low = _down(self.flint, d) if d.is_finite() else math.inf
        if low > self.lower:
            self.lower, self.worst_point = low, (vertex, x.copy())

    def run(self, vertices: list[tuple[float, ...]], orders: tuple[int, ...], lo: np.ndarray, hi: np.ndarray) -> _Found:
        import flint

        start = time.perf_counter()
        self.flint = flint
        upper, verdict = -math.inf, "proved"
        with precision(flint, PREC):
            self.prob = self.problem(flint)
            width0 = np.where(hi > lo, hi - lo, 1.0)
            heap: list[tuple[float, int, int, int, np.ndarray, np.ndarray]] = []
            tie = itertools.count()
            for v in range(len(vertices)):
                for first in orders:
                    heapq.heappush(heap, (-math.inf, next(tie), v, first, lo.copy(), hi.copy()))
            data = [self.prob.prepare(d) for d in vertices]
            while heap:
                if self.boxes >= self.budget:
                    verdict = "refused"
                    break
                _, _, v, first, blo, bhi = heapq.heappop(heap)
                self.boxes += 1
                out = self._examine(data[v], vertices[v], first, blo, bhi, width0)
                if out[0] == "accept":
                    upper = max(upper, out[1])
                elif out[0] == "counterexample":
                    verdict = "counterexample"
                    break
                elif out[0] == "undecided":
                    verdict = "refused"
                    break
                else:
                    for key, clo, chi in out[1]:
                        heapq.heappush(heap, (-key, next(tie), v, first, clo, chi))
        proved = verdict == "proved"
        return _Found(
            proved=proved,
            upper=float(upper) if proved else math.inf,
            lower=float(self.lower),
            counterexample=verdict == "counterexample",
            worst=self.worst_point,
            boxes=self.boxes,
            seconds=time.perf_counter() - start,
        )

    def _examine(
        self,
        data: Any,
        vertex: tuple[float, ...],
        first: int,
        lo: np.ndarray,
        hi: np.ndarray,
        width0: np.ndarray,
    ) -> tuple[Any, ...]:
        """One sub-box: ("accept", bound), ("split", children), ("counterexample",) or ("undecided",)."""
        flint, eps = self.flint, self.eps
        free = hi > lo
        mid = np.where(free, 0.5 * (lo + hi), lo)
        at_mid = self._point(mid, data, first)
        if at_mid is None:
            return ("undecided",)
        self._note(at_mid, vertex, mid)
        if at_mid > eps:
            return ("counterexample",)
        if not free.any():  # a point
            return ("accept", _up(flint, at_mid)) if at_mid.upper() <= eps else ("undecided",)
        balls = [_ball(flint, float(a), float(b)) for a, b in zip(lo, hi, strict=True)]
        seeds = [_Dual(balls[k], tuple(flint.arb(int(t == k)) for t in range(_NPAR))) for k in range(_NPAR)]
        enc = self.prob.value(seeds, data, first)
        if enc is None or not enc.v.is_finite() or not all(g.is_finite() for g in enc.g):
            k = int(np.argmax(np.where(free, (hi - lo) / width0, -1.0)))
            return ("split", self._halves(lo, hi, k, _up(flint, at_mid)))
        centred = at_mid + sum(
            (g * (b - flint.arb(float(m))) for g, b, m in zip(enc.g, balls, mid, strict=True)), flint.arb(0)
        )
        bound = min(_up(flint, enc.v), _up(flint, centred))
        if bound <= eps:
            return ("accept", bound)
        # a proved sign of a partial derivative: the maximum is on the face it points to
        face_lo, face_hi = lo.copy(), hi.copy()
        moved = False
        for k in (int(t) for t in np.flatnonzero(free)):
            if enc.g[k] > 0:
                face_lo[k], moved = hi[k], True
            elif enc.g[k] < 0:
                face_hi[k], moved = lo[k], True
        if moved:
            return ("split", [(bound, face_lo, face_hi)])
        spread = np.array([float(abs(g).upper()) for g in enc.g]) * (hi - lo)
        k = int(np.argmax(np.where(free, spread, -1.0)))
        return ("split", self._halves(lo, hi, k, bound))

    @staticmethod
    def _halves(lo: np.ndarray, hi: np.ndarray, k: int, key: float) -> list[tuple[float, np.ndarray, np.ndarray]]:
        cut = 0.5 * (lo[k] + hi[k])
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[k], right_lo[k] = cut, cut
        return [(key, lo.copy(), left_hi), (key, right_lo, hi.copy())]
