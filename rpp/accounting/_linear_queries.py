r"""Exact composition of several different linear queries of Gaussian data under Gaussian noise.

Under the secret :math:`s`, the data are :math:`x \sim N(\mu_s, \Sigma_s)` in :math:`\mathbb{R}^d`; the release is
:math:`y = A x + \eta` with a :math:`k \times d` query matrix :math:`A` (one row per published statistic)
and independent noise :math:`\eta \sim N(0, \operatorname{diag}(\theta_1^2, \dots, \theta_k^2))`. The joint law
of the :math:`k` outputs is Gaussian,

.. math::

    y \mid s \sim N\bigl(A\mu_s,\ A\Sigma_s A^\top + \operatorname{diag}(\theta^2)\bigr),

so the Rényi divergence of the whole release, the exact composition of the :math:`k` queries, is in closed
form (:func:`multivariate_gaussian_renyi`, Gil, Alajaji & Linder 2013). No per-query accounting and no
independence between the queries is assumed: they see the same data. :func:`calibrate_linear_queries`
scales a noise profile until the joint divergence meets the budget.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import linalg

from .._lib import validation as checks
from .._lib.arb import precision
from ..certified import Certified

__all__ = [
    "LinearCalibration",
    "calibrate_linear_queries",
    "linear_queries_divergence",
    "linear_release_law",
    "multivariate_gaussian_renyi",
    "side_information_divergence",
]

#: Relative distance to the edge of the finiteness domain below which the divergence is reported as +inf
#: (the eigenvalues carry rounding errors of order 1e-16 times the condition number; +inf is the safe side).
EDGE_RTOL = 1e-10
#: The calibration accepts a multiplier only where the computed divergence is <= epsilon (1 - ACCEPT_RTOL).
ACCEPT_RTOL = 1e-10


def _matrix(name: str, value: Any, shape: tuple[int, int] | None = None) -> np.ndarray:
    arr = checks.in_interval(name, value)
    if arr.ndim != 2 or (shape is not None and arr.shape != shape):
        want = f"{shape[0]} x {shape[1]}" if shape is not None else "2-D"
        raise ValueError(f"{name} must be a {want} matrix")
    return arr


def _covariance(name: str, value: Any, d: int, *, definite: bool) -> np.ndarray:
    """Return a symmetric d x d covariance, positive definite (``definite``) or semi-definite."""
    cov = _matrix(name, value, (d, d))
    size = float(np.max(np.abs(cov))) if cov.size else 0.0
    if np.any(np.abs(cov - cov.T) > 1e-12 * size):
        raise ValueError(f"{name} must be symmetric")
    cov = 0.5 * (cov + cov.T)
    low = float(np.min(np.linalg.eigvalsh(cov)))
    if definite and not low > 0:
        raise ValueError(f"{name} must be positive definite")
    if not definite and low < -1e-12 * size:
        raise ValueError(f"{name} must be positive semi-definite")
    return cov


def _mean(name: str, value: Any, d: int | None = None) -> np.ndarray:
    arr = checks.in_interval(name, value)
    if arr.ndim != 1 or (d is not None and arr.shape != (d,)) or arr.size == 0:
        raise ValueError(f"{name} must be a 1-D array of length {d if d is not None else '>= 1'}")
    return arr


def _order(alpha: Any) -> float:
    return checks.scalar_in_interval("alpha", alpha, low=0.0, low_open=True)


def _log_term(lam: np.ndarray, alpha: float) -> np.ndarray:
    r""":math:`\log(\alpha + (1-\alpha)\lambda) - (1-\alpha)\log\lambda` with log1p around :math:`\lambda = 1`."""
    u = lam - 1.0
    return np.log1p((1.0 - alpha) * u) - (1.0 - alpha) * np.log1p(u)


def _whiten(
    mean_i: np.ndarray, cov_i: np.ndarray, mean_j: np.ndarray, cov_j: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(lambda, delta-hat): eigenvalues of L^-1 S_i L^-T (S_j = L L^T) and the whitened, rotated mean shift."""
    chol_j = linalg.cholesky(cov_j, lower=True)
    half = linalg.solve_triangular(chol_j, cov_i, lower=True)  # L^-1 S_i
    whitened = linalg.solve_triangular(chol_j, half.T, lower=True)  # L^-1 S_i L^-T (S_i symmetric)
    whitened = 0.5 * (whitened + whitened.T)
    lam, vec = np.linalg.eigh(whitened)
    if np.any(lam <= 0):
        raise ValueError("cov_i must be positive definite")
    return lam, vec.T @ linalg.solve_triangular(chol_j, mean_i - mean_j, lower=True)


def _from_spectrum(lam: np.ndarray, shift: np.ndarray, alpha: float) -> float:
    """D_alpha of N(shift, diag(lam)) against N(0, I): the sum of the 1-D terms (+inf near the edge)."""
    if alpha == 1.0:  # Kullback-Leibler, the limit alpha -> 1
        return float(0.5 * np.sum(lam - 1.0 - np.log(lam) + shift**2))
    denom = alpha + (1.0 - alpha) * lam
    if np.any(denom <= EDGE_RTOL * (alpha + abs(1.0 - alpha) * lam)):
        return math.inf
    quad = 0.5 * alpha * np.sum(shift**2 / denom)
    logs = -np.sum(_log_term(lam, alpha)) / (2.0 * (alpha - 1.0))
    return float(max(quad + logs, 0.0))


def _arb_law(flint: Any, mean: np.ndarray, cov: np.ndarray) -> tuple[Any, Any]:
    """Return the floats of a law as arb matrices (exact)."""
    m = flint.arb_mat([[float(x)] for x in mean])
    c = flint.arb_mat([[float(x) for x in row] for row in cov])
    return m, c


