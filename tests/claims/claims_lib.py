"""Independent mpmath evaluations and the search machinery of the falsification harness.

Nothing here imports ``rpp``: the statements of the book are judged by formulas written out again
(50 significant digits), so that a test of a statement cannot pass because ``rpp`` repeats its
error.  A *margin* is a function of a point of a statement's domain that is ``>= 0`` exactly where
the statement holds there; the harness samples the domain (hypothesis) and minimises the margin
from random starts (scipy.optimize), and any negative float margin is re-evaluated with mpmath
before it counts as a counterexample (a float margin within rounding decides nothing).
"""

from __future__ import annotations

import itertools
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


# --------------------------------------------------------------------------------------------
# prop-renyi-limits: KL and D_inf of finite distributions
# --------------------------------------------------------------------------------------------


def discrete_kl_and_max(p, q):
    """(KL(P || Q), D_inf(P || Q), P(L = L_max), spread of L on {p > 0}) in mpmath; inf if not P << Q.

    ``p`` and ``q`` are normalised here (as in ``discrete_renyi``); L = log(p / q) on {p > 0}.
    """
    with mp.workdps(_digits()):
        p = [mp.mpf(x) for x in p]
        q = [mp.mpf(x) for x in q]
        p = [x / sum(p) for x in p]
        q = [x / sum(q) for x in q]
        if any(pi > 0 and qi == 0 for pi, qi in zip(p, q, strict=True)):
            return mp.inf, mp.inf, mp.mpf(0), mp.inf
        losses = [(mp.log(pi / qi), pi) for pi, qi in zip(p, q, strict=True) if pi > 0]
        kl = sum(pi * loss for loss, pi in losses)
        top = max(loss for loss, _ in losses)
        at_top = sum(pi for loss, pi in losses if loss == top)
        spread = top - min(loss for loss, _ in losses)
        return kl, top, at_top, spread


# --------------------------------------------------------------------------------------------
# thm-wass-expfam: exact D_alpha of noisy discrete priors (Laplace on R, two-sided geometric on Z)
# --------------------------------------------------------------------------------------------


def laplace_mixture_renyi(xs, ws, ys, vs, alpha):
    """D_alpha(sum w Lap(x, 1) || sum v Lap(y, 1)) in mpmath: both tails in closed form (a single
    exponential each), the finite pieces between atoms (smooth integrands) by Gauss-Legendre."""
    with mp.workdps(_digits()):
        alpha = mp.mpf(alpha)
        xs, ys = [mp.mpf(x) for x in xs], [mp.mpf(y) for y in ys]
        ws, vs = [mp.mpf(w) for w in ws], [mp.mpf(v) for v in vs]
        ws, vs = [w / sum(ws) for w in ws], [v / sum(vs) for v in vs]

        def dens(atoms, weights, y):
            return sum(w * mp.exp(-abs(y - x)) for x, w in zip(atoms, weights, strict=True)) / 2

        def f(y):
            return dens(xs, ws, y) ** alpha * dens(ys, vs, y) ** (1 - alpha)

        cuts = sorted(set(xs) | set(ys))
        lo, hi = cuts[0], cuts[-1]
        right_p = sum(w * mp.exp(x) for x, w in zip(xs, ws, strict=True)) / 2  # p(y) = right_p e^-y, y >= hi
        right_q = sum(v * mp.exp(y) for y, v in zip(ys, vs, strict=True)) / 2
        left_p = sum(w * mp.exp(-x) for x, w in zip(xs, ws, strict=True)) / 2  # p(y) = left_p e^y, y <= lo
        left_q = sum(v * mp.exp(-y) for y, v in zip(ys, vs, strict=True)) / 2
        total = right_p**alpha * right_q ** (1 - alpha) * mp.exp(-hi)
        total += left_p**alpha * left_q ** (1 - alpha) * mp.exp(lo)
        for a, b in itertools.pairwise(cuts):
            total += mp.quad(f, [a, b], method="gauss-legendre")
        return mp.log(total) / (alpha - 1)


