r"""The privacy-loss law of two multivariate Gaussians: its tails, :math:`\delta^\star(\varepsilon')` and the trade-off curve.

For output laws :math:`P_i = N(\mu_i, \Sigma_i)` and :math:`P_j = N(\mu_j, \Sigma_j)` on :math:`\mathbb{R}^d`
(the joint law of a linear release of Gaussian data under Gaussian noise under each secret,
:func:`~rpp.accounting.linear_release_law`), the privacy loss :math:`L = \log(p_i/p_j)` is a
quadratic function of the output. Under either law it is a *generalised chi-square* variable,

.. math::

    L \overset{d}{=} \sum_{k=1}^d \bigl(a_k w_k^2 + b_k w_k + c_k\bigr), \qquad w \sim N(0, I_d),

so every exact :math:`(\varepsilon', \delta)` statement and every Neyman--Pearson test of the pair is
a tail of one such variable (Balle & Wang 2018, Thm 5; Dong, Roth & Su 2022, Def. 2.1). The univariate case
is :func:`~rpp.accounting.gaussian_loss_tail`, :func:`~rpp.accounting.gaussian_hockey_stick` and
:func:`~rpp.accounting.gaussian_true_positive_rate` (exact interval probabilities); this module
handles every dimension by numerical inversion of the moment generating function.

*Derivation.* Under :math:`Y \sim N(\mu_r, \Sigma_r)` write :math:`\Sigma_r = GG^\top` (Cholesky) and
:math:`Y = \mu_r + GUw` with :math:`U \operatorname{diag}(\lambda - 1) U^\top` the eigen-decomposition
of :math:`G^{-1}(\Sigma_o - \Sigma_r)G^{-\top}` (so :math:`\lambda` are the eigenvalues of the
whitened :math:`G^{-1}\Sigma_o G^{-\top}`, computed without forming :math:`1 + (\lambda - 1)`) and
:math:`\hat\delta = U^\top G^{-1}(\mu_o - \mu_r)`. Then

.. math::

    \log\frac{p_o(Y)}{p_r(Y)} = \sum_k \Bigl[\underbrace{\tfrac{\lambda_k - 1}{2\lambda_k}}_{a_k} w_k^2
    + \underbrace{\tfrac{\hat\delta_k}{\lambda_k}}_{b_k} w_k
    \underbrace{- \tfrac{\hat\delta_k^2}{2\lambda_k} - \tfrac12\log\lambda_k}_{c_k}\Bigr],

i.e. :math:`\tfrac12 w^\top(I - \Lambda^{-1})w + b^\top w + c`: a weighted sum of non-central
:math:`\chi^2_1` terms (:math:`a_k \ne 0`), a normal term (:math:`a_k = 0`) and a constant. With
:math:`(o, r) = (i, j)` this is :math:`L` under :math:`P_j`; with :math:`(o, r) = (j, i)` it is
:math:`-L` under :math:`P_i`.

*Computation of a tail.* With :math:`K(z) = \log \mathbb{E}\,e^{zQ}` the cumulant generating function
of :math:`Q = \sum_k (a_k w_k^2 + b_k w_k + c_k)`,

.. math::

    K(z) = \sum_k \Bigl[-\tfrac12\log(1 - 2za_k) + zc_k + \frac{z^2 b_k^2}{2(1 - 2za_k)}\Bigr],

and for any real :math:`c > 0` with :math:`1 - 2ca_k > 0` for all :math:`k` (Gil-Pelaez's inversion
on the line :math:`\operatorname{Re} z = c`, Imhof 1961, Sec. 2, moved off the imaginary axis)

.. math::

    P(Q > x) = \frac{1}{\pi}\int_0^\infty \operatorname{Re}
    \frac{e^{K(c + iv) - (c + iv)x}}{c + iv}\,dv,

while for :math:`c < 0` the same integral is :math:`-P(Q \le x)` (the pole at 0 is crossed). The line
goes through the saddle point, :math:`K'(c) = x`, on the side of the smaller tail: there the integrand
is largest at :math:`v = 0` and carries the factor :math:`e^{K(c) - cx}` of the tail's size, so a small
tail is computed to a *relative* accuracy, with no :math:`\tfrac12 - \tfrac12` cancellation of Imhof's
form on the imaginary axis (the steepest-descent line of Helstrom 1983 for quadratic forms; Davies 1980,
Algorithm AS 155, bounds the discretisation and truncation errors of the inversion on the real axis). Near the mean the line is kept at :math:`|c| \ge 1/(2\sigma)`
(:math:`\sigma` the standard deviation of :math:`Q`) and the larger tail is one minus the smaller.
The integral is split: ``scipy.integrate.quad`` (QUADPACK's QAGS) on :math:`[0, V]`, :math:`V` twenty
standard widths :math:`1/\sqrt{K''(c)}` of the integrand, and the slowly decaying oscillatory rest
(:math:`|e^{K(c+iv)}| \sim v^{-m/2}` with :math:`m` the number of :math:`a_k \ne 0`) by QUADPACK's
Fourier integrator QAWF, after the linear phase :math:`e^{-iv\omega}`,
:math:`\omega = x - \sum_k(c_k - b_k^2/(4a_k))`, is taken out.

*Error allowance.* The tail's allowance is eight times the sum of QUADPACK's error estimates of the
pieces (scaled by :math:`e^{K(c)-cx}/\pi`), plus :math:`10^{-12}` of the value (the rounding of the
integrand's :math:`O(d)` terms and of the saddle point), and a hundred times more where QUADPACK
reports that it did not converge; where QAWF cannot reach its tolerance, the tolerance is relaxed
(up to :math:`10^{-9}` of the integral) and the change of the result counts as error. One dimension
(:math:`m = 1`, the slowest decay) is QAWF's hardest case: a few :math:`10^{-9}` relative. It is an **estimate**, not a proved bound; the tests compare it
with 30-digit mpmath quadrature and with exact closed forms (``tests/accounting/test_gaussian_loss.py``).
:func:`multivariate_gaussian_hockey_stick` and :func:`multivariate_gaussian_true_positive_rate` add
their allowances on the side of the attacker: a published :math:`\delta` or true-positive rate is
never lowered by the numerical error. For equal covariances :math:`L` is Gaussian and the closed forms
(Balle & Wang 2018, Thm 8; the :math:`\mu`-GDP curve, Dong, Roth & Su 2022, Def. 2.6) are used instead,
exact to rounding.
"""

