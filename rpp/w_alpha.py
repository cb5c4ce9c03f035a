r"""α-Wasserstein mechanisms for Rényi Pufferfish Privacy.

Sufficient conditions of the α-Wasserstein paper (arXiv:2605.05723, cited in
the book as ``awass2026``) and the baselines they are compared with.  Every
condition has the same shape: for a coupling :math:`\pi` of the two
secret-conditioned priors :math:`P_i, P_j` and a per-pair cost :math:`c`,

.. math::

    \log \int c(x - x')\,d\pi(x, x') \;\le\; (\alpha - 1)\,\varepsilon .

It is sufficient for :math:`D_\alpha(P_i * N \,\|\, P_j * N) \le \varepsilon`
whenever :math:`e^{(\alpha-1)D_\alpha(N + x\|N + x')} \le c(x - x')`, by joint
convexity of :math:`(p, q) \mapsto \int p^\alpha q^{1-\alpha}` for
:math:`\alpha > 1` (Jensen's inequality applied to the coupling).  The
coupling used is the monotone (quantile) coupling :math:`\pi^*`, optimal for
every cost :math:`h(x - x')` with :math:`h` convex; all costs below are convex.

=====================  ==========  ==================================================
rule                   noise       per-pair cost :math:`c(d)`
=====================  ==========  ==================================================
``"paper"``            Laplace     :math:`e^{\alpha|d|/b}` (Theorem 1, eq. (12))
``"sharp"``            Laplace     :math:`e^{(\alpha-1)|d|/b}` (same proof with the
                                   likelihood-ratio bound applied to
                                   :math:`(p/q)^{\alpha-1}`; pure-DP per pair)
``"tight"``            Laplace     :math:`e^{(\alpha-1)D_\alpha(\mathrm{Lap}(d,b)\|\mathrm{Lap}(0,b))}`
                                   (exact shifted-Laplace divergence,
                                   :func:`laplace_rdp`)
``"paper"``/``"tight"``  Gaussian  :math:`e^{\alpha(\alpha-1)d^2/(2\sigma^2)}` (Theorem 2,
                                   eq. (14)); this *is* the exact shifted-Gaussian
                                   divergence, so both rules coincide
=====================  ==========  ==================================================

Priors: two :class:`~rpp.Empirical` samples (exact, finite coupling from
:func:`rpp.quantile_coupling`), or two continuous priors
(:class:`~rpp.Gaussian` / :class:`~rpp.GaussianMixture`) coupled through their
quantile functions, :math:`\pi^* = (F_i^{-1}(\Phi(Z)), F_j^{-1}(\Phi(Z)))_\#\,N(0,1)`.
Two Gaussians have closed forms (:math:`x - x' \sim N(\mu_i-\mu_j, (\sigma_i-\sigma_j)^2)`);
mixtures are integrated over the normal score :math:`z` with rigorous tail
bounds.  With Gaussian noise the integral is finite only if
:math:`\sigma^2 > \alpha(\alpha-1)(s_i - s_j)^2`, with :math:`s_i, s_j` the
largest component standard deviations (the quantile difference grows like
:math:`(s_i - s_j) z`); below that the condition is ``+inf``.

Also here: the Rényi DP of the Laplace mechanism (:func:`laplace_rdp`,
Mironov 2017, Prop. 6) and its inverse (:func:`laplace_rdp_scale`, the
:math:`W_\infty` baseline of Pierquin et al. 2024 with sensitivity
:math:`W_\infty`), the exponential-family generalisation (eq. (13),
:func:`exponential_family_eta`) with an exact check for the two-sided
geometric (discrete Laplace) noise (:func:`two_sided_geometric_renyi`), and the
sufficient condition for :math:`\alpha\in(0,1)` (the paper's Appendix
Proposition, :func:`alpha_below_one_laplace_scale`).

On ``import rpp`` this module registers, through
:func:`rpp.calibration.register_method`, the methods ``"w-alpha"`` and
``"w-alpha-tight"`` for ``noise="gaussian"`` and ``noise="laplace"``.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from . import _validation as v
from .calibration import _min_feasible, register_method
from .distributions import Empirical, Gaussian, GaussianMixture, components
from .divergence import _integrate_log
from .transport import quantile_coupling

__all__ = [
    "laplace_rdp", "laplace_rdp_scale", "log_laplace_shift_integral",
    "w_alpha_log_moment", "alpha_wasserstein", "w_alpha_scale",
    "exponential_family_eta", "two_sided_geometric_renyi", "alpha_below_one_laplace_scale",
]

_NOISES = ("laplace", "gaussian")
_RULES = {"laplace": ("paper", "sharp", "tight"), "gaussian": ("paper", "tight")}


def _lse(a, axis=None):
    """Fast log-sum-exp for finite-or--inf float arrays (no scipy array-API overhead)."""
    a = np.asarray(a, float)
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())[()]


# ----------------------------------------------------------------------------
# Laplace mechanism: Rényi DP (Mironov 2017, Prop. 6)
# ----------------------------------------------------------------------------

def log_laplace_shift_integral(t, alpha):
    r"""Log of :math:`I_\alpha(t) = \int \ell(y-t)^\alpha \ell(y)^{1-\alpha}dy` for the unit Laplace density :math:`\ell`.

    Mironov 2017, Proposition 6: for :math:`t = \Delta/b \ge 0`,

    .. math::

        I_\alpha(t) = \frac{\alpha}{2\alpha-1}e^{(\alpha-1)t} + \frac{\alpha-1}{2\alpha-1}e^{-\alpha t}
        = e^{-t/2}\Bigl(\cosh\tfrac{\beta t}{2} + \frac{\sinh(\beta t/2)}{\beta}\Bigr),
        \qquad \beta = 2\alpha - 1 .

    The second form (used here) has no cancellation at :math:`\alpha = 1/2`
    (limit :math:`(1 + t/2)e^{-t/2}`) and is evaluated in log space, so large
    :math:`t` does not overflow.  Valid for every :math:`\alpha > 0`.
    Broadcasts over ``t`` and ``alpha``.
    """
    t = np.abs(np.asarray(t, dtype=float))
    alpha = np.asarray(alpha, dtype=float)
    beta = 2 * alpha - 1
    u = np.abs(beta) * t / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        # sinh(u)/(beta) = (t/2) * sinh(u)/u ; with the factor e^{u} taken out:
        shc = np.where(u > 0, -np.expm1(-2 * u) / np.where(u > 0, 2 * u, 1.0), 1.0)
        # inner = (1 + e^{-2u})/2 + (t/2) shc, written as 1 + (...) for log1p
        out = -t / 2 + u + np.log1p(0.5 * np.expm1(-2 * u) + 0.5 * t * shc)
    out = np.where(t == 0, 0.0, out)
    return out if out.ndim else float(out)


def laplace_rdp(sensitivity, scale, alpha):
    r"""Rényi divergence between shifted Laplace laws, :math:`D_\alpha(\mathrm{Lap}(\Delta, b)\,\|\,\mathrm{Lap}(0, b))`.

    Mironov 2017, Proposition 6 (the Rényi DP of the Laplace mechanism with
    sensitivity :math:`\Delta` and scale :math:`b`):

    .. math::

        D_\alpha = \frac{1}{\alpha-1}\log\Bigl(\frac{\alpha}{2\alpha-1}e^{(\alpha-1)\Delta/b}
        + \frac{\alpha-1}{2\alpha-1}e^{-\alpha\Delta/b}\Bigr),

    symmetric in the two laws.  ``alpha = 1`` gives the KL divergence
    :math:`\Delta/b + e^{-\Delta/b} - 1`, ``alpha = inf`` the max-divergence
    :math:`\Delta/b`; ``alpha`` in (0, 1) is allowed.  ``scale = 0`` gives 0 for
    ``sensitivity = 0`` and ``+inf`` otherwise.  Broadcasts.
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True)
    b = v.positive("scale", scale, allow_zero=True)
    alpha = v.alpha_order(alpha, allow_below_one=True, allow_one=True, allow_inf=True)
    delta, b, alpha = np.broadcast_arrays(delta, b, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(delta == 0, 0.0, delta / b)
    out = np.empty(t.shape)
    inf_t = np.isinf(t)
    kl = alpha == 1
    mx = np.isposinf(alpha)
    gen = ~(kl | mx | inf_t)
    tt = np.where(inf_t, 0.0, t)
    out[kl & ~inf_t] = (tt + np.expm1(-tt))[kl & ~inf_t]
    out[mx & ~inf_t] = tt[mx & ~inf_t]
    if gen.any():
        a = np.where(gen, alpha, 2.0)
        out[gen] = (log_laplace_shift_integral(tt, a) / (a - 1))[gen]
    out[inf_t] = np.inf
    out = np.maximum(out, 0.0)
    return out if out.ndim else float(out)


def laplace_rdp_scale(sensitivity, alpha, epsilon):
    r"""Smallest Laplace scale :math:`b` with :math:`D_\alpha(\mathrm{Lap}(\Delta,b)\|\mathrm{Lap}(0,b)) \le \varepsilon`.

    Inverts :func:`laplace_rdp` (Mironov 2017, Prop. 6) in :math:`t = \Delta/b`
    by vectorised bisection on the bracket
    :math:`[\varepsilon,\ \varepsilon + \log\frac{2\alpha-1}{\alpha}/(\alpha-1)]`
    (from :math:`t - \log\frac{2\alpha-1}{\alpha}/(\alpha-1) \le D_\alpha \le t`),
    returning the feasible end.  With :math:`\Delta = W_\infty(P_i, P_j)` this is
    the Laplace baseline of Pierquin et al. 2024 (``method="pierquin"``).
    ``sensitivity = inf`` gives ``inf``.  Broadcasts; ``alpha > 1``.
    """
    delta = v.positive("sensitivity", sensitivity, allow_zero=True, allow_inf=True)
    alpha = v.alpha_order(alpha)
    epsilon = v.epsilon_budget(epsilon)
    delta, alpha, epsilon = np.broadcast_arrays(delta, alpha, epsilon)
    lo = epsilon.astype(float).copy()
    hi = epsilon + np.log((2 * alpha - 1) / alpha) / (alpha - 1) + 1e-300
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        ok = log_laplace_shift_integral(mid, alpha) <= (alpha - 1) * epsilon
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
        if np.all(hi - lo <= 4e-16 * hi):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.where(delta == 0, 0.0, delta / lo)
    # round-off guard: the returned b must satisfy the condition as evaluated
    for _ in range(50):
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where((delta == 0) | np.isinf(delta), 0.0, delta / np.where(b > 0, b, 1.0))
        bad = (log_laplace_shift_integral(t, alpha) > (alpha - 1) * epsilon) & np.isfinite(b) & (b > 0)
        if not bad.any():
            break
        b = np.where(bad, b * (1 + 4e-16) + 1e-300, b)
    return b if b.ndim else float(b)


# ----------------------------------------------------------------------------
# Per-pair costs, as functions of the distance d and of t (1/b or 1/sigma^2)
# ----------------------------------------------------------------------------

class _Cost:
    r"""Log of a per-pair cost :math:`\log c(d; t)`, increasing in :math:`|d|` and :math:`t`.

    ``kind``: ``"abs"`` (:math:`k\,t\,|d|`), ``"sq"`` (:math:`k\,t\,d^2`) or
    ``"lap"`` (:math:`\log I_\alpha(t|d|)`); ``k`` the rate constant.
    """

    def __init__(self, kind, k, alpha):
        self.kind, self.k, self.alpha = kind, float(k), float(alpha)

    def log(self, d, t):
        d = np.abs(np.asarray(d, float))
        if self.kind == "abs":
            return self.k * t * d
        if self.kind == "sq":
            return self.k * t * d ** 2
        return log_laplace_shift_integral(t * d, self.alpha)

    # -- D ~ N(m, var): closed forms of log E c(D) ---------------------------------
    @staticmethod
    def _log_mean_exp_abs(k, m, var):
        """log E exp(k|D|), D ~ N(m, var) (any real k)."""
        if var == 0:
            return k * abs(m)
        s = np.sqrt(var)
        return float(np.logaddexp(k * m + k ** 2 * var / 2 + special.log_ndtr(m / s + k * s),
                                  -k * m + k ** 2 * var / 2 + special.log_ndtr(-m / s + k * s)))

    def log_gauss_mean(self, m, var, t):
        if self.kind == "abs":
            return self._log_mean_exp_abs(self.k * t, m, var)
        if self.kind == "sq":
            c = self.k * t
            g = 1 - 2 * c * var
            if g <= 0:
                return np.inf
            return float(-0.5 * np.log(g) + c * m ** 2 / g)
        a = self.alpha
        la = np.log(a / (2 * a - 1)) + self._log_mean_exp_abs((a - 1) * t, m, var)
        lb = np.log((a - 1) / (2 * a - 1)) + self._log_mean_exp_abs(-a * t, m, var)
        return float(np.logaddexp(la, lb))

    def log_tail_bound(self, a, C, Z, t):
        r"""Log of a bound on :math:`\int_Z^\infty c(a z + C)\,\varphi(z)\,dz` (``a, C >= 0``)."""
        if self.kind in ("abs", "lap"):
            k = self.k * t if self.kind == "abs" else (self.alpha - 1) * t  # I_alpha(s) <= e^{(alpha-1)s}
            return k * C + k ** 2 * a ** 2 / 2 + special.log_ndtr(-(Z - k * a))
        c = self.k * t
        g = 1 - 2 * c * a ** 2
        if g <= 0:
            return np.inf
        centre = 2 * c * a * C / g
        return (-0.5 * np.log(g) + 2 * c ** 2 * a ** 2 * C ** 2 / g + c * C ** 2
                + special.log_ndtr(-np.sqrt(g) * (Z - centre)))


def _cost(noise, rule, alpha):
    if noise == "gaussian":
        return _Cost("sq", alpha * (alpha - 1) / 2, alpha)   # t = 1/sigma^2
    if rule == "paper":
        return _Cost("abs", alpha, alpha)                    # t = 1/b
    if rule == "sharp":
        return _Cost("abs", alpha - 1, alpha)
    return _Cost("lap", 1.0, alpha)


def _t_of(noise, scale):
    """t = 1/b (Laplace) or 1/sigma^2 (Gaussian); +inf for scale 0."""
    scale = np.float64(scale)
    with np.errstate(divide="ignore", over="ignore"):
        return float(1.0 / scale if noise == "laplace" else 1.0 / scale ** 2)


def _scale_of(noise, t):
    t = np.float64(t)
    with np.errstate(divide="ignore"):
        return float(1.0 / t if noise == "laplace" else 1.0 / np.sqrt(t))


def _check_args(noise, rule):
    if noise not in _NOISES:
        raise ValueError(f"noise must be one of {_NOISES}, got {noise!r}")
    if rule not in _RULES[noise]:
        raise ValueError(f"rule must be one of {_RULES[noise]} for noise={noise!r}, got {rule!r}")


def _kind(prior_i, prior_j):
    for name, p in (("prior_i", prior_i), ("prior_j", prior_j)):
        if not isinstance(p, (Gaussian, GaussianMixture, Empirical)):
            raise ValueError(f"{name} must be an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical, "
                             f"got {type(p).__name__}")
    ei, ej = isinstance(prior_i, Empirical), isinstance(prior_j, Empirical)
    if ei and ej:
        return "empirical"
    if ei or ej:
        raise ValueError("the alpha-Wasserstein conditions need two rpp.Empirical samples or two continuous "
                         f"priors (rpp.Gaussian/rpp.GaussianMixture), got {type(prior_i).__name__} and "
                         f"{type(prior_j).__name__}")
    if isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian):
        return "gaussian"
    return "mixture"


