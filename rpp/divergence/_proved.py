r"""Proved enclosures of :math:`D_\alpha` of noisy mixtures by interval arithmetic (arb).

The divergence of two priors after additive noise :math:`Z`,

.. math::

    D_\alpha(P * Z \,\|\, Q * Z) = \frac{1}{\alpha - 1}\log I, \qquad
    I = \int_{-\infty}^{\infty} p_Z(x)^\alpha\, q_Z(x)^{1-\alpha}\,dx ,

is enclosed in a ball that is **proved** to contain it (issue #22, item 2), for priors given as
mixtures :math:`\sum_k w_k N(\mu_k, v_k)` (:math:`v_k = 0`: an atom) and

* Gaussian noise :math:`N(0, \theta^2)`: :math:`p_Z` is the mixture with variances
  :math:`v_k + \theta^2` (every component must then have a positive variance);
* Laplace noise :math:`\mathrm{Lap}(b)`: a component :math:`N(\mu, s^2)` gives the entire function
  :math:`\frac{1}{2b}e^{s^2/(2b^2)}\bigl[e^{-z/b}\Phi(z/s - s/b) + e^{z/b}\Phi(-z/s - s/b)\bigr]`,
  :math:`z = x - \mu`, and an atom :math:`\mu` gives :math:`e^{-|x-\mu|/b}/(2b)`, analytic between
  consecutive atoms (the integral is split at every atom).

How the enclosure is proved:

1. **Inputs exactly.**  The floats of the priors are exact binary numbers; the weights are
   normalised, the noise variance :math:`\theta^2` formed and the means moved by one common float
   :math:`c` (:math:`D` is translation invariant) in ball arithmetic, so every rounding is inside
   the balls.
2. **Body.**  :math:`\int_L^U` is computed by ``flint.acb.integral`` (arb's Gauss-Legendre
   integration with error bounds from the integrand's analytic continuation on complex balls,
   Johansson 2018, "Numerical integration in arbitrary-precision ball arithmetic"), on panels
   between the components' means and spreads.
3. **Outside the windows.**  Bounded analytically.  Gaussian noise: the body is integrated on
   windows of 12 to 128 noisy standard deviations around every component (then also around the
   integrand's Gaussian envelope), and everything else (the two tails and the gaps between
   windows) is bounded by exact Gaussian integrals (erfc) valid on any interval: for
   :math:`\alpha > 1`, Jensen's inequality :math:`p^\alpha \le \sum_k w_k\varphi_k^\alpha` and
   :math:`q \ge w_l\varphi_l` for the component :math:`l` of :math:`q` that gives the smallest bound
   for each :math:`k`; for :math:`\alpha < 1` the smaller of the AM-GM bound
   :math:`\alpha p + (1-\alpha) q` and the product of the subadditive bounds
   (``_gauss_outside``).  A tight cluster far from a wide component is thus bounded near each
   of them, not by one range beyond every mean.
   Laplace noise: :math:`A\,e^{-x/b}/(2b)\ge p(x)\ge B\,e^{-x/b}/(2b)` for :math:`x\ge U` with
   :math:`A=\sum_k w_k e^{\mu_k/b+s_k^2/(2b^2)}` and
   :math:`B=\sum_k w_k e^{\mu_k/b+s_k^2/(2b^2)}\Phi((U-\mu_k)/s_k-s_k/b)`, hence the right tail is
   at most :math:`A_P^\alpha B_Q^{1-\alpha}e^{-U/b}/2` (:math:`\alpha>1`).  The left tails are the
   mirror images.  The range (the windows) grows until what lies outside is below :math:`2^{-80}`
   of the body (Gaussian noise; under Laplace noise, whose every node costs erfc of every component
   in complex balls, the body is integrated to :math:`2^{-40}|\log I|` of itself, clamped to
   :math:`[2^{-64}, 2^{-40}]`, and the tails kept below :math:`2^{-8}` of that: :math:`D` to about
   :math:`2^{-40}` of itself, ample for a final check).
4. **Many components under Gaussian noise** (more than ``MAX_COMPONENTS``, or where the arb
   path refuses): :math:`\log p(x) + x^2/(2\theta^2)` is convex for every prior (the log of a
   moment generating function), so on each panel the integrand's log lies between lines built from
   chords and tangents; their integrals are closed, the densities are evaluated in floating point
   with outward rounding (a sample, or any prior of at least ``FAST_MIN`` components of one
   variance, by the fast Gauss transform of ``rpp/divergence/_fast_gauss_bounds.py``, at a cost
   per point that does not grow with the atoms), and what lies outside windows around the means
   is bounded in arb (``_convex_gaussian``).  The enclosure is about 1e-4 of
   :math:`(\alpha-1)D` wide, not 2^-64.
5. **Divergence.**  :math:`D = \log(I)/(\alpha-1)` in ball arithmetic; the float result's
   ``value`` is the ball's midpoint and ``error`` its distance to the farther endpoint, rounded up.

Gaussian noise with :math:`\alpha > 1` and :math:`\alpha / V_P < (\alpha - 1)/V_Q` (decided in
exact rational arithmetic) gives :math:`I = \infty` (the widest components of :math:`q` are too
narrow): the result is ``+inf`` with error 0, proved too.

python-flint is a dependency of ``rpp-book``; it is imported on
first use and ``ImportError`` names the extra when it is missing.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._lib import cache as _cache
from .._lib.arb import precision
from .._lib.validation import alpha_order
from ..certified import Certified
from ._fast_gauss_bounds import GaussSum

__all__ = [
    "proved_divergence",
    "proved_or_reason",
    "proved_discrete",
    "convexity_width",
    "flint_available",
    "MAX_COMPONENTS",
]

PREC = 128  # working precision (bits) of the balls
_REL_TOL = 2.0**-64  # target relative accuracy of each panel of the body integral
# Laplace noise: every node evaluates erfc of every Gaussian component in complex balls (the
# cost). The body is integrated to 2^-40 of |log I| relative to I (between 2^-64 and 2^-40), the
# tails kept below 2^-8 of that: D = log(I) / (alpha - 1) is then known to about 2^-40 of itself
# (alpha near 1 and tiny divergences, where log I is small, get the tighter tolerance they need),
# ample for a final check and cheaper than 2^-64 wherever log I is not small
_LAPLACE_REL_TOL = 2.0**-40
_LAPLACE_PREC = 96  # bits: ample for 2^-40 (the balls carry their own error); about 30 % faster than 128
_TAIL_REL = 2.0**-80  # the tails must be below this fraction of the body
MAX_COMPONENTS = 64  # more components than this in one prior: no arb path (too slow)
ARB_FIRST = 8  # Gaussian noise, up to this many components per prior: arb first (tight), else the convexity bounds
FEW_COMPONENTS = 256  # the convexity bounds: up to this many components in all, to 1e-5 of (alpha - 1) D; 1e-4 beyond


def _convex_share(components: int) -> float:
    """Return the convexity bounds' default width, relative to ``(alpha - 1) D``, for this many components in all."""
    return 1e-5 if components <= FEW_COMPONENTS else 1e-4


def flint_available() -> bool:
    """Whether python-flint (arb) can be imported."""
    try:
        import flint  # noqa: F401
    except ImportError:
        return False
    return True


def _flint():
    try:
        import flint
    except ImportError as exc:  # pragma: no cover - exercised only without python-flint
        raise ImportError(
            "proved divergences need python-flint (arb interval arithmetic), a dependency of rpp-book: "
            "pip install python-flint"
        ) from exc
    return flint


def _arb_of(arb, x: Fraction):
    """Return the arb ball of an exact rational (exact when the denominator is a power of two)."""
    return arb(x.numerator) / x.denominator


def _comps(arb, w, m, v, c, extra_var=Fraction(0)):
    """Normalised weights, means moved by ``-c`` and variances (+ ``extra_var``) as arb balls.

    Every quantity is formed exactly in rationals first, so the balls are exact (or, for the
    weights' quotient, contain the exact value).
    """
    total = sum((Fraction(float(x)) for x in w), Fraction(0))
    return (
        [_arb_of(arb, Fraction(float(x)) / total) for x in w],
        [_arb_of(arb, Fraction(float(x)) - Fraction(c)) for x in m],
        [_arb_of(arb, Fraction(float(x)) + extra_var) for x in v],
    )


# ----------------------------------------------------------------------------------------
# Gaussian noise
# ----------------------------------------------------------------------------------------


def _gauss_logpdf(flint, w, m, v):
    """Analytic log of sum_k w_k N(x; m_k, v_k) on complex balls (every v_k > 0)."""
    arb, acb = flint.arb, flint.acb
    terms = [(wk / (2 * arb.pi() * vk).sqrt(), mk, -1 / (2 * vk)) for wk, mk, vk in zip(w, m, v, strict=True)]

    def logpdf(x, analytic):
        s = acb(0)
        for c, mk, a in terms:
            s += c * (a * (x - mk) ** 2).exp()
        return s.log(analytic=analytic)

    return logpdf


def _top(xs):
    """Return a ball containing max(xs) (the union of the candidates where balls overlap)."""
    r = xs[0]
    for x in xs[1:]:
        if x > r:
            r = x
        elif not (x < r):
            r = r.union(x)
    return r


def _erfc_diff(u, v):
    """erfc(u) - erfc(v) for u <= v (arb; u may be None for -inf, v None for +inf), without cancellation."""
    if u is not None and u > 0:  # both in the right tail: erfc(u) - erfc(v), both small
        return u.erfc() - (v.erfc() if v is not None else 0)
    if v is not None and v < 0:  # both in the left tail: erfc(-v) - erfc(-u) (the same number)
        return (-v).erfc() - ((-u).erfc() if u is not None else 0)
    lo = 2 if u is None else u.erfc()
    return lo - (v.erfc() if v is not None else 0)


def _gauss_pair_integral(arb, al, lo, hi, log_coef, mk, vk, ml, vl):
    r"""Exact :math:`\int_{lo}^{hi} C\,\varphi_k^{\alpha}\varphi_l^{1-\alpha}` in arb, or None if it diverges.

    :math:`\log C` = ``log_coef``, :math:`\varphi_k` the density of :math:`N(m_k, v_k)`, ``lo``/``hi``
    None for :math:`\mp\infty`; None where the exponent is not strictly concave.

    With :math:`g(x) = c_0 - a(x - m_k)^2 - b(x - m_l)^2`, :math:`a = \alpha/(2v_k)`,
    :math:`b = (1-\alpha)/(2v_l)`, :math:`A = a + b > 0`, vertex :math:`x^* = (a m_k + b m_l)/A`:
    :math:`\int_{lo}^{hi} e^{g} = e^{c_0 - ab(m_k - m_l)^2/A}\,\tfrac12\sqrt{\pi/A}\,
    [\operatorname{erfc}(\sqrt{A}(lo - x^*)) - \operatorname{erfc}(\sqrt{A}(hi - x^*))]`.
    """
    a, b = al / (2 * vk), (1 - al) / (2 * vl)
    big_a = a + b
    if not big_a > 0:
        return None
    c0 = log_coef - al * (2 * arb.pi() * vk).log() / 2 - (1 - al) * (2 * arb.pi() * vl).log() / 2
    vertex = (a * mk + b * ml) / big_a
    peak = c0 - a * b * (mk - ml) ** 2 / big_a
    root = big_a.sqrt()
    u = None if lo is None else root * (lo - vertex)
    v = None if hi is None else root * (hi - vertex)
    return peak.exp() * (arb.pi() / big_a).sqrt() / 2 * _erfc_diff(u, v)