from __future__ import annotations

import cmath
import itertools
import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, linalg, optimize, special

from .._lib import validation as checks
from ._conversions import gaussian_shift_delta
from ._linear_queries import checked_gaussian_pair

__all__ = [
    "multivariate_gaussian_loss_tail",
    "multivariate_gaussian_hockey_stick",
    "multivariate_gaussian_true_positive_rate",
]

#: The allowance: this many times QUADPACK's error estimate, plus this relative part of the value.
ERROR_FACTOR = 8.0
ERROR_RTOL = 1e-12
#: Thresholds and epsilon' beyond this size are refused (e^t of the hockey-stick stays finite).
T_LIMIT = 700.0


# ----------------------------------------------------------------------------------------------
# The generalised chi-square form of the loss
# ----------------------------------------------------------------------------------------------


def _form(mean_o: np.ndarray, cov_o: np.ndarray, mean_r: np.ndarray, cov_r: np.ndarray) -> np.ndarray:
    """Return (a, b, c) of log p_o(Y) - log p_r(Y) under Y ~ N(mean_r, cov_r), a (3, d) array (module docstring)."""
    g = linalg.cholesky(cov_r, lower=True)
    half = linalg.solve_triangular(g, cov_o - cov_r, lower=True)
    diff = linalg.solve_triangular(g, half.T, lower=True)  # G^-1 (S_o - S_r) G^-T
    mu, vec = np.linalg.eigh(0.5 * (diff + diff.T))  # lambda - 1
    lam = 1.0 + mu
    if np.any(lam <= 0):  # pragma: no cover - both covariances are validated positive definite
        raise ValueError("cov_i and cov_j must be positive definite")
    shift = vec.T @ linalg.solve_triangular(g, mean_o - mean_r, lower=True)
    a = mu / (2.0 * lam)
    b = shift / lam
    c = -(shift**2) / (2.0 * lam) - 0.5 * np.log1p(mu)
    return np.stack([a, b, c])