# ----------------------------------------------------------------------------
# Monotone coupling of continuous priors: quantile at a normal score
# ----------------------------------------------------------------------------

def _quantile_at_score(c, z):
    r""":math:`F^{-1}(\Phi(z))` for a Gaussian mixture (components ``c``), for any real ``z``.

    Solves :math:`h(x) = \log F(x) - \log\Phi(z) = 0` (``z <= 0``) or
    :math:`h(x) = \log(1-F(x)) - \log\Phi(-z) = 0` (``z > 0``) in log space, so
    that scores far in the tails (where :math:`\Phi(z)` rounds to 0 or 1) are
    exact.  Newton's method on :math:`h`, safeguarded by bisection inside the
    bracket :math:`[\min_k(\mu_k+s_kz), \max_k(\mu_k+s_kz)]`, which contains the root.
    """
    z = np.asarray(z, float)
    s = np.sqrt(c.variances)
    if c.weights.size == 1:
        return c.means[0] + s[0] * z
    lw = np.log(c.weights)
    lnorm = lw - np.log(s) - 0.5 * np.log(2 * np.pi)
    cand = c.means[None, :] + s[None, :] * z[:, None]
    lo, hi = cand.min(axis=1), cand.max(axis=1)
    target = special.log_ndtr(-np.abs(z))
    sgn = np.where(z > 0, -1.0, 1.0)            # h increasing (cdf) or decreasing (survival)
    x = np.dot(cand, c.weights)                 # start inside the bracket
    act = np.ones(z.shape, bool)
    for _ in range(100):
        xa = x[act]
        u = (xa[:, None] - c.means[None, :]) / s[None, :]
        lF = _lse(lw + special.log_ndtr(sgn[act][:, None] * u), axis=1)
        h = lF - target[act]
        lpdf = _lse(lnorm - 0.5 * u ** 2, axis=1)
        # update the bracket with the sign of h (h increasing in x when sgn = +1)
        right = sgn[act] * h < 0                # root lies to the right of xa
        lo_a = np.where(right, xa, lo[act])
        hi_a = np.where(right, hi[act], xa)
        slope = sgn[act] * np.exp(lpdf - lF)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            xn = xa - h / slope
        bad = ~np.isfinite(xn) | (xn < lo_a) | (xn > hi_a)
        xn = np.where(bad, 0.5 * (lo_a + hi_a), xn)
        xn = np.where(h == 0, xa, xn)
        tol = 2e-16 * np.maximum(np.abs(xn), 1.0) * 4
        done = (np.abs(xn - xa) <= tol) | (hi_a - lo_a <= tol) | (h == 0)
        idx = np.flatnonzero(act)
        x[idx], lo[idx], hi[idx] = xn, lo_a, hi_a
        act[idx[done]] = False
        if not act.any():
            break
    return x