def _arb_laws(mean_i: Any, cov_i: Any, mean_j: Any, cov_j: Any) -> Callable[[Any], tuple[Any, Any, Any, Any]]:
    """Builder of the two laws (validated float arrays) as arb matrices, at the working precision."""
    return lambda flint: (*_arb_law(flint, mean_i, cov_i), *_arb_law(flint, mean_j, cov_j))


def _arb_release_laws(
    mean_i: np.ndarray,
    cov_i: np.ndarray,
    mean_j: np.ndarray,
    cov_j: np.ndarray,
    queries: np.ndarray,
    scales: np.ndarray,
) -> Callable[[Any], tuple[Any, Any, Any, Any]]:
    """Builder of the laws of y = A x + eta (:func:`linear_release_law`) in arb, from the exact floats of the inputs."""

    def build(flint: Any) -> tuple[Any, Any, Any, Any]:
        a = flint.arb_mat([[float(x) for x in row] for row in queries])
        noise = flint.arb_mat(
            [
                [flint.arb(float(scales[r])) ** 2 if r == t else 0 for t in range(len(scales))]
                for r in range(len(scales))
            ]
        )
        out = []
        for mean, cov in ((mean_i, cov_i), (mean_j, cov_j)):
            m, c = _arb_law(flint, mean, cov)
            out += [a * m, a * c * a.transpose() + noise]
        return out[0], out[1], out[2], out[3]

    return build


def _certainly_definite(flint: Any, m: Any) -> bool:
    r"""Whether the symmetric arb matrix ``m`` is proved positive definite.

    First by congruence: with :math:`G` the inverse of the float Cholesky factor of ``m``'s midpoint (any
    invertible float matrix will do, exactly represented in arb), :math:`R = G m G^\top` is positive definite
    if and only if ``m`` is, and :math:`R \approx I` is proved so by Gershgorin's discs (every diagonal entry
    above the sum of its row's off-diagonal magnitudes). Two products, :math:`O(k^3)`. Where that cannot
    prove it (near-singular), by Sylvester's criterion: every leading principal minor certainly > 0.
    """
    k = m.nrows()
    mid = np.array([[float(m[r, t].mid()) for t in range(k)] for r in range(k)])
    try:
        g = linalg.solve_triangular(linalg.cholesky(0.5 * (mid + mid.T), lower=True), np.eye(k), lower=True)
    except (linalg.LinAlgError, ValueError):
        g = None
    if g is not None and np.all(np.isfinite(g)):
        g_arb = flint.arb_mat(g.tolist())
        r = g_arb * m * g_arb.transpose()
        if all(r[i, i] - sum(abs(r[i, t]) for t in range(k) if t != i) > 0 for i in range(k)):
            return True
    for n in range(1, k + 1):
        sub = flint.arb_mat([[m[r, t] for t in range(n)] for r in range(n)])
        if not sub.det() > 0:
            return False
    return True


def _proved_divergence(build: Callable[[Any], tuple[Any, Any, Any, Any]], alpha: float) -> Certified:
    r"""Proved enclosure of :math:`D_\alpha(N(\mu_i, \Sigma_i)\|N(\mu_j, \Sigma_j))` for float inputs (arb).

    The closed form of :func:`multivariate_gaussian_renyi` evaluated in ball arithmetic (python-flint's
    ``arb_mat``: determinants and a linear solve, no eigen-decomposition) on the exact floats of the
    inputs (``build(flint)`` returns the two means and covariances as arb matrices), at 128 bits and then more until the enclosure's radius is below :math:`10^{-15}` of its
    value (or 1024 bits).  :math:`\Sigma_\alpha = \alpha\Sigma_j + (1-\alpha)\Sigma_i` is proved positive
    definite by its leading principal minors (Sylvester's criterion); where that cannot be proved the
    result is :math:`+\infty` (the safe side: the float test of :func:`_from_spectrum` says the same near the edge).
    """
    import flint

    for prec in (128, 256, 512, 1024):
        with precision(flint, prec):
            a = flint.arb(float(alpha))
            mi, ci, mj, cj = build(flint)
            k = mi.nrows()
            delta = mi - mj
            if alpha == 1.0:
                sol = cj.solve(ci)  # Sigma_j^-1 Sigma_i
                quad = (delta.transpose() * cj.solve(delta))[0, 0]
                d = (sol.trace() - k - (ci.det() / cj.det()).log() + quad) / 2
            else:
                s_a = a * cj + (1 - a) * ci
                if not _certainly_definite(flint, s_a):
                    return Certified(math.inf, 0.0, rigorous=True)
                quad = (delta.transpose() * s_a.solve(delta))[0, 0]
                logs = s_a.det().log() - (1 - a) * ci.det().log() - a * cj.det().log()
                d = a * quad / 2 - logs / (2 * (a - 1))
            if not d.is_finite():
                continue
            value = float(d.mid())
            e = float(max(flint.arb(d.upper()) - value, value - flint.arb(d.lower())).upper())
            e = float(np.nextafter(e, np.inf)) if e > 0 else 0.0  # float() rounds to nearest: step up
            if value - e < 0:  # D >= 0: a lower end below 0 is widened to the interval [0, upper]
                up = value + e
                value, e = up / 2, float(np.nextafter(up / 2, np.inf))
            if e <= 1e-15 * abs(value) or prec == 1024:
                return Certified(value, e, rigorous=True)
    raise ValueError(  # pragma: no cover - a covariance too ill-conditioned for 1024 bits
        "the divergence of these Gaussians cannot be enclosed at 1024 bits: a covariance is too ill-conditioned"
    )


def _divergence(mean_i: np.ndarray, cov_i: np.ndarray, mean_j: np.ndarray, cov_j: np.ndarray, alpha: float) -> float:
    """D_alpha(N(mean_i, cov_i) || N(mean_j, cov_j)) for validated positive definite covariances."""
    return _from_spectrum(*_whiten(mean_i, cov_i, mean_j, cov_j), alpha)