def _gauss_outside(arb, alpha, lo, hi, P, Q):
    r"""Upper bound (arb) on :math:`\int_{lo}^{hi} p^\alpha q^{1-\alpha}`; None when no bound below applies.

    ``lo``/``hi`` are arb balls, or None for :math:`\mp\infty`. Valid on every interval (no condition on where the means lie), from exact Gaussian integrals
    (:func:`_gauss_pair_integral`):

    * :math:`\alpha > 1`: Jensen (:math:`t^\alpha` convex, weights summing to 1) gives
      :math:`p^\alpha \le \sum_k w_k\varphi_k^\alpha`, and :math:`q \ge w_l\varphi_l` for every component
      :math:`l` gives :math:`q^{1-\alpha} \le (w_l\varphi_l)^{1-\alpha}`; so the integral is at most
      :math:`\sum_k \min_l \int w_k\varphi_k^\alpha (w_l\varphi_l)^{1-\alpha}` over the :math:`l` whose
      exponent is strictly concave (:math:`\alpha/v_k > (\alpha-1)/v_l`).
    * :math:`0 < \alpha < 1`: the smaller of the weighted AM-GM bound
      :math:`\alpha\int p + (1-\alpha)\int q` (Gaussian masses, erfc) and the product of the subadditive
      bounds :math:`p^\alpha \le \sum_k w_k^\alpha\varphi_k^\alpha`,
      :math:`q^{1-\alpha} \le \sum_l w_l^{1-\alpha}\varphi_l^{1-\alpha}`.
    """
    (wp, mp, vp), (wq, mq, vq) = P, Q
    al = arb(alpha)
    if alpha > 1:
        total = arb(0)
        for wk, mk, vk in zip(wp, mp, vp, strict=True):
            if not wk > 0:  # a component of weight 0 adds nothing
                continue
            best = None
            for wl, ml, vl in zip(wq, mq, vq, strict=True):
                if not wl > 0:
                    continue
                t = _gauss_pair_integral(arb, al, lo, hi, wk.log() + (1 - al) * wl.log(), mk, vk, ml, vl)
                if t is not None and t.is_finite() and (best is None or t.upper() < best.upper()):
                    best = t
            if best is None:
                return None
            total += best
        return total

    def mass(w, m, v):  # sum_k w_k P(lo < N(m_k, v_k) < hi)
        out = arb(0)
        for wk, mk, vk in zip(w, m, v, strict=True):
            sd2 = (2 * vk).sqrt()
            u = None if lo is None else (lo - mk) / sd2
            t = None if hi is None else (hi - mk) / sd2
            out += wk * _erfc_diff(u, t) / 2
        return out

    amgm = al * mass(wp, mp, vp) + (1 - al) * mass(wq, mq, vq)
    prod = arb(0)
    for wk, mk, vk, wl, ml, vl in (
        (*kp, *lq) for kp in zip(wp, mp, vp, strict=True) for lq in zip(wq, mq, vq, strict=True)
    ):
        if not (wk > 0 and wl > 0):
            continue
        prod += _gauss_pair_integral(arb, al, lo, hi, al * wk.log() + (1 - al) * wl.log(), mk, vk, ml, vl)
    return amgm if amgm.upper() < prod.upper() else prod


def _gauss_envelope(alpha, m_p, v_p, m_q, v_q):
    """(centre, width) of the Gaussian-shaped envelope of the right tail (floats; only sets the range)."""
    VP, VQ = float(np.max(v_p)), float(np.max(v_q))
    rate = alpha / VP + (1 - alpha) / VQ
    a, bq = float(np.max(m_p)), float(np.max(m_q))
    if not rate > 0:  # at (or past) the edge of the tail condition: no Gaussian envelope, no window for it
        return float(a), 0.0
    centre = (alpha * a / VP + (1 - alpha) * bq / VQ) / rate
    return centre, math.sqrt(1 / rate)


# ----------------------------------------------------------------------------------------
# Laplace noise
# ----------------------------------------------------------------------------------------


def _Phi(x, arb):
    """Return the standard normal CDF on real or complex balls: erfc(-x / sqrt 2) / 2."""
    return (-x / arb(2).sqrt()).erfc() / 2


def _laplace_logpdf(flint, w, m, v, b, lo, hi):
    r"""Analytic log of (prior * Lap(b)) on the panel [lo, hi] (no atom strictly inside).

    A component :math:`N(\mu, s^2)` gives :math:`\frac{1}{2b}e^{s^2/(2b^2)}[e^{-z/b}\Phi(z/s - s/b)
    + e^{z/b}\Phi(-z/s - s/b)]` with :math:`\Phi(t) = \mathrm{erfc}(-t/\sqrt2)/2`, evaluated as
    :math:`\mathrm{erfc}(k_2 - k_1 z)` and :math:`\mathrm{erfc}(k_2 + k_1 z)`, :math:`k_1 = 1/(s\sqrt2)`,
    :math:`k_2 = s/(b\sqrt2)` (the constants formed once, in balls).
    """
    arb, acb = flint.arb, flint.acb
    inv_b = 1 / b
    r2 = arb(2).sqrt()
    terms = []
    for wk, mk, vk in zip(w, m, v, strict=True):
        if vk == 0:
            # |x - mu| = sign (x - mu) on the panel
            if mk <= lo:
                sign = 1
            elif mk >= hi:
                sign = -1
            else:  # pragma: no cover - the panels are split at every atom
                raise ArithmeticError("an atom lies inside a Laplace panel")
            terms.append((0, wk / (2 * b), mk, -sign * inv_b, None))
        else:
            s = vk.sqrt()
            c = wk / (4 * b) * (vk / (2 * b * b)).exp()  # the 1/2 of both Phi folded in
            terms.append((1, c, mk, 1 / (s * r2), s / (b * r2)))

    def logpdf(x, analytic):
        tot = acb(0)
        for kind, c, mk, k1, k2 in terms:
            z = x - mk
            if kind == 0:
                tot += c * (k1 * z).exp()
            else:
                zk = z * k1
                tot += c * ((-z * inv_b).exp() * (k2 - zk).erfc() + (z * inv_b).exp() * (k2 + zk).erfc())
        return tot.log(analytic=analytic)

    return logpdf


def _laplace_tail_coeffs(arb, w, m, v, b, U):
    """Return (A, B) with p(x) <= A e^{-x/b}/(2b) for all x and p(x) >= B e^{-x/b}/(2b) for x >= U."""
    A, B = arb(0), arb(0)
    for wk, mk, vk in zip(w, m, v, strict=True):
        c = wk * (mk / b + vk / (2 * b * b)).exp()
        A += c
        if vk == 0:
            if mk <= U:
                B += c
        else:
            s = vk.sqrt()
            B += c * _Phi((U - mk) / s - s / b, arb)
    return A, B


def _laplace_tail(arb, alpha, U, P, Q, b):
    """Upper bound on int_U^inf p^a q^(1-a) for Laplace noise (U at or above every atom)."""
    Ap, _Bp = _laplace_tail_coeffs(arb, P[0], P[1], P[2], b, arb(U))
    Aq, Bq = _laplace_tail_coeffs(arb, Q[0], Q[1], Q[2], b, arb(U))
    al = arb(alpha)
    if alpha > 1:
        if not (Bq > 0):
            return None
        k = Ap**al * Bq ** (1 - al)
    else:
        k = Ap**al * Aq ** (1 - al)
    return k * (-arb(U) / b).exp() / 2


# ----------------------------------------------------------------------------------------
# the integral
# ----------------------------------------------------------------------------------------


def _float_mix_logpdf(x, w, m, v, family, b):
    """Float log-density of the noisy prior on a grid (only to choose tolerances and ranges)."""
    from scipy import special

    x = np.asarray(x, float)[:, None]
    if family == "gaussian":
        lp = np.log(w) - 0.5 * np.log(2 * np.pi * v) - (x - m) ** 2 / (2 * v)
    else:
        s = np.sqrt(v)
        z = x - m
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(s > 0, s, 1.0)
            t1 = -z / b + special.log_ndtr(z / safe - safe / b)
            t2 = z / b + special.log_ndtr(-z / safe - safe / b)
            gauss = v / (2 * b * b) + np.logaddexp(t1, t2)
        lp = np.log(w) - np.log(2 * b) + np.where(s > 0, gauss, -np.abs(z) / b)
    top = lp.max(axis=1)
    return top + np.log(np.exp(lp - top[:, None]).sum(axis=1))


def _panels(means, sds, L, U, atoms, max_panel):
    pts = np.concatenate([[L, U], atoms, (means[:, None] + sds[:, None] * np.array([-8, -4, -2, 0, 2, 4, 8])).ravel()])
    pts = np.unique(np.clip(pts, L, U))
    out = [pts[0]]
    for x in pts[1:]:
        k = max(1, int(np.ceil((x - out[-1]) / max_panel)))
        out.extend(np.linspace(out[-1], x, k + 1)[1:])
    return np.unique(np.concatenate([out, atoms[(atoms >= L) & (atoms <= U)]]))


def proved_divergence(
    comp_i: tuple[Any, Any, Any],
    comp_j: tuple[Any, Any, Any],
    *,
    alpha: float,
    family: str,
    scale: float,
    at_most: float | None = None,
) -> Certified | None:
    r"""Proved enclosure of :math:`D_\alpha(P_i * Z \| P_j * Z)` (module docstring), or ``None``.

    Parameters
    ----------
    comp_i, comp_j : tuple of three array_like
        ``(weights, means, variances)`` of the two priors (variance 0: an atom).
    alpha : float
        Order in (0, 1) or (1, inf).
    family : {"gaussian", "laplace"}
        The noise family.
    scale : float
        The noise scale: θ >= 0 (standard deviation) for Gaussian noise (0: no noise, every
        component must have a positive variance), ``b > 0`` for Laplace.
    at_most : float, optional
        A bound :math:`\varepsilon \ge 0` the caller will test the divergence against: the
        convexity bounds of many components (item 4 of the module docstring) stop narrowing their
        enclosure once its upper end is at most ``at_most`` (otherwise it is about as narrow as
        without it, or up to 16 times narrower in the integral where that may still meet the bound).
        The enclosure contains the divergence either way; it is only as narrow as that decision
        needs (a calibration's check of its budget).  The other paths ignore it.

    Returns
    -------
    Certified or None
        ``rigorous=True``: ``value ± error`` is proved to contain the divergence (``+inf`` with
        error 0 when it is proved infinite).  ``None`` when this path does not apply (an atom
        under Gaussian noise is fine, and so are more than ``MAX_COMPONENTS`` components per prior
        under Gaussian noise, by the convexity bounds, but not under Laplace noise, nor the edge
        :math:`\alpha/V_P = (\alpha-1)/V_Q` where the tail bound fails) or the enclosure could
        not be made finite.

    Raises
    ------
    ImportError
        If python-flint is not installed (a dependency of ``rpp-book``).
    ValueError
        If ``family``, ``alpha``, ``scale`` or ``at_most`` is out of range, or a prior is not
        three finite arrays of one length with weights and variances >= 0 and a weight > 0.

    Examples
    --------
    >>> c = proved_divergence(([1.0], [0.0], [1.0]), ([1.0], [1.0], [1.0]), alpha=2.0, family="gaussian", scale=1.0)
    >>> c.rigorous, c.lower <= 0.5 <= c.upper, c.error < 1e-15  # 2 * 1 / (2 * 2)
    (True, True, True)
    """
    out = proved_or_reason(comp_i, comp_j, alpha=alpha, family=family, scale=scale, at_most=at_most)
    return None if isinstance(out, str) else out