def _tail_constants(ci, cj, Z):
    r"""(a, C) with :math:`|F_i^{-1}(\Phi(z)) - F_j^{-1}(\Phi(z))| \le a z + C` for all :math:`z \ge Z`.

    Upper bound on a mixture quantile: :math:`\max_k(\mu_k + s_k z) \le \max_k\mu_k + s_{\max}z`.
    Lower bound: with :math:`K` a widest component and :math:`L = \log(1/w_K)`,
    :math:`F^{-1}(\Phi(z)) \ge \mu_K + s_K(z - 2L/z)` for :math:`z^2 \ge 2L`,
    because :math:`\bar\Phi(z-a) \ge e^{az-a^2/2}\bar\Phi(z)` for :math:`a \ge 0`.
    Requires ``Z**2 >= 2 L`` for both mixtures.
    """
    def bounds(c):
        s = np.sqrt(c.variances)
        smax = s.max()
        widest = np.flatnonzero(s == smax)
        K = widest[np.argmax(c.means[widest])]
        L = -np.log(c.weights[K])
        assert Z ** 2 >= 2 * L
        lo_const = c.means[K] - smax * 2 * L / Z     # lower: mu_K + s z - s 2L/Z
        hi_const = c.means.max()                     # upper: max mu + s_max z
        return smax, lo_const, hi_const

    si, li, hi_i = bounds(ci)
    sj, lj, hi_j = bounds(cj)
    a = abs(si - sj)
    # d = Q_i - Q_j in [(si - sj) z + li - hi_j, (si - sj) z + hi_i - lj]
    C = max(abs(li - hi_j), abs(hi_i - lj))
    return a, C