def multivariate_gaussian_renyi(
    *, mean_i: ArrayLike, cov_i: ArrayLike, mean_j: ArrayLike, cov_j: ArrayLike, alpha: float
) -> Certified:
    r"""Rényi divergence :math:`D_\alpha(N(\mu_i, \Sigma_i) \,\|\, N(\mu_j, \Sigma_j))` of two multivariate Gaussians.

    .. math::

        D_\alpha &= \frac{\alpha}{2}(\mu_i - \mu_j)^\top \Sigma_\alpha^{-1} (\mu_i - \mu_j)\\
        &\quad - \frac{1}{2(\alpha - 1)}
        \log\frac{\det \Sigma_\alpha}{(\det\Sigma_i)^{1-\alpha}(\det\Sigma_j)^{\alpha}},\\
        \Sigma_\alpha &= \alpha\Sigma_j + (1 - \alpha)\Sigma_i,

    finite if and only if :math:`\Sigma_\alpha` is positive definite, :math:`+\infty` otherwise (Gil, Alajaji &
    Linder 2013, Table 2 and eq. (10); for :math:`0 < \alpha < 1` it is always positive definite). At
    :math:`\alpha = 1` the Kullback-Leibler divergence
    :math:`\tfrac12[\operatorname{tr}(\Sigma_j^{-1}\Sigma_i) - k - \log\det(\Sigma_j^{-1}\Sigma_i) + (\mu_i-\mu_j)^\top
    \Sigma_j^{-1}(\mu_i-\mu_j)]`.

    *Computation.* With :math:`\Sigma_j = LL^\top` (Cholesky) the divergence is that of
    :math:`N(L^{-1}\mu_i, M)` against :math:`N(L^{-1}\mu_j, I)`, :math:`M = L^{-1}\Sigma_i L^{-\top}` (triangular
    solves, no inverse). With :math:`M = U \operatorname{diag}(\lambda) U^\top` and
    :math:`\hat\delta = U^\top L^{-1}(\mu_i - \mu_j)` it is a sum of :math:`k` one-dimensional divergences,
    each :math:`\ge 0`,

    .. math::

        D_\alpha = \sum_{l=1}^k \Bigl[&\frac{\alpha\hat\delta_l^2}{2(\alpha + (1-\alpha)\lambda_l)}\\
        &- \frac{\log(\alpha + (1-\alpha)\lambda_l) - (1-\alpha)\log\lambda_l}{2(\alpha-1)}\Bigr],

    the logarithms taken with ``log1p`` around :math:`\lambda_l = 1`. The domain condition is
    :math:`\alpha + (1-\alpha)\lambda_l > 0` for every :math:`l`.  That float computation is what
    :func:`linear_queries_divergence` and :func:`calibrate_linear_queries` use; this function returns a
    **proved** enclosure instead: the closed form above evaluated in ball arithmetic (python-flint's
    ``arb_mat``, determinants and one solve) on the exact floats of the arguments, with
    :math:`\Sigma_\alpha` proved positive definite by its leading minors, :math:`+\infty` where that
    cannot be proved (the safe side).

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The two Gaussians: means (k,) and covariances (k, k), symmetric positive definite.
    alpha : float
        Order :math:`\alpha > 0` (1 gives KL).

    Returns
    -------
    Certified
        :math:`D_\alpha \in [0, \infty]`: ``value`` and a proved ``error`` (``rigorous=True``).

    Raises
    ------
    ValueError
        On shapes that do not match, non-finite entries, a covariance that is not symmetric positive
        definite, or :math:`\alpha \le 0`.

    Examples
    --------
    >>> d = multivariate_gaussian_renyi(mean_i=[0.0], cov_i=[[1.0]], mean_j=[2.0], cov_j=[[1.0]], alpha=3.0)
    >>> d.value, d.rigorous, bool(d.error <= 1e-15)
    (6.0, True, True)
    """
    a = _order(alpha)
    mi = _mean("mean_i", mean_i)
    k = mi.size
    mj = _mean("mean_j", mean_j, k)
    ci = _covariance("cov_i", cov_i, k, definite=True)
    cj = _covariance("cov_j", cov_j, k, definite=True)
    return _proved_divergence(_arb_laws(mi, ci, mj, cj), a)