def _cgf(z: complex | float, form: np.ndarray) -> complex | float:
    """Return K(z) = log E exp(z Q), for z on the line of the inversion (1 - 2 z a_k has a positive real part)."""
    a, b, c = form
    one = 1.0 - 2.0 * z * a
    return np.sum(-0.5 * np.log(one) + z * c + z * z * b * b / (2.0 * one))


def _cgf_line(form: np.ndarray) -> Any:
    """Return K on complex z as a plain-Python function of the terms (QUADPACK calls it thousands of times)."""
    terms = [(float(a), float(b) ** 2 / 2.0, float(c)) for a, b, c in form.T]

    def k(z: complex) -> complex:
        out = 0j
        for a, h, c in terms:
            one = 1.0 - 2.0 * z * a
            out += -0.5 * cmath.log(one) + z * c + z * z * h / one
        return out

    return k


def _cgf_d1(z: float, form: np.ndarray) -> float:
    a, b, c = form
    one = 1.0 - 2.0 * z * a
    return float(np.sum(a / one + c + z * b * b * (1.0 - z * a) / one**2))


def _cgf_d2(z: float, form: np.ndarray) -> float:
    a, b, _ = form
    one = 1.0 - 2.0 * z * a
    return float(np.sum(2.0 * a * a / one**2 + b * b / one**3))


def _domain(form: np.ndarray) -> tuple[float, float]:
    """Return the open interval of real z where K is finite: 1 - 2 z a_k > 0 for every k."""
    a = form[0]
    hi = 1.0 / (2.0 * a[a > 0].max()) if np.any(a > 0) else math.inf
    lo = 1.0 / (2.0 * a[a < 0].min()) if np.any(a < 0) else -math.inf
    return lo, hi


def _support_end(form: np.ndarray, side: int) -> float:
    """Return the essential supremum (side +1) or infimum (-1) of Q (finite for a definite form only)."""
    a, b, c = form
    if np.any(side * a > 0) or np.any((a == 0) & (b != 0)):
        return side * math.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = np.where(a != 0, c - b * b / (4.0 * np.where(a != 0, a, 1.0)), c)
    return float(np.sum(vertex))


def _saddle(form: np.ndarray, x: float, side: int, sd: float) -> float:
    """Return the line's abscissa: the saddle point K'(c) = x on the tail's side, at least 1/(2 sd) from 0."""
    lo, hi = _domain(form)
    end = hi if side > 0 else lo
    floor = 0.5 / sd
    if math.isfinite(end):
        floor = min(floor, 0.5 * abs(end))
    if side * (_cgf_d1(side * floor, form) - x) >= 0:  # the saddle is closer to 0 than the floor
        return side * floor
    near, far = side * floor, 0.0
    if math.isfinite(end):  # kept 1e-3 inside the domain: the formula is exact on any line, and the
        far = end * (1.0 - 1e-3)  # integrand's peak at the edge would be narrower than the float grid
    else:
        far = near
        while side * (_cgf_d1(far, form) - x) < 0:
            far *= 2.0
            if abs(far) > 1e300:  # pragma: no cover - x is below the support's end, checked before
                raise ArithmeticError("the saddle point of the loss could not be bracketed")
    if side * (_cgf_d1(far, form) - x) < 0:
        return far  # the saddle beyond: any line of the domain is exact, this one loses e^{(end - far) x}
    return optimize.brentq(lambda z: _cgf_d1(z, form) - x, near, far, xtol=1e-300, rtol=1e-13, maxiter=500)