def _mirror(c):
    return type(c)(c.weights, -c.means, c.variances)


class _Difference:
    r"""Memoised quantile difference :math:`d(z) = F_i^{-1}(\Phi(z)) - F_j^{-1}(\Phi(z))` (independent of the noise scale)."""

    def __init__(self, ci, cj):
        self.ci, self.cj, self.memo = ci, cj, {}

    def __call__(self, z):
        z = np.asarray(z, float)
        flat = z.ravel()
        out = np.empty(flat.size)
        memo = self.memo
        missing = [k for k, zz in enumerate(flat.tolist()) if zz not in memo]
        if missing:
            zm = flat[missing]
            dm = _quantile_at_score(self.ci, zm) - _quantile_at_score(self.cj, zm)
            memo.update(zip(zm.tolist(), dm.tolist()))
        out[:] = [memo[zz] for zz in flat.tolist()]
        return out.reshape(z.shape)


def _quantised(x):
    """Smallest 8 * 1.5**k >= x (so that grids repeat across noise scales and the memo is reused)."""
    k = max(0, int(np.ceil(np.log(max(x, 8.0) / 8.0) / np.log(1.5) - 1e-12)))
    return 8.0 * 1.5 ** k


def _continuous_log_moment(prior_i, prior_j, cost, t, dz=None):
    r"""``(log E_{π*} c(X - X'), rel_err)`` for two continuous priors under the quantile coupling."""
    ci, cj = components(prior_i), components(prior_j)
    if ci.weights.size == 1 and cj.weights.size == 1:
        m = ci.means[0] - cj.means[0]
        var = (np.sqrt(ci.variances[0]) - np.sqrt(cj.variances[0])) ** 2
        return cost.log_gauss_mean(m, var, t), 0.0
    ri, rj = _mirror(ci), _mirror(cj)
    Lmax = max(-np.log(ci.weights.min()), -np.log(cj.weights.min()))
    a_probe, C_probe = _tail_constants(ci, cj, max(8.0, np.sqrt(2 * Lmax) + 1.0))
    if cost.kind == "sq":
        c = cost.k * t
        g = 1 - 2 * c * a_probe ** 2
        if g <= 0:
            return np.inf, 0.0
        centre, width = 2 * c * a_probe * C_probe / g, 1 / np.sqrt(g)
    else:
        k = cost.k * t if cost.kind == "abs" else (cost.alpha - 1) * t
        centre, width = k * a_probe + 0.0, 1.0
    Z = _quantised(max(8.0, np.sqrt(2 * Lmax) + 1.0, centre + 12 * width))
    if dz is None:
        dz = _Difference(ci, cj)

    def log_f_mag(z):
        lc = cost.log(dz(z), t)
        # value and magnitude of its terms (round-off allowance of rpp.divergence._integrate_log)
        return lc - 0.5 * z ** 2 - 0.5 * np.log(2 * np.pi), np.abs(lc) + 0.5 * z ** 2 + 1.0

    def log_f(z):
        return log_f_mag(z)[0]

    for _ in range(100):
        grid = np.linspace(-Z, Z, int(min(4001, 40 * Z + 1)))
        body_probe = special.logsumexp(log_f(grid)) + np.log(grid[1] - grid[0])
        tails = []
        for (pi, pj) in ((ci, cj), (ri, rj)):
            a, C = _tail_constants(pi, pj, Z)
            tails.append(cost.log_tail_bound(a, C, Z, t))
        log_tail = special.logsumexp(tails)
        if not np.isfinite(log_tail):
            if cost.kind == "sq":
                return np.inf, 0.0
        elif log_tail < body_probe - 40:
            break
        Z = _quantised(Z * 1.5)
    else:  # pragma: no cover - defensive
        raise RuntimeError("could not bound the tails of the coupling integral")
    # breakpoints: a grid plus the sign changes of d (kinks of |d|)
    dg = dz(grid)
    breaks = list(np.linspace(-Z, Z, int(min(200, 4 * Z + 1))))
    for k in np.flatnonzero(np.sign(dg[:-1]) * np.sign(dg[1:]) < 0):
        breaks.append(optimize.brentq(lambda z: float(dz(np.array([z]))[0]), grid[k], grid[k + 1], xtol=1e-13))
    breaks = np.unique(np.asarray(breaks))
    log_i, rel = _integrate_log(log_f_mag, breaks)
    rel = rel + np.exp(log_tail - log_i) + 1e-13
    return log_i, rel