def proved_or_reason(
    comp_i: tuple[Any, Any, Any],
    comp_j: tuple[Any, Any, Any],
    *,
    alpha: float,
    family: str,
    scale: float,
    at_most: float | None = None,
) -> Certified | str:
    """:func:`proved_divergence`, with the hypothesis that failed (a sentence) in place of ``None``.

    Used by :func:`rpp.renyi_divergence` (``require="proved"``), whose ValueError quotes it.  The
    sentence names the hypothesis (the component limit, an atom without noise, the edge of the
    Gaussian tail condition, the analytic tail bounds, a non-finite enclosure) and quotes no
    number derived from the priors.

    Parameters
    ----------
    comp_i, comp_j : tuple of three array_like
        ``(weights, means, variances)`` of the two priors, as in :func:`proved_divergence`.
    alpha : float
        Order in (0, 1) or (1, inf).
    family : {"gaussian", "laplace"}
        The noise family.
    scale : float
        The noise scale (θ for Gaussian noise, ``b`` for Laplace noise).
    at_most : float, optional
        As in :func:`proved_divergence`.

    Returns
    -------
    Certified or str
        The proved enclosure, or the sentence saying why there is none.

    Examples
    --------
    >>> why = proved_or_reason(([1.0], [0.0], [0.0]), ([1.0], [1.0], [1.0]), alpha=2.0, family="gaussian", scale=0.0)
    >>> why
    'an atom without noise has no density (scale 0)'
    """
    if family not in ("gaussian", "laplace"):
        raise ValueError(f"family must be 'gaussian' or 'laplace', got {family!r}")
    (wi, mi, vi), (wj, mj, vj), alpha, scale = _validated(comp_i, comp_j, alpha, scale, laplace=family == "laplace")
    if at_most is not None:
        at_most = float(at_most)
        if not (at_most >= 0 and math.isfinite(at_most)):
            raise ValueError(f"at_most must be None or a finite float >= 0, got {at_most!r}")
    if max(wi.size, wj.size) > MAX_COMPONENTS and family == "laplace":
        return (
            f"the priors have {wi.size} and {wj.size} components; the arb path evaluates every component at "
            f"every node and is limited to {MAX_COMPONENTS} per prior (cost)"
        )
    flint = _flint()
    with precision(flint, PREC if family == "gaussian" else _LAPLACE_PREC):
        if family == "gaussian":
            return _gaussian(flint, (wi, mi, vi), (wj, mj, vj), alpha, scale, at_most)
        return _laplace(flint, (wi, mi, vi), (wj, mj, vj), alpha, scale)


def _validated(comp_i, comp_j, alpha, scale, *, laplace):
    """Return ``(Pf, Qf, alpha, scale)``: the priors' float arrays, components of zero weight dropped.

    The one validation of :func:`proved_or_reason` and :func:`convexity_width`: ``alpha`` in (0, 1)
    or (1, inf); ``scale`` finite and >= 0 (> 0 for Laplace noise); each prior three finite arrays
    of one length, weights and variances >= 0, a weight > 0.  Each ValueError names the argument.
    """
    alpha, scale = float(alpha), float(scale)
    if not (alpha > 0 and alpha != 1 and math.isfinite(alpha)):
        raise ValueError(f"alpha must be in (0, 1) or (1, inf), got {alpha!r}")
    if not (scale >= 0 and math.isfinite(scale)) or (scale == 0 and laplace):
        raise ValueError(f"scale must be finite and > 0 (>= 0 for Gaussian noise), got {scale!r}")
    out = []
    for name, comp in (("comp_i", comp_i), ("comp_j", comp_j)):
        try:
            w, m, v = (np.atleast_1d(np.asarray(x, float)) for x in comp)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be three arrays of floats (weights, means, variances)") from None
        # every check from each array's min and max (reductions, no array made): they are finite iff
        # every entry is (a NaN propagates through both), >= 0 iff the min is; all weights > 0 iff the min is
        ends = [(float(x.min()), float(x.max())) if x.size else (0.0, 0.0) for x in (w, m, v)]
        if (
            w.ndim != 1
            or w.shape != m.shape
            or w.shape != v.shape
            or not all(math.isfinite(lo) and math.isfinite(hi) for lo, hi in ends)
        ):
            raise ValueError(
                f"{name} must be three finite one-dimensional arrays of one length (weights, means, variances)"
            )
        if ends[0][0] < 0 or ends[2][0] < 0:
            raise ValueError(f"{name}'s weights and variances must be >= 0")
        if not ends[0][1] > 0:  # (no weight, or every weight 0)
            raise ValueError(f"{name} must have a component of weight > 0")
        if ends[0][0] > 0:
            out.append((w, m, v))
        else:
            keep = w > 0
            out.append((w[keep], m[keep], v[keep]))
    return out[0], out[1], alpha, scale


def _centre(mi, mj):
    """Return a float ``c`` near the middle of the means with every ``fl(m - c) == m - c``, else 0.0.

    The float views of the centred means must be exact: the Laplace panels are split at the
    atoms, whose sign of ``x - mu`` on each panel must be right.
    """
    allm = np.concatenate([mi, mj])
    c = float(allm[np.argmin(np.abs(allm - (0.5 * allm.min() + 0.5 * allm.max())))])
    if all(Fraction(float(x - c)) == Fraction(float(x)) - Fraction(c) for x in allm):
        return c
    return 0.0


def _integrate(flint, f_of_panel, pts, scale_est, rel_tol=_REL_TOL):
    """Sum over panels of acb.integral, absolute tolerance a small fraction of ``scale_est``."""
    arb, acb = flint.arb, flint.acb
    tol = scale_est * rel_tol / len(pts)
    total = arb(0)
    for lo, hi in itertools.pairwise(pts):
        f = f_of_panel(lo, hi)
        total += acb.integral(f, float(lo), float(hi), rel_tol=rel_tol, abs_tol=tol, eval_limit=10**5).real
        if not total.is_finite():  # one panel not enclosed: the whole body is not (refuse without the rest)
            break
    return total


def _tail_refusal(tr, tl):
    """Return the sentence of a refusal where the analytic tail bounds did not fall below ``2**-80`` of the body.

    No number derived from the priors is quoted (rpp's messages carry no data).
    """
    if tr is None or tl is None:
        why = "the Gaussian tail bound's exponent was not yet decreasing where the range was allowed to end"
    else:
        why = "the analytic tail bounds stayed above 2**-80 of the body over the range tried"
    return (
        f"{why}: these bounds hold beyond every mean and take one widest component of the second prior as the "
        "lower bound of its density, so components of different widths far apart from each other (a tight "
        "cluster far from a wide component) push the range beyond what the arb path integrates"
    )


def _gauss_refusal(*, concave: bool) -> str:
    """Return the sentence of a Gaussian-noise refusal, naming the hypothesis that failed (no data quoted)."""
    if not concave:
        return (
            "the bound of the integrand outside the integration windows needs, for every component k of the "
            "first prior, a component l of the second with alpha / v_k > (alpha - 1) / v_l (noisy variances), "
            "and one component has none"
        )
    return (
        "the analytic bound of the integral outside the integration windows (up to 128 noisy standard "
        "deviations around every component and around the integrand's Gaussian envelope) stayed above "
        "2**-80 of the integral inside them: the integrand's mass lies farther from every component than "
        "the arb path integrates"
    )


def _result(flint, I, alpha):
    """Certified float enclosure of log(I) / (alpha - 1) from the arb ball I, or the reason it is not finite."""
    arb = flint.arb
    if not I.is_finite() or not (I > 0):
        return "the enclosure of the integral was not a finite positive ball at the working precision"
    D = I.log() / (arb(alpha) - 1)
    if not D.is_finite():
        return "the enclosure of the divergence was not finite at the working precision"
    return _result_of_ball(arb, D)


def _result_of_ball(arb, D):
    """Certified float enclosure of the finite arb ball D: its midpoint, and the farther end rounded up."""
    value = float(D.mid())
    lo, hi = arb(D.lower()), arb(D.upper())
    err = max(hi - value, value - lo)  # exact on the ball endpoints at the working precision
    e = float(err.upper())
    e = float(np.nextafter(e, np.inf)) if e > 0 else 0.0  # float() rounds to nearest: step up
    return Certified(value, e, rigorous=True)


def _estimate(arb, log_f, pts):
    """Rough integral of exp(log_f) over the panels (trapezoid, 17 points per panel; sets tolerances).

    An arb: the integral can exceed the float range ((alpha - 1) D > 709) where its log is finite.
    """
    x = np.unique(np.concatenate([np.linspace(a, b, 17) for a, b in itertools.pairwise(pts)]))
    lf = log_f(x)
    top = lf.max()
    if not np.isfinite(top):
        return arb(0)
    y = np.exp(lf - top)
    return arb(float(top)).exp() * float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(x)))


def _gaussian(flint, Pf, Qf, alpha, theta, at_most=None):
    arb = flint.arb
    th2 = Fraction(theta) ** 2  # the exact noise variance
    # the max and min of floats are exact
    if Fraction(float(min(Pf[2].min(), Qf[2].min()))) + th2 == 0:
        return "an atom without noise has no density (scale 0)"
    cond, vpm = _tail_condition(Pf, Qf, alpha, th2)
    if alpha > 1:
        if cond < 0:
            return Certified(math.inf, 0.0, rigorous=True)
        if cond == 0:
            return (
                "alpha / V_P = (alpha - 1) / V_Q exactly (V: the largest noisy component variance of each prior): "
                "at this edge of the tail condition the Gaussian tail bound of the arb path does not apply"
            )
    if Pf[0].size == 1 and Qf[0].size == 1:  # two Gaussians after the noise: the closed form, in arb
        return _gauss_closed(flint, Pf, Qf, alpha, th2)
    first = None
    if _convex_first(Pf, Qf, alpha, theta, cond, vpm):
        # more components than arb takes quickly: the float convexity bounds first (about 1e-4 of
        # (alpha - 1) D wide, where arb's balls are 2^-64 wide but its cost grows with every component at
        # every node); arb where they refuse
        first = _convex_gaussian(flint, Pf, Qf, alpha, theta, at_most=at_most)
        if isinstance(first, Certified) or max(Pf[0].size, Qf[0].size) > MAX_COMPONENTS:
            return first
    elif max(Pf[0].size, Qf[0].size) > MAX_COMPONENTS:
        return _convex_or_reason(flint, Pf, Qf, alpha, theta, at_most)
    c = _centre(Pf[1], Qf[1])
    P = _comps(arb, Pf[0], Pf[1], Pf[2], c, th2)
    Q = _comps(arb, Qf[0], Qf[1], Qf[2], c, th2)
    res = _gaussian_arb(flint, Pf, Qf, alpha, theta, c, P, Q)
    if isinstance(res, str) and theta > 0:  # the arb path refused: the convexity bounds may still hold
        if first is None:
            first = _convex_gaussian(flint, Pf, Qf, alpha, theta, at_most=at_most)
            if isinstance(first, Certified):
                return first
        return f"{res}; and {first}"
    return res


def _tail_condition(Pf, Qf, alpha, th2):
    """``(alpha / V_P - (alpha - 1) / V_Q, V_P)``, exact (``V``: the largest noisy component variance of a prior)."""
    vpm = Fraction(float(Pf[2].max())) + th2
    vqm = Fraction(float(Qf[2].max())) + th2
    return Fraction(alpha) / vpm - (Fraction(alpha) - 1) / vqm, vpm


def _convex_first(Pf, Qf, alpha, theta, cond, vpm) -> bool:
    """Whether :func:`_gaussian` tries the convexity bounds before arb: noise, and many components or near the edge.

    Near the edge of the tail condition (``cond`` below 1 % of ``alpha / V_P``) the integrand decays
    slowly, which defeats arb's windows.
    """
    near_edge = alpha > 1 and cond < Fraction(1, 100) * Fraction(alpha) / vpm
    return theta > 0 and (max(Pf[0].size, Qf[0].size) > ARB_FIRST or near_edge)