def geometric_mixture_renyi(xs, ws, ys, vs, eta, alpha):
    """D_alpha of integer priors plus two-sided geometric noise Pr(N = z) ∝ e^(-eta |z|), in mpmath:
    a finite sum between the atoms and two geometric series beyond them."""
    with mp.workdps(_digits()):
        alpha, r = mp.mpf(alpha), mp.exp(-mp.mpf(eta))
        ws, vs = [mp.mpf(w) for w in ws], [mp.mpf(v) for v in vs]
        ws, vs = [w / sum(ws) for w in ws], [v / sum(vs) for v in vs]
        lo, hi = min(min(xs), min(ys)), max(max(xs), max(ys))

        def dens(atoms, weights, y):  # the factor (1 - r) / (1 + r) cancels
            return sum(w * r ** abs(y - x) for x, w in zip(atoms, weights, strict=True))

        norm = (1 - r) / (1 + r)
        total = sum(dens(xs, ws, y) ** alpha * dens(ys, vs, y) ** (1 - alpha) for y in range(lo, hi + 1))
        # beyond hi: dens = r^(y - hi) dens(hi); below lo: dens = r^(lo - y) dens(lo)
        for edge in (lo, hi):
            total += dens(xs, ws, edge) ** alpha * dens(ys, vs, edge) ** (1 - alpha) * r / (1 - r)
        return mp.log(norm * total) / (alpha - 1)


# --------------------------------------------------------------------------------------------
# thm-comp-nfc and thm-comp-compose: finite datasets, finite mechanisms
# --------------------------------------------------------------------------------------------


def _logsumexp(values):
    values = list(values)
    top = max(values)
    if top == -mp.inf:
        return top
    return top + mp.log(sum(mp.exp(v - top) for v in values))


def nfc_value(log_own, log_others):
    """max_{w in simplex} min_l sum_j w_j (log_own[j] - log_others[l][j]): the value of the NfC game
    at eps = 0 (= min_beta max_j by LP duality), by enumerating the vertices of the primal LP
    (variables w_1..w_{m-1}, t; constraints t <= payoff_l(w), w_j >= 0, sum w_j <= 1) in mpmath."""
    from itertools import combinations

    with mp.workdps(_digits()):
        m = len(log_own)
        pay = [[mp.mpf(log_own[j]) - mp.mpf(row[j]) for j in range(m)] for row in log_others]
        # a constraint is (coefficients of (w_1..w_{m-1}, t), rhs) meaning coef . x <= rhs
        cons = []
        for a in pay:  # t - sum_{j<m} w_j (a_j - a_m) <= a_m
            cons.append(([-(a[j] - a[m - 1]) for j in range(m - 1)] + [mp.mpf(1)], a[m - 1]))
        for j in range(m - 1):
            cons.append(([mp.mpf(-1) if i == j else mp.mpf(0) for i in range(m - 1)] + [mp.mpf(0)], mp.mpf(0)))
        cons.append(([mp.mpf(1)] * (m - 1) + [mp.mpf(0)], mp.mpf(1)))
        best = -mp.inf
        tol = mp.mpf(10) ** (-(mp.mp.dps - 10))
        for active in combinations(cons, m):
            mat = mp.matrix([c[0] for c in active])
            try:  # mpmath's LU fails (TypeError or ZeroDivisionError) on an exactly singular matrix
                if abs(mp.det(mat)) < tol:
                    continue
                sol = mp.lu_solve(mat, mp.matrix([c[1] for c in active]))
            except (TypeError, ZeroDivisionError):
                continue
            x = [sol[i] for i in range(m)]
            if all(sum(ci * xi for ci, xi in zip(c[0], x, strict=True)) <= c[1] + tol for c in cons):
                best = max(best, x[m - 1])
        return best


