r"""Independent rigorous enclosures of Rényi divergences of noisy outputs (arb, via python-flint).

Used only by the tests (``rpp`` never imports it).  It reads the priors' public attributes
and computes, for :math:`\alpha > 1`,

.. math::

    D_\alpha(P * Z \,\|\, Q * Z) = \frac{1}{\alpha-1}\log I, \qquad I = \int p_Z^\alpha q_Z^{1-\alpha},

as an arb ball (``flint.arb``) that contains the true value:

* the body :math:`[L, U]` is integrated by ``flint.acb.integral`` (arb's rigorous
  Gauss-Legendre with error bounds from the analytic continuation of the integrand;
  the ``analytic`` flag is honoured through ``acb.log(analytic=...)``);
* the two tails beyond :math:`L` and :math:`U` are enclosed by bounds proved below and
  computed in arb arithmetic.

Gaussian noise (variance ``t``).  The noisy laws are Gaussian mixtures (components
:math:`N(\mu_k, v_k + t)`; atoms have :math:`v_k = 0`).  For :math:`x \ge U \ge \max_k \mu^P_k`:
:math:`p(x) \le e^{-(x-a)^2/(2V_P)}/\sqrt{2\pi v_{P,\min}}` (:math:`a = \max_k\mu^P_k`,
:math:`V_P = \max_k v^P_k`) and :math:`q(x) \ge w_l\,\varphi(x; \mu_l, v_l)` for one component
:math:`l`.  So :math:`p^\alpha q^{1-\alpha} \le e^{g(x)}` with :math:`g` a quadratic; if
:math:`g` is concave (:math:`\alpha/V_P \ge (\alpha-1)/v_l`) and :math:`g'(U) < 0`, then
:math:`g(x) \le g(U) + g'(U)(x-U)` and the tail is at most :math:`e^{g(U)}/|g'(U)|`.  This
also covers the edge of the tail condition (:math:`\alpha/V_P = (\alpha-1)/V_Q`), where only
the linear terms decay.  The sign of :math:`\alpha/V_P - (\alpha-1)/V_Q` is decided in exact
rational arithmetic (``fractions.Fraction`` of the floats): negative means
:math:`I = \infty`.

Laplace noise (scale ``b``).  With :math:`\ell_b(z) = e^{-|z|/b}/(2b)`, an atom at :math:`x_k`
gives :math:`\ell_b(y - x_k)`, analytic between consecutive atoms (the body is split at every
atom, "the kinks"); a component :math:`N(\mu, s^2)` gives the entire function
:math:`\frac{1}{2b}e^{s^2/(2b^2)}[e^{-z/b}\Phi(z/s - s/b) + e^{z/b}\Phi(-z/s - s/b)]`,
:math:`z = y - \mu`.  Tails: since :math:`e^{-|y-X|/b} \le e^{-(y-X)/b}`,
:math:`p(y) \le A_P e^{-y/b}/(2b)` with :math:`A_P = \sum_k w_k e^{\mu_k/b + s_k^2/(2b^2)}`
for every :math:`y`; keeping only :math:`X \le y`,
:math:`p(y) \ge e^{-y/b}/(2b)\sum_k w_k e^{\mu_k/b + s_k^2/(2b^2)}\Phi((U-\mu_k)/s_k - s_k/b)`
for :math:`y \ge U` (:math:`\Phi = 1` for an atom :math:`\le U`).  Hence the right tail of
:math:`p^\alpha q^{1-\alpha}` lies between :math:`B_P^\alpha A_Q^{1-\alpha} e^{-U/b}/2` and
:math:`A_P^\alpha B_Q^{1-\alpha} e^{-U/b}/2` (equal for atoms); the left tail is the mirror image.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from flint import acb, arb, ctx

import rpp

__all__ = ["gaussian_noise_divergence", "laplace_noise_divergence", "mixture_view", "upper", "lower"]

PREC = 128  # bits of the arb working precision
_REL_TOL = 2.0**-56  # target relative accuracy of each body integral (rpp claims ~1e-13)
_TAIL_REL = 1e-25  # the tails are pushed out until their bound is below this fraction of the body


def mixture_view(prior):
    """``(weights, means, variances)`` of an rpp prior as float arrays (variance 0 for atoms)."""
    if isinstance(prior, rpp.Gaussian):
        return np.ones(1), np.array([prior.mean], float), np.array([prior.var], float)
    if isinstance(prior, rpp.GaussianMixture):
        return np.asarray(prior.weights, float), np.asarray(prior.means, float), np.asarray(prior.vars, float)
    if isinstance(prior, rpp.Empirical):
        return np.asarray(prior.probs, float), np.asarray(prior.support, float), np.zeros(prior.support.size)
    raise TypeError(type(prior).__name__)


def upper(ball) -> float:
    """A float >= every point of the real arb ball (``inf`` for an infinite value)."""
    if isinstance(ball, float):
        return ball
    u = float(ball.upper())
    return u + abs(u) * 2.0**-50 + 1e-300  # float() rounds to nearest: step outward


def lower(ball) -> float:
    """A float <= every point of the real arb ball."""
    if isinstance(ball, float):
        return ball
    x = float(ball.lower())
    return x - abs(x) * 2.0**-50 - 1e-300


def _integral(f, a: float, b: float, scale: float):
    """arb ball of int_a^b f; ``scale`` (a rough size of the whole integral) sets the absolute tolerance."""
    val = acb.integral(f, a, b, rel_tol=_REL_TOL, abs_tol=scale * _REL_TOL, eval_limit=10**6, depth_limit=10**4)
    return val.real


def _divergence_of(I, alpha):
    if not I.is_finite() or not (I > 0):
        raise ArithmeticError(f"reference integral not enclosed: {I}")
    return I.log() / (arb(alpha) - 1)


# ----------------------------------------------------------------------------------------
# Gaussian noise
# ----------------------------------------------------------------------------------------


def _gauss_log_density(w, m, v):
    """The analytic log of sum_k w_k N(x; m_k, v_k) on complex balls (v_k > 0)."""
    terms = [(arb(wk) / (2 * arb.pi() * vk).sqrt(), arb(mk), -1 / (2 * vk)) for wk, mk, vk in zip(w, m, v, strict=True)]

    def logpdf(x, analytic):
        s = acb(0)
        for c, mk, a in terms:
            s += c * (a * (x - mk) ** 2).exp()
        return s.log(analytic=analytic)

    return logpdf


def _gauss_right_tail(alpha, U, P, Q):
    """Upper bound on int_U^inf p^a q^(1-a) (see the module docstring); None if it does not apply."""
    (_, mp, vp), (wq, mq, vq) = P, Q
    fp, fq = [float(x.mid()) for x in vp], [float(x.mid()) for x in vq]
    a_top, VP, vpmin = max(mp), vp[int(np.argmax(fp))], vp[int(np.argmin(fp))]
    l = max((k for k in range(len(vq)) if fq[k] == max(fq)), key=lambda k: mq[k])
    al = arb(alpha)
    x = arb(U)

    def g(x):
        logp = -((x - a_top) ** 2) / (2 * VP) - (2 * arb.pi() * vpmin).log() / 2
        logq = arb(wq[l]).log() - (x - arb(mq[l])) ** 2 / (2 * vq[l]) - (2 * arb.pi() * vq[l]).log() / 2
        return al * logp + (1 - al) * logq

    slope = -al * (x - a_top) / VP + (al - 1) * (x - arb(mq[l])) / vq[l]
    if not (slope < 0) or U < max(max(mp), max(mq)):
        return None
    return g(x).exp() / (-slope)


def _breakpoints(m, v, L, U):
    sd = np.sqrt(v)
    pts = np.concatenate([(m[:, None] + sd[:, None] * np.array([-8, -4, -2, 0, 2, 4, 8])).ravel(), [L, U]])
    pts = np.unique(np.clip(pts, L, U))
    # no panel wider than (U - L) / 16, so that acb.integral starts from reasonable pieces
    out = [pts[0]]
    for b in pts[1:]:
        k = int(np.ceil((b - out[-1]) / ((U - L) / 16)))
        out.extend(np.linspace(out[-1], b, k + 1)[1:])
    return np.array(out)


def _float_estimate(alpha, P, Q):
    """Rough float value of int p^a q^(1-a) for two Gaussian mixtures (only to choose the range)."""
    (wp, mp, vp), (wq, mq, vq) = P, Q
    sd = np.sqrt(np.concatenate([vp, vq]))
    x = np.unique(
        np.concatenate([np.linspace(m - 30 * s, m + 30 * s, 2001) for m, s in zip(np.r_[mp, mq], sd, strict=True)])
    )

    def logpdf(w, m, v):
        lp = np.log(w) - 0.5 * np.log(2 * np.pi * v) - (x[:, None] - m) ** 2 / (2 * v)
        return np.logaddexp.reduce(lp, axis=1)

    f = np.exp(alpha * logpdf(wp, mp, vp) + (1 - alpha) * logpdf(wq, mq, vq))
    return float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(x)))


def gaussian_noise_divergence(p, q, alpha: float, noise_var: float):
    """Arb ball containing D_alpha(p * N(0, t) || q * N(0, t)) for alpha > 1, or ``math.inf``.

    Parameters
    ----------
    p, q : rpp priors (Gaussian, GaussianMixture or Empirical)
    alpha : float, > 1
    noise_var : float, t >= 0 (t > 0 when a prior has atoms)
    """
    assert alpha > 1
    old = ctx.prec
    ctx.prec = PREC
    try:
        wp, mp, vp = mixture_view(p)
        wq, mq, vq = mixture_view(q)
        vp_ex = [Fraction(x) + Fraction(noise_var) for x in vp]
        vq_ex = [Fraction(x) + Fraction(noise_var) for x in vq]
        assert min(vp_ex) > 0 and min(vq_ex) > 0
        # exact sign of the tail condition alpha / V_P - (alpha - 1) / V_Q
        cond = Fraction(alpha) / max(vp_ex) - (Fraction(alpha) - 1) / max(vq_ex)
        if cond < 0:
            return math.inf
        VP = [arb(x.numerator) / x.denominator for x in vp_ex]
        VQ = [arb(x.numerator) / x.denominator for x in vq_ex]
        P, Q = (wp, mp, VP), (wq, mq, VQ)
        lp, lq = _gauss_log_density(wp, mp, VP), _gauss_log_density(wq, mq, VQ)
        al = acb(alpha)

        def f(x, analytic):
            return (al * lp(x, analytic) + (1 - al) * lq(x, analytic)).exp()

        means = np.concatenate([mp, mq])
        sd = math.sqrt(float(max(max(vp_ex), max(vq_ex))))
        # choose the range with a float estimate of the body (rigour comes from the final check)
        est = _float_estimate(alpha, (wp, mp, np.asarray(vp) + noise_var), (wq, mq, np.asarray(vq) + noise_var))
        T = 12 * sd + 1.0
        for _ in range(60):
            L, U = float(means.min() - T), float(means.max() + T)
            tr = _gauss_right_tail(alpha, U, P, Q)
            tl = _gauss_right_tail(alpha, -L, (wp, -mp, VP), (wq, -mq, VQ))
            if tr is not None and tl is not None and upper(tr + tl) < est * _TAIL_REL:
                brk = _breakpoints(np.concatenate([mp, mq]), np.array([float(x) for x in VP + VQ]), L, U)
                body = sum(
                    (_integral(f, float(a), float(b), est / brk.size) for a, b in itertools.pairwise(brk)),
                    arb(0),
                )
                if upper(tr + tl) < lower(body) * _TAIL_REL:
                    return _divergence_of(body + arb(0).union(tr + tl), alpha)
            T *= 1.25
        return math.inf  # tails not controlled: no finite enclosure
    finally:
        ctx.prec = old


# ----------------------------------------------------------------------------------------
# Laplace noise
# ----------------------------------------------------------------------------------------


def _Phi(z):
    return (-z / arb(2).sqrt()).erfc() / 2


def _laplace_log_density(w, m, v, b, lo, hi):
    """Analytic log of (prior * Lap(b)) on the panel [lo, hi] (no atom strictly inside)."""
    bb = arb(b)
    terms = []
    for wk, mk, vk in zip(w, m, v, strict=True):
        if vk == 0:
            sign = 1 if mk <= lo else -1  # |y - x_k| = sign (y - x_k) on the panel
            assert mk <= lo or mk >= hi
            terms.append(("atom", arb(wk) / (2 * bb), arb(mk), sign))
        else:
            s = arb(vk).sqrt()
            terms.append(("gauss", arb(wk) / (2 * bb) * (s * s / (2 * bb * bb)).exp(), arb(mk), s))

    def logpdf(y, analytic):
        tot = acb(0)
        for kind, c, mk, extra in terms:
            z = y - mk
            if kind == "atom":
                tot += c * (-extra * z / bb).exp()
            else:
                s = extra
                tot += c * ((-z / bb).exp() * _Phi(z / s - s / bb) + (z / bb).exp() * _Phi(-z / s - s / bb))
        return tot.log(analytic=analytic)

    return logpdf


def _laplace_tail_coeffs(w, m, v, b, U):
    """(A, B): p(y) <= A e^{-y/b} / (2b) for all y, p(y) >= B e^{-y/b} / (2b) for y >= U."""
    bb = arb(b)
    A, B = arb(0), arb(0)
    for wk, mk, vk in zip(w, m, v, strict=True):
        c = arb(wk) * (arb(mk) / bb + arb(vk) / (2 * bb * bb)).exp()
        A += c
        if vk == 0:
            B += c if mk <= U else 0
        else:
            s = arb(vk).sqrt()
            B += c * _Phi((arb(U) - mk) / s - s / bb)
    return A, B


def _laplace_tail(alpha, U, P, Q, b):
    """Ball containing int_U^inf p^a q^(1-a) for Laplace noise (alpha > 1, U >= every atom)."""
    Ap, Bp = _laplace_tail_coeffs(*P, b, U)
    Aq, Bq = _laplace_tail_coeffs(*Q, b, U)
    al = arb(alpha)
    e = (-arb(U) / b).exp() / 2
    hi = Ap**al * Bq ** (1 - al) * e
    lo = Bp**al * Aq ** (1 - al) * e
    return lo.union(hi)


def _sampled_estimate(P, Q, alpha, b, pts):
    """Rough float value of the body integral (trapezoid on 8 points per panel; only sets tolerances)."""
    total = 0.0
    for lo, hi in itertools.pairwise(pts):
        ys = np.linspace(lo, hi, 8)
        lp = _laplace_log_density(*P, b, lo, hi)
        lq = _laplace_log_density(*Q, b, lo, hi)
        fs = [float((alpha * lp(acb(y), False) + (1 - alpha) * lq(acb(y), False)).exp().real.mid()) for y in ys]
        total += float(np.sum(0.5 * (np.add(fs[1:], fs[:-1])) * np.diff(ys)))
    return max(total, 1e-300)


def laplace_noise_divergence(p, q, alpha: float, b: float):
    """Arb ball containing D_alpha(p * Lap(b) || q * Lap(b)) for alpha > 1 and b > 0."""
    assert alpha > 1 and b > 0
    old = ctx.prec
    ctx.prec = PREC
    try:
        P, Q = mixture_view(p), mixture_view(q)
        al = acb(alpha)
        atoms = np.unique(np.concatenate([P[1][P[2] == 0], Q[1][Q[2] == 0]]))
        means = np.concatenate([P[1], Q[1]])
        sds = np.sqrt(np.concatenate([P[2], Q[2]]))
        centre = np.concatenate([means + sds**2 / b + 10 * sds, means - sds**2 / b - 10 * sds])
        T = 40.0 * b
        for _ in range(30):
            L, U = float(centre.min() - T), float(centre.max() + T)
            tails = _laplace_tail(alpha, U, P, Q, b) + _laplace_tail(
                alpha, -L, (P[0], -P[1], P[2]), (Q[0], -Q[1], Q[2]), b
            )
            # panels: split at every atom (the kinks), and around the Gaussian components
            pts = np.concatenate([[L, U], atoms, (means[:, None] + sds[:, None] * np.arange(-8, 9, 2)).ravel()])
            pts = np.unique(np.clip(pts, L, U))
            est = _sampled_estimate(P, Q, alpha, b, pts)
            body = arb(0)
            for lo, hi in itertools.pairwise(pts):
                lp = _laplace_log_density(*P, b, lo, hi)
                lq = _laplace_log_density(*Q, b, lo, hi)

                def f(y, analytic, lp=lp, lq=lq):
                    return (al * lp(y, analytic) + (1 - al) * lq(y, analytic)).exp()

                body += _integral(f, float(lo), float(hi), est / pts.size)
            if upper(tails) < lower(body) * _TAIL_REL:
                return _divergence_of(body + tails, alpha)
            T *= 2
        return _divergence_of(body + tails, alpha)
    finally:
        ctx.prec = old