def _empirical_coupling(prior_i, prior_j):
    x, y, m = quantile_coupling(prior_i, prior_j)
    return x - y, m


def _empirical_log_moment(d, m, cost, t):
    if np.isinf(t):
        return 0.0 if np.all(d == 0) else np.inf
    return float(_lse(np.log(m) + cost.log(d, t)))


def w_alpha_log_moment(prior_i, prior_j, alpha, scale, noise="laplace", rule="paper"):
    r"""Left side of the α-Wasserstein condition, :math:`\log\int c(x-x')\,d\pi^*(x,x')`.

    The condition :math:`\text{value} \le (\alpha-1)\varepsilon` implies
    :math:`D_\alpha(P_i * N\|P_j * N) \le \varepsilon` (module docstring).

    ========================  ====================================================
    ``noise, rule``           :math:`c(d)`
    ========================  ====================================================
    laplace, ``"paper"``      :math:`e^{\alpha|d|/b}` -- Theorem 1, eq. (12)
    laplace, ``"sharp"``      :math:`e^{(\alpha-1)|d|/b}`
    laplace, ``"tight"``      :math:`I_\alpha(|d|/b)` (:func:`log_laplace_shift_integral`)
    gaussian, either          :math:`e^{\alpha(\alpha-1)d^2/(2\sigma^2)}` -- Theorem 2, eq. (14)
    ========================  ====================================================

    Parameters
    ----------
    prior_i, prior_j : Empirical, Empirical  or  Gaussian/GaussianMixture (both)
    alpha : float
        ``alpha > 1``.
    scale : float
        Laplace scale ``b`` or Gaussian standard deviation ``sigma`` (``>= 0``).
    noise : {"laplace", "gaussian"}
    rule : str
        See the table.

    Returns
    -------
    float
        For mixtures an upper bound (quadrature value plus its error bound);
        ``+inf`` where the integral diverges (Gaussian noise with
        :math:`\sigma^2 \le \alpha(\alpha-1)(s_i-s_j)^2`, or ``scale = 0`` with
        priors that differ).
    """
    _check_args(noise, rule)
    kind = _kind(prior_i, prior_j)
    alpha = float(v.alpha_order(alpha))
    scale = float(v.positive("scale", scale, allow_zero=True))
    cost = _cost(noise, rule, alpha)
    t = _t_of(noise, scale)
    if kind == "empirical":
        d, m = _empirical_coupling(prior_i, prior_j)
        return _empirical_log_moment(d, m, cost, t)
    if np.isinf(t):
        same = (isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian)
                and prior_i.mean == prior_j.mean and prior_i.var == prior_j.var)
        return 0.0 if same else np.inf
    val, rel = _continuous_log_moment(prior_i, prior_j, cost, t)
    return float(val + np.log1p(rel)) if np.isfinite(val) else np.inf