def _quad(func: Any, lo: float, hi: float, **kw: Any) -> tuple[float, float, bool]:
    """Run QUADPACK through scipy, with its warning turned into a flag.

    The integrand is guarded: a value that is not finite (an overflow far out on the line, where the
    true integrand is negligible) is flagged and replaced by 0, since QUADPACK's Fourier integrator
    QAWF crashes the interpreter on NaN (scipy issues 12662, 14945).
    """
    nonfinite = []

    def safe(v: float) -> float:
        try:
            out = func(v)
        except (OverflowError, ZeroDivisionError):
            out = math.nan
        if not math.isfinite(out):
            nonfinite.append(v)
            return 0.0
        return out

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", integrate.IntegrationWarning)
        val, err = integrate.quad(safe, lo, hi, **kw)[:2]
    bad = bool(nonfinite) or any(issubclass(w.category, integrate.IntegrationWarning) for w in caught)
    return float(val), float(err), bad


def _small_tail(form: np.ndarray, x: float, side: int) -> tuple[float, float]:
    """(P, allowance) of P(Q > x) (side +1) or P(Q < x) (side -1) by inversion on the saddle line."""
    end = _support_end(form, side)
    if side * (x - end) >= 0:
        return 0.0, 0.0  # beyond the support: exactly 0
    sd = math.sqrt(float(np.sum(2.0 * form[0] ** 2 + form[1] ** 2)))
    c = _saddle(form, x, side, sd)
    log_scale = float(np.real(_cgf(c, form))) - c * x
    cgf = _cgf_line(form)

    def integrand(v: float) -> float:
        z = complex(c, v)
        return (cmath.exp(cgf(z) - z * x - log_scale) / z).real

    width = 1.0 / math.sqrt(_cgf_d2(c, form) + 1.0 / (c * c))
    # The cut: twenty widths of the peak at v = 0, and far enough that every term is either in its
    # linear-phase regime (|2 v a_k| >= 8: its phase grows like v (c_k - b_k^2 / (4 a_k))) or damped
    # by its normal factor exp(-v^2 b_k^2 / (2 (1 + 4 v^2 a_k^2))) below e^-50 (v >= 22.4 / |b_k|).
    a, b, cc = form
    with np.errstate(divide="ignore"):
        need = np.where(b != 0, np.minimum(4.0 / np.abs(a), math.sqrt(500.0) / np.abs(b)), 0.0)
    peak = 20.0 * width
    cut = max(peak, float(np.max(need)))
    val, err, bad = _quad(integrand, 0.0, peak, limit=400, epsabs=0.0, epsrel=1e-13)
    # beyond the cut the linear phase e^{-i v omega} is taken out (QAWF integrates the rest); the
    # damped terms keep their phase in the slowly varying factor, where they are negligible
    split = np.abs(a) * cut >= 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(split, cc - b * b / (4.0 * np.where(split, a, 1.0)), cc)
    omega = x - float(np.sum(rate))

    def slow(v: float) -> complex:
        z = complex(c, v)
        return cmath.exp(cgf(z) - z * x - log_scale + 1j * v * omega) / z

    target = 1e-13 * abs(val) + 1e-300
    # a slow phase (the threshold near the end of a bounded support: omega -> 0) leaves a long stretch
    # without oscillation and with algebraic decay: integrated directly, on geometric sub-intervals,
    # up to twenty periods of the phase (at most 1e8 cuts), then QAWF
    parts = []
    if not math.isfinite(omega):  # pragma: no cover - a guard: no Fourier integrator then
        omega = 0.0
    far = 1e8 * cut if omega == 0.0 else min(max(cut, 40.0 * math.pi / abs(omega)), 1e8 * cut)
    if far > peak:  # from the peak on: geometric pieces, so that no stretch hides a feature
        steps = np.geomspace(peak, far, int(math.log(far / peak) / math.log(4.0)) + 2)
        for lo, hi in itertools.pairwise(steps):
            parts.append(_quad(integrand, float(lo), float(hi), limit=200, epsabs=target, epsrel=1e-13))
    if omega != 0.0 and far < 1e8 * cut:
        # Re[g e^{-i w v}] = Re g cos(wv) + Im g sin(wv). QAWF's only tolerance is absolute and it
        # stops (warning) when it cannot reach it: the tolerance is relaxed by 100 up to 1e-9 of the
        # sum, and the error of a relaxed result is at least its distance to the attempt before (its
        # own estimate can be optimistic there: 2.8e-10 for a change of 1.2e-9 on a d = 1 case)
        for part, kind in ((lambda v: slow(v).real, "cos"), (lambda v: slow(v).imag, "sin")):
            got = _quad(part, far, np.inf, weight=kind, wvar=omega, limlst=100, epsabs=target)
            for tol in (100.0 * target, 1e4 * target):
                if not got[2]:
                    break
                again = _quad(part, far, np.inf, weight=kind, wvar=omega, limlst=100, epsabs=tol)
                got = (again[0], max(again[1], abs(again[0] - got[0])), again[2])
            parts.append(got)
    else:  # the rest beyond 1e8 cuts: bounded by the decay of |e^K| (at least v^-3/2), one more QAGI
        parts.append(_quad(integrand, far, np.inf, limit=400, epsabs=target, epsrel=1e-12))
    val += sum(p[0] for p in parts)
    err += sum(p[1] for p in parts)
    bad = bad or any(p[2] for p in parts)
    scale = math.exp(log_scale) / math.pi
    p = side * val * scale  # c < 0 gives -P(Q <= x)
    allowance = ERROR_FACTOR * (100.0 if bad else 1.0) * err * scale + ERROR_RTOL * abs(p)
    return min(max(p, 0.0), 1.0), allowance