def convexity_width(comp_i: tuple[Any, Any, Any], comp_j: tuple[Any, Any, Any], *, alpha: float, scale: float) -> float:
    r"""How wide, relative to :math:`(\alpha-1)D`, the proved path's enclosure under Gaussian noise is by default.

    ``0.0`` where arb proves first (balls about :math:`2^{-64}` wide, or the closed form of two
    Gaussians); where the float convexity bounds come first (item 4 of the module docstring), the
    relative width they aim for at their default tolerance: ``1e-5`` with at most
    ``FEW_COMPONENTS`` components in all, ``1e-4`` beyond (narrower where the integral's log is
    large; their tolerance is clamped).  A caller that will test the result against a budget aims
    below it by about half of this (:func:`rpp.calibrate`).  The rule for "first" is the one
    ``proved_or_reason`` follows: Gaussian noise (``scale > 0``), and more than ``ARB_FIRST``
    components of positive weight in a prior, or :math:`\alpha/V_P - (\alpha-1)/V_Q` within 1 %
    of :math:`\alpha/V_P` (the edge of the tail condition).

    Parameters
    ----------
    comp_i, comp_j : tuple of three array_like
        ``(weights, means, variances)`` of the two priors, as in :func:`proved_divergence`.
    alpha : float
        Order in (0, 1) or (1, inf).
    scale : float
        The noise's standard deviation :math:`\theta \ge 0`.

    Returns
    -------
    float
        ``0.0``, ``1e-5`` or ``1e-4``.

    Raises
    ------
    ValueError
        If ``alpha`` or ``scale`` is out of range, or a prior's arrays are not finite, of one length,
        with weights and variances >= 0 and a weight > 0.

    Examples
    --------
    >>> convexity_width(([1.0], [0.0], [0.0]), ([1.0], [1.0], [0.0]), alpha=2.0, scale=1.0)
    0.0
    >>> atoms = (np.ones(100), np.linspace(0, 1, 100), np.zeros(100))
    >>> convexity_width(atoms, atoms, alpha=2.0, scale=1.0)
    1e-05
    >>> convexity_width(atoms, atoms, alpha=2.0, scale=0.0)  # no noise: no convexity bounds
    0.0
    """
    Pf, Qf, alpha, scale = _validated(comp_i, comp_j, alpha, scale, laplace=False)
    if scale == 0 or (Pf[0].size == 1 and Qf[0].size == 1):
        return 0.0  # (no noise: the convexity bounds never apply)
    cond, vpm = _tail_condition(Pf, Qf, alpha, Fraction(scale) ** 2)
    if not _convex_first(Pf, Qf, alpha, scale, cond, vpm):
        return 0.0
    return _convex_share(Pf[0].size + Qf[0].size)


def _gauss_closed(flint, Pf, Qf, alpha, th2):
    r"""Enclose the closed form of :math:`D_\alpha(N(\mu_i, V_i) \| N(\mu_j, V_j))` in arb.

    With :math:`V_\alpha = \alpha V_j + (1-\alpha) V_i > 0` (Gil, Alajaji and Linder 2013, Table 2),

    .. math::

        D_\alpha = \frac{\alpha(\mu_i-\mu_j)^2}{2V_\alpha} + \frac12\log\frac{V_j}{V_i}
        + \frac{1}{2(\alpha-1)}\log\frac{V_j}{V_\alpha};

    :math:`V_\alpha \le 0` (only for :math:`\alpha > 1`) gives :math:`+\infty`: the integrand
    :math:`p^\alpha q^{1-\alpha}` is then the exponential of a polynomial of degree at most one.
    The inputs are the priors' floats and :math:`\theta^2` as exact rationals, so the only roundings
    are arb's, inside the ball; the precision grows until the ball is 1e-15 of the value (or 2^-1000).
    """
    a = Fraction(alpha)
    vi = Fraction(float(Pf[2][0])) + th2
    vj = Fraction(float(Qf[2][0])) + th2
    va = a * vj + (1 - a) * vi  # exact
    if va <= 0:
        return Certified(math.inf, 0.0, rigorous=True)
    d = Fraction(float(Pf[1][0])) - Fraction(float(Qf[1][0]))
    quad = a * d * d / (2 * va)  # exact
    return _tight_closed_form(
        flint,
        lambda arb: (
            _arb_of(arb, quad)
            + _arb_of(arb, vj / vi).log() / 2
            + _arb_of(arb, vj / va).log() / (2 * (_arb_of(arb, a) - 1))
        ),
    )


def _tight_closed_form(flint, d_ball):
    """Enclose D from ``d_ball(arb)``, an arb ball of D built from exact inputs.

    At 128 bits, then more (256, 512, 1024) until the enclosure is 1e-15 of |D| (where a log cancels:
    a tiny divergence).
    """
    res: Certified | str = "the enclosure of the divergence was not finite at the working precision"
    for prec in (128, 256, 512, 1024):
        with precision(flint, prec):
            D = d_ball(flint.arb)
            if D.is_finite():
                res = _result_of_ball(flint.arb, D)
        if isinstance(res, Certified) and res.error <= 1e-15 * abs(float(res.value)):
            break
    return res


def _convex_or_reason(flint, Pf, Qf, alpha, theta, at_most=None):
    if not theta > 0:
        return (
            f"the priors have more than {MAX_COMPONENTS} components (the arb path's limit) and without noise the "
            "convexity bounds of the many-component path do not apply"
        )
    return _convex_gaussian(flint, Pf, Qf, alpha, theta, at_most=at_most)


def _gaussian_arb(flint, Pf, Qf, alpha, theta, c, P, Q):
    """Enclose by the arb path: windows around the components, acb.integral on panels (module docstring)."""
    # float views (centred) to choose panels and range
    mpf, mqf = Pf[1] - c, Qf[1] - c
    vpf, vqf = Pf[2] + theta * theta, Qf[2] + theta * theta
    means = np.concatenate([mpf, mqf])
    sds = np.sqrt(np.concatenate([vpf, vqf]))
    wpf, wqf = Pf[0] / Pf[0].sum(), Qf[0] / Qf[0].sum()

    def log_f(x):
        return alpha * _float_mix_logpdf(x, wpf, mpf, vpf, "gaussian", 0) + (1 - alpha) * _float_mix_logpdf(
            x, wqf, mqf, vqf, "gaussian", 0
        )

    cr, wr = _gauss_envelope(alpha, mpf, vpf, mqf, vqf)
    cl, wl = _gauss_envelope(alpha, -mpf, vpf, -mqf, vqf)
    lp, lq = _gauss_logpdf(flint, *P), _gauss_logpdf(flint, *Q)
    al = flint.acb(alpha)

    def f(x, analytic):
        return (al * lp(x, analytic) + (1 - al) * lq(x, analytic)).exp()

    envelope = (np.concatenate([means, [cr, -cl]]), np.concatenate([sds, [wr, wl]]))
    return _gauss_windows(flint, alpha, P, Q, (means, sds), envelope, f, log_f)


def _gauss_windows(flint, alpha, P, Q, components, envelope, f, log_f):
    """Integrate f on windows around the components (then also the envelope), bound the rest analytically.

    ``components`` and ``envelope`` are (centres, widths) of floats; returns the proved ``Certified``
    or the refusal's sentence.
    """
    arb = flint.arb
    means, sds = components
    # the components' windows first; the integrand's Gaussian envelope (its mass can lie beyond every
    # component when alpha > 1 and the first prior is the wider) only where those do not suffice: a window
    # far from a narrow component makes arb's complex balls of its factor too wide to integrate
    tries = [(reach, env) for reach in (12, 16, 24, 32, 48, 64, 96, 128) for env in (False, True)]
    for reach, env in tries:
        centres, widths = envelope if env else components
        windows = _windows(centres, widths, reach)
        # what lies outside the windows (the two tails and the gaps between windows), bounded analytically
        ends = [None, *(arb(x) for w in windows for x in w), None]
        outside = [_gauss_outside(arb, alpha, ends[i], ends[i + 1], P, Q) for i in range(0, len(ends), 2)]
        if any(o is None for o in outside):
            return _gauss_refusal(concave=False)
        out = sum(outside, arb(0))
        panels = [_gauss_panels(means, sds, lo, hi) for lo, hi in windows]
        est = sum((_estimate(arb, log_f, pts) for pts in panels), arb(0))
        if est > 0 and out.upper() < est * _TAIL_REL:
            break
    else:
        return _gauss_refusal(concave=True)
    body = arb(0)
    for pts in panels:
        body += _integrate(flint, lambda _lo, _hi: f, pts, est)
        if not body.is_finite():
            break
    if not body.is_finite():
        return (
            "arb's integration did not enclose the integral on one panel (a non-finite ball): on a panel far "
            "from a narrow component the complex continuation of that component's density turns too fast for "
            "ball arithmetic, which happens when the integrand's mass lies beyond a tight cluster"
        )
    if not (out.upper() <= body.lower() * (_TAIL_REL * 2**8)):  # in arb: both may exceed the float range
        return _gauss_refusal(concave=True)
    return _result(flint, body + arb(0).union(out), alpha)


def _windows(centres, widths, reach):
    """Sorted, merged intervals [c - reach w, c + reach w] (floats) around every centre."""
    if np.ndim(widths) == 0 and centres.size > _CHUNK:
        found = _sorted_windows(centres, reach * widths)
        if found is not None:
            return found
    lo, hi = centres - reach * widths, centres + reach * widths
    if not np.all(lo[1:] >= lo[:-1]):  # (sorted already for sorted centres of one width: a sample)
        order = np.argsort(lo, kind="stable")  # the same merged intervals whatever the order of equal left ends
        lo, hi = lo[order], hi[order]
        top = np.maximum.accumulate(hi)  # within a run of overlapping intervals: the run's right end so far
    elif np.ndim(widths) == 0:  # sorted centres of one width: fl(c + r) is non-decreasing in c, hi its own maximum
        top = hi
    else:
        top = np.maximum.accumulate(hi)
    start = np.flatnonzero(np.concatenate([[True], lo[1:] > top[:-1]]))
    end = np.concatenate([start[1:], [lo.size]]) - 1
    return [(float(a), float(b)) for a, b in zip(lo[start], top[end], strict=True)]


def _sorted_windows(centres, r):
    """:func:`_windows` of sorted centres of one half-width ``r`` (a float), in blocks that stay in cache; None if unsorted.

    ``fl(c - r)`` and ``fl(c + r)`` are non-decreasing in ``c``: a run breaks between two neighbours
    exactly where ``fl(c_{i+1} - r) > fl(c_i + r)``, the test :func:`_windows` makes.
    """
    breaks = []
    for i in range(0, centres.size - 1, _CHUNK):
        a = centres[i : i + _CHUNK + 1]
        if not np.all(a[1:] >= a[:-1]):
            return None
        breaks.append(np.flatnonzero((a[1:] - r) > (a[:-1] + r)) + (i + 1))
    start = np.concatenate([[0], *breaks]).astype(np.int64)
    end = np.concatenate([start[1:], [centres.size]]) - 1
    return [(float(a), float(b)) for a, b in zip(centres[start] - r, centres[end] + r, strict=True)]


def _merged(intervals):
    """Return the connected components of a union of closed intervals ``[(lo, hi), ...]`` (few; sorted).

    The components :func:`_windows` gives for the same intervals (touching ones are joined).
    """
    out: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if out and not lo > out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _gauss_panels(means, sds, lo, hi):
    """Return the panel ends on [lo, hi]: every mean, mean +- sd 2^j, no panel over a sixteenth of it.

    With j = 1, 2, ... the panels beside a narrow component grow with the distance to it, so arb's
    complex ellipses stay where its factor is small.
    """
    steps = 2.0 ** np.arange(1, 64)
    pts = [np.array([lo, hi]), means]
    for m, sd in zip(means, sds, strict=True):
        reach = steps[sd * steps <= 2 * (hi - lo)]
        pts += [m - sd * reach, m + sd * reach]
    ends = np.unique(np.clip(np.concatenate(pts), lo, hi))
    out = [ends[0]]
    for x in ends[1:]:
        k = max(1, int(np.ceil((x - out[-1]) / ((hi - lo) / 16))))
        out.extend(np.linspace(out[-1], x, k + 1)[1:])
    out[-1] = hi
    return np.unique(np.array(out))