def alpha_wasserstein(prior_i, prior_j, alpha, scale, noise="laplace"):
    r"""The paper's α-Wasserstein distance at a given noise scale (left sides of eqs. (12) and (14)).

    Laplace: :math:`W_\alpha = \bigl(\int e^{\alpha|x-x'|/b}d\pi^*\bigr)^{1/\alpha}` with
    :math:`d(z) = e^{|z|/b}`; Theorem 1 holds iff :math:`W_\alpha \le e^{(\alpha-1)\varepsilon/\alpha}`.
    Gaussian: :math:`W_{\alpha(\alpha-1)} = \bigl(\int e^{\alpha(\alpha-1)(x-x')^2/(2\sigma^2)}d\pi^*\bigr)^{1/(\alpha(\alpha-1))}`
    with :math:`d(z) = e^{z^2/(2\sigma^2)}`; Theorem 2 holds iff it is :math:`\le e^{\varepsilon/\alpha}`.
    """
    lm = w_alpha_log_moment(prior_i, prior_j, alpha, scale, noise=noise, rule="paper")
    alpha = float(alpha)
    return float(np.exp(lm / (alpha if noise == "laplace" else alpha * (alpha - 1))))


def _smallest_feasible(f, lo, hi, rtol=1e-10):
    """Smallest z >= lo with f(z) <= 0 for a non-increasing f: the package's one root-finder,
    :func:`rpp.calibration._min_feasible` (a feasible z is returned)."""
    return _min_feasible(f, lo, hi, rtol=rtol)


def _largest_feasible_t(g, t0):
    """Largest t >= 0 with g(t) <= 0 for an increasing g with g(0) < 0 (returns a feasible t)."""
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
    return t


def w_alpha_scale(prior_i, prior_j, alpha, epsilon, noise="laplace", rule="paper"):
    r"""Smallest noise scale meeting the α-Wasserstein condition for one order :math:`D_\alpha(i\|j)`.

    Solves :func:`w_alpha_log_moment` :math:`\le (\alpha-1)\varepsilon` for the
    Laplace scale ``b`` (``noise="laplace"``) or the Gaussian standard deviation
    ``sigma`` (``noise="gaussian"``).  The left side decreases in the scale.

    * Empirical priors: in :math:`t = 1/b` (or :math:`1/\sigma^2`) the left side
      is a convex, increasing log-sum-exp; the root is found by ``brentq`` and the
      feasible side is returned.  Identical priors give 0.  Useful brackets:
      Laplace ``"paper"`` lies in
      :math:`[\frac{\alpha W_1}{(\alpha-1)\varepsilon}, \frac{\alpha W_\infty}{(\alpha-1)\varepsilon}]`,
      Gaussian in :math:`[\frac{\alpha W_2^2}{2\varepsilon}, \frac{\alpha W_\infty^2}{2\varepsilon}]` (for σ²).
    * Continuous priors: bracketed root finding on the scale (Gaussian noise:
      on :math:`\sigma^2 > \alpha(\alpha-1)(s_i-s_j)^2`).

    This protects one order; :func:`rpp.calibrate` with ``method="w-alpha"``
    (rule ``"paper"``) or ``"w-alpha-tight"`` (rule ``"tight"``) protects both.
    """
    _check_args(noise, rule)
    kind = _kind(prior_i, prior_j)
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    cost = _cost(noise, rule, alpha)
    target = (alpha - 1) * epsilon
    if kind == "empirical":
        d, m = _empirical_coupling(prior_i, prior_j)
        if np.all(d == 0):
            return 0.0
        wmax = float(np.max(np.abs(d)))

        def g(t):
            return _empirical_log_moment(d, m, cost, t) - target
        t0 = 1.0 / wmax if noise == "laplace" else 1.0 / wmax ** 2
        t = _largest_feasible_t(g, t0 * epsilon / alpha)
        s = _scale_of(noise, t)
        # round-off guard on the scale actually returned
        for _ in range(100):
            if g(_t_of(noise, s)) <= 0:
                break
            s = s * (1 + 4e-16) + 1e-300
        return float(s)

    ci, cj = components(prior_i), components(prior_j)
    same = (isinstance(prior_i, Gaussian) and isinstance(prior_j, Gaussian)
            and prior_i.mean == prior_j.mean and prior_i.var == prior_j.var)
    if same:
        return 0.0
    spread = (float(np.max(np.abs(ci.means[:, None] - cj.means[None, :])))
              + float(np.sqrt(ci.variances.max()) + np.sqrt(cj.variances.max())))
    dz = _Difference(ci, cj)
    if noise == "laplace":
        def f(b):
            if b <= 0:
                return np.inf
            val, rel = _continuous_log_moment(prior_i, prior_j, cost, 1.0 / b, dz)
            return val + np.log1p(rel) - target
        return float(_smallest_feasible(f, 0.0, alpha * spread / ((alpha - 1) * epsilon)))
    ds = abs(np.sqrt(ci.variances.max()) - np.sqrt(cj.variances.max()))
    lo = alpha * (alpha - 1) * ds ** 2

    def f(z):
        if z <= lo:
            return np.inf
        val, rel = _continuous_log_moment(prior_i, prior_j, cost, 1.0 / z, dz)
        return val + np.log1p(rel) - target
    z = _smallest_feasible(f, lo, 2 * lo + alpha * spread ** 2 / (2 * epsilon))
    return float(np.sqrt(z))