def _tail(form: np.ndarray, x: float, side: int) -> tuple[float, float]:
    """(P, allowance) of P(Q > x) (side +1) or P(Q < x) (side -1), through the smaller of the two tails."""
    mean = float(np.sum(form[0] + form[2]))
    small_side = 1 if x >= mean else -1
    p, e = _small_tail(form, x, small_side)
    if small_side == side:
        return p, e
    return min(max(1.0 - p, 0.0), 1.0), e + 1e-16


# ----------------------------------------------------------------------------------------------
# Validation and the equal-covariance closed forms
# ----------------------------------------------------------------------------------------------


def _pair(mean_i: Any, cov_i: Any, mean_j: Any, cov_j: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the validated pair (means (d,), covariances (d, d) symmetric positive definite).

    ``ValueError`` outside the range where the float computation is reliable (as for the univariate
    functions): the whitened covariance ratio's eigenvalues in ``[1e-50, 1e50]`` and the whitened
    mean difference at most ``1e50``, in both orders.
    """
    pair = checked_gaussian_pair(mean_i, cov_i, mean_j, cov_j, definite=True)
    mi, ci, mj, cj = pair
    with np.errstate(over="ignore", invalid="ignore"):
        for (mo, co, mr, cr), names in (((mi, ci, mj, cj), "cov_i, cov_j"), ((mj, cj, mi, ci), "cov_j, cov_i")):
            g = linalg.cholesky(cr, lower=True)
            half = linalg.solve_triangular(g, co, lower=True)
            lam = np.linalg.eigvalsh(linalg.solve_triangular(g, half.T, lower=True))
            if not (np.all(np.isfinite(lam)) and lam.min() >= 1e-50 and lam.max() <= 1e50):
                raise ValueError(f"{names}: the eigenvalues of the one whitened by the other must lie in [1e-50, 1e50]")
            shift = linalg.solve_triangular(g, mo - mr, lower=True)
            if not (np.all(np.isfinite(shift)) and float(np.max(np.abs(shift))) <= 1e50):
                raise ValueError(
                    "mean_i, mean_j: the mean difference whitened by either covariance must be at most 1e50"
                )
    return pair


def _shift(mi: np.ndarray, ci: np.ndarray, mj: np.ndarray, cj: np.ndarray) -> float | None:
    """Return the Mahalanobis distance mu of an equal-covariance pair (L is N(±mu^2/2, mu^2)), else None."""
    if not np.array_equal(ci, cj):
        return None
    g = linalg.cholesky(cj, lower=True)
    return float(np.linalg.norm(linalg.solve_triangular(g, mi - mj, lower=True)))


def _threshold(name: str, value: Any) -> float:
    t = checks.scalar_in_interval(name, value)
    if not abs(t) <= T_LIMIT:
        raise ValueError(f"{name} must be in [-700, 700], got {t!r}")
    return t


def _loss_tail(pair: tuple[np.ndarray, ...], t: float, under: str) -> tuple[float, float]:
    """(P_R(L > t), allowance) for the validated pair, R = P_i or P_j."""
    mi, ci, mj, cj = pair
    mu = _shift(mi, ci, mj, cj)
    if mu is not None:  # L ~ N(mu^2/2, mu^2) under P_i, N(-mu^2/2, mu^2) under P_j
        if mu == 0.0:
            return (1.0 if t < 0 else 0.0), 0.0
        centre = mu * mu / 2.0 if under == "i" else -mu * mu / 2.0
        return float(special.ndtr((centre - t) / mu)), 0.0
    if under == "j":
        return _tail(_form(mi, ci, mj, cj), t, 1)  # L under P_j
    return _tail(_form(mj, cj, mi, ci), -t, -1)  # L = -(log p_j - log p_i) under P_i


# ----------------------------------------------------------------------------------------------
# The public functions
# ----------------------------------------------------------------------------------------------


def multivariate_gaussian_loss_tail(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    threshold: float,
    under: str = "i",
) -> float:
    r"""Tail :math:`P_{Y \sim R}(L(Y) > t)` of the privacy loss :math:`L = \log(p_i/p_j)` of two multivariate Gaussians.

    :math:`P_i = N(\mu_i, \Sigma_i)`, :math:`P_j = N(\mu_j, \Sigma_j)` and :math:`R = P_i` (``under="i"``) or
    :math:`R = P_j`. Under :math:`R`, :math:`L` is the generalised chi-square variable
    :math:`\tfrac12 w^\top(I - \Lambda^{-1})w + b^\top w + c` of the module docstring
    (``rpp/accounting/_gaussian_loss.py``: whitening by :math:`R`'s covariance, then the
    eigen-decomposition of the other one), and its tail is computed by inverting its moment
    generating function on a line through the saddle point (Imhof 1961; Davies 1980; Helstrom 1983).
    For equal covariances :math:`L` is normal, :math:`N(\pm\mu^2/2, \mu^2)` with :math:`\mu` the
    Mahalanobis distance of the means, and its tail is exact to rounding.

    The value is the numerical estimate itself (its allowance, an error estimate, is described in the
    module docstring; against 30-digit quadrature it is within :math:`10^{-14}` relative in two dimensions
    and a few :math:`10^{-9}` in one, the slowest decay of the integrand). For
    :math:`d = 1` it agrees with :func:`~rpp.accounting.gaussian_loss_tail`.

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The two output laws: means (d,) and covariances (d, d), symmetric positive definite, finite.
    threshold : float
        :math:`t`, in :math:`[-700, 700]`.
    under : {"i", "j"}
        The law of :math:`Y`.

    Returns
    -------
    float
        The tail probability, in :math:`[0, 1]`.

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries, a covariance that is not symmetric positive definite,
        a threshold outside :math:`[-700, 700]` or an unknown ``under`` (the message names the argument),
        and outside the range of a reliable float computation: the eigenvalues of either covariance
        whitened by the other in :math:`[10^{-50}, 10^{50}]`, the whitened mean difference at most
        :math:`10^{50}`.

    Examples
    --------
    >>> p = multivariate_gaussian_loss_tail(mean_i=[1.0, 0.0], cov_i=[[1.0, 0.0], [0.0, 2.0]],
    ...                                     mean_j=[0.0, 0.0], cov_j=[[1.0, 0.0], [0.0, 1.0]], threshold=0.5)
    >>> 0.0 < p < 1.0
    True
    """
    pair = _pair(mean_i, cov_i, mean_j, cov_j)
    t = _threshold("threshold", threshold)
    under = checks.one_of("under", under, ("i", "j"))
    return _loss_tail(pair, t, under)[0]


def multivariate_gaussian_hockey_stick(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    epsilon_prime: ArrayLike,
) -> float | np.ndarray:
    r""":math:`\delta^\star(\varepsilon') = \sup_A [P_i(A) - e^{\varepsilon'}P_j(A)]` of two multivariate Gaussians.

    The supremum is attained at :math:`A = \{L > \varepsilon'\}`, :math:`L = \log(p_i/p_j)`, so

    .. math::

        \delta^\star(\varepsilon') = P_i(L > \varepsilon') - e^{\varepsilon'} P_j(L > \varepsilon')

    (Balle & Wang 2018, Thm 5), with both tails from
    :func:`multivariate_gaussian_loss_tail`. It is the smallest δ for which the pair (in this order)
    satisfies :math:`(\varepsilon', \delta)`; a Pufferfish statement needs the larger of both orders and
    of every pair of the class. For equal covariances the pair is a Gaussian shift and the closed form
    :func:`~rpp.accounting.gaussian_shift_delta` is used with :math:`\mu` the Mahalanobis distance.

    *Direction of the error.* Otherwise the value is the difference of the two estimated tails **plus**
    their allowances, :math:`e_i + e^{\varepsilon'}e_j` (module docstring), clipped to
    :math:`[\max(0, 1 - e^{\varepsilon'}), 1]`: the numerical error never makes δ smaller. The
    allowance is an error estimate, not a proved bound.

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The two output laws: means (d,) and covariances (d, d), symmetric positive definite, finite.
    epsilon_prime : float or array
        :math:`\varepsilon'`, each in :math:`[-700, 700]`.

    Returns
    -------
    float or ndarray
        :math:`\delta^\star(\varepsilon')`, of the shape of ``epsilon_prime``.

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries, a covariance that is not symmetric positive definite or
        an ``epsilon_prime`` outside :math:`[-700, 700]` (the message names the argument), and outside the
        range of :func:`multivariate_gaussian_loss_tail`.

    Examples
    --------
    >>> d = multivariate_gaussian_hockey_stick(mean_i=[0.0, 0.0], cov_i=[[1.0, 0.0], [0.0, 1.0]],
    ...                                        mean_j=[1.0, 0.0], cov_j=[[1.0, 0.0], [0.0, 1.0]], epsilon_prime=1.0)
    >>> round(d, 10)  # the Gaussian shift mu = 1: gaussian_shift_delta(mu=1, epsilon_prime=1)
    0.1269367375
    """
    mi, ci, mj, cj = pair = _pair(mean_i, cov_i, mean_j, cov_j)
    eps = checks.in_interval("epsilon_prime", epsilon_prime, low=-T_LIMIT, high=T_LIMIT)
    mu = _shift(mi, ci, mj, cj)

    def one(t: float) -> float:
        if mu is not None:
            return float(gaussian_shift_delta(mu=mu, epsilon_prime=t))
        p_i, e_i = _loss_tail(pair, t, "i")
        p_j, e_j = _loss_tail(pair, t, "j")
        scale = math.exp(t)
        delta = p_i - scale * p_j + e_i + scale * e_j
        return min(max(delta, -math.expm1(t), 0.0), 1.0)

    out = np.array([one(float(t)) for t in np.ravel(eps)]).reshape(np.shape(eps))
    return float(out) if out.ndim == 0 else out


def _level_threshold(pair: tuple[np.ndarray, ...], a: float, t_mean: float, spread: float) -> float:
    """Return the threshold t at which the estimated P_j(L > t) minus its allowance is (just) at least a."""

    def excess(t: float) -> float:
        p, e = _loss_tail(pair, t, "j")
        return p - e - a

    guess = t_mean - spread * float(special.ndtri(a))  # the normal approximation of t_a
    lo, hi = guess - spread, guess + spread
    while excess(lo) < 0:  # P_j(L > lo) -> 1 as lo -> -inf
        lo -= 2.0 * (hi - lo)
        if lo < -T_LIMIT:
            return -T_LIMIT
    while excess(hi) >= 0:
        hi += 2.0 * (hi - lo)
        if hi > T_LIMIT:
            return T_LIMIT
    t = optimize.brentq(excess, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=300)
    for _ in range(64):  # the attacker's side: a false-positive rate of at least a
        if excess(t) >= 0:
            return t
        t = t - max(1e-12, 1e-12 * abs(t))
    return lo  # pragma: no cover - brentq ends within a few steps of the root


def multivariate_gaussian_true_positive_rate(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    false_positive_rate: ArrayLike,
) -> float | np.ndarray:
    r"""Power of the best test of :math:`P_j = N(\mu_j, \Sigma_j)` against :math:`P_i = N(\mu_i, \Sigma_i)`.

    By the Neyman--Pearson lemma the most powerful test at false-positive rate :math:`a` claims
    ":math:`s_i`" when :math:`L = \log(p_i/p_j) > t_a`, :math:`P_j(L > t_a) = a`, and its power is

    .. math::

        \beta(a) = P_i(L > t_a),

    the trade-off curve of the pair (Dong, Roth & Su 2022, Def. 2.1, as :math:`1 - T(P_j, P_i)(a)`), the
    multivariate counterpart of :func:`~rpp.accounting.gaussian_true_positive_rate`. For equal
    covariances it is the :math:`\mu`-GDP curve :math:`\Phi(\mu + \Phi^{-1}(a))` with :math:`\mu` the
    Mahalanobis distance of the means (Dong, Roth & Su 2022, Def. 2.6), exact to rounding.

    *Direction of the error.* Otherwise the threshold is found by Brent's method on the estimated
    :math:`P_j(L > t)` **minus** its allowance (so the test's false-positive rate is at least :math:`a`),
    and the power is the estimated :math:`P_i(L > t)` **plus** its allowance: since :math:`\beta` is
    non-decreasing, the value is not below :math:`\beta(a)` up to the allowances, which are error
    estimates (module docstring), not proved bounds. It is clipped to :math:`[a, 1]`.

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The two output laws: means (d,) and covariances (d, d), symmetric positive definite, finite.
    false_positive_rate : float or array
        :math:`a \in [0, 1]`.

    Returns
    -------
    float or ndarray
        :math:`\beta(a) \in [a, 1]`, of the shape of ``false_positive_rate`` (0 at :math:`a = 0`, 1 at
        :math:`a = 1`).

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries, a covariance that is not symmetric positive definite or a
        false-positive rate outside :math:`[0, 1]` (the message names the argument), and outside the range
        of :func:`multivariate_gaussian_loss_tail`.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> b = multivariate_gaussian_true_positive_rate(
    ...     mean_i=[1.0, 0.0], cov_i=[[1.0, 0.0], [0.0, 1.0]], mean_j=[0.0, 0.0], cov_j=[[1.0, 0.0], [0.0, 1.0]],
    ...     false_positive_rate=0.05)
    >>> bool(abs(b - norm.cdf(1.0 - norm.ppf(0.95))) < 1e-12)  # 1-GDP
    True
    """
    mi, ci, mj, cj = pair = _pair(mean_i, cov_i, mean_j, cov_j)
    f = checks.in_interval("false_positive_rate", false_positive_rate, low=0.0, high=1.0)
    mu = _shift(mi, ci, mj, cj)
    if mu is None:
        form = _form(mi, ci, mj, cj)  # L under P_j: its mean and spread start the search
        t_mean = float(np.sum(form[0] + form[2]))
        spread = math.sqrt(float(np.sum(2.0 * form[0] ** 2 + form[1] ** 2))) + 1e-3

    def one(a: float) -> float:
        if a in (0.0, 1.0) or mu == 0.0:
            return a  # the trivial tests (the laws are mutually absolutely continuous); equal laws
        if mu is not None:
            return max(a, float(special.ndtr(mu + special.ndtri(a))))
        t = _level_threshold(pair, a, t_mean, spread)
        p_i, e_i = _loss_tail(pair, t, "i")
        return min(1.0, max(a, p_i + e_i))

    out = np.array([one(float(a)) for a in np.ravel(f)]).reshape(np.shape(f))
    return float(out) if out.ndim == 0 else out
