r"""Rényi divergence of two noisy Gaussian mixtures exactly at the edge of the tail condition.

For :math:`\alpha > 1` and the noisy laws :math:`p = \sum_k w_k N(\mu_k, v_k)`,
:math:`q = \sum_l u_l N(\nu_l, s_l)` (component variances *including* the noise variance
:math:`t`), the integral :math:`I = \int p^\alpha q^{1-\alpha}` converges when
:math:`\alpha/V_P > (\alpha-1)/V_Q` and diverges when :math:`\alpha/V_P < (\alpha-1)/V_Q`
(:math:`V_P = \max_k v_k`, :math:`V_Q = \max_l s_l`): the tails are those of the widest
components (Yang et al. 2026, Cor. III.3 for two Gaussians).  This module decides the edge
:math:`\alpha/V_P = (\alpha-1)/V_Q =: r`, where the quadratic terms of the widest components'
exponents cancel and what is left is linear.

Criterion.  Let :math:`a_+ \ge a_-` be the largest and smallest means of the components of
:math:`p` of variance :math:`V_P`, and :math:`b_+ \ge b_-` those of :math:`q` of variance
:math:`V_Q`.  At the edge, :math:`I < \infty` iff :math:`a_+ < b_+` and :math:`a_- > b_-`.

Proof.  For every :math:`a, b`, at the edge
:math:`-\alpha\frac{(x-a)^2}{2V_P} + (\alpha-1)\frac{(x-b)^2}{2V_Q} = -k\,(x - \tfrac{a+b}{2})`
with :math:`k = r\,(b-a)`.  *Divergence*: if :math:`a_+ \ge b_+`, then for :math:`x\to\infty`
:math:`p(x) \ge w\,\varphi(x; a_+, V_P)` (:math:`w` the weight of one such component) and
:math:`q(x) = (1+o(1))\,u\,\varphi(x; b_+, V_Q)` (:math:`u` the total weight of the components
of variance :math:`V_Q` and mean :math:`b_+`; every other component is :math:`o` of them), so
:math:`p^\alpha q^{1-\alpha} \ge (1+o(1))\,c\,e^{r(a_+-b_+)x}` with :math:`c > 0`, which does not
tend to 0: :math:`I = \infty`; the left tail is the mirror image.  *Convergence* follows from
the tail bound below, and the body is a continuous function on a compact range.

Tail bound (right tail, :math:`x \ge U \ge` every mean; the left tail is the same bound for the
mirrored laws).  Split :math:`p = A + B`, :math:`A` the components of variance :math:`V_P`
(total weight :math:`W_A`), :math:`B` the others (total weight :math:`W_B`, largest mean
:math:`a_B`, variances in :math:`[v_{\min}, V_B]`, :math:`V_B < V_P`).  For :math:`x \ge U`,
:math:`\varphi(x; \mu, v) \le e^{-(x-a)^2/(2V)}/\sqrt{2\pi v_{\min}}` whenever
:math:`\mu \le a \le x` and :math:`v_{\min} \le v \le V`, so

.. math::

    A(x) \le W_A\,\varphi(x; a_+, V_P), \qquad
    B(x) \le W_B\,e^{-(x-a_B)^2/(2V_B)}/\sqrt{2\pi v_{\min}}, \qquad
    q(x) \ge u\,\varphi(x; b_+, V_Q),

and, as :math:`1-\alpha < 0` and :math:`(A+B)^\alpha \le 2^{\alpha-1}(A^\alpha + B^\alpha)`
(convexity; the factor is 1 when :math:`B = 0`),

.. math::

    \int_U^\infty p^\alpha q^{1-\alpha} \le 2^{\alpha-1}\Bigl[
    \frac{W_A^\alpha u^{1-\alpha}}{(2\pi V_P)^{\alpha/2}(2\pi V_Q)^{(1-\alpha)/2}}
    \frac{e^{-k(U - (a_++b_+)/2)}}{k}
    + \int_U^\infty e^{g(x)}\,dx\Bigr], \qquad k = r\,(b_+ - a_+) > 0,

where :math:`g` is the log of the bound on :math:`B^\alpha (u\varphi_{b_+})^{1-\alpha}`, a concave
quadratic (curvature :math:`\alpha(1/V_B - 1/V_P) > 0`), integrated in closed form with
``log_ndtr``.  The bounds are evaluated in floating point; their relative round-off (about
:math:`10^{-15}` of terms kept below :math:`e^{-60}` of the integral) is far inside the
:math:`10^{-13}` floor charged to every result.

The edge itself is decided in exact rational arithmetic (``fractions.Fraction`` of the floats)
on the widest prior variances plus the noise variance, so a float sum that rounds onto the
edge from the divergent side is not taken for it.  This module imports nothing from ``rpp``:
the caller passes its mixture log-density and its quadrature.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from scipy import special

__all__ = ["edge_log_integral", "edge_is_finite"]

_FLOAT_FLOOR = 1e-13  # as rpp.divergence: floating-point floor of every relative error


def _widest(comp):
    """``(mask of the widest components, their smallest mean, their largest mean)``."""
    w, m, v = _as_tuple(comp)
    wide = v == v.max()
    return wide, float(m[wide].min()), float(m[wide].max())


def edge_is_finite(p_comp, q_comp) -> bool:
    r"""At the edge :math:`\alpha/V_P = (\alpha-1)/V_Q`: is :math:`\int p^\alpha q^{1-\alpha}` finite?

    True iff :math:`a_+ < b_+` and :math:`a_- > b_-` (module docstring): the widest components
    of ``q`` reach strictly beyond those of ``p`` on both sides.

    Parameters
    ----------
    p_comp, q_comp : tuple of ndarray or rpp.distributions.Components
        ``(weights, means, variances)`` of the two mixtures (noise included or not: the
        widest components do not depend on it).

    Examples
    --------
    >>> one = np.ones(1)
    >>> edge_is_finite((one, np.zeros(1), 27 * one), (np.full(2, 0.5), np.array([-3.0, 3.0]), np.full(2, 18.0)))
    True
    >>> edge_is_finite((np.full(2, 0.5), np.array([-3.0, 3.0]), np.full(2, 27.0)), (one, np.zeros(1), 18 * one))
    False
    """
    _, a_lo, a_hi = _widest(p_comp)
    _, b_lo, b_hi = _widest(q_comp)
    return a_hi < b_hi and a_lo > b_lo


def _log_right_tail(alpha, U, P, Q):
    """Log of the bound of the module docstring on the right tail beyond ``U`` (>= every mean)."""
    wP, mP, vP = P
    wQ, mQ, vQ = Q
    wide, _, a = _widest(P)
    qwide, _, b = _widest(Q)
    VP, VQ = float(vP.max()), float(vQ.max())
    r = alpha / VP
    lu = np.log(wQ[qwide & (mQ == b)].sum())
    lq = (1 - alpha) * (lu - 0.5 * np.log(2 * np.pi * VQ))  # log (u phi_b)^(1-a) without the exponent
    k = r * (b - a)
    terms = [alpha * (np.log(wP[wide].sum()) - 0.5 * np.log(2 * np.pi * VP)) + lq - k * (U - 0.5 * (a + b)) - np.log(k)]
    if not wide.all():
        wB, mB, vB = wP[~wide], mP[~wide], vP[~wide]
        aB, VB = float(mB.max()), float(vB.max())
        c = alpha * (np.log(wB.sum()) - 0.5 * np.log(2 * np.pi * vB.min())) + lq
        curv = 0.5 * alpha * (1 / VB - 1 / VP)  # g(x) = c - curv x^2 + lin x + ...
        x0 = (alpha * aB / VB - (alpha - 1) * b / VQ) / (2 * curv)
        g0 = c - alpha * (x0 - aB) ** 2 / (2 * VB) + (alpha - 1) * (x0 - b) ** 2 / (2 * VQ)
        terms.append(g0 + 0.5 * np.log(np.pi / curv) + special.log_ndtr(-np.sqrt(2 * curv) * (U - x0)))
        terms = [t + (alpha - 1) * np.log(2) for t in terms]
    return float(special.logsumexp(terms))


def _as_tuple(comp):
    """``(weights, means, variances)`` of a tuple or of an object with those attributes."""
    return (comp.weights, comp.means, comp.variances) if hasattr(comp, "weights") else tuple(comp)


def _mirror(comp):
    w, m, v = comp
    return (w, -m, v)


def edge_log_integral(
    p_comp,
    q_comp,
    noise_var: float,
    alpha: float,
    log_mix: Callable[..., np.ndarray],
    integrate: Callable[..., tuple[float, float]],
) -> tuple[float, float] | None:
    r"""``(log I, rel_err)`` of :math:`I = \int p^\alpha q^{1-\alpha}` exactly at the edge, else None.

    ``None`` unless :math:`\alpha > 1` and :math:`\alpha (V_Q + t) = (\alpha - 1)(V_P + t)`
    holds exactly (rational arithmetic on the floats; :math:`V` the largest prior component
    variance, :math:`t` = ``noise_var``).  At the edge: ``(inf, 0.0)`` when
    :func:`edge_is_finite` is False, else the adaptive Gauss-Legendre quadrature ``integrate``
    (``rpp._numerics.integrate_log``) of ``alpha log p + (1 - alpha) log q`` on a range whose
    two tails are bounded by the exponential-type bound of the module docstring; ``rel_err``
    is the quadrature's error estimate + the tail bounds / I + a 1e-13 floor.

    Parameters
    ----------
    p_comp, q_comp : tuple of ndarray or rpp.distributions.Components
        ``(weights, means, variances)`` of the priors, without noise.
    noise_var : float
        Noise variance ``t >= 0``.
    alpha : float
        Order.
    log_mix : callable
        ``log_mix(x, w, m, v)``: log density of a Gaussian mixture at the points ``x``.
    integrate : callable
        ``integrate(log_f_mag, breaks) -> (log I, rel_err)``.

    Examples
    --------
    >>> from rpp._numerics import integrate_log
    >>> from scipy.stats import norm
    >>> def log_mix(x, w, m, v):
    ...     return special.logsumexp(norm.logpdf(x[:, None], m, np.sqrt(v)), b=w, axis=1)
    >>> P = (np.ones(1), np.zeros(1), np.full(1, 9.25))
    >>> Q = (np.full(2, 0.5), np.array([-3.0, 3.0]), np.full(2, 0.25))
    >>> log_i, err = edge_log_integral(P, Q, 17.75, 3.0, log_mix, integrate_log)
    >>> round(float(log_i / 2), 9), bool(err < 1e-11)  # chapter 4: D_3 = 0.006292288 at the edge
    (0.006292288, True)
    >>> edge_log_integral(P, Q, 17.75 + 1e-9, 3.0, log_mix, integrate_log) is None
    True
    """
    if not alpha > 1:
        return None
    p_comp, q_comp = (_as_tuple(c) for c in (p_comp, q_comp))
    VP, VQ, t, a = (Fraction(float(x)) for x in (np.max(p_comp[2]), np.max(q_comp[2]), noise_var, alpha))
    if a * (VQ + t) != (a - 1) * (VP + t):
        return None
    P = (p_comp[0], p_comp[1], p_comp[2] + noise_var)
    Q = (q_comp[0], q_comp[1], q_comp[2] + noise_var)
    if any((_widest(c)[0] != _widest(n)[0]).any() for c, n in ((p_comp, P), (q_comp, Q))):
        return np.inf, 0.0  # distinct prior variances rounded to one noisy variance: conservative
    if not edge_is_finite(P, Q):
        return np.inf, 0.0

    def log_f_mag(x):
        lp, lq = log_mix(x, *P), log_mix(x, *Q)
        return alpha * lp + (1 - alpha) * lq, np.abs(alpha * lp) + np.abs((1 - alpha) * lq)

    means = np.concatenate([P[1], Q[1]])
    sds = np.sqrt(np.concatenate([P[2], Q[2]]))
    r = alpha / float(P[2].max())
    # decay rates of the two tails (module docstring): e^{-k |x|}
    k_r = r * (_widest(Q)[2] - _widest(P)[2])
    k_l = r * (_widest(P)[1] - _widest(Q)[1])
    local = (means[:, None] + sds[:, None] * np.linspace(-12, 12, 13)).ravel()
    geo = sds.min() * 2.0 ** np.arange(-2, 60)
    T_r, T_l = 12 * sds.max() + 60 / k_r, 12 * sds.max() + 60 / k_l
    for _ in range(80):
        lo, hi = means.min() - T_l, means.max() + T_r
        # panels of 2/k (at most 400) in the exponential tails, geometric ones from the narrowest width
        n_r, n_l = (int(min(400, np.ceil(T * k / 2))) + 1 for T, k in ((T_r, k_r), (T_l, k_l)))
        tails = np.concatenate([np.linspace(means.max(), hi, n_r), np.linspace(lo, means.min(), n_l)])
        brk = np.unique(np.clip(np.concatenate([local, means.max() + geo, means.min() - geo, tails, [lo, hi]]), lo, hi))
        log_tr = _log_right_tail(alpha, hi, P, Q)
        log_tl = _log_right_tail(alpha, -lo, _mirror(P), _mirror(Q))
        probe = float(log_f_mag(brk)[0].max())
        if max(log_tr, log_tl) < probe - 60:
            break
        T_r, T_l = (1.5 * T_r, T_l) if log_tr >= probe - 60 else (T_r, 1.5 * T_l)
    log_i, rel = integrate(log_f_mag, brk)
    return log_i, rel + float(np.exp(np.logaddexp(log_tr, log_tl) - log_i)) + _FLOAT_FLOOR