# ----------------------------------------------------------------------------
# Exponential-family noise (eq. (13)) and the two-sided geometric example
# ----------------------------------------------------------------------------

def exponential_family_eta(prior_i, prior_j, alpha, epsilon, cost=None, rule="paper"):
    r"""Largest rate :math:`\eta` of the noise :math:`p(z)\propto e^{-\eta c(z)}` meeting eq. (13).

    For a metric cost :math:`c` (symmetric, :math:`c(0)=0`, triangle inequality)
    the noise satisfies :math:`p(y-x) \le e^{\eta c(x-x')}p(y-x')`, hence
    :math:`D_\alpha(N+x\|N+x') \le \frac{\alpha}{\alpha-1}\eta c(x-x')` (``rule="paper"``,
    the bound behind eq. (13): :math:`\int q\,(p/q)^\alpha \le \sup(p/q)^\alpha`)
    and even :math:`\le \eta c(x-x')` (``rule="sharp"``:
    :math:`\int p\,(p/q)^{\alpha-1} \le \sup(p/q)^{\alpha-1}`).  With joint convexity the
    sufficient condition is

    .. math::

        \log\sum \pi^*(x,x')\,e^{\kappa\,\eta\,c(x-x')} \le (\alpha-1)\varepsilon,
        \qquad \kappa = \alpha \text{ (paper) or } \alpha - 1 \text{ (sharp)} .

    Any coupling gives a valid condition; the monotone one of the two
    :class:`~rpp.Empirical` samples is used (optimal when :math:`c` is a convex
    function of :math:`x - x'`).  The noise scale :math:`\theta` follows from
    :math:`\eta(\theta)`; for Laplace noise :math:`\eta = 1/b`.

    Parameters
    ----------
    prior_i, prior_j : Empirical
    alpha : float (> 1)
    epsilon : float (> 0)
    cost : callable, optional
        Vectorised metric :math:`c(z)`; default :math:`|z|`.
    rule : {"paper", "sharp"}

    Returns
    -------
    float
        :math:`\eta` (``inf`` when the priors coincide).
    """
    if not (isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical)):
        raise ValueError("exponential_family_eta needs two rpp.Empirical samples")
    if rule not in ("paper", "sharp"):
        raise ValueError(f"rule must be 'paper' or 'sharp', got {rule!r}")
    alpha = float(v.alpha_order(alpha))
    epsilon = float(v.epsilon_budget(epsilon))
    cost = np.abs if cost is None else cost
    d, m = _empirical_coupling(prior_i, prior_j)
    c = np.asarray(cost(d), float)
    if c.shape != d.shape or np.any(~np.isfinite(c)) or np.any(c < 0):
        raise ValueError("cost must map an array of differences to finite non-negative values of the same shape")
    c0 = np.asarray(cost(np.zeros(1)), float)
    cm = np.asarray(cost(-d), float)
    if c0.shape != (1,) or c0[0] != 0 or cm.shape != c.shape or not np.allclose(cm, c, rtol=1e-12, atol=0):
        raise ValueError("cost must be a metric: cost(0) = 0 and cost(-z) = cost(z)")
    if np.all(c == 0):
        return np.inf
    kappa = alpha if rule == "paper" else alpha - 1
    lm = np.log(m)
    target = (alpha - 1) * epsilon

    def g(eta):
        return _lse(lm + kappa * eta * c) - target
    return float(_largest_feasible_t(g, target / (kappa * c.max())))


