"""Falsification harness: each general statement of the book, sampled and searched for a counterexample.

For every statement below: a *margin*, ``>= 0`` exactly where the statement holds at a point of its
domain, written in floats (numpy) for the search and again in mpmath (50 digits) for the verdict;
a hypothesis strategy that samples the domain with its edges (delta = 0, alpha -> 1, equal
variances, the boundary of the domain); and a map from R^n onto the domain for the adversarial
search (Nelder-Mead on the float margin from random starts). A point counts as a counterexample
only if the mpmath margin is below -1e-40 (relative): a float margin within rounding decides
nothing. Nothing here calls ``rpp``: the statements are the book's, judged by formulas written out
again (``claims_lib``).

Two tiers: the fast one (a few seconds per statement) runs in ``make test``; the deep one
(``@pytest.mark.slow``) samples ten times more and searches from forty starts (a statement with an
expensive judge takes its ``deep`` share of that: at least four times the fast tier's examples and
twelve starts).
The label of each statement is its label in the book; ``book/claims.yml`` names these tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest
from claims_lib import (
    DPS,
    Search,
    ab_curve,
    adversarial_search,
    closed_form_x,
    composed_leakage,
    discrete_kl_and_max,
    discrete_renyi,
    dp_level,
    entry_datasets,
    gauss_renyi,
    geometric_mixture_renyi,
    laplace_mixture_renyi,
    nfc_value,
    pufferfish_level,
    squash,
    switch_T,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
DEEP = settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
REL = mp.mpf(10) ** -40


@dataclass(frozen=True)
class Statement:
    label: str
    points: st.SearchStrategy  # hypothesis: points of the domain, edges included
    exact: Callable[..., mp.mpf]  # mpmath margin, >= 0 where the statement holds
    scale: Callable[..., mp.mpf]  # the size against which REL judges a margin of zero
    search: Search
    deep: float = 1.0  # the deep tier's share for an expensive judge (at least 4x the fast tier)


def refuted(s: Statement, point: tuple) -> bool:
    """The margin is below -REL (relative to the statement's scale) at DPS digits **and** at
    3 DPS digits: a point where cancellation eats the judge's own precision (alpha - 1 = 1e-12
    with variances 1e7 apart from 1e27, found by the deep search) is not a counterexample."""
    for dps in (DPS, 3 * DPS):
        with mp.workdps(dps):
            if not bool(s.exact(*point) < -REL * (1 + abs(s.scale(*point)))):
                return False
    return True


def above_one(z: float) -> float:
    """Map R onto (1, inf) for an order alpha, never rounding to 1 (alpha - 1 >= 1e-12)."""
    return 1.0 + max(float(np.exp(min(z, 700.0))), 1e-12)


# --------------------------------------------------------------------------------------------
# The margins
# --------------------------------------------------------------------------------------------

pos = st.floats(1e-6, 1e3)
alpha_gt1 = st.one_of(st.just(1 + 1e-9), st.floats(1 + 1e-9, 1.01), st.floats(1.01, 1e3), st.just(2.0))


# lem-gauss-log-bounds: for u > -1, u - ln(1 + u) >= 0 and ln(1 + u) - u / (1 + u) >= 0
def log_bounds_exact(u):
    u = mp.mpf(u)
    return min(u - mp.log1p(u), mp.log1p(u) - u / (1 + u))


def log_bounds_float(u):
    return min(u - np.log1p(u), np.log1p(u) - u / (1 + u))


LOG_BOUNDS = Statement(
    "lem-gauss-log-bounds",
    st.tuples(st.one_of(st.just(0.0), st.floats(-1 + 1e-12, 1e6), st.floats(-1e-8, 1e-8))),
    log_bounds_exact,
    lambda u: abs(mp.mpf(u)),
    Search(1, lambda z: (float(np.expm1(z[0])),), log_bounds_float, log_bounds_exact),
)


# prop-gauss-monotone-noise: g(z1) >= g(z2) for z1 <= z2 on the domain z + A(alpha) > 0
def g_float(dm2, vi, vj, alpha, z):
    s_al = (1 - alpha) * (vi + z) + alpha * (vj + z)
    if s_al <= 0:
        return np.inf
    return alpha * dm2 / (2 * s_al) + np.log(s_al / ((vi + z) ** (1 - alpha) * (vj + z) ** alpha)) / (2 * (1 - alpha))


def noise_exact(dm2, vi, vj, alpha, z1, dz):
    g1 = gauss_renyi(0, mp.mpf(vi) + z1, mp.sqrt(dm2), mp.mpf(vj) + z1, alpha)
    g2 = gauss_renyi(0, mp.mpf(vi) + z1 + dz, mp.sqrt(dm2), mp.mpf(vj) + z1 + dz, alpha)
    if mp.isinf(g1):
        return mp.mpf(0)  # g(z1) = +inf >= g(z2): holds
    return g1 - g2


def noise_float(dm2, vi, vj, alpha, z1, dz):
    g1, g2 = g_float(dm2, vi, vj, alpha, z1), g_float(dm2, vi, vj, alpha, z1 + dz)
    return 0.0 if np.isinf(g1) else g1 - g2


def noise_point(z):
    vi, vj = np.exp(z[1]), np.exp(z[2])
    alpha = above_one(z[3])
    edge = max(0.0, -((1 - alpha) * vi + alpha * vj))  # z > edge keeps the first point in the domain
    return (np.exp(z[0]), vi, vj, alpha, edge + np.exp(z[4]), np.exp(z[5]))


NOISE = Statement(
    "prop-gauss-monotone-noise",
    st.tuples(st.one_of(st.just(0.0), pos), pos, pos, alpha_gt1, st.floats(0, 1e3), st.floats(1e-9, 1e3)),
    noise_exact,
    lambda *p: 1,
    Search(6, noise_point, noise_float, noise_exact),
)


# thm-gauss-closed-form: eps - D_alpha(i || j) at theta^2_cf >= 0
def cf_exact(mi, vi, mj, vj, alpha, eps):
    x = closed_form_x((mp.mpf(mi) - mj) ** 2, mp.mpf(vj) - vi, alpha, eps)
    theta2 = max(mp.mpf(0), x - vi)
    return eps - gauss_renyi(mi, mp.mpf(vi) + theta2, mj, mp.mpf(vj) + theta2, alpha)


def cf_float(mi, vi, mj, vj, alpha, eps):
    b = (mi - mj) ** 2 - 2 * eps * (vj - vi)
    x = alpha / (4 * eps) * (b + np.sqrt(b**2 + 8 * eps * (vj - vi) ** 2 / (alpha - 1)))
    t2 = max(0.0, x - vi)
    return eps - g_float((mi - mj) ** 2, vi + t2, vj + t2, alpha, 0.0)


def cf_point(z):
    return (0.0, np.exp(z[0]), z[1], np.exp(z[2]), above_one(z[3]), np.exp(z[4]))


CLOSED_FORM = Statement(
    "thm-gauss-closed-form",
    st.tuples(st.just(0.0), pos, st.floats(-1e3, 1e3), pos, alpha_gt1, st.floats(1e-4, 1e2)),
    cf_exact,
    lambda *p: p[-1],
    Search(5, cf_point, cf_float, cf_exact),
)


# prop-gauss-monotone-eps: x*(eps1) >= x*(eps2) for eps1 < eps2
def eps_exact(dm2, delta, alpha, eps, deps):
    return closed_form_x(dm2, delta, alpha, eps) - closed_form_x(dm2, delta, alpha, mp.mpf(eps) + deps)


def x_float(dm2, delta, alpha, eps):
    b = dm2 - 2 * eps * delta
    return alpha / (4 * eps) * (b + np.sqrt(b**2 + 8 * eps * delta**2 / (alpha - 1)))


def eps_float(dm2, delta, alpha, eps, deps):
    return x_float(dm2, delta, alpha, eps) - x_float(dm2, delta, alpha, eps + deps)


MONO_EPS = Statement(
    "prop-gauss-monotone-eps",
    st.tuples(
        st.one_of(st.just(0.0), pos),
        st.one_of(st.just(0.0), st.floats(-1e3, 1e3)),
        alpha_gt1,
        st.floats(1e-4, 1e2),
        st.floats(1e-9, 1e2),
    ),
    eps_exact,
    lambda dm2, delta, alpha, eps, deps: closed_form_x(dm2, delta, alpha, eps),
    Search(
        5,
        lambda z: (np.exp(z[0]), z[1], above_one(z[2]), np.exp(z[3]), np.exp(z[4])),
        eps_float,
        eps_exact,
    ),
)


# prop-mix-joint-convexity: lam F(p1, q1) + (1 - lam) F(p2, q2) - F(mix) >= 0, F = sum p^a q^(1-a)
def renyi_integral(p, q, alpha):
    total = mp.mpf(0)
    for pi, qi in zip(p, q, strict=True):
        if pi == 0:
            continue
        if qi == 0:
            return mp.inf
        total += pi**alpha * qi ** (1 - alpha)
    return total


def convex_exact(p1, q1, p2, q2, lam, alpha):
    p1, q1, p2, q2 = ([mp.mpf(x) for x in v] for v in (p1, q1, p2, q2))
    lam, alpha = mp.mpf(lam), mp.mpf(alpha)
    mix_p = [lam * a + (1 - lam) * b for a, b in zip(p1, p2, strict=True)]
    mix_q = [lam * a + (1 - lam) * b for a, b in zip(q1, q2, strict=True)]
    lhs = renyi_integral(mix_p, mix_q, alpha)
    rhs = lam * renyi_integral(p1, q1, alpha) + (1 - lam) * renyi_integral(p2, q2, alpha)
    if mp.isinf(rhs):
        return mp.mpf(0)
    return rhs - lhs


def convex_scale(p1, q1, p2, q2, lam, alpha):
    """The size of the two sides (they reach e^260 at alpha = 68): a zero margin is judged against it."""
    p1, q1, p2, q2 = ([mp.mpf(x) for x in v] for v in (p1, q1, p2, q2))
    lam, alpha = mp.mpf(lam), mp.mpf(alpha)
    rhs = lam * renyi_integral(p1, q1, alpha) + (1 - lam) * renyi_integral(p2, q2, alpha)
    return mp.mpf(0) if mp.isinf(rhs) else rhs


def convex_float(p1, q1, p2, q2, lam, alpha):
    def f(p, q):
        with np.errstate(divide="ignore"):
            return float(np.sum(np.where(p > 0, p**alpha * np.where(q > 0, q, np.inf) ** (1 - alpha), 0.0)))

    p1, q1, p2, q2 = map(np.asarray, (p1, q1, p2, q2))
    rhs = lam * f(p1, q1) + (1 - lam) * f(p2, q2)
    return rhs - f(lam * p1 + (1 - lam) * p2, lam * q1 + (1 - lam) * q2)


def simplex(z):
    w = np.exp(z - np.max(z))
    return tuple(w / w.sum())


def convex_point(z):
    return (simplex(z[0:3]), simplex(z[3:6]), simplex(z[6:9]), simplex(z[9:12]), squash(z[12], 0, 1), above_one(z[13]))


dist3 = st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1)), min_size=3, max_size=3).filter(lambda v: sum(v) > 0)
CONVEX = Statement(
    "prop-mix-joint-convexity",
    st.tuples(dist3, dist3, dist3, dist3, st.floats(0, 1), alpha_gt1).map(
        lambda t: (*(tuple(x / sum(v) for x in v) for v in t[:4]), t[4], t[5])
    ),
    convex_exact,
    convex_scale,
    Search(14, convex_point, convex_float, convex_exact),
)


# prop-wass-mironov (the bound) and prop-wass-laplace-below-gauss: in t = Delta / b >= 0
def laplace_integral(t, alpha):
    return alpha / (2 * alpha - 1) * mp.exp((alpha - 1) * t) + (alpha - 1) / (2 * alpha - 1) * mp.exp(-alpha * t)


def mironov_exact(t, alpha):
    t, alpha = mp.mpf(t), mp.mpf(alpha)
    return t - mp.log(laplace_integral(t, alpha)) / (alpha - 1)


def mironov_float(t, alpha):
    i = alpha / (2 * alpha - 1) * np.exp((alpha - 1) * t) + (alpha - 1) / (2 * alpha - 1) * np.exp(-alpha * t)
    return t - np.log(i) / (alpha - 1)


def below_gauss_exact(t, alpha):
    t, alpha = mp.mpf(t), mp.mpf(alpha)
    return alpha * (alpha - 1) * t**2 / 2 - mp.log(laplace_integral(t, alpha))


def below_gauss_float(t, alpha):
    i = alpha / (2 * alpha - 1) * np.exp((alpha - 1) * t) + (alpha - 1) / (2 * alpha - 1) * np.exp(-alpha * t)
    return alpha * (alpha - 1) * t**2 / 2 - np.log(i)


t_alpha = st.tuples(st.one_of(st.just(0.0), st.floats(1e-9, 50)), st.one_of(alpha_gt1, st.floats(1.01, 20)))
MIRONOV = Statement(
    "prop-wass-mironov",
    t_alpha,
    mironov_exact,
    lambda t, a: t,
    Search(2, lambda z: (float(np.exp(z[0])), above_one(z[1])), mironov_float, mironov_exact),
)
BELOW_GAUSS = Statement(
    "prop-wass-laplace-below-gauss",
    t_alpha,
    below_gauss_exact,
    lambda t, a: mp.mpf(a) ** 2 * mp.mpf(t) ** 2,
    Search(2, lambda z: (float(np.exp(z[0])), above_one(z[1])), below_gauss_float, below_gauss_exact),
)


# prop-renyi-monotone: D_beta - D_alpha >= 0 for alpha < beta (finite distributions)
def renyi_mono_exact(p, q, a, da):
    d_lo, d_hi = discrete_renyi(p, q, a), discrete_renyi(p, q, mp.mpf(a) + da)
    if mp.isinf(d_hi):
        return mp.mpf(0)
    return d_hi - d_lo


def renyi_mono_float(p, q, a, da):
    return float(renyi_mono_exact(p, q, a, da))  # small sums: mpmath is fast enough here


def renyi_mono_point(z):
    a = float(np.exp(z[6]))
    da = float(np.exp(z[7]))
    if abs(a - 1) < 1e-9 or abs(a + da - 1) < 1e-9:
        a += 1e-6
    return (simplex(z[0:3]), simplex(z[3:6]), a, da)


RENYI_MONO = Statement(
    "prop-renyi-monotone",
    st.tuples(dist3, dist3, st.floats(0.01, 50), st.floats(1e-6, 50))
    .filter(lambda t: abs(t[2] - 1) > 1e-9 and abs(t[2] + t[3] - 1) > 1e-9)
    .map(lambda t: (tuple(x / sum(t[0]) for x in t[0]), tuple(x / sum(t[1]) for x in t[1]), t[2], t[3])),
    renyi_mono_exact,
    lambda *p: 1,
    Search(8, renyi_mono_point, renyi_mono_float, renyi_mono_exact),
)


# prop-own-regimes at a fixed noise: D^(k) non-decreasing in k, and in case 2 below D^(inf)
def regimes_exact(m, vw, vn, alpha, v, k):
    def joint(kk):
        w = mp.mpf(v) / kk if kk else mp.mpf(0)
        return max(
            gauss_renyi(0, mp.mpf(vw) + w, m, mp.mpf(vn) + w, alpha),
            gauss_renyi(m, mp.mpf(vn) + w, 0, mp.mpf(vw) + w, alpha),
        )

    d_k, d_next = joint(k), joint(k + 1)
    step = mp.mpf(0) if mp.isinf(d_next) else d_next - d_k
    c = (mp.mpf(alpha) - 1) * vw - mp.mpf(alpha) * vn
    if c < 0:  # case 2: bounded by the priors' own divergence
        return min(step, joint(0) - d_k)
    return step


def regimes_float(*p):
    with mp.workdps(20):
        return float(regimes_exact(*p))


def regimes_point(z):
    vn = float(np.exp(z[1]))
    return (float(z[0]), vn * (above_one(z[2])), vn, above_one(z[3]), float(np.exp(z[4])), 1 + int(abs(z[5]) * 10))


REGIMES = Statement(
    "prop-own-regimes",
    st.tuples(
        st.floats(-5, 5),
        pos,
        pos,
        alpha_gt1,
        st.floats(1e-6, 1e3),
        st.integers(1, 10**6),
    ).filter(lambda t: t[1] > t[2]),
    regimes_exact,
    lambda *p: 1,
    Search(6, regimes_point, regimes_float, regimes_exact),
)


# prop-rpp-to-approx and prop-rpp-to-approx-improved (finite P_i, P_j, full support of P_j):
# delta*(t) <= P_i(L > t) <= exp((alpha - 1)(D_alpha - t)), and the improved bound on delta*(t)
def _hockey(p, q, t):
    return sum(max(mp.mpf(0), pi - mp.exp(t) * qi) for pi, qi in zip(p, q, strict=True))


def _tail(p, q, t):
    return sum(pi for pi, qi in zip(p, q, strict=True) if pi > 0 and (qi == 0 or mp.log(pi / qi) > t))


def _normalised(p, q):
    """P and Q as mpmath probability vectors (a float vector may sum to 1 +- 1e-16, which would
    show as a violation of size 1e-16 where a statement is tight)."""
    p, q = [mp.mpf(x) for x in p], [mp.mpf(x) for x in q]
    return [x / sum(p) for x in p], [x / sum(q) for x in q]


def chernoff_exact(p, q, alpha, t):
    p, q = _normalised(p, q)
    alpha, t = mp.mpf(alpha), mp.mpf(t)
    d = discrete_renyi(p, q, alpha)
    bound = mp.exp((alpha - 1) * (d - t))
    return min(bound - _tail(p, q, t), _tail(p, q, t) - _hockey(p, q, t))


def cks_exact(p, q, alpha, t):
    p, q = _normalised(p, q)
    alpha, t = mp.mpf(alpha), mp.mpf(t)
    d = discrete_renyi(p, q, alpha)
    return mp.exp((alpha - 1) * (d - t)) / alpha * (1 - 1 / alpha) ** (alpha - 1) - _hockey(p, q, t)


def _as_float(exact):
    def margin(*point):
        with mp.workdps(20):
            return float(exact(*point))

    return margin


def conversion_point(z):
    q = simplex(z[3:6])
    return (simplex(z[0:3]), q, above_one(z[6]), float(z[7]))


dist3_full = st.lists(st.floats(1e-6, 1), min_size=3, max_size=3)
conversion_points = st.tuples(dist3, dist3_full, alpha_gt1, st.floats(-5, 5)).map(
    lambda t: (tuple(x / sum(t[0]) for x in t[0]), tuple(x / sum(t[1]) for x in t[1]), t[2], t[3])
)
CHERNOFF = Statement(
    "prop-rpp-to-approx",
    conversion_points,
    chernoff_exact,
    lambda *p: 1,
    Search(8, conversion_point, _as_float(chernoff_exact), chernoff_exact),
)
CKS = Statement(
    "prop-rpp-to-approx-improved",
    conversion_points,
    cks_exact,
    lambda *p: 1,
    Search(8, conversion_point, _as_float(cks_exact), cks_exact),
)


# prop-gauss-monotone-alpha: T = alpha A + (alpha - 2) S and the gap of condition (7),
# A - (2 - alpha) k / (alpha - 1), have the same sign: T * gap >= 0
def cond7_exact(dm2, delta, alpha, eps):
    dm2, delta, alpha, eps = (mp.mpf(x) for x in (dm2, delta, alpha, eps))
    a_, k_ = dm2 - 2 * eps * delta, mp.sqrt(2 * eps) * abs(delta)
    return switch_T(dm2, delta, alpha, eps) * (a_ - (2 - alpha) / (alpha - 1) * k_)


def cond7_float(dm2, delta, alpha, eps):
    a_, k_ = dm2 - 2 * eps * delta, np.sqrt(2 * eps) * abs(delta)
    s_ = np.sqrt(a_**2 + 4 * k_**2 / (alpha - 1))
    return (alpha * a_ + (alpha - 2) * s_) * (a_ - (2 - alpha) / (alpha - 1) * k_)


def cond7_scale(dm2, delta, alpha, eps):
    a_, k_ = mp.mpf(dm2) - 2 * mp.mpf(eps) * delta, mp.sqrt(2 * mp.mpf(eps)) * abs(mp.mpf(delta))
    return mp.mpf(alpha) * (abs(a_) + k_ / (mp.mpf(alpha) - 1)) ** 2


COND7 = Statement(
    "prop-gauss-monotone-alpha",
    st.tuples(
        st.one_of(st.just(0.0), pos),
        st.one_of(st.just(0.0), st.floats(-1e3, 1e3)),
        st.one_of(alpha_gt1, st.just(2.0)),
        st.one_of(st.just(0.5), st.floats(1e-4, 1e2)),
    ).filter(lambda t: t[0] > 0 or t[1] != 0),
    cond7_exact,
    cond7_scale,
    Search(
        4, lambda z: (float(np.exp(z[0])), float(z[1]), above_one(z[2]), float(np.exp(z[3]))), cond7_float, cond7_exact
    ),
)


# thm-own-compose-releases: the joint D_alpha of k releases (k-variate normals with covariance
# sigma_s^2 11^T + theta^2 I) equals the one-dimensional D_alpha at variance sigma_s^2 + theta^2 / k
def _joint_mp(mi, vi, mj, vj, alpha, theta2, k):
    alpha, theta2 = mp.mpf(alpha), mp.mpf(theta2)
    one = mp.ones(k, 1)

    def cov(v):
        return mp.mpf(v) * (one * one.T) + theta2 * mp.eye(k)

    s_i, s_j = cov(vi), cov(vj)
    s_a = (1 - alpha) * s_i + alpha * s_j
    try:
        mp.cholesky(s_a)
    except ValueError:
        return mp.inf  # Sigma_alpha not positive definite: the divergence is infinite
    quad = (one.T * mp.inverse(s_a) * one)[0]
    log_ratio = mp.log(mp.det(s_a)) - (1 - alpha) * mp.log(mp.det(s_i)) - alpha * mp.log(mp.det(s_j))
    return alpha * (mp.mpf(mi) - mj) ** 2 * quad / 2 - log_ratio / (2 * (alpha - 1))


def releases_exact(mi, vi, mj, vj, alpha, theta2, k):
    joint = _joint_mp(mi, vi, mj, vj, alpha, theta2, k)
    w = mp.mpf(theta2) / k
    one_d = gauss_renyi(mi, mp.mpf(vi) + w, mj, mp.mpf(vj) + w, alpha)
    if mp.isinf(joint) or mp.isinf(one_d):
        return mp.mpf(0) if mp.isinf(joint) and mp.isinf(one_d) else mp.mpf(-1)
    return -abs(joint - one_d) + mp.mpf(10) ** -35 * (1 + abs(one_d))


def releases_float(mi, vi, mj, vj, alpha, theta2, k):
    one = np.ones((k, 1))
    s_i, s_j = vi * one @ one.T + theta2 * np.eye(k), vj * one @ one.T + theta2 * np.eye(k)
    s_a = (1 - alpha) * s_i + alpha * s_j
    if np.any(np.linalg.eigvalsh(s_a) <= 0):
        return 0.0
    joint = alpha * (mi - mj) ** 2 * (one.T @ np.linalg.solve(s_a, one))[0, 0] / 2 - (
        np.linalg.slogdet(s_a)[1] - (1 - alpha) * np.linalg.slogdet(s_i)[1] - alpha * np.linalg.slogdet(s_j)[1]
    ) / (2 * (alpha - 1))
    w = theta2 / k
    s1 = (1 - alpha) * (vi + w) + alpha * (vj + w)
    one_d = alpha * (mi - mj) ** 2 / (2 * s1) + np.log(s1 / ((vi + w) ** (1 - alpha) * (vj + w) ** alpha)) / (
        2 * (1 - alpha)
    )
    return 1e-9 * (1 + abs(one_d)) - abs(joint - one_d)


def releases_point(z):
    alpha = float(np.exp(z[4]))
    if abs(alpha - 1) < 1e-6:
        alpha += 1e-3
    return (
        float(z[0]),
        float(np.exp(z[1])),
        float(z[2]),
        float(np.exp(z[3])),
        alpha,
        float(np.exp(z[5])),
        2 + int(abs(z[6]) * 2) % 5,
    )


RELEASES = Statement(
    "thm-own-compose-releases",
    st.tuples(
        st.floats(-5, 5),
        st.floats(1e-3, 1e2),
        st.floats(-5, 5),
        st.floats(1e-3, 1e2),
        st.one_of(st.floats(0.05, 0.99), alpha_gt1.filter(lambda a: a < 50)),
        st.floats(1e-3, 1e2),
        st.integers(2, 6),
    ),
    releases_exact,
    lambda *p: 1,
    Search(7, releases_point, releases_float, releases_exact),
)


# prop-gauss-switch (as corrected in issue #35): with delta != 0, if A > -k then
# T (alpha - alpha_sw) >= 0 (decreasing below the switch, increasing above); if A <= -k then
# T <= 0 at every alpha, and delta > 0, eps >= 1/2
def switch_exact(dm2, delta, alpha, eps):
    dm2, delta, alpha, eps = (mp.mpf(x) for x in (dm2, delta, alpha, eps))
    a_, k_ = dm2 - 2 * eps * delta, mp.sqrt(2 * eps) * abs(delta)
    t_ = switch_T(dm2, delta, alpha, eps)
    if a_ > -k_:
        return t_ * (alpha - (a_ + 2 * k_) / (a_ + k_))
    return min(-t_, delta, eps - mp.mpf(1) / 2)


def switch_float(dm2, delta, alpha, eps):
    a_, k_ = dm2 - 2 * eps * delta, np.sqrt(2 * eps) * abs(delta)
    t_ = alpha * a_ + (alpha - 2) * np.sqrt(a_**2 + 4 * k_**2 / (alpha - 1))
    if a_ > -k_:
        return t_ * (alpha - (a_ + 2 * k_) / (a_ + k_))
    return min(-t_, delta, eps - 0.5)


SWITCH = Statement(
    "prop-gauss-switch",
    st.tuples(
        st.one_of(st.just(0.0), pos),
        st.one_of(st.floats(-1e3, -1e-6), st.floats(1e-6, 1e3)),
        st.one_of(alpha_gt1, st.just(2.0)),
        st.one_of(st.just(0.5), st.floats(1e-4, 1e2)),
    ),
    switch_exact,
    lambda dm2, delta, alpha, eps: mp.mpf(alpha) ** 2 * (mp.mpf(dm2) + 2 * mp.mpf(eps) * abs(delta) + 1) ** 2,
    Search(
        4,
        lambda z: (float(np.exp(z[0])), float(z[1]) or 1e-9, above_one(z[2]), float(np.exp(z[3]))),
        switch_float,
        switch_exact,
    ),
)


# prop-renyi-limits (finite P, Q), in a quantitative form that implies the three limits:
# with L = log(p / q) on {p > 0} and P << Q,
#   |D_alpha - KL| <= |alpha - 1| (max L - min L)^2 / 8   (alpha != 1; K(t) = log E_P e^(tL) has
#                                                           K(0) = 0, K'(0) = KL, 0 <= K'' <= spread^2 / 4)
#   D_inf + log P(L = max L) / (alpha - 1) <= D_alpha <= D_inf   (alpha > 1)
# and, if not P << Q, for alpha < 1: D_alpha >= alpha log(1 / P(q > 0)) / (1 - alpha) -> inf = KL
# (Hölder), while D_alpha = inf = KL for every alpha > 1 (so the limit from above holds too).
def limits_exact(p, q, alpha):
    alpha = mp.mpf(alpha)
    d = discrete_renyi(p, q, alpha)
    kl, top, at_top, spread = discrete_kl_and_max(p, q)
    if mp.isinf(kl):
        if alpha > 1:
            return mp.mpf(0) if mp.isinf(d) else mp.mpf(-1)
        pp, qq = [mp.mpf(x) for x in p], [mp.mpf(x) for x in q]
        mass = sum(pi for pi, qi in zip(pp, qq, strict=True) if qi > 0) / sum(pp)
        if mass == 0:  # P and Q singular: D_alpha = inf
            return mp.mpf(0) if mp.isinf(d) else mp.mpf(-1)
        return d - alpha * mp.log(1 / mass) / (1 - alpha)
    margins = [abs(alpha - 1) * spread**2 / 8 - abs(d - kl)]
    if alpha > 1:
        margins += [top - d, d - top - mp.log(at_top) / (alpha - 1)]
    return min(margins)


def limits_point(z):
    alpha = float(np.exp(np.clip(z[6], -30, 12)))
    if abs(alpha - 1) < 1e-12:
        alpha = 1 + 1e-12
    return (simplex(z[0:3]), simplex(z[3:6]), alpha)


def _limits_float(p, q, alpha):
    with mp.workdps(30):  # 30 digits: alpha - 1 may be 1e-12
        return float(limits_exact(p, q, alpha))


alpha_near_one = st.one_of(
    st.sampled_from([1 - 1e-12, 1 - 1e-9, 1 - 1e-6, 1 + 1e-12, 1 + 1e-9, 1 + 1e-6]),
    st.floats(0.9, 1.1).filter(lambda a: abs(a - 1) > 1e-12),
    st.floats(1e-3, 50).filter(lambda a: abs(a - 1) > 1e-12),
    st.floats(50, 1e4),
)
LIMITS = Statement(
    "prop-renyi-limits",
    st.tuples(dist3, dist3, alpha_near_one).map(
        lambda t: (tuple(x / sum(t[0]) for x in t[0]), tuple(x / sum(t[1]) for x in t[1]), t[2])
    ),
    limits_exact,
    lambda *p: 1,
    Search(7, limits_point, _limits_float, limits_exact),
)


# thm-wass-expfam (with alpha - 1 in the exponent, which implies the paper's alpha): for a coupling
# pi of P_i and P_j and noise p_eta ∝ e^(-eta c), c a metric,
#   log(sum pi e^((alpha - 1) eta c(x - x'))) / (alpha - 1) - D_alpha(P_i * p_eta || P_j * p_eta) >= 0.
# Two metrics: c = |.| on R (Laplace noise, eta = 1 by scaling) and c = |.| on Z (two-sided geometric
# noise of rate eta); the priors are the marginals of a coupling on 2 x 2 atoms (3 x 3 when sampled).
def _coupling_eps(pairs, weights, eta, alpha):
    alpha, eta = mp.mpf(alpha), mp.mpf(eta)
    weights = [mp.mpf(w) for w in weights]
    total = sum(
        w * mp.exp((alpha - 1) * eta * abs(mp.mpf(x) - mp.mpf(y))) for (x, y), w in zip(pairs, weights, strict=True)
    )
    return mp.log(total / sum(weights)) / (alpha - 1)


def _marginals(pairs, weights):
    xs, ys = sorted({x for x, _ in pairs}), sorted({y for _, y in pairs})
    ws = [sum(w for (a, _), w in zip(pairs, weights, strict=True) if a == x) for x in xs]
    vs = [sum(w for (_, b), w in zip(pairs, weights, strict=True) if b == y) for y in ys]
    return xs, ws, ys, vs


def expfam_exact(kind, pairs, weights, eta, alpha):
    xs, ws, ys, vs = _marginals(pairs, weights)
    if kind == "R":
        d = laplace_mixture_renyi(xs, ws, ys, vs, alpha)
    else:
        d = geometric_mixture_renyi(xs, ws, ys, vs, eta, alpha)
    return _coupling_eps(pairs, weights, eta, alpha) - d


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(48)


def _expfam_float(kind, pairs, weights, eta, alpha):
    """The margin in floats (numpy): the same tails and pieces, Gauss-Legendre with 48 nodes."""
    w = np.asarray(weights, dtype=float) / np.sum(weights)
    cost = np.array([abs(x - y) for x, y in pairs], dtype=float)
    eps_pi = np.log(np.sum(w * np.exp((alpha - 1) * eta * cost))) / (alpha - 1)
    xs, ws, ys, vs = (np.asarray(v, dtype=float) for v in _marginals(pairs, list(w)))
    if kind == "R":

        def dens(atoms, wts, y):
            return np.sum(wts[:, None] * np.exp(-np.abs(y[None, :] - atoms[:, None])), axis=0) / 2

        cuts = np.unique(np.concatenate([xs, ys]))
        lo, hi = cuts[0], cuts[-1]
        total = (np.sum(ws * np.exp(xs - hi)) / 2) ** alpha * (np.sum(vs * np.exp(ys - hi)) / 2) ** (1 - alpha)
        total += (np.sum(ws * np.exp(lo - xs)) / 2) ** alpha * (np.sum(vs * np.exp(lo - ys)) / 2) ** (1 - alpha)
        for a, b in itertools.pairwise(cuts):
            y = (b - a) / 2 * _GL_NODES + (a + b) / 2
            total += (b - a) / 2 * np.sum(_GL_WEIGHTS * dens(xs, ws, y) ** alpha * dens(ys, vs, y) ** (1 - alpha))
    else:
        r = np.exp(-eta)
        lo, hi = int(min(xs.min(), ys.min())), int(max(xs.max(), ys.max()))
        y = np.arange(lo, hi + 1, dtype=float)
        p = np.sum(ws[:, None] * r ** np.abs(y[None, :] - xs[:, None]), axis=0)
        q = np.sum(vs[:, None] * r ** np.abs(y[None, :] - ys[:, None]), axis=0)
        f = p**alpha * q ** (1 - alpha)
        total = (np.sum(f) + (f[0] + f[-1]) * r / (1 - r)) * (1 - r) / (1 + r)
    return float(eps_pi - np.log(total) / (alpha - 1))


def expfam_point(z):
    """z[0]: the metric (R or Z); z[1:5]: the atoms x_1, x_2, y_1, y_2; z[5:9] the coupling's weights
    on the 2 x 2 pairs; z[9] eta; z[10] alpha."""
    kind = "R" if z[0] > 0 else "Z"
    atoms = [float(v) for v in z[1:5]] if kind == "R" else [int(np.clip(np.round(v), -6, 6)) for v in z[1:5]]
    pairs = [(atoms[i], atoms[2 + j]) for i in range(2) for j in range(2)]
    weights = tuple(max(w, 1e-12) for w in simplex(z[5:9]))
    eta = 1.0 if kind == "R" else float(np.exp(np.clip(z[9], -5, 5)))
    return (kind, pairs, weights, eta, above_one(float(np.clip(z[10], -27, 7))))


def _expfam_sample(t):
    kind, atoms_x, atoms_y, weights, eta, alpha = t
    pairs = [(x, y) for x in atoms_x for y in atoms_y]
    return (kind, pairs, tuple(weights), 1.0 if kind == "R" else eta, alpha)


expfam_points = st.one_of(
    st.tuples(
        st.just("R"),
        st.lists(st.floats(-5, 5), min_size=1, max_size=3),
        st.lists(st.floats(-5, 5), min_size=1, max_size=3),
        st.lists(st.floats(1e-6, 1), min_size=9, max_size=9),
        st.just(1.0),
        st.one_of(alpha_gt1.filter(lambda a: a < 200), st.just(50.0)),
    ),
    st.tuples(
        st.just("Z"),
        st.lists(st.integers(-4, 4), min_size=1, max_size=3),
        st.lists(st.integers(-4, 4), min_size=1, max_size=3),
        st.lists(st.floats(1e-6, 1), min_size=9, max_size=9),
        st.floats(1e-3, 5),
        st.one_of(alpha_gt1.filter(lambda a: a < 200), st.just(50.0)),
    ),
).map(lambda t: _expfam_sample((t[0], t[1], t[2], t[3][: len(t[1]) * len(t[2])], t[4], t[5])))
EXPFAM = Statement(
    "thm-wass-expfam",
    expfam_points,
    expfam_exact,
    lambda *p: 1,
    Search(11, expfam_point, _expfam_float, expfam_exact),
)


# thm-comp-nfc (a finite mechanism with positive output probabilities, s_1 = {D_0}, s_2 = the other
# datasets with a prior rho): the proof's bound, which gives the theorem as r -> inf. For every D of
# a secret and every r, with v(D) the value of the NfC game at eps = 0 (the smallest eps of an NfC
# constraint for D), K(D) = log(1 / rho(D | s)) + (m - 1) max_l (max_j A_jl - min_j A_jl):
#   eps(M^r) >= r v(D) - K(D),
# so if every r-fold run is r eps-Pufferfish then v(D) <= eps: D has an NfC constraint at eps.
def nfc_exact(rows, prior, r):
    with mp.workdps(max(DPS, mp.mp.dps)):
        log_rows = [[mp.log(mp.mpf(v) / sum(mp.mpf(u) for u in row)) for v in row] for row in rows]
        s1 = [True] + [False] * (len(rows) - 1)
        leak = composed_leakage(log_rows, s1, prior, r)
        prior = [mp.mpf(x) for x in prior]
        margins = []
        for own in range(len(rows)):
            others = [i for i in range(len(rows)) if s1[i] != s1[own]]
            pay = [[log_rows[own][j] - log_rows[i][j] for j in range(len(rows[0]))] for i in others]
            v = nfc_value(log_rows[own], [log_rows[i] for i in others])
            z = sum(prior[i] for i in range(len(rows)) if s1[i] == s1[own])
            k_const = mp.log(z / prior[own]) + (len(rows[0]) - 1) * max(max(a) - min(a) for a in pay)
            margins.append(leak - r * v + k_const)
        return min(margins)


def _nfc_float(*point):
    with mp.workdps(20):
        return float(nfc_exact(*point))


def nfc_point(z):
    """Three datasets (s_1 = {D_0}), two outputs: row i = softmax(z[0:2] + e^z[8] z[2+2i:4+2i]) (the
    common scale e^z[8] lets the search reach equal rows, where the bound is tight); z[6:8] the
    prior of D_1, D_2 given s_2; z[9] the number of runs r in {1, ..., 40}."""
    scale = float(np.exp(np.clip(z[8], -30, 5)))
    rows = tuple(simplex(z[0:2] + scale * z[2 + 2 * i : 4 + 2 * i]) for i in range(3))
    prior = (1.0, *simplex(z[6:8]))
    return (rows, prior, 1 + int(abs(z[9]) * 10) % 40)


NFC = Statement(
    "thm-comp-nfc",
    st.tuples(st.integers(2, 3), st.integers(2, 3))
    .flatmap(
        lambda t: st.tuples(
            st.lists(st.lists(st.floats(1e-4, 1), min_size=t[1], max_size=t[1]), min_size=t[0] + 1, max_size=t[0] + 1),
            st.lists(st.floats(1e-3, 1), min_size=t[0], max_size=t[0]),
            st.sampled_from([1, 2, 3, 10, 25] if t[1] == 3 else [1, 2, 5, 20, 60]),
        )
    )
    .map(lambda t: (tuple(tuple(r) for r in t[0]), (1.0, *t[1]), t[2])),
    nfc_exact,
    lambda rows, prior, r: r,
    Search(10, nfc_point, _nfc_float, nfc_exact),
    deep=0.25,  # each point solves the NfC program over every vertex: 180 s at 1
)


# thm-comp-compose (binary entries, one prior, the entry secrets X_k = 0 vs X_k = 1): for
# mechanisms M_l with exact per-entry DP levels eps_l and points b_l, a_l = a(b_l) on the curve
# (eps_puffer,l = a_l + b_l eps_l, the smallest the hypothesis allows), the independent joint
# release has Pufferfish level <= max_l a_l + sum_l b_l eps_l.
def _mechanism_log(params, n):
    """Pr(w | D) ∝ exp(sum_k t[w][k] x_k + c[w]) on {0,1}^n: params = (t rows, c), one per output."""
    t, c = params
    out = []
    for d in entry_datasets(n):
        scores = [sum(mp.mpf(tw[k]) * d[k] for k in range(n)) + mp.mpf(cw) for tw, cw in zip(t, c, strict=True)]
        norm = max(scores) + mp.log(sum(mp.exp(s - max(scores)) for s in scores))
        out.append([s - norm for s in scores])
    return out


def _prior(h, lam, n):
    """A log-linear prior on {0,1}^n: log J(x) = sum h_k x_k + sum_{k<l} lam_kl x_k x_l + const."""
    pairs = [(k, m) for k in range(n) for m in range(k + 1, n)]
    weights = [
        mp.exp(
            sum(mp.mpf(h[k]) * d[k] for k in range(n))
            + sum(mp.mpf(lam[i]) * d[k] * d[m] for i, (k, m) in enumerate(pairs))
        )
        for d in entry_datasets(n)
    ]
    return [w / sum(weights) for w in weights]


def compose_exact(n, h, lam, mechs, bs):
    with mp.workdps(max(DPS, mp.mp.dps)):
        prior = _prior(h, lam, n)
        logs = [_mechanism_log(mech, n) for mech in mechs]
        joint = [[sum(combo) for combo in _product(*(lg[i] for lg in logs))] for i in range(2**n)]
        bound = max(ab_curve(prior, n, b) for b in bs) + sum(
            b * dp_level(lg, n) for b, lg in zip(bs, logs, strict=True)
        )
        return bound - pufferfish_level(prior, joint, n)


def _product(*lists):
    from itertools import product

    return product(*lists)


def _compose_float(*point):
    with mp.workdps(20):
        return float(compose_exact(*point))


def compose_point(z):
    """Two entries, two binary mechanisms (output 0 scores 0, output 1 scores t . x + c): z[0:2] h,
    z[2] lam, z[3:6] and z[6:9] the mechanisms' (t_1, t_2, c), z[9:11] b_1, b_2 in {1, 2}; lam and
    the t are multiplied by e^z[11] (so that the search reaches independent entries and constant
    mechanisms, where the bound is tight)."""
    scale = float(np.exp(np.clip(z[11], -30, 5)))
    mechs = tuple(
        (((0.0, 0.0), (scale * float(z[s]), scale * float(z[s + 1]))), (0.0, float(z[s + 2]))) for s in (3, 6)
    )
    bs = tuple(1 + int(abs(v) * 2) % 2 for v in z[9:11])
    return (2, (float(z[0]), float(z[1])), (scale * float(z[2]),), mechs, bs)


def _compose_sample(t):
    n, h, lam, raw, bs = t
    mechs = tuple((tuple(tuple(row) for row in tw), tuple(cw)) for tw, cw in raw)
    return (n, tuple(h[:n]), tuple(lam[: n * (n - 1) // 2]), mechs, tuple(min(b, n) for b in bs))


score = st.floats(-3, 3)
compose_points = (
    st.integers(1, 3)
    .flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(score, min_size=3, max_size=3),
            st.lists(st.one_of(st.just(0.0), score), min_size=3, max_size=3),
            st.lists(
                st.integers(2, 3).flatmap(
                    lambda m: st.tuples(
                        st.lists(st.lists(score, min_size=n, max_size=n), min_size=m, max_size=m),
                        st.lists(score, min_size=m, max_size=m),
                    )
                ),
                min_size=1,
                max_size=3,
            ),
            st.lists(st.integers(1, 3), min_size=3, max_size=3),
        )
    )
    .map(lambda t: _compose_sample((t[0], t[1], t[2], t[3], t[4][: len(t[3])])))
)
COMPOSE = Statement(
    "thm-comp-compose",
    compose_points,
    compose_exact,
    lambda *p: 1,
    Search(12, compose_point, _compose_float, compose_exact),
    deep=0.25,  # each point is an exact Pufferfish level over every prior of a grid: 105 s at 1
)


STATEMENTS = [
    LOG_BOUNDS,
    NOISE,
    CLOSED_FORM,
    MONO_EPS,
    CONVEX,
    MIRONOV,
    BELOW_GAUSS,
    RENYI_MONO,
    REGIMES,
    CHERNOFF,
    CKS,
    COND7,
    RELEASES,
    SWITCH,
    LIMITS,
    EXPFAM,
    NFC,
    COMPOSE,
]
IDS = [s.label for s in STATEMENTS]


def _sample(s: Statement, data) -> None:
    point = data.draw(s.points)
    assert not refuted(s, point), f"{s.label}: counterexample {point}"


@pytest.mark.parametrize("s", STATEMENTS, ids=IDS)
def test_fast_sample(s):
    given(data=st.data())(FAST(lambda data: _sample(s, data)))()


@pytest.mark.parametrize("s", STATEMENTS, ids=IDS)
def test_fast_search(s):
    found = adversarial_search(s.search, starts=3, seed=35, maxiter=120)
    assert not [p for p in found if refuted(s, p)], f"{s.label}: {found[:1]}"


@pytest.mark.slow
@pytest.mark.parametrize("s", STATEMENTS, ids=IDS)
def test_deep_sample(s):
    deep = settings(DEEP, max_examples=max(4 * FAST.max_examples, int(DEEP.max_examples * s.deep)))
    given(data=st.data())(deep(lambda data: _sample(s, data)))()


@pytest.mark.slow
@pytest.mark.parametrize("s", STATEMENTS, ids=IDS)
def test_deep_search(s):
    found = adversarial_search(s.search, starts=max(12, int(40 * s.deep)), seed=3535, maxiter=600)
    assert not [p for p in found if refuted(s, p)], f"{s.label}: {found[:1]}"


def test_the_harness_finds_a_planted_counterexample():
    """A false statement (u - ln(1 + u) >= 0.01) must be refuted, by sampling and by the search."""
    planted = Statement(
        "planted",
        st.tuples(st.floats(-0.5, 0.5)),
        lambda u: log_bounds_exact(u) - mp.mpf("0.01"),
        lambda u: 1,
        Search(
            1,
            lambda z: (float(np.expm1(z[0])),),
            lambda u: log_bounds_float(u) - 0.01,
            lambda u: log_bounds_exact(u) - mp.mpf("0.01"),
        ),
    )
    assert refuted(planted, (0.0,))
    assert adversarial_search(planted.search, starts=2, seed=1)
    with pytest.raises(AssertionError):
        given(data=st.data())(FAST(lambda data: _sample(planted, data)))()


@pytest.mark.parametrize("s", STATEMENTS, ids=IDS)
def test_the_search_reaches_where_each_statement_is_tight(s):
    """Every statement above is tight somewhere (u = 0, dz -> 0, equal variances, lam = 0, t = 0, P = Q | A,
    k -> inf): the same statement with its margin lowered by 1e-3 must be refuted by the fast search.
    A search that never gets near the edge of its domain would pass any statement; this test fails then."""
    shift = mp.mpf("1e-3")
    mutant = Search(
        s.search.dim,
        s.search.to_point,
        lambda *p: s.search.margin(*p) - 1e-3,
        lambda *p: s.search.exact(*p) - shift,
    )
    assert adversarial_search(mutant, starts=3, seed=35, maxiter=120)
