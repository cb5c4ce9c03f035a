"""Independent mpmath evaluations and the search machinery of the falsification harness.

Nothing here imports ``rpp``: the statements of the book are judged by formulas written out again
(50 significant digits), so that a test of a statement cannot pass because ``rpp`` repeats its
error.  A *margin* is a function of a point of a statement's domain that is ``>= 0`` exactly where
the statement holds there; the harness samples the domain (hypothesis) and minimises the margin
from random starts (scipy.optimize), and any negative float margin is re-evaluated with mpmath
before it counts as a counterexample (a float margin within rounding decides nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import mpmath as mp
import numpy as np
from scipy.optimize import minimize

DPS = 50


def _digits() -> int:
    """At least DPS digits, more when the caller asks for more (``refuted`` re-judges at 3 DPS: a
    judge that fixed its own 50 digits would repeat its cancellation there)."""
    return max(DPS, mp.mp.dps)


def gauss_renyi(mu0, v0, mu1, v1, alpha):
    """D_alpha(N(mu0, v0) || N(mu1, v1)) in mpmath (van Erven and Harremoës 2014), inf off the domain."""
    with mp.workdps(_digits()):
        mu0, v0, mu1, v1, alpha = (mp.mpf(x) for x in (mu0, v0, mu1, v1, alpha))
        s_al = (1 - alpha) * v0 + alpha * v1
        if s_al <= 0:
            return mp.inf
        return alpha * (mu0 - mu1) ** 2 / (2 * s_al) + mp.log(s_al / (v0 ** (1 - alpha) * v1**alpha)) / (
            2 * (1 - alpha)
        )


def closed_form_x(dm2, delta, alpha, eps):
    """x* of Yang et al. (2026), Thm III.5: (alpha / 4 eps) (A + S), A = Delta - 2 eps delta."""
    with mp.workdps(_digits()):
        dm2, delta, alpha, eps = (mp.mpf(x) for x in (dm2, delta, alpha, eps))
        a_ = dm2 - 2 * eps * delta
        s_ = mp.sqrt(a_**2 + 8 * eps * delta**2 / (alpha - 1))
        return alpha / (4 * eps) * (a_ + s_)


def switch_T(dm2, delta, alpha, eps):
    """T = alpha A + (alpha - 2) S, the factor of d x*/d alpha whose sign Prop. III.7 reads."""
    with mp.workdps(_digits()):
        dm2, delta, alpha, eps = (mp.mpf(x) for x in (dm2, delta, alpha, eps))
        a_ = dm2 - 2 * eps * delta
        s_ = mp.sqrt(a_**2 + 8 * eps * delta**2 / (alpha - 1))
        return alpha * a_ + (alpha - 2) * s_


def discrete_renyi(p, q, alpha):
    """D_alpha(P || Q) of two finite distributions in mpmath (alpha > 0, alpha != 1).

    ``p`` and ``q`` are non-negative weights, normalised here in mpmath (a float normalisation that
    sums to 1 + 1e-16 would make D_alpha of P against itself decrease in alpha).
    """
    with mp.workdps(_digits()):
        alpha = mp.mpf(alpha)
        p = [mp.mpf(x) for x in p]
        q = [mp.mpf(x) for x in q]
        p = [x / sum(p) for x in p]
        q = [x / sum(q) for x in q]
        total = mp.mpf(0)
        for pi, qi in zip(p, q, strict=True):
            if pi == 0:
                continue
            if qi == 0:
                if alpha > 1:
                    return mp.inf
                continue
            total += pi**alpha * qi ** (1 - alpha)
        if total == 0:
            return mp.inf
        return mp.log(total) / (alpha - 1)


def releases_h(pair, alpha, v):
    """h(v) = v D(v), D the both-orders divergence of one release at noise variance v."""
    (m0, v0), (m1, v1) = pair
    with mp.workdps(_digits()):
        v = mp.mpf(v)
        d = max(gauss_renyi(m0, v0 + v, m1, v1 + v, alpha), gauss_renyi(m1, v1 + v, m0, v0 + v, alpha))
        return v * d


def releases_joint(pair, alpha, v, k):
    """Joint divergence of k releases at noise variance v (Thm own-compose-releases): D(v / k)."""
    (m0, v0), (m1, v1) = pair
    with mp.workdps(_digits()):
        w = mp.mpf(v) / k
        return max(gauss_renyi(m0, v0 + w, m1, v1 + w, alpha), gauss_renyi(m1, v1 + w, m0, v0 + w, alpha))


def calibrate_one(pair, alpha, eps):
    """The noise variance v with D(v) = eps (both orders), by bisection in mpmath on D decreasing."""
    (m0, v0), (m1, v1) = pair
    with mp.workdps(_digits()):
        eps = mp.mpf(eps)

        def d(v):
            return max(gauss_renyi(m0, v0 + v, m1, v1 + v, alpha), gauss_renyi(m1, v1 + v, m0, v0 + v, alpha))

        lo, hi = mp.mpf(0), mp.mpf(1)
        while d(hi) > eps:
            lo, hi = hi, 2 * hi
        if d(lo) <= eps:
            return lo
        for _ in range(200):
            mid = (lo + hi) / 2
            if d(mid) > eps:
                lo = mid
            else:
                hi = mid
        return hi


# --------------------------------------------------------------------------------------------
# The adversarial search
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Search:
    """A statement's margin over an unconstrained parametrisation of its domain.

    ``to_point`` maps R^n onto the domain (a bijection or a surjection onto its interior, so that
    the optimiser never leaves it); ``margin`` is the float margin, ``exact`` the mpmath margin.
    """

    dim: int
    to_point: Callable[[np.ndarray], tuple]
    margin: Callable[..., float]
    exact: Callable[..., mp.mpf]


def adversarial_search(search: Search, *, starts: int, seed: int, maxiter: int = 200) -> list[tuple]:
    """Minimise the margin from ``starts`` random starts; return the points an mpmath judge refutes.

    A point whose float margin is negative counts only if the mpmath margin is negative too; a float
    margin that is NaN (the domain edge) is treated as +inf so the search moves away from it.
    """
    rng = np.random.default_rng(seed)
    refuted = []

    def objective(z: np.ndarray) -> float:
        try:
            with np.errstate(all="ignore"):  # the search may wander to overflow; such points score +inf
                value = search.margin(*search.to_point(z))
        except (OverflowError, ZeroDivisionError):  # Python floats raise where numpy returns inf
            return 1e300
        return float(value) if np.isfinite(value) else 1e300

    for _ in range(starts):
        z0 = rng.normal(scale=2.0, size=search.dim)
        res = minimize(objective, z0, method="Nelder-Mead", options={"maxiter": maxiter, "xatol": 1e-10})
        for z in (res.x, z0):
            try:
                with np.errstate(all="ignore"):
                    point = search.to_point(z)
                    value = search.margin(*point)
            except (OverflowError, ZeroDivisionError):
                continue  # outside what floats represent: the search learns nothing there
            if not value >= 0 and search.exact(*point) < 0:
                refuted.append(point)
    return refuted


def squash(z: float, lo: float, hi: float) -> float:
    """Map R onto the open interval (lo, hi) (logistic)."""
    return lo + (hi - lo) / (1.0 + np.exp(-np.clip(z, -700, 700)))


def first_counterexample(points: Sequence[tuple]) -> tuple | None:
    """The first refuted point, or None (for assertion messages)."""
    return points[0] if points else None