def _laplace_two_atoms(flint, Pf, Qf, alpha, b_float):
    r"""Enclose :math:`D_\alpha` of two atoms under :math:`\mathrm{Lap}(b)` by its closed form, in arb.

    With :math:`c = |\mu_i - \mu_j| / b` (Mironov 2017, Prop. 6, there for :math:`\alpha > 1`; the
    integral over the three pieces :math:`x < 0`, :math:`0 < x < c`, :math:`x > c` gives it for every
    :math:`\alpha`),

    .. math::

        I = \tfrac12\bigl[e^{-(1-\alpha)c} + e^{-\alpha c} + e^{-(1-\alpha)c}\,c\,g((2\alpha-1)c)\bigr],
        \qquad g(u) = \frac{1 - e^{-u}}{u},\ g(0) = 1,

    which is :math:`\frac{\alpha}{2\alpha-1}e^{(\alpha-1)c} + \frac{\alpha-1}{2\alpha-1}e^{-\alpha c}`
    away from :math:`\alpha = 1/2`; ``g`` is taken as ``-expm1(-u)/u`` on the exact rational ``u``,
    so that no cancellation widens the ball near :math:`\alpha = 1/2`.
    """
    a = Fraction(alpha)
    c = abs(Fraction(float(Pf[1][0])) - Fraction(float(Qf[1][0]))) / Fraction(b_float)
    u = (2 * a - 1) * c

    def d_ball(arb):
        A, C = _arb_of(arb, a), _arb_of(arb, c)
        g = arb(1) if u == 0 else -(-_arb_of(arb, u)).expm1() / _arb_of(arb, u)
        first = (-(1 - A) * C).exp()
        return ((first + (-A * C).exp() + first * C * g) / 2).log() / (A - 1)

    return _tight_closed_form(flint, d_ball)


def _laplace_rel_tol(est) -> float:
    """Return the relative tolerance of the Laplace body: ``2^-40 |log I|`` in ``[2^-64, 2^-40]`` (``est``: a rough I)."""
    if not (est > 0):
        return 2.0**-64
    log_i = float(abs(est.log()).upper())
    if not math.isfinite(log_i):
        return _LAPLACE_REL_TOL
    return min(_LAPLACE_REL_TOL, max(2.0**-64, _LAPLACE_REL_TOL * log_i))


def _laplace(flint, Pf, Qf, alpha, b_float):
    arb, acb = flint.arb, flint.acb
    if Pf[0].size == 1 and Qf[0].size == 1 and Pf[2][0] == 0 and Qf[2][0] == 0:
        return _laplace_two_atoms(flint, Pf, Qf, alpha, b_float)
    c = _centre(Pf[1], Qf[1])
    b = arb(b_float)
    P = _comps(arb, Pf[0], Pf[1], Pf[2], c)
    Q = _comps(arb, Qf[0], Qf[1], Qf[2], c)
    mpf, mqf = Pf[1] - c, Qf[1] - c
    means = np.concatenate([mpf, mqf])
    sds = np.sqrt(np.concatenate([Pf[2], Qf[2]]))
    atoms = np.unique(means[sds == 0])
    wpf, wqf = Pf[0] / Pf[0].sum(), Qf[0] / Qf[0].sum()

    def log_f(x):
        return alpha * _float_mix_logpdf(x, wpf, mpf, Pf[2], "laplace", b_float) + (1 - alpha) * _float_mix_logpdf(
            x, wqf, mqf, Qf[2], "laplace", b_float
        )

    # beyond mu + s^2/b the Laplace tail dominates the Gaussian body of a component
    reach = np.concatenate([means + sds**2 / b_float + 12 * sds, means - sds**2 / b_float - 12 * sds])
    U, L = float(reach.max() + 40 * b_float), float(reach.min() - 40 * b_float)
    al = acb(alpha)
    neg = lambda X: (X[0], [-x for x in X[1]], X[2])
    for _ in range(40):
        tr = _laplace_tail(arb, alpha, U, P, Q, b)
        tl = _laplace_tail(arb, alpha, -L, neg(P), neg(Q), b)
        pts = _panels(means[sds > 0], sds[sds > 0], L, U, atoms, max(b_float, (U - L) / 32))
        est = _estimate(arb, log_f, pts)
        rel_tol = _laplace_rel_tol(est)
        if tr is not None and tl is not None and est > 0 and (tr + tl).upper() < est * (rel_tol * 2**-8):
            break
        U, L = U + 20 * b_float, L - 20 * b_float
    else:
        return _tail_refusal(tr, tl)

    def panel(lo, hi):
        lp = _laplace_logpdf(flint, P[0], P[1], P[2], b, arb(lo), arb(hi))
        lq = _laplace_logpdf(flint, Q[0], Q[1], Q[2], b, arb(lo), arb(hi))

        def f(x, analytic):
            return (al * lp(x, analytic) + (1 - al) * lq(x, analytic)).exp()

        return f

    body = _integrate(flint, panel, pts, est, rel_tol)
    # in arb: both may exceed the float range
    if not ((tr + tl).upper() <= body.lower() * rel_tol):
        return _tail_refusal(tr, tl)
    return _result(flint, body + arb(0).union(tr + tl), alpha)


def proved_discrete(prior_i: Any, prior_j: Any, alpha: float) -> Certified:
    r"""Proved :math:`D_\alpha(P_i\|P_j)` of two empirical priors without noise (a finite sum in arb).

    :math:`D_\alpha = \frac{1}{\alpha-1}\log\sum_x p(x)^\alpha q(x)^{1-\alpha}` over the union of
    the supports, the weights normalised exactly; ``+inf`` (proved) for :math:`\alpha > 1` when
    :math:`P_i` charges a point :math:`P_j` does not.

    Examples
    --------
    >>> from rpp import Empirical
    >>> c = proved_discrete(Empirical([0.0, 1.0]), Empirical([0.0, 0.0, 1.0]), 2.0)  # log(3/8 + 3/4)
    >>> c.rigorous, bool(c.lower <= math.log(9 / 8) <= c.upper)
    (True, True)
    """
    from ..priors import Empirical

    for name, prior in (("prior_i", prior_i), ("prior_j", prior_j)):
        if not isinstance(prior, Empirical):
            raise TypeError(f"{name} must be an rpp.Empirical prior, got {type(prior).__name__}")
    alpha = float(alpha_order(alpha, allow_below_one=True))
    flint = _flint()
    arb = flint.arb
    with precision(flint, PREC):
        pw = {float(x): Fraction(float(w)) for x, w in zip(prior_i.support, prior_i.probs, strict=True)}
        qw = {float(x): Fraction(float(w)) for x, w in zip(prior_j.support, prior_j.probs, strict=True)}
        tp, tq = sum(pw.values(), Fraction(0)), sum(qw.values(), Fraction(0))
        al = arb(alpha)
        total = arb(0)
        for x in set(pw) | set(qw):
            wp, wq = pw.get(x, Fraction(0)) / tp, qw.get(x, Fraction(0)) / tq
            if wp == 0:
                continue
            if wq == 0:
                if alpha > 1:
                    return Certified(math.inf, 0.0, rigorous=True)
                continue
            total += _arb_of(arb, wp) ** al * _arb_of(arb, wq) ** (1 - al)
        if total == 0:  # alpha < 1 and disjoint supports
            return Certified(math.inf, 0.0, rigorous=True)
        res = _result(flint, total, alpha)
        if isinstance(res, str):  # a huge order: p^alpha's relative radius grows like alpha 2^-PREC
            raise ValueError(
                "alpha is too large for a proved enclosure of this sum at the working precision "
                f"({PREC} bits): its terms' balls contain 0; a smaller alpha"
            )
        return res


# ----------------------------------------------------------------------------------------
# Gaussian noise, many components: chords and tangents of a convex function (floats)
# ----------------------------------------------------------------------------------------

_U = 2.0**-53  # the unit round-off of a double
_PAD = 1e-12  # relative pad of every float bound below (about 4500 unit round-offs; see _convex_gaussian)
_CHUNK = 1 << 17