def composed_leakage(log_rows, s1, prior, r):
    """Exact Pufferfish level of r independent runs of a finite mechanism (one prior, one secret
    pair, both directions), over output types: max over count vectors n of
    |log sum_{D in s1} rho(D) prod p_D^n - log sum_{D in s2} rho(D) prod p_D^n| (the multinomial
    coefficient cancels)."""
    with mp.workdps(_digits()):
        m = len(log_rows[0])
        prior = [mp.mpf(x) for x in prior]
        z1 = sum(x for x, s in zip(prior, s1, strict=True) if s)
        z2 = sum(x for x, s in zip(prior, s1, strict=True) if not s)
        rows = [[mp.mpf(v) for v in row] for row in log_rows]

        def counts(total, parts):
            if parts == 1:
                yield (total,)
                return
            for first in range(total + 1):
                for rest in counts(total - first, parts - 1):
                    yield (first, *rest)

        worst = mp.mpf(0)
        for n in counts(r, m):
            terms = [
                mp.log(rho) + sum(nj * lj for nj, lj in zip(n, row, strict=True))
                for rho, row in zip(prior, rows, strict=True)
            ]
            one = _logsumexp(t for t, s in zip(terms, s1, strict=True) if s) - mp.log(z1)
            two = _logsumexp(t for t, s in zip(terms, s1, strict=True) if not s) - mp.log(z2)
            worst = max(worst, abs(one - two))
        return worst


def entry_datasets(n):
    """The 2^n datasets of n binary entries, in lexicographic order."""
    from itertools import product

    return list(product((0, 1), repeat=n))


def pufferfish_level(prior, mech_log, n):
    """max over entry secrets (X_k = 0 vs X_k = 1) and outputs of |log Pr(w | s_i) / Pr(w | s_j)|
    (one prior on {0,1}^n, mech_log[D][w] = log Pr(w | D)), in mpmath."""
    with mp.workdps(_digits()):
        data = entry_datasets(n)
        prior = [mp.mpf(x) for x in prior]
        worst = mp.mpf(0)
        for k in range(n):
            for w in range(len(mech_log[0])):
                side = []
                for bit in (0, 1):
                    idx = [i for i, d in enumerate(data) if d[k] == bit]
                    z = sum(prior[i] for i in idx)
                    side.append(_logsumexp(mp.log(prior[i]) + mech_log[i][w] for i in idx) - mp.log(z))
                worst = max(worst, abs(side[0] - side[1]))
        return worst


def ab_curve(prior, n, b):
    """a(b) of Def. 2 of Bai et al. for one prior and the entry secrets: max over entries k of
    min over |H| = b of max over D_L of |log Pr(D_L | X_k = 0) / Pr(D_L | X_k = 1)|, L = I minus H."""
    from itertools import combinations

    with mp.workdps(_digits()):
        data = entry_datasets(n)
        prior = [mp.mpf(x) for x in prior]
        worst = mp.mpf(0)
        for k in range(n):
            best = mp.inf
            for h in combinations(range(n), b):
                low = [i for i in range(n) if i not in h]
                leak = mp.mpf(0)
                for d_l in entry_datasets(len(low)):
                    prob = []
                    for bit in (0, 1):
                        sel = [i for i, d in enumerate(data) if d[k] == bit]
                        hit = sum(prior[i] for i in sel if all(data[i][e] == v for e, v in zip(low, d_l, strict=True)))
                        prob.append(hit / sum(prior[i] for i in sel))
                    if prob[0] == 0 and prob[1] == 0:
                        continue
                    leak = max(leak, mp.inf if 0 in prob else abs(mp.log(prob[0] / prob[1])))
                best = min(best, leak)
            worst = max(worst, best)
        return worst


def dp_level(mech_log, n):
    """The per-entry DP level of a mechanism on {0,1}^n: max over neighbours and outputs of |log ratio|."""
    data = entry_datasets(n)
    with mp.workdps(_digits()):
        worst = mp.mpf(0)
        for i, d in enumerate(data):
            for k in range(n):
                j = data.index(tuple(1 - v if e == k else v for e, v in enumerate(d)))
                worst = max(worst, max(abs(a - b) for a, b in zip(mech_log[i], mech_log[j], strict=True)))
        return worst