def linear_release_law(
    *, mean: ArrayLike, cov: ArrayLike, queries: ArrayLike, scales: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    r"""Law of :math:`y = Ax + \eta`, :math:`x \sim N(\mu, \Sigma)`, :math:`\eta \sim N(0, \operatorname{diag}(\theta^2))`.

    .. math::

        y \sim N\bigl(A\mu,\ A\Sigma A^\top + \operatorname{diag}(\theta_1^2, \dots, \theta_k^2)\bigr)

    (a linear map of a Gaussian vector plus independent Gaussian noise).

    Parameters
    ----------
    mean : array (d,)
        :math:`\mu`.
    cov : array (d, d)
        :math:`\Sigma`, symmetric positive semi-definite (a singular prior covariance is allowed).
    queries : array (k, d)
        :math:`A`, one row per query.
    scales : array (k,)
        Noise standard deviations :math:`\theta_l > 0`.

    Returns
    -------
    (ndarray, ndarray)
        The mean (k,) and the covariance (k, k), positive definite.

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries, an invalid covariance or a scale <= 0.

    Examples
    --------
    >>> m, S = linear_release_law(mean=[1.0, 2.0], cov=[[1.0, 0.5], [0.5, 1.0]], queries=[[1.0, 1.0]], scales=[2.0])
    >>> m.tolist(), S.tolist()
    ([3.0], [[7.0]])
    """
    return _law(mean, cov, queries, scales, "")


def _law(mean: Any, cov: Any, queries: Any, scales: Any, suffix: str) -> tuple[np.ndarray, np.ndarray]:
    """linear_release_law with the caller's argument names (mean_i, cov_i, ... when suffix is "_i")."""
    mu = _mean("mean" + suffix, mean)
    d = mu.size
    sigma = _covariance("cov" + suffix, cov, d, definite=False)
    a = _matrix("queries", queries)
    if a.shape[1] != d or a.shape[0] == 0:
        raise ValueError(f"queries must be a k x {d} matrix (one row per query, k >= 1)")
    theta = _mean("scales", scales, a.shape[0])
    checks.in_interval("scales", theta, low=0.0, low_open=True)
    out = a @ sigma @ a.T + np.diag(theta**2)
    return a @ mu, 0.5 * (out + out.T)


def linear_queries_divergence(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    queries: ArrayLike,
    scales: ArrayLike,
    alpha: float,
    both_orders: bool = True,
) -> Certified:
    r"""Exact Rényi divergence of the joint release of :math:`k` linear queries under two Gaussian secrets.

    .. math::

        D &= \max\bigl(D_\alpha(P_i \| P_j),\ D_\alpha(P_j \| P_i)\bigr),\\
        P_s &= N\bigl(A\mu_s,\ A\Sigma_s A^\top + \operatorname{diag}(\theta^2)\bigr),

    with :func:`linear_release_law` and :func:`multivariate_gaussian_renyi` (only the first order with
    ``both_orders=False``). This is the exact composition of the :math:`k` releases: the :math:`(\alpha, D)`-RPP
    guarantee of the whole release for this secret pair and prior.

    *Proved.* The two laws are formed in ball arithmetic (python-flint's ``arb_mat``) from the exact floats
    of the arguments, :math:`A\Sigma_s A^\top + \operatorname{diag}(\theta^2)` included, and each order is
    the enclosure of :func:`multivariate_gaussian_renyi`; the maximum of two enclosures
    :math:`[l_1, u_1]`, :math:`[l_2, u_2]` is enclosed by :math:`[\max(l_1, l_2), \max(u_1, u_2)]`. The
    result is a ``Certified`` with ``rigorous=True``; :math:`+\infty` where :math:`\Sigma_\alpha` cannot be
    proved positive definite (the safe side).

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The data's Gaussian law under each secret (d,), (d, d); covariances positive semi-definite.
    queries : array (k, d)
        The query matrix :math:`A`, one linear query per row.
    scales : array (k,)
        Noise standard deviations :math:`> 0`.
    alpha : float
        Order :math:`\alpha > 0`.
    both_orders : bool
        Protect both orders (the maximum above); ``False``: :math:`D_\alpha(P_i \| P_j)` only.

    Returns
    -------
    Certified
        The divergence :math:`D` of the joint release: ``value`` and a proved ``error``
        (``rigorous=True``).

    Raises
    ------
    ValueError
        As :func:`linear_release_law` and :func:`multivariate_gaussian_renyi`.

    Examples
    --------
    >>> d = linear_queries_divergence(mean_i=[0.0], cov_i=[[1.0]], mean_j=[2.0], cov_j=[[1.0]],
    ...                               queries=[[1.0], [1.0]], scales=[1.0, 1.0], alpha=2.0)
    >>> round(d.value, 12), d.rigorous, bool(d.error <= 1e-15)   # 2 Delta^2 / (2 (1 + 1/2)) = 8/3
    (2.666666666667, True, True)
    """
    a = _order(alpha)
    both = checks.flag("both_orders", both_orders)
    mi, si, mj, sj = _checked_laws(mean_i, cov_i, mean_j, cov_j, queries, scales)
    return _proved_release(mi, si, mj, sj, _inputs(mean_i, cov_i, mean_j, cov_j, queries, scales), a, both)


def _checked_laws(
    mean_i: Any, cov_i: Any, mean_j: Any, cov_j: Any, queries: Any, scales: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the two release laws in floats, every argument validated (named as the caller names it)."""
    _mean("mean_j", mean_j, _mean("mean_i", mean_i).size)  # same dimension d under both secrets
    mi, si = _law(mean_i, cov_i, queries, scales, "_i")
    mj, sj = _law(mean_j, cov_j, queries, scales, "_j")
    return mi, si, mj, sj


def _inputs(mean_i: Any, cov_i: Any, mean_j: Any, cov_j: Any, queries: Any, scales: Any) -> tuple[np.ndarray, ...]:
    """Return the validated arguments as float arrays (the exact floats the proved path starts from)."""
    return (*checked_gaussian_pair(mean_i, cov_i, mean_j, cov_j), _matrix("queries", queries), _mean("scales", scales))


def checked_gaussian_pair(
    mean_i: ArrayLike, cov_i: ArrayLike, mean_j: ArrayLike, cov_j: ArrayLike, *, definite: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the data's Gaussian law under each secret as validated float arrays.

    The exact floats that the proved path (:func:`proved_release_curve`) starts from; also the
    model of :class:`rpp.accounting.RppLedger` (a name of the package, not in
    ``__all__``).

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j : array
        The means (d,) and covariances (d, d), symmetric positive semi-definite.
    definite : bool
        Require positive definite covariances (the output laws of
        ``rpp/accounting/_gaussian_loss.py``), not only semi-definite ones.

    Returns
    -------
    (ndarray, ndarray, ndarray, ndarray)
        ``(mean_i, cov_i, mean_j, cov_j)`` as floats (each covariance symmetrised).

    Raises
    ------
    ValueError
        On mismatched shapes, non-finite entries or an invalid covariance (the message names the
        argument).
    """
    d = _mean("mean_i", mean_i).size
    return (
        _mean("mean_i", mean_i),
        _covariance("cov_i", cov_i, d, definite=definite),
        _mean("mean_j", mean_j, d),
        _covariance("cov_j", cov_j, d, definite=definite),
    )


def proved_release_curve(
    model: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    queries: ArrayLike,
    scales: ArrayLike,
    orders: ArrayLike,
    *,
    both: bool = True,
) -> np.ndarray:
    r"""Return upper ends of proved enclosures of the release's divergence at several orders.

    At each order :math:`\alpha_k`, :math:`\max\bigl(D_{\alpha_k}(P_i\|P_j), D_{\alpha_k}(P_j\|P_i)\bigr)`
    (:math:`D_{\alpha_k}(P_i\|P_j)` alone without ``both``) with
    :math:`P_s = N\bigl(A\mu_s,\ A\Sigma_s A^\top + \operatorname{diag}(\theta^2)\bigr)` (:func:`linear_release_law`), each
    the upper end of the enclosure of :func:`multivariate_gaussian_renyi`'s closed form in ball
    arithmetic, the laws formed in arb from the exact floats of ``model``, ``queries`` and
    ``scales``.  Unlike :func:`linear_queries_divergence` there is no float pre-test of the
    domain's edge: :math:`+\infty` only where arb cannot prove :math:`\Sigma_\alpha` positive
    definite.  The curve of :class:`rpp.accounting.RppLedger` (a name of the
    package, not in ``__all__``).

    Parameters
    ----------
    model : tuple of ndarray
        ``(mean_i, cov_i, mean_j, cov_j)`` from :func:`checked_gaussian_pair`.
    queries : array (k, d)
        The query matrix :math:`A`.
    scales : array (k,)
        Noise standard deviations :math:`> 0`.
    orders : array
        The orders :math:`\alpha_k > 0`.
    both : bool
        Both orders of the secret pair (the maximum above).

    Returns
    -------
    ndarray
        One upper end per order (``+inf`` where the divergence cannot be proved finite).

    Raises
    ------
    ValueError
        On invalid ``queries`` or ``scales`` (as :func:`linear_release_law`).
    """
    mean_i, cov_i, mean_j, cov_j = model
    _law(mean_i, cov_i, queries, scales, "_i")  # validates queries and scales
    a, theta = _matrix("queries", queries), _mean("scales", scales)
    builds = [_arb_release_laws(mean_i, cov_i, mean_j, cov_j, a, theta)]
    if both:
        builds.append(_arb_release_laws(mean_j, cov_j, mean_i, cov_i, a, theta))
    return np.array([max(float(_proved_divergence(b, float(o)).upper) for b in builds) for o in np.asarray(orders)])


def _proved_release(
    mi: np.ndarray,
    si: np.ndarray,
    mj: np.ndarray,
    sj: np.ndarray,
    inputs: tuple[np.ndarray, ...],
    alpha: float,
    both: bool,
) -> Certified:
    """Return a proved enclosure of the joint divergence (both orders' maximum if ``both``).

    +inf where the float test or arb finds the edge of the domain.
    """
    mean_i, cov_i, mean_j, cov_j, queries, scales = inputs
    orders = [(mean_i, cov_i, mean_j, cov_j)]
    if both:
        orders.append((mean_j, cov_j, mean_i, cov_i))
    floats = [(mi, si, mj, sj), (mj, sj, mi, si)]
    lows, ups = [], []
    for (m1, c1, m2, c2), law in zip(orders, floats, strict=False):
        if math.isinf(_divergence(*law, alpha)):  # the float test's edge: +inf, the safe side
            return Certified(math.inf, 0.0, rigorous=True)
        enc = _proved_divergence(_arb_release_laws(m1, c1, m2, c2, queries, scales), alpha)
        if math.isinf(enc.value):
            return Certified(math.inf, 0.0, rigorous=True)
        lows.append(float(enc.lower))
        ups.append(float(enc.upper))
    return _joint(lows, ups)


def _known_box(known: Any, known_low: Any, known_high: Any, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Return ``(indices, vertices)`` of the side information's box (validated), or None without it."""
    if known is None:
        if known_low is not None or known_high is not None:
            raise ValueError("known_low and known_high need known (the indices of the attributes the adversary knows)")
        return None
    idx = np.atleast_1d(np.asarray(known))
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError("known must be a non-empty list of attribute indices (integers)")
    if np.any(idx < 0) or np.any(idx >= d) or np.unique(idx).size != idx.size:
        raise ValueError(f"known must hold distinct indices in [0, {d - 1}]")
    if idx.size > 10:
        raise ValueError("known may name at most 10 attributes (the 2^10 vertices of their box)")
    lo = _mean("known_low", known_low, idx.size)
    hi = _mean("known_high", known_high, idx.size)
    if not np.all(lo <= hi):
        raise ValueError("known_low must be <= known_high in every attribute")
    corners = np.array(list(itertools.product(*zip(lo, hi, strict=True))), dtype=float)
    return idx.astype(int), np.unique(corners, axis=0)


def _conditioned_builder(
    mean_i: np.ndarray,
    cov_i: np.ndarray,
    mean_j: np.ndarray,
    cov_j: np.ndarray,
    queries: np.ndarray,
    scales: np.ndarray,
    known: np.ndarray,
    values: np.ndarray,
) -> Callable[[Any], tuple[Any, Any, Any, Any]]:
    r"""Builder (arb) of the release's laws given the known attributes: the Gaussian conditional of the rest.

    With :math:`K` the known attributes at values :math:`v` and :math:`U` the others,
    :math:`x_U \mid x_K = v \sim N(\mu_U + B(v - \mu_K),\ \Sigma_{UU} - B\Sigma_{KU})`,
    :math:`B = \Sigma_{UK}\Sigma_{KK}^{-1}`; the release minus the known part :math:`A_K v` (the same
    under both secrets: :math:`D` is translation invariant) is :math:`A_U x_U + \eta`.  Every step in
    arb, from the exact floats.
    """
    d = mean_i.size
    unknown = np.setdiff1d(np.arange(d), known)

    def build(flint: Any) -> tuple[Any, Any, Any, Any]:
        arb_mat = flint.arb_mat
        a_u = arb_mat([[float(queries[r, t]) for t in unknown] for r in range(queries.shape[0])])
        noise = arb_mat(
            [
                [flint.arb(float(scales[r])) ** 2 if r == t else 0 for t in range(len(scales))]
                for r in range(len(scales))
            ]
        )
        v = arb_mat([[float(x)] for x in values])
        out = []
        for mean, cov in ((mean_i, cov_i), (mean_j, cov_j)):

            def sub(rows: np.ndarray, cols: np.ndarray, cov: np.ndarray = cov) -> Any:
                return arb_mat([[float(cov[r, t]) for t in cols] for r in rows])

            s_kk, s_ku, s_uu = sub(known, known), sub(known, unknown), sub(unknown, unknown)
            b_t = s_kk.solve(s_ku)  # B^T = S_KK^-1 S_KU (S_KK symmetric)
            m_k = arb_mat([[float(mean[t])] for t in known])
            m_u = arb_mat([[float(mean[t])] for t in unknown])
            m = m_u + b_t.transpose() * (v - m_k)
            c = s_uu - b_t.transpose() * s_ku
            out += [a_u * m, a_u * c * a_u.transpose() + noise]
        return out[0], out[1], out[2], out[3]

    return build


def _conditioned_floats(
    mean: np.ndarray, cov: np.ndarray, queries: np.ndarray, scales: np.ndarray, known: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Return the release's law given the known attributes, in floats (the search's; the proof is in arb)."""
    unknown = np.setdiff1d(np.arange(mean.size), known)
    b_t = np.linalg.solve(cov[np.ix_(known, known)], cov[np.ix_(known, unknown)])
    m = mean[unknown] + b_t.T @ (values - mean[known])
    c = cov[np.ix_(unknown, unknown)] - b_t.T @ cov[np.ix_(known, unknown)]
    a_u = queries[:, unknown]
    out = a_u @ (0.5 * (c + c.T)) @ a_u.T + np.diag(scales**2)
    return a_u @ m, 0.5 * (out + out.T)


def _joint(lows: list[float], ups: list[float]) -> Certified:
    """Enclose the maximum of several enclosures ``[l, u]``: ``[max l, max u]``, rounded outward."""
    low, up = max(lows), max(ups)
    value = low + (up - low) / 2
    return Certified(value, float(np.nextafter(max(up - value, value - low), np.inf)), rigorous=True)


class _SideInformation:
    """The float divergence (``div``) and its proof (``proved``) at noise ``scales``, worst vertex of the box."""

    def __init__(self, inputs: tuple[np.ndarray, ...], box: tuple[np.ndarray, np.ndarray], alpha: float, both: bool):
        self.mean_i, self.cov_i, self.mean_j, self.cov_j, self.queries, _ = inputs
        self.known, self.corners = box
        self.alpha, self.both = alpha, both
        for name, cov in (("cov_i", self.cov_i), ("cov_j", self.cov_j)):
            s_kk = cov[np.ix_(self.known, self.known)]
            if not np.all(np.linalg.eigvalsh(s_kk) > 1e-12 * max(1.0, float(np.max(np.abs(s_kk))))):
                raise ValueError(
                    f"{name} must be positive definite on the known attributes (their law conditions the rest)"
                )
        # nothing unknown: the release adds nothing to what is known (D = 0)
        self.nothing = self.known.size == self.mean_i.size
        pairs = [((self.mean_i, self.cov_i), (self.mean_j, self.cov_j))]
        self.pairs = [*pairs, ((self.mean_j, self.cov_j), (self.mean_i, self.cov_i))] if both else pairs

    def div(self, scales: np.ndarray) -> float:
        worst = 0.0
        for v in [] if self.nothing else self.corners:
            for (m1, c1), (m2, c2) in self.pairs:
                law_1 = _conditioned_floats(m1, c1, self.queries, scales, self.known, v)
                law_2 = _conditioned_floats(m2, c2, self.queries, scales, self.known, v)
                worst = max(worst, _divergence(*law_1, *law_2, self.alpha))
        return worst

    def proved(self, scales: np.ndarray) -> Certified:
        if self.nothing:
            return Certified(0.0, 0.0, rigorous=True)
        lows, ups = [], []
        for v in self.corners:
            for (m1, c1), (m2, c2) in self.pairs:
                build = _conditioned_builder(m1, c1, m2, c2, self.queries, scales, self.known, v)
                enc = _proved_divergence(build, self.alpha)
                if math.isinf(enc.value):
                    return Certified(math.inf, 0.0, rigorous=True)
                lows.append(float(enc.lower))
                ups.append(float(enc.upper))
        return _joint(lows, ups)


class _Release:
    """The float divergence and its proof at noise ``scales`` without side information."""

    def __init__(self, inputs: tuple[np.ndarray, ...], alpha: float, both: bool):
        self.mean_i, self.cov_i, self.mean_j, self.cov_j, self.queries, _ = inputs
        self.alpha, self.both = alpha, both

    def _laws(self, scales: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return _checked_laws(self.mean_i, self.cov_i, self.mean_j, self.cov_j, self.queries, scales)

    def div(self, scales: np.ndarray) -> float:
        mi, si, mj, sj = self._laws(scales)
        forward = _divergence(mi, si, mj, sj, self.alpha)
        return max(forward, _divergence(mj, sj, mi, si, self.alpha)) if self.both else forward

    def proved(self, scales: np.ndarray) -> Certified:
        model = (self.mean_i, self.cov_i, self.mean_j, self.cov_j, self.queries, scales)
        return _proved_release(*self._laws(scales), model, self.alpha, self.both)


def side_information_divergence(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    queries: ArrayLike,
    scales: ArrayLike,
    alpha: float,
    known: ArrayLike,
    known_low: ArrayLike,
    known_high: ArrayLike,
    both_orders: bool = True,
) -> Certified:
    r"""Exact Rényi divergence of the joint release against an adversary who also knows some of the target's attributes.

    The adversary knows the target's attributes :math:`K` (``known``, indices into the record) and
    their values :math:`v`, anywhere in the box ``[known_low, known_high]``; the prior of the rest is
    then the Gaussian conditional, under each secret :math:`s`,

    .. math::

        x_U \mid x_K = v,\, s \;\sim\; N\bigl(m_s(v),\, C_s\bigr),

        m_s(v) = \mu_{s,U} + B_s(v - \mu_{s,K}),

        C_s = \Sigma_{s,UU} - B_s\Sigma_{s,KU}, \qquad B_s = \Sigma_{s,UK}\Sigma_{s,KK}^{-1},

    and the release :math:`y = Ax + \eta` is, less the known part :math:`A_K v` (the same under both
    secrets), :math:`A_U x_U + \eta`.  Returned: the maximum over :math:`v` in the box of the joint
    divergence (both orders' maximum unless ``both_orders=False``), i.e. the RPP guarantee against the
    class of adversaries who know :math:`x_K`.

    *The worst value is a vertex (proved).* The covariances above do not depend on :math:`v` and the
    mean difference is affine in it; for :math:`\Sigma_\alpha` positive definite the divergence is
    :math:`\tfrac{\alpha}{2}\Delta^\top\Sigma_\alpha^{-1}\Delta` plus a term free of :math:`v`, convex
    in :math:`\Delta` and so in :math:`v` (where :math:`\Sigma_\alpha` is not positive definite it is
    :math:`+\infty` at every :math:`v`).  A convex function on a box is largest at a vertex: the
    :math:`2^{|K|}` vertices are evaluated, each conditional law formed in ball arithmetic from the
    exact floats and enclosed as in :func:`linear_queries_divergence`; the maximum of the enclosures
    :math:`[l_v, u_v]` is enclosed by :math:`[\max l_v, \max u_v]`.  The box bounds the known values:
    over all real values the divergence is unbounded wherever the two secrets' slopes :math:`B_s`
    differ, so the class must declare the range the adversary's knowledge lies in (for an attribute
    of the data, e.g. its public range).

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j, queries, scales : array
        As in :func:`linear_queries_divergence`; each covariance positive definite on the known
        attributes.
    alpha : float
        Order :math:`\alpha > 0`.
    known : array of int
        The indices (into the record, ``0 .. d-1``) of the attributes the adversary knows; at most 10.
    known_low, known_high : array
        The box of their values, one entry per index of ``known``, ``known_low <= known_high``.
    both_orders : bool
        As in :func:`linear_queries_divergence`.

    Returns
    -------
    Certified
        The worst divergence over the box, proved (``rigorous=True``).

    Raises
    ------
    ValueError
        As :func:`linear_queries_divergence`, and on invalid ``known``, ``known_low`` or ``known_high``.

    Examples
    --------
    Two attributes with correlation 0.5 under one secret and 0 under the other; the release is the
    second one, and the adversary knows the first in [-1, 1]:

    >>> kw = dict(mean_i=[0.0, 0.0], cov_i=[[1.0, 0.5], [0.5, 1.0]], mean_j=[0.0, 0.0],
    ...           cov_j=[[1.0, 0.0], [0.0, 1.0]], queries=[[0.0, 1.0]], scales=[0.5], alpha=2.0)
    >>> round(linear_queries_divergence(**kw).value, 12)  # the same marginal law: nothing leaks
    0.0
    >>> d = side_information_divergence(**kw, known=[0], known_low=[-1.0], known_high=[1.0])
    >>> d.rigorous, round(d.value, 6)  # v = +-1: N(0, 1.25) against N(+-0.5, 1), the worst order
    (True, 0.365603)
    """
    a = _order(alpha)
    both = checks.flag("both_orders", both_orders)
    inputs = _inputs(mean_i, cov_i, mean_j, cov_j, queries, scales)
    _checked_laws(mean_i, cov_i, mean_j, cov_j, queries, scales)
    box = _known_box(known, known_low, known_high, inputs[0].size)
    if box is None:
        raise ValueError("known must name the attributes the adversary knows (else use linear_queries_divergence)")
    return _SideInformation(inputs, box, a, both).proved(inputs[5])


class LinearCalibration(NamedTuple):
    """Result of :func:`calibrate_linear_queries`."""

    #: The common multiplier :math:`c` of the noise profile.
    multiplier: float
    #: The calibrated noise standard deviations :math:`c\,\theta_0`.
    scales: np.ndarray
    #: Proved enclosure of the exact joint divergence at ``scales``; its upper end is at most epsilon.
    divergence: Certified


def calibrate_linear_queries(
    *,
    mean_i: ArrayLike,
    cov_i: ArrayLike,
    mean_j: ArrayLike,
    cov_j: ArrayLike,
    queries: ArrayLike,
    base_scales: ArrayLike,
    alpha: float,
    epsilon: float,
    both_orders: bool = True,
    rtol: float = 1e-9,
    known: ArrayLike | None = None,
    known_low: ArrayLike | None = None,
    known_high: ArrayLike | None = None,
) -> LinearCalibration:
    r"""Smallest common multiplier :math:`c` of a noise profile :math:`\theta_0` meeting an RPP budget.

    Finds :math:`c^\star = \min\{c > 0 : D(c\,\theta_0) \le \varepsilon\}` for the joint divergence
    :math:`D` of :func:`linear_queries_divergence`.

    *Monotonicity (proved).* For :math:`c' > c`, the release at :math:`c'\theta_0` has the law of the release at
    :math:`c\theta_0` plus independent :math:`N(0, (c'^2 - c^2)\operatorname{diag}(\theta_0^2))` noise: the same
    Markov kernel applied under both secrets, so by the data-processing inequality (van Erven & Harremoës
    2014, Thm 9) :math:`D(c'\theta_0) \le D(c\theta_0)` in each order and every :math:`\alpha`. The feasible
    multipliers therefore form a half-line :math:`[c^\star, \infty)` and bisection is valid; :math:`D \to 0` as
    :math:`c \to \infty`, so :math:`c^\star < \infty` for :math:`\varepsilon > 0`.

    *Search.* A bracket :math:`[c_{lo}, c_{hi}]` by doubling/halving from 1, then bisection in
    :math:`\log c` until :math:`c_{hi}/c_{lo} - 1 \le` ``rtol``, on the float divergence (eigenvalues);
    only multipliers whose float divergence is :math:`\le \varepsilon(1 -` ``ACCEPT_RTOL`` :math:`)` are
    accepted. A budget met at every multiplier down to :math:`2^{-60}` (e.g. the same law under both
    secrets) returns :math:`2^{-60}`.

    *Proof step.* The float search is not the guarantee: the last step encloses the divergence at
    :math:`c_{hi}` in ball arithmetic (:func:`linear_queries_divergence`) and, while the enclosure's upper
    end exceeds :math:`\varepsilon`, steps :math:`c_{hi}` up by factors :math:`1 + 2^m` ``rtol``
    (:math:`m = 0, 1, \dots`) until it is proved, then bisects between the last refused and the proved
    multiplier on the enclosures alone (monotonicity above makes that valid). The returned multiplier is
    **proved** to meet the budget, with no slack: the returned ``divergence`` is its enclosure,
    ``divergence.upper <= epsilon``.

    Parameters
    ----------
    mean_i, cov_i, mean_j, cov_j, queries : array
        As in :func:`linear_queries_divergence`.
    base_scales : array (k,)
        The noise profile :math:`\theta_0 > 0` (its shape fixes the ratios between the queries' noises).
    alpha : float
        Order :math:`\alpha > 0`.
    epsilon : float
        Budget :math:`\varepsilon > 0`.
    both_orders : bool
        As in :func:`linear_queries_divergence`.
    rtol : float
        Relative width of the final bracket, in :math:`[10^{-14}, 10^{-2}]`.
    known, known_low, known_high : array, optional
        Side information: the adversary also knows the target's attributes ``known`` (indices),
        with values anywhere in ``[known_low, known_high]``; the divergence is then that of
        :func:`side_information_divergence` (the worst vertex of the box), proved the same way.
        Monotonicity in :math:`c` holds at each known value, so for their maximum too.

    Returns
    -------
    LinearCalibration
        ``(multiplier, scales, divergence)``, ``divergence`` a proved enclosure (``Certified``,
        ``rigorous=True``) whose upper end is at most ``epsilon``.

    Raises
    ------
    ValueError
        As :func:`linear_queries_divergence`, and if ``epsilon`` is not in (0, inf) or ``rtol`` is out of
        range.

    Examples
    --------
    >>> cal = calibrate_linear_queries(mean_i=[0.0], cov_i=[[1.0]], mean_j=[2.0], cov_j=[[1.0]],
    ...                                queries=[[1.0]], base_scales=[1.0], alpha=2.0, epsilon=1.0)
    >>> round(cal.multiplier, 6)   # alpha Delta^2 / (2 (1 + c^2)) = 4 / (1 + c^2) = 1  <=>  c = sqrt(3)
    1.732051
    >>> cal.divergence.rigorous, cal.divergence.upper <= 1.0
    (True, True)
    """
    a = _order(alpha)
    eps = checks.scalar_in_interval("epsilon", epsilon, low=0.0, low_open=True)
    tol = checks.scalar_in_interval("rtol", rtol, low=1e-14, high=1e-2)
    both = checks.flag("both_orders", both_orders)
    theta0 = checks.in_interval("base_scales", base_scales, low=0.0, low_open=True)
    # validate everything once (shapes, covariances) before the search
    inputs = _inputs(mean_i, cov_i, mean_j, cov_j, queries, theta0)
    _checked_laws(mean_i, cov_i, mean_j, cov_j, queries, theta0)
    limit = eps * (1.0 - ACCEPT_RTOL)
    box = _known_box(known, known_low, known_high, inputs[0].size)
    release = _Release(inputs, a, both) if box is None else _SideInformation(inputs, box, a, both)

    def div(c: float) -> float:
        return release.div(c * theta0)

    def proved(c: float) -> Certified:
        return release.proved(c * theta0)

    hi = _search(div, limit, tol)
    enclosure = proved(hi)
    if not enclosure.upper <= eps:  # the float search's margin was not enough: step up, proved each time
        lo, step = hi, tol
        while not enclosure.upper <= eps:
            lo, hi, step = hi, hi * (1.0 + step), 2.0 * step
            if hi > 2.0**200:
                raise ValueError("epsilon is too small for any finite noise multiplier (below 2^200)")
            enclosure = proved(hi)
        while hi / lo - 1.0 > tol:  # bisect between a refused and a proved multiplier
            mid = math.sqrt(lo * hi)
            if mid in (lo, hi):
                break
            at_mid = proved(mid)
            if at_mid.upper <= eps:
                hi, enclosure = mid, at_mid
            else:
                lo = mid
    return LinearCalibration(hi, hi * theta0, enclosure)


def _search(div: Callable[[float], float], limit: float, tol: float) -> float:
    """Smallest multiplier (to the relative ``tol``) whose float divergence ``div`` is <= ``limit``."""
    hi = 1.0
    if div(hi) <= limit:
        lo = 0.5
        while div(lo) <= limit:
            hi = lo
            if lo <= 2.0**-60:
                return lo
            lo *= 0.5
    else:
        lo = hi
        while not div(hi) <= limit:
            lo, hi = hi, 2.0 * hi
            if hi > 2.0**200:
                raise ValueError("epsilon is too small for any finite noise multiplier (below 2^200)")
    while hi / lo - 1.0 > tol:
        mid = math.sqrt(lo * hi)
        if mid in (lo, hi):
            break
        if div(mid) <= limit:
            hi = mid
        else:
            lo = mid
    return hi