def _logpdf_bounds(t, logw, m, eta, s2, s2_lo, s2_hi):
    r"""Float bounds of :math:`\log p(t)` and of its derivative at the points ``t`` (see :func:`_convex_gaussian`).

    :math:`p = \sum_k w_k N(\mu_k, s_k^2)`: ``logw = (lower, upper)`` bounds of the logs of the
    normalised weights, ``m`` the floats of the centred means with ``|m_k - \mu_k| <= eta_k``, ``s2``
    the floats of the noisy variances with ``s2_lo <= s_k^2 <= s2_hi``.  Returns the rows
    ``(lo, hi, dlo, dhi)``: each true :math:`\log p(t)` in ``[lo, hi]`` and :math:`(\log p)'(t)` in
    ``[dlo, dhi]``.

    Each exponent :math:`e_k = \log w_k - \tfrac12\log(2\pi s_k^2) - (t-\mu_k)^2/(2s_k^2)` is computed
    once in floats, with a bound :math:`\delta_k` of its error (the means' and the variances' bounds,
    eight unit round-offs of every product, ``_PAD`` of every log); where every :math:`\delta_k` of a
    point is below 1e-3, :math:`e^{\pm\delta} \lessgtr 1 \pm 1.01\delta` bounds the sum without
    exponentiating twice, else the exponents' two ends are exponentiated.
    """
    n = m.size
    out = np.empty((4, t.size))
    step = max(1, _CHUNK // max(n, 1))
    norm = 0.5 * np.log(2 * np.pi * s2)
    base = 0.5 * (logw[0] + logw[1]) - norm
    base_err = 0.5 * (logw[1] - logw[0]) + _PAD * (1 + np.abs(base))
    for i in range(0, t.size, step):
        tt = t[i : i + step, None]
        d = tt - m  # float; the true t - mu_k lies in [d - e, d + e]
        e = eta + _U * np.abs(d)
        q = d * d / (2 * s2)
        em = base - q
        # |q - (t - mu)^2 / (2 s^2)| <= (2|d| e + e^2) / (2 s2_lo) + q * (s2_hi / s2_lo - 1 + 8u)
        delta = base_err + (2 * np.abs(d) * e + e * e) / (2 * s2_lo) + q * (s2_hi / s2_lo - 1 + 8 * _U)
        delta += _PAD * (1 + np.abs(em))
        top = em.max(axis=1, keepdims=True)
        x = np.exp(em - top)
        s_mid = x.sum(axis=1)
        xd = x * delta
        s_dn = s_mid - xd.sum(axis=1)  # e^-delta >= 1 - delta always
        # e^delta <= 1 + 1.01 delta for delta <= 1e-3; a larger delta whose term stays below e^-700 adds at most
        # e^-700 (a far component, its mean's rounding large against its negligible density); else exact ends
        bad = delta > 1e-3
        s_up = s_mid + 1.01 * xd.sum(axis=1) + math.exp(-700) * bad.sum(axis=1)
        wide = (bad & (em - top + delta > -700)).any(axis=1)
        if wide.any():  # the exact ends for the rows where the linear bounds of e^delta do not hold
            s_up[wide] = np.exp(em[wide] + delta[wide] - top[wide]).sum(axis=1)
            s_dn[wide] = np.exp(em[wide] - delta[wide] - top[wide]).sum(axis=1)
        sum_pad = 4 * n * _U + _PAD
        hi = top[:, 0] + np.log(s_up * (1 + sum_pad))
        lo = top[:, 0] + np.log(s_dn * (1 - sum_pad))
        hi += _PAD * (1 + np.abs(hi))
        lo -= _PAD * (1 + np.abs(lo))
        # (log p)' = sum_k pi_k (mu_k - t) / s_k^2 with pi_k = e^{e_k} / p: its float is
        # sum x_k r_k / s_mid; each pi_k is within a factor e^{+-(delta_k + D)} of x_k / s_mid, D the log-sum's
        # own error, and each r_k within (e_k / s2_lo + |r_k| (s2_hi / s2_lo - 1 + 8u))
        r = -d / s2
        ar = np.abs(r)
        big_d = np.maximum(hi - (top[:, 0] + np.log(s_mid)), (top[:, 0] + np.log(s_mid)) - lo)[:, None]
        rel = np.expm1(np.minimum(delta + big_d, 700.0))
        # a term whose bound e^(em + delta - top) is below e^-700 adds at most e^-700 |r| / s_dn
        tiny = bad & ~wide[:, None]
        far = 2 * (math.exp(-700) * np.where(tiny, ar + e / s2_lo, 0.0)).sum(axis=1) / s_dn
        rel = np.where(tiny, 0.0, rel)
        r_err = e / s2_lo + ar * (s2_hi / s2_lo - 1 + 8 * _U)
        mid = (x * r).sum(axis=1) / s_mid
        err = ((x * (ar * rel + r_err * (1 + rel))).sum(axis=1) / s_mid) * (1 + sum_pad)
        err += 4 * n * _U * (x * ar).sum(axis=1) / s_mid + _PAD * np.abs(mid) + far + 1e-300
        out[0, i : i + step] = lo
        out[1, i : i + step] = hi
        out[2, i : i + step] = mid - err
        out[3, i : i + step] = mid + err
    return out


FAST_MIN = 512  # one variance and at least this many components: the fast Gauss transform's bounds
# The fast Gauss transforms of a prior at a noise and a frame's centre: a calibration proves both
# orders of a pair at one scale, and the two proofs share them (keyed by content: the prior's
# arrays, theta and the centre; each holds copies of its own, about 24 bytes per atom).
_SUMS = _cache.Cache("proved.gauss_sums", entries=4)


class _Shape:
    """What the convexity bounds need to know of a prior ``comp = (w, m, v)`` at the noise variance ``th2``.

    Found once per proof (one or two passes over each array): ``one_v``/``one_w`` (one variance, one
    weight), ``sorted`` (means non-decreasing), ``sample`` (all three: the atoms of data),
    ``s2_one`` (the one float noisy variance ``fl(v + th2)`` where all are equal, else None),
    ``s2_min``, ``sd`` (the noisy standard deviations: a float where there is one variance) and
    ``m_sorted`` (the means sorted, the same array where they are).
    """

    __slots__ = ("_s2", "comp", "m_sorted", "one_v", "one_w", "s2_min", "s2_one", "sample", "sd", "sorted", "th2")

    def __init__(self, comp, th2):
        w, m, v = comp
        self.comp, self.th2 = comp, th2
        self.one_v = bool(v.size) and bool(v.min() == v.max())
        self.one_w = bool(w.size) and bool(w.min() == w.max())
        self.sorted = bool(np.all(m[1:] >= m[:-1]))
        self.sample = self.one_v and self.one_w and self.sorted
        if self.one_v:  # fl(v + th2) of one float: the same for all
            self._s2 = None
            self.s2_one = self.s2_min = float(v[0]) + th2
            self.sd = math.sqrt(self.s2_one)  # as numpy's: sqrt is correctly rounded
        else:
            self._s2 = v + th2
            self.s2_one = float(self._s2[0]) if bool(np.all(self._s2 == self._s2[0])) else None
            self.s2_min = float(self._s2.min())
            self.sd = np.sqrt(self._s2)
        self.m_sorted = m if self.sorted else np.sort(m)

    @classmethod
    def of(cls, comp, th2):
        """Return the shape of ``comp`` (see the class)."""
        return cls(comp, th2)

    def s2_array(self):
        """Return the floats ``fl(v_k + th2)`` as an array (made where there is one variance)."""
        if self._s2 is None:
            self._s2 = np.full(self.comp[2].size, self.s2_one)
        return self._s2


def _logw(w, tot, shape, *, floats=False):
    """``(lower, upper)`` bounds of the normalised log weights ``log(w_k / tot)`` (padded; one log where there is one weight).

    With ``floats`` and one weight, the two bounds as floats (no array).
    """
    if shape.one_w:  # the same float for every atom: one log, the same pad
        lw = float(np.log(w[:1])[0]) - math.log(tot)
        pad = _PAD * (1 + abs(lw)) + 4 * w.size * _U
        if floats:
            return lw - pad, lw + pad
        return np.full(w.size, lw - pad), np.full(w.size, lw + pad)
    lw = np.log(w) - math.log(tot)
    pad = _PAD * (1 + np.abs(lw)) + 4 * w.size * _U
    return lw - pad, lw + pad


def _fast_rows(fast, t, args):
    """Rows ``(lo, hi, -inf, +inf)`` from ``GaussSum`` (``rpp/divergence/_fast_gauss_bounds.py``).

    The points it does not bound (far beyond every atom) are summed directly by :func:`_logpdf_bounds`,
    whose arguments are ``args`` (a tuple) or what ``args()`` returns (made on first use).
    No derivative: the panels' lower lines take secants (:func:`_slopes`).
    """
    lo, hi, done = fast.log_bounds(t)
    out = np.empty((4, t.size))
    out[0], out[1], out[2], out[3] = lo, hi, -np.inf, np.inf
    if not done.all():
        out[:, ~done] = _logpdf_bounds(t[~done], *(args() if callable(args) else args))
    return out


def _line_log_integral(l0, slope, width):
    r"""Float :math:`\log\int_0^{w} e^{l_0 + B x}\,dx = l_0 + \log w + \log(\mathrm{expm1}(Bw)/(Bw))` (unpadded)."""
    z = slope * width
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        big = z > 30
        small = np.abs(z) < 1e-300
        zz = np.where(small | big, 1.0, z)
        rel = np.where(small, 0.0, np.where(big, z - np.log(np.where(big, z, 1.0)), np.log(np.expm1(zz) / zz)))
        # z > 30: log(expm1(z)/z) = z - log z + log(1 - e^-z), the last term below 1e-13
        rel = np.where(big, rel + np.log1p(-np.exp(-np.where(big, z, 40.0))), rel)
    return l0 + np.log(width) + rel


def _chord(V, a, h, x0):
    """Return the chord of the upper bounds ``V[1]`` at the panel ends: its value at ``x0``, slope and magnitude."""
    slope = (V[1][1:] - V[1][:-1]) / h
    return V[1][:-1] + slope * (x0 - a), slope, np.abs(V[1][:-1]) + np.abs(V[1][1:])


def _tangent(M, t, h, x0, slope):
    """Return the lower line at the midpoints ``t`` (value ``M[0]``, ``slope``): its value at x0, slope and size."""
    return M[0] + slope * (x0 - t), slope, np.abs(M[0]) + np.abs(slope) * h


def _slopes(E, M, a, t, b, th2_lo):
    r"""Slopes of the lower lines at the midpoints ``t``: ``(left half, right half)``, floats padded outward.

    From the derivative's bounds ``[M[2], M[3]]`` (the left half takes the upper end, the right half
    the lower: any larger slope left of ``t``, or smaller right of it, lowers the line) and, where
    tighter or where the derivative is not known (``+-inf`` rows, ``rpp/divergence/_fast_gauss_bounds.py``),
    from **secants**: :math:`g = \log p + x^2/(2\theta^2)` is convex, so for :math:`x \le t`,
    :math:`g(x) \ge g(t) + \frac{g(b)-g(t)}{b-t}(x-t)`, i.e. in terms of :math:`\log p` the slope
    :math:`\frac{\log p(b)-\log p(t)}{b-t} + \frac{b-t}{2\theta^2}` serves left of :math:`t`, and
    :math:`\frac{\log p(t)-\log p(a)}{t-a} - \frac{t-a}{2\theta^2}` right of it (the same
    :math:`-(x-t)^2/(2\theta^2) \ge -C` as the tangent's).  ``E``/``M``: the rows at the ends and
    the midpoints.
    """
    with np.errstate(invalid="ignore"):
        spread = 2 * _U * (M[3] - M[2])  # (M[3] + M[2]) / 2 +- (M[3] - M[2]) (1 + 4u) / 2, as before
        left, right = M[3] + spread, M[2] - spread
    hr, hl = b - t, t - a
    with np.errstate(invalid="ignore", over="ignore"):
        sec_r = (E[1][1:] - M[0]) / hr + hr / (2 * th2_lo)
        sec_r += 8 * _U * (np.abs(sec_r) + (np.abs(E[1][1:]) + np.abs(M[0])) / hr + hr / (2 * th2_lo))
        sec_l = (M[0] - E[1][:-1]) / hl - hl / (2 * th2_lo)
        sec_l -= 8 * _U * (np.abs(sec_l) + (np.abs(E[1][:-1]) + np.abs(M[0])) / hl + hl / (2 * th2_lo))
    left = np.where(sec_r < left, sec_r, left)  # NaN (an infinite bound) keeps the other
    right = np.where(sec_l > right, sec_l, right)
    return left, right


def _half_panels(alpha, ends, mids, P, Q, C, th2_lo):
    """Upper and lower float bounds of the log of the integral on each half panel (padded outward).

    ``P`` and ``Q`` are ``(bounds at the ends, bounds at the midpoints)`` of each log density.
    """
    a, b = ends[:-1], ends[1:]
    t = mids
    h = b - a
    out_hi: list[np.ndarray] = []
    out_lo: list[np.ndarray] = []
    cst = max(alpha, 1.0) * C
    sp, sq = _slopes(P[0], P[1], a, t, b, th2_lo), _slopes(Q[0], Q[1], a, t, b, th2_lo)
    for x0, x1, side in ((a, t, 0), (t, b, 1)):
        cp, cq = _chord(P[0], a, h, x0), _chord(Q[0], a, h, x0)
        tp, tq = _tangent(P[1], t, h, x0, sp[side]), _tangent(Q[1], t, h, x0, sq[side])
        if alpha > 1:
            up, down = [(alpha, cp), (1 - alpha, tq)], [(alpha, tp), (1 - alpha, cq)]
        else:
            up, down = [(alpha, cp), (1 - alpha, cq)], [(alpha, tp), (1 - alpha, tq)]
        for terms, sign, out in ((up, 1.0, out_hi), (down, -1.0, out_lo)):
            l0 = sum(k * v[0] for k, v in terms) + sign * cst
            slope = sum(k * v[1] for k, v in terms)
            mag = sum(abs(k) * (v[2] + np.abs(v[1]) * h) for k, v in terms) + np.abs(cst) + np.abs(slope) * h
            val = _line_log_integral(l0, slope, x1 - x0)
            out.append(val + sign * (_PAD * (1 + mag + np.abs(val))))
    return np.concatenate(out_hi), np.concatenate(out_lo)


def _outside_bound(arb, alpha, lo, hi, Pf, Qf, th2, totals, shapes=None):
    r"""Upper bound (arb) of :math:`\int_{lo}^{hi} p^\alpha q^{1-\alpha}` on an interval holding no mean, or None.

    ``lo``/``hi`` are floats (None: :math:`\mp\infty`).  No component's mean lies inside, so on the
    interval every component of a prior left of it is at most itself moved to the largest such mean,
    and every component right of it at most itself moved to the smallest (a Gaussian density falls with
    the distance; for :math:`\alpha<1` the moved components also hold at least the mass inside).  The
    moved components, their weights summed per variance, bound the density; :math:`q` is bounded
    below by any one of its components (:math:`\alpha>1`: candidates by :func:`_candidates`).
    ``_gauss_outside`` then integrates exactly (erfc).  ``shapes``: the :class:`_Shape` of each prior
    (found here where not given); with sorted means and one variance the components beyond an end
    are a slice, found by bisection.
    """
    lo_b = None if lo is None else arb(lo)
    hi_b = None if hi is None else arb(hi)
    if shapes is None:
        shapes = _Shape.of(Pf, float(th2.mid())), _Shape.of(Qf, float(th2.mid()))

    def collapsed(w, m, v, total, shape):
        out_w, out_m, out_v = [], [], []
        lo_f = lo if lo is not None else -np.inf
        hi_f = hi if hi is not None else np.inf
        if shape.one_v and shape.sorted:  # the components beyond each end: a slice of the sorted means
            for side, sl in (
                ("left", slice(0, int(np.searchsorted(m, lo_f, side="right")))),  # m <= lo
                ("right", slice(int(np.searchsorted(m, hi_f, side="left")), m.size)),  # m >= hi
            ):
                if sl.stop <= sl.start:
                    continue
                at = arb(float(m[sl.stop - 1] if side == "left" else m[sl.start]))
                s = float(w[sl].sum())
                out_w.append(arb(s, s * (sl.stop - sl.start + 2) * _U) / total)
                out_m.append(at)
                out_v.append(arb(float(v[0])) + th2)
            return out_w, out_m, out_v
        for side, sel in (("left", m <= lo_f), ("right", m >= hi_f)):
            if not sel.any():
                continue
            at = arb(float(m[sel].max() if side == "left" else m[sel].min()))
            one = shape.one_v  # one variance: no grouping to do
            for var in [float(v[0])] if one else np.unique(v[sel]):
                grp = sel if one else sel & (v == var)
                s = float(w[grp].sum())
                out_w.append(arb(s, s * (int(grp.sum()) + 2) * _U) / total)
                out_m.append(at)
                out_v.append(arb(float(var)) + th2)
        return out_w, out_m, out_v

    P = collapsed(Pf[0], Pf[1], Pf[2], totals[0], shapes[0])
    if alpha > 1:
        Q = _candidates(arb, Qf, th2, totals[1], lo, hi, shapes[1])
    else:
        Q = collapsed(Qf[0], Qf[1], Qf[2], totals[1], shapes[1])
    return _gauss_outside(arb, alpha, lo_b, hi_b, P, Q)


def _candidates(arb, Qf, th2, total, lo, hi, shape=None):
    """Up to 24 components of q (arb lists): the eight largest at each end of the interval and the eight widest.

    Any one component bounds q from below; ``_gauss_outside`` takes the best for each component of p.
    """
    w, m, v = Qf
    if shape is None:
        shape = _Shape.of(Qf, float(th2.mid()))

    def top8(x):  # the indices of the eight largest (any order; a partition, linear in the size)
        return np.arange(x.size) if x.size <= 8 else np.argpartition(-x, 7)[:8]

    one = shape.one_v  # one variance: any component is the widest
    picks = [np.arange(min(v.size, 1))] if one else [top8(v)]
    # a sample (one weight, one variance, sorted means): the largest at an end are the nearest to it
    sample = shape.sample
    for end in (lo, hi):
        if end is not None and sample:
            k = int(np.searchsorted(m, end))
            picks.append(np.arange(max(k - 8, 0), min(k + 8, m.size)))  # the eight nearest among them
        elif end is not None:
            s2 = v + float(th2.mid())
            with np.errstate(divide="ignore"):
                picks.append(top8(np.log(w) - (end - m) ** 2 / (2 * s2)))
    pick = np.unique(np.concatenate(picks))
    return (
        [arb(float(w[k])) / total for k in pick],
        [arb(float(m[k])) for k in pick],
        [arb(float(v[k])) + th2 for k in pick],
    )


def _convex_gaussian(flint, Pf, Qf, alpha, theta, *, max_points=1 << 19, fast_min=None, at_most=None):
    r"""Proved enclosure of :math:`D_\alpha` under Gaussian noise for priors with many components, or a refusal.

    With noise :math:`N(0,\theta^2)` every noisy density :math:`p = P * N(0,\theta^2)` makes
    :math:`g_p(x) = \log p(x) + x^2/(2\theta^2)` **convex** (it is the log of a moment generating
    function of :math:`P`).  On a panel :math:`[a, b]` with midpoint :math:`t`, a convex :math:`g`
    lies below its chord and above its tangent at :math:`t`, and
    :math:`x^2/(2\theta^2)` differs from its own chord and tangent by at most
    :math:`C = \max((t-a)^2, (b-t)^2)/(2\theta^2)`.  Writing
    :math:`\log(p^\alpha q^{1-\alpha}) = \alpha g_p + (1-\alpha) g_q - x^2/(2\theta^2)`:

    * :math:`\alpha > 1`: :math:`\alpha\,\mathrm{chord}(\log p) + (1-\alpha)\,\mathrm{tan}_t(\log q) + \alpha C`
      bounds the log of the integrand above and
      :math:`\alpha\,\mathrm{tan}_t(\log p) + (1-\alpha)\,\mathrm{chord}(\log q) - \alpha C` below;
    * :math:`0 < \alpha < 1`: both chords :math:`+\,C` above, both tangents :math:`-\,C` below;

    each bound is linear on the half panels, whose integral :math:`e^{l_0}(e^{Bw}-1)/B` is closed.
    The panels cover windows of :math:`K` noisy standard deviations around every mean (merged where
    they overlap), each window in coordinates moved by one of its own means, so a tight cluster far
    from the rest is evaluated at its own scale.  :math:`\log p`, :math:`\log q` and their
    derivatives are evaluated at the panel ends and midpoints in floating point with outward bounds
    (:func:`_logpdf_bounds`: every mean's rounding after the move counted, every product's rounding
    bounded, every exp, log and sum padded by ``_PAD``, 1e-12 relative: about 4500 unit round-offs,
    where numpy documents at most 4 ulp for exp and log).  A prior of at least ``FAST_MIN`` components
    of one variance (a sample: atoms plus the noise) is bounded instead by the fast Gauss transform
    with outward rounding (``rpp/divergence/_fast_gauss_bounds.py``: a fixed cost per point, whatever
    the number of atoms), which gives :math:`\log p` but not its derivative; the lower lines then take
    secants through the neighbouring panel ends, valid by the same convexity (:func:`_slopes`; where
    the derivative is known, the tighter of the two).  ``fast_min`` overrides ``FAST_MIN`` (tests).
    Panels start at a quarter of the narrowest
    noisy standard deviation and are halved where the two bounds differ most, until the integral's
    relative width is below 1e-5 of :math:`|\log I|` (clamped to [1e-9, 1e-6]; 1e-4 and [1e-9, 1e-5] beyond 256
    components in all).  Outside the windows
    (the gaps and the tails) :func:`_outside_bound` bounds the integral in arb; :math:`K` grows until
    that is below :math:`2^{-40}` of the body.
    """
    arb = flint.arb
    wp, wq = Pf[0], Qf[0]
    th2 = theta * theta
    th2_lo = th2 * (1 - 2 * _U)
    th2_b = arb(theta) * arb(theta)
    tot_p, tot_q = float(wp.sum()), float(wq.sum())
    totals = (arb(tot_p, tot_p * (wp.size + 2) * _U), arb(tot_q, tot_q * (wq.size + 2) * _U))
    # what every pass below needs to know of a prior, found once (a sample of many atoms: sorted means,
    # one weight and one variance; its arrays are not walked again where a sorted slice or a scalar serves)
    shape_p, shape_q = _Shape.of(Pf, th2), _Shape.of(Qf, th2)
    fast_min = FAST_MIN if fast_min is None else fast_min
    made_fast = {"p": wp.size >= fast_min and shape_p.one_v, "q": wq.size >= fast_min and shape_q.one_v}
    make_bounds = _row_maker((Pf, Qf), (tot_p, tot_q), (shape_p, shape_q), fast_min)
    sd_min = math.sqrt(min(shape_p.s2_min, shape_q.s2_min))  # sqrt is monotone and correctly rounded
    found = _convex_range(
        arb, alpha, Pf, Qf, th2_b, totals, (shape_p, shape_q), sd_min, make_bounds, th2_lo, max_points
    )
    if isinstance(found, str):
        return found
    frames, out, low = found
    # the integral to 1e-5 of |log I| = (alpha - 1) D, between 1e-9 and 1e-6 (relative), up to 256 components
    # in all; to 1e-4 (between 1e-9 and 1e-5) beyond, where every point costs more: D to about 1e-5 or
    # 1e-4, what a calibration's proof costs in noise (the panels' number grows like 1/sqrt of this)
    few = wp.size + wq.size <= FEW_COMPONENTS
    rel_tol = min(1e-6 if few else 1e-5, max(1e-9, _convex_share(wp.size + wq.size) * abs(float(low))))
    his, los = [], []
    # the halving stops at about 1e8 component evaluations (a few seconds): with many atoms summed
    # directly the enclosure is wider (1e-5 to 1e-4 of (alpha - 1) D at 10,000 atoms), never wrong; a
    # prior bounded by the fast Gauss transform costs about 300 components a point, whatever its size
    cost = sum(min(w.size, 300) if fast else w.size for w, fast in ((wp, made_fast["p"]), (wq, made_fast["q"])))
    budget = min(max_points, max(1 << 13, int(1e8 // cost)))
    cap, floor = _decision_bounds(alpha, at_most, out, len(frames))
    for c, L, U in frames:
        ends = np.linspace(L, U, math.ceil((U - L) / (sd_min / 4)) + 1)
        ends[0], ends[-1] = L, U
        body = _convex_body(alpha, ends, make_bounds(c), th2_lo, rel_tol, budget, cap=cap, floor=floor)
        if isinstance(body, str):
            return body
        his.append(body[0])
        los.append(body[1])
    log_hi, log_lo = _lse(np.array(his)), _lse(np.array(los))
    pad = 4 * len(his) * _U + _PAD
    log_hi += pad + _PAD * abs(log_hi)
    log_lo -= pad + _PAD * abs(log_lo)
    I_hi = arb(float(log_hi)).exp()
    I_lo = arb(float(log_lo)).exp()
    # D >= 0: I >= 1 when alpha > 1, I <= 1 when alpha < 1
    lo_end = arb(I_lo.lower())
    hi_end = arb(I_hi.upper()) + out
    if alpha > 1 and lo_end < 1:
        lo_end = arb(1)
    if alpha < 1 and hi_end > 1:
        hi_end = arb(1)
    I = lo_end.union(hi_end)
    return _result(flint, I, alpha)


def _row_maker(comps, tots, shapes, fast_min):
    """Return ``make_bounds(c)``: the evaluator ``(which, t) -> rows (lo, hi, dlo, dhi)`` of each prior moved by ``c``.

    ``which`` is ``"p"`` or ``"q"``.  A prior of at least ``fast_min`` components of one noisy
    variance is bounded by a ``GaussSum`` (``_fast_gauss_bounds``; kept in ``_SUMS``
    by content, for the other order of the pair), the others by :func:`_logpdf_bounds`.  The rows'
    inputs (log weights, moved means, their roundings, the noisy variances) are made on first use
    only: a sum the other order made already needs none of them.
    """
    made: dict[float, Any] = {}

    def prior(comp, tot, shape, c):
        memo: dict[str, tuple] = {}

        def moved():  # the means moved by c, and the bounds of that rounding (u |fl(m - c)|)
            if "m" not in memo:
                mc = comp[1] - c
                eta = np.abs(mc)
                eta *= _U
                memo["m"] = mc, eta
            return memo["m"]

        def args():
            if "a" not in memo:
                s2 = shape.s2_array()
                memo["a"] = (_logw(comp[0], tot, shape), *moved(), s2, s2 * (1 - 4 * _U), s2 * (1 + 4 * _U))
            return memo["a"]

        if comp[1].size < fast_min or shape.s2_one is None:
            return lambda t: _logpdf_bounds(t, *args())
        # everything the sum is made of: the weights, the means, the one variance and the centre
        sd2 = shape.s2_one
        k = _cache.key(comp[0], comp[1], sd2, float(c))
        fast = _SUMS.get(k)
        if fast is None:
            lw = _logw(comp[0], tot, shape, floats=True)
            mc, eta = moved()
            fast = _SUMS.put(k, GaussSum(lw, mc, eta, sd2, sd2 * (1 - 4 * _U), sd2 * (1 + 4 * _U)))
        return lambda t: _fast_rows(fast, t, args)

    def make_bounds(c):
        if c not in made:
            pp, qq = (prior(comp, tot, shape, c) for comp, tot, shape in zip(comps, tots, shapes, strict=True))
            made[c] = lambda which, t: (pp if which == "p" else qq)(t)
        return made[c]

    return make_bounds


def _frames(arb, wins, means):
    """Each window as ``(c, L, U)``: moved by a mean ``c`` inside it, its ends ``c + L``, ``c + U`` exact (checked in arb).

    ``means``: sorted arrays (one per prior, not merged); ``c`` is the mean of them all nearest the
    window's middle, the lower of two at equal distance.

    So the windows, the gaps and the tails tile the line exactly; where the sums are not exact, ``c = 0``.
    """
    frames = []
    for lo, hi in wins:
        mid = 0.5 * lo + 0.5 * hi
        # each array is sorted: its means inside are a slice, and the one nearest the middle is beside
        # where the middle would go; the nearest of all is the nearest of these (the lower at a tie)
        best = None
        for ms in means:
            inside = ms[np.searchsorted(ms, lo, side="left") : np.searchsorted(ms, hi, side="right")]
            if inside.size:
                k = int(np.searchsorted(inside, mid))
                for x in inside[max(k - 1, 0) : k + 1]:
                    x = float(x)
                    if best is None or (abs(x - mid), x) < (abs(best - mid), best):
                        best = x
        c = best if best is not None else float(mid)
        L, U = lo - c, hi - c
        if not ((arb(L) + arb(c)) == arb(lo) and (arb(U) + arb(c)) == arb(hi)):
            L, U, c = lo, hi, 0.0
        frames.append((c, L, U))
    return frames


def _envelopes(alpha, Pf, Qf, t2):
    """(centres, widths) of the integrand's Gaussian envelopes beyond both ends (floats), or two empty lists."""
    if not alpha > 1:
        return [], []
    (_, mp, vp), (_, mq, vq) = Pf, Qf
    # fl(v + t2) is non-decreasing in v, so max(v) + t2 is the largest of the sums (no array formed);
    # -min(m) is max(-m) exactly
    vpf, vqf = np.array([float(vp.max()) + t2]), np.array([float(vq.max()) + t2])
    if not alpha / vpf.max() + (1 - alpha) / vqf.max() > 0:
        return [], []
    (p_lo, p_hi), (q_lo, q_hi) = (float(mp.min()), float(mp.max())), (float(mq.min()), float(mq.max()))
    cr, wr = _gauss_envelope(alpha, np.array([p_hi]), vpf, np.array([q_hi]), vqf)
    cl, wl = _gauss_envelope(alpha, np.array([-p_lo]), vpf, np.array([-q_lo]), vqf)
    return [cr, -cl], [wr, wl]


def _convex_range(arb, alpha, Pf, Qf, th2_b, totals, shapes, sd_min, make_bounds, th2_lo, max_points):
    """Windows of K noisy sds around every mean, K grown until what lies outside is below 2**-40 of the body.

    Returns ``(frames, outside, log_low)`` (the frames of :func:`_frames`, the arb bound of the gaps and
    tails, a float lower bound of the log of the body from two noisy sds per panel) or a refusal.
    Where no range tried puts the outside below 2**-40 of the body (near the edge of the tail
    condition the integrand decays slowly), the widest one is returned: the outside's bound then
    widens the enclosure's upper end instead of being refused.  ``shapes``: the :class:`_Shape` of
    each prior (its means and noisy sds), ``sd_min`` the smallest noisy sd.
    """
    # where alpha > 1 and the first prior is the wider, the integrand's mass can lie beyond every mean,
    # under a Gaussian envelope: its windows join the components' where the components' do not suffice
    env = _envelopes(alpha, Pf, Qf, float(th2_b.mid()))
    tries = [(K, e) for K in (12.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0, 128.0) for e in (False, True)]
    last = None
    of_means: dict[float, list[tuple[float, float]]] = {}  # K -> the windows of the means alone
    for K, with_env in tries:
        if with_env and not env[0]:
            continue
        wins = _reach_windows(of_means, shapes, env if with_env else ([], []), K)
        if sum(math.ceil((hi - lo) / (sd_min / 4)) for lo, hi in wins) > max_points // 4:
            if last is not None:  # the widest range that fits, with its outside in the upper end
                return last
            return (
                "the windows around the priors' means span more than a hundred thousand quarters of the narrowest "
                "noisy standard deviation: the float panels of the convexity bound would not fit"
            )
        ends_abs = [None, *(x for w in wins for x in w), None]
        out = arb(0)
        for g in range(0, len(ends_abs), 2):
            o = _outside_bound(arb, alpha, ends_abs[g], ends_abs[g + 1], Pf, Qf, th2_b, totals, shapes)
            if o is None:
                return _gauss_refusal(concave=False)
            out += o
        if not out.is_finite():
            continue
        frames = _frames(arb, wins, [sh.m_sorted for sh in shapes])
        coarse = []
        for c, L, U in frames:
            grid = np.linspace(L, U, max(8, int((U - L) / (2 * sd_min))))
            coarse.append(_convex_body(alpha, grid, make_bounds(c), th2_lo, math.inf, max_points))
            if isinstance(coarse[-1], str):
                return coarse[-1]
        low = _lse(np.array([x[1] for x in coarse]))
        if out.upper() < arb(float(low)).exp() * 2.0**-40:
            return frames, out, low
        last = frames, out, low
    # the widest range tried: what lies outside stays in the upper end of the enclosure (valid, only wider)
    return last if last is not None else _gauss_refusal(concave=True)


def _reach_windows(of_means, shapes, env, K):
    """Windows of ``K`` sds around the means (made once per ``K`` in ``of_means``) and the envelopes ``env``.

    The same union as :func:`_windows` of all the centres: each prior's windows (sorted means of
    one width need no sort), then their union (:func:`_merged`, the same connected components).
    """
    if K not in of_means:
        of_means[K] = _merged([w for sh in shapes for w in _windows(sh.comp[1], sh.sd, K)])
    if not env[0]:
        return of_means[K]
    return _merged([*of_means[K], *((c - K * w, c + K * w) for c, w in zip(*env, strict=True))])


def _decision_bounds(alpha, at_most, out, frames):
    r"""Return ``(cap, floor)``: the log bounds each frame's body must meet for :math:`D \le` ``at_most``, or ``None``.

    :math:`D \le \varepsilon` is :math:`I \le e^{(\alpha-1)\varepsilon}` for :math:`\alpha > 1`
    (the upper end of the body plus ``out``, the arb bound of the outside, over ``frames`` bodies:
    each body's upper end below :math:`\log(e^{(\alpha-1)\varepsilon} - out) - \log(\text{frames})`)
    and :math:`I \ge e^{(\alpha-1)\varepsilon}` for :math:`\alpha < 1` (one frame only: the bodies'
    lower ends would have to be shared out by their unknown sizes).  Both are moved inward by
    :math:`10^{-9}(1 + |\log|)`, far more than the pads added after the body (about
    :math:`10^{-12}` relative), so a body stopped at its cap gives an enclosure whose upper end of
    :math:`D` is at most ``at_most``.  They only stop the halving early (:func:`_convex_body`); the
    enclosure is valid whatever they are.
    """
    if at_most is None:
        return None, None
    target = (alpha - 1) * at_most
    if not math.isfinite(target):
        return None, None
    margin = 1e-9 * (1 + abs(target))
    if alpha > 1:
        o = float(out.upper())
        if not (math.isfinite(o) and o >= 0):
            return None, None
        log_share = math.log(o) - target if o > 0 else -math.inf  # the outside's part of the cap
        if not log_share < math.log(0.5):
            return None, None
        return target + math.log1p(-math.exp(log_share) * (1 + 1e-9)) - math.log(frames) - margin, None
    if frames != 1:
        return None, None
    return None, target + margin


def _convex_body(alpha, ends, bounds, th2_lo, rel_tol, max_points, *, cap=None, floor=None):
    """Float bounds ``(log_hi, log_lo)`` of the integral on ``[ends[0], ends[-1]]``, panels halved where loosest.

    The halving stops at a relative width ``rel_tol`` of the integral, or earlier where a ``cap``
    (``floor``, from :func:`_decision_bounds`) is given and the padded upper end is already at
    most ``cap`` (the lower end at least ``floor``); while it is not, the panels are halved toward
    the width that would meet it, at most 16 times finer than ``rel_tol`` (about 4 times the
    points).
    """
    Pe, Qe = bounds("p", ends), bounds("q", ends)
    mids = 0.5 * (ends[:-1] + ends[1:])
    Pm, Qm = bounds("p", mids), bounds("q", mids)
    for _ in range(16):
        a, b = ends[:-1], ends[1:]
        C = np.maximum((mids - a) ** 2, (b - mids) ** 2) / (2 * th2_lo) * (1 + 8 * _U)
        hi, lo = _half_panels(alpha, ends, mids, (Pe, Pm), (Qe, Qm), C, th2_lo)
        n = mids.size
        ph, pl = np.logaddexp(hi[:n], hi[n:]), np.logaddexp(lo[:n], lo[n:])
        if not (np.all(np.isfinite(ph)) or np.all(ph < np.inf)):
            return "a float bound of the integrand was not finite on a panel"
        top = float(ph.max())
        gap = np.exp(ph - top) - np.exp(pl - top)
        s_lo = float(np.exp(pl - top).sum())
        if not s_lo > 0:
            return "the float lower bound of the integral vanished on every panel"
        want = rel_tol * s_lo  # the summed gap (in units of e^top) that ends the halving
        if cap is not None or floor is not None:
            up, down = _padded(hi, lo)
            if (cap is not None and up <= cap) or (floor is not None and down >= floor):
                break  # decided: the caller's bound is met
            # the gap that would meet it, where it still can be met (else rel_tol alone)
            # (exponents clipped at 700: beyond it the bound is either met already or out of reach)
            if cap is not None:
                room = math.exp(min(cap - top, 700.0)) - s_lo
            else:
                room = s_lo + float(gap.sum()) - math.exp(min(floor - top, 700.0))
            if room > 0:  # toward the width that decides (less 1e-9 for the pads), at most 16 times finer than rel_tol
                want = max(want / 16, room - 1e-9 * (s_lo + room))
        if gap.sum() <= want or ends.size + mids.size > max_points:
            break
        split = gap > 0.25 * want / n
        # the split panels' midpoints become ends; their halves' midpoints are new
        q1 = 0.5 * (a[split] + mids[split])
        q3 = 0.5 * (mids[split] + b[split])
        B1, B3 = (bounds("p", q1), bounds("q", q1)), (bounds("p", q3), bounds("q", q3))
        new_ends = np.concatenate([ends, mids[split]])
        order = np.argsort(new_ends, kind="stable")
        ends = new_ends[order]
        Pe = np.concatenate([Pe, Pm[:, split]], axis=1)[:, order]
        Qe = np.concatenate([Qe, Qm[:, split]], axis=1)[:, order]
        starts = np.concatenate([a[~split], a[split], mids[split]])
        new_mids = np.concatenate([mids[~split], q1, q3])
        o2 = np.argsort(starts, kind="stable")
        mids = new_mids[o2]
        Pm = np.concatenate([Pm[:, ~split], B1[0], B3[0]], axis=1)[:, o2]
        Qm = np.concatenate([Qm[:, ~split], B1[1], B3[1]], axis=1)[:, o2]
    return _padded(hi, lo)


def _padded(hi, lo):
    """``(log_hi, log_lo)``: the log-sum-exp of the half panels' bounds, padded outward for its rounding."""
    pad = 4 * hi.size * _U + _PAD
    up, down = _lse(hi), _lse(lo)
    return up + pad + _PAD * abs(up), down - pad - _PAD * abs(down)


def _lse(x):
    """Float log-sum-exp (padded by the caller)."""
    top = float(x.max())
    return top + math.log(float(np.exp(x - top).sum()))