def two_sided_geometric_renyi(p, q, alpha, eta):
    r"""Exact :math:`D_\alpha` after two-sided geometric (discrete Laplace) noise on integer data.

    The noise :math:`P(Z = z) = \frac{1-r}{1+r}r^{|z|}`, :math:`r = e^{-\eta}`,
    :math:`z\in\mathbb{Z}`, is the exponential-family noise of eq. (13) with the
    metric :math:`c(z) = |z|` on the integers.  For two integer-valued
    :class:`~rpp.Empirical` priors the outputs are integer-valued; the sum
    :math:`\sum_y P_i(y)^\alpha P_j(y)^{1-\alpha}` is finite between the
    smallest and largest atom and geometric outside, where it is summed in
    closed form (:math:`\sum_{k\ge1} r^k = r/(1-r)`).  ``alpha`` in (0, 1) or (1, inf).
    """
    for name, d in (("p", p), ("q", q)):
        if not isinstance(d, Empirical):
            raise ValueError(f"{name} must be an rpp.Empirical sample, got {type(d).__name__}")
        if np.any(d.support != np.round(d.support)):
            raise ValueError(f"{name} must be integer-valued for two-sided geometric noise")
    alpha = float(v.alpha_order(alpha, allow_below_one=True))
    eta = float(v.positive("eta", eta))
    lo = min(p.support.min(), q.support.min())
    hi = max(p.support.max(), q.support.max())
    if hi - lo > 10 ** 6:
        raise ValueError("the integer support spans more than 10**6 values")
    y = np.arange(lo, hi + 1, dtype=float)
    lnorm = np.log(-np.expm1(-eta)) - np.log1p(np.exp(-eta))

    def logpmf(d):
        return special.logsumexp(np.log(d.probs)[None, :] - eta * np.abs(y[:, None] - d.support[None, :]), axis=1) + lnorm

    lf = alpha * logpmf(p) + (1 - alpha) * logpmf(q)
    # beyond hi: every term is r^k times the value at hi, k >= 1; same below lo
    log_geo = -eta - np.log(-np.expm1(-eta))   # log(r / (1 - r))
    log_i = special.logsumexp(np.concatenate([lf, [lf[-1] + log_geo, lf[0] + log_geo]]))
    return float(max(0.0, log_i / (alpha - 1)))


# ----------------------------------------------------------------------------
# alpha in (0, 1): the Appendix Proposition
# ----------------------------------------------------------------------------

def alpha_below_one_laplace_scale(prior_i, prior_j, alpha, epsilon, rule="paper"):
    r"""Smallest Laplace scale meeting the sufficient condition for :math:`\alpha \in (0,1)`.

    For :math:`\alpha\in(0,1)`, :math:`D_\alpha \le \varepsilon` iff
    :math:`\int p^\alpha q^{1-\alpha} \ge e^{(\alpha-1)\varepsilon}`.  The map
    :math:`(p,q)\mapsto\int p^\alpha q^{1-\alpha}` is jointly *concave*, so for a
    coupling :math:`\pi` it is at least :math:`\sum\pi\,I_\alpha(|x-x'|/b)`, and
    :math:`I_\alpha(t) \ge e^{-\alpha t}` (the paper's Appendix Proposition, ``rule="paper"``:
    :math:`\sum\pi e^{-\alpha|x-x'|/b} \ge e^{(\alpha-1)\varepsilon}`) as well as
    :math:`I_\alpha(t) \ge e^{-(1-\alpha)t}` (``rule="sharp"`` uses the better
    exponent :math:`\min(\alpha, 1-\alpha)`).  Empirical priors; one order.
    """
    if not (isinstance(prior_i, Empirical) and isinstance(prior_j, Empirical)):
        raise ValueError("alpha_below_one_laplace_scale needs two rpp.Empirical samples")
    alpha = float(v.alpha_order(alpha, allow_below_one=True))
    if not alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if rule not in ("paper", "sharp"):
        raise ValueError(f"rule must be 'paper' or 'sharp', got {rule!r}")
    epsilon = float(v.epsilon_budget(epsilon))
    d, m = _empirical_coupling(prior_i, prior_j)
    d = np.abs(d)
    if np.all(d == 0):
        return 0.0
    k = alpha if rule == "paper" else min(alpha, 1 - alpha)
    target = (alpha - 1) * epsilon    # negative
    if m[d == 0].sum() >= np.exp(target):    # already met without noise (the b -> 0 limit)
        return 0.0

    def g(t):  # increasing in t; feasible iff <= 0
        return target - _lse(np.log(m) - k * d * t)
    t = _largest_feasible_t(g, (1 - alpha) * epsilon / (k * d.max()))
    b = 1.0 / t
    for _ in range(100):
        if g(1.0 / b) <= 0:
            break
        b = b * (1 + 4e-16) + 1e-300
    return float(b)


# ----------------------------------------------------------------------------
# Registration with rpp.calibrate
# ----------------------------------------------------------------------------

def _registered(noise, rule):
    def method(prior_i, prior_j, alpha, epsilon):
        return w_alpha_scale(prior_i, prior_j, alpha, epsilon, noise=noise, rule=rule)
    method.__name__ = f"w_alpha_{noise}_{rule}"
    method.__doc__ = f"{noise} noise, rule {rule!r} of :func:`rpp.w_alpha.w_alpha_scale` (one order)."
    return method


for _noise in _NOISES:
    register_method(_noise, "w-alpha", _registered(_noise, "paper"))
    register_method(_noise, "w-alpha-tight", _registered(_noise, "tight"))
