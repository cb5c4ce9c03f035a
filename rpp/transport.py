r"""Optimal transport in one dimension and between mixture components.

* :func:`quantile_coupling` -- the monotone (quantile) coupling of two
  empirical distributions, :math:`\pi^* = (F_i^{-1}(U), F_j^{-1}(U))_\#\,\mathrm{Unif}(0,1)`,
  optimal for every cost :math:`h(x-x')` with :math:`h` convex.
* :func:`w_infinity`, :func:`wasserstein` -- :math:`W_\infty` and :math:`W_p`
  computed exactly from that coupling.
* :func:`component_coupling` -- the discrete OT plan between mixture components
  used by Theorem IV.1 of Yang et al. 2026, with the component cost
  :math:`C_{kl} = (\mu_k-\mu'_l)^2 + (\sigma_k-\sigma'_l)^2 = W_2^2(N_k, N'_l)`,
  solved exactly by :func:`optimal_plan` (``scipy.optimize.linprog(method="highs")``; POT's
  network simplex ``ot.emd`` only for plans of more than 2500 cells, when POT is installed).
* :func:`mixture_quantile_at_score` and :class:`QuantileDifference` -- the monotone coupling of
  two *continuous* priors, :math:`\pi^* = (F_i^{-1}(\Phi(Z)), F_j^{-1}(\Phi(Z)))_\#\,N(0,1)`,
  through the quantile functions at a normal score, with the tail bound
  :func:`quantile_difference_tail` (used by the α-Wasserstein rules).
"""

from __future__ import annotations

from typing import cast

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from ._lib import validation as v
from ._lib.parallel import MIN_ITEMS, thread_map
from .priors import Components, Empirical, Gaussian, GaussianMixture, Prior

__all__ = [
    "quantile_coupling",
    "w_infinity",
    "wasserstein",
    "gaussian_w2_squared",
    "optimal_plan",
    "component_coupling",
    "mixture_quantile_at_score",
    "quantile_difference_tail",
    "QuantileDifference",
    "mirrored",
]


def _components_of(name: str, c: object) -> Components:
    """TypeError unless ``c`` is a :class:`~rpp.priors.Components` (a mixture view)."""
    if not isinstance(c, Components):
        raise TypeError(f"{name} must be an rpp.priors.Components (e.g. prior.components()), got a {type(c).__name__}")
    return c


def _as_empirical(name: str, p: Prior | ArrayLike) -> Empirical:
    if isinstance(p, Empirical):
        return p
    if isinstance(p, (Gaussian, GaussianMixture)):
        raise ValueError(f"{name} must be an rpp.Empirical sample here, got {type(p).__name__}")
    return Empirical(cast(ArrayLike, p))


def quantile_coupling(
    prior_i: Prior | ArrayLike, prior_j: Prior | ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Monotone coupling of two empirical distributions.

    The pairs :math:`(F_p^{-1}(u), F_q^{-1}(u))` are constant on the intervals
    between consecutive breakpoints of the two CDFs (the union of their
    cumulative probabilities), so the coupling is a finite list of atoms.

    Parameters
    ----------
    prior_i, prior_j : Empirical or array_like
        The two samples (arrays are wrapped in :class:`~rpp.Empirical`).

    Returns
    -------
    x, x_prime, mass : ndarray
        Atoms of the coupling and their probabilities (summing to 1).

    Raises
    ------
    ValueError
        If a prior is a Gaussian or a mixture.

    Examples
    --------
    >>> quantile_coupling(Empirical([0, 1]), Empirical([1, 2, 3, 4]))
    (array([0., 0., 1., 1.]), array([1., 2., 3., 4.]), array([0.25, 0.25, 0.25, 0.25]))
    """
    p = _as_empirical("prior_i", prior_i)
    q = _as_empirical("prior_j", prior_j)
    cp = np.cumsum(p.probs)
    cq = np.cumsum(q.probs)
    cp[-1] = cq[-1] = 1.0
    u = np.concatenate([cp, cq])  # their union (numpy.union1d without its copy)
    u.sort()
    u = u[np.r_[True, u[1:] != u[:-1]]]
    u = u[np.searchsorted(u, 0.0, side="right") :]  # the positive breakpoints (u is sorted)
    # Snap breakpoints that differ only by round-off.
    u = u[np.concatenate([[True], np.diff(u) > 1e-14])]
    u[-1] = 1.0
    lower = np.concatenate([[0.0], u[:-1]])
    mass = u - lower
    mid = 0.5 * (lower + u)
    # each sample's atom on every interval: two binary searches of the midpoints, side by side
    # for many atoms (numpy releases the GIL in them)
    ip, iq = thread_map(
        lambda c: np.minimum(np.searchsorted(c, mid, side="left"), c.size - 1), (cp, cq), parallel=mid.size >= MIN_ITEMS
    )
    keep = mass > 0
    if keep.all():  # (the snapped breakpoints increase: the usual case, without copies)
        return p.support[ip], q.support[iq], mass
    return p.support[ip][keep], q.support[iq][keep], mass[keep]


def w_infinity(prior_i: Prior | ArrayLike, prior_j: Prior | ArrayLike) -> float:
    r""":math:`W_\infty(P_i, P_j) = \sup_{u\in(0,1)} |F_p^{-1}(u) - F_q^{-1}(u)|`.

    * Two empirical samples: exact, from :func:`quantile_coupling`.
    * Two Gaussians: :math:`|\mu_p - \mu_q|` when the variances are equal and
      ``+inf`` otherwise (the quantile functions then drift apart linearly in
      the Gaussian quantile, which is unbounded).  This is the baseline of
      Pierquin et al. 2024 for Gaussian priors; no finite value exists for
      unequal variances.

    Parameters
    ----------
    prior_i, prior_j : Empirical or Gaussian
        Two empirical samples or two Gaussians.

    Returns
    -------
    float
        :math:`W_\infty` (``inf`` for Gaussians with different variances).

    Raises
    ------
    ValueError
        For mixtures.

    Examples
    --------
    >>> w_infinity(Empirical([0, 1]), Empirical([1, 2, 3, 4]))
    3.0
    """
    p, q = prior_i, prior_j
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        return abs(p.mean - q.mean) if p.var == q.var else np.inf
    if isinstance(p, GaussianMixture) or isinstance(q, GaussianMixture):
        raise ValueError(
            "w_infinity needs two rpp.Empirical samples or two rpp.Gaussian priors; "
            "for mixtures pass the data samples instead"
        )
    x, y, _ = quantile_coupling(p, q)
    return float(np.max(np.abs(x - y)))


def wasserstein(prior_i: Prior | ArrayLike, prior_j: Prior | ArrayLike, *, order: float = 1.0) -> float:
    r""":math:`W_p(P_i, P_j) = (\int |x-x'|^p d\pi^*)^{1/p}` from the monotone coupling; ``order=inf`` gives :math:`W_\infty`.

    Parameters
    ----------
    prior_i, prior_j : Empirical or array_like
        The two samples.
    order : float
        :math:`p \ge 1` (``inf`` allowed).

    Returns
    -------
    float
        :math:`W_p`.

    Raises
    ------
    ValueError
        If ``order < 1``.

    Examples
    --------
    >>> wasserstein(Empirical([0, 1]), Empirical([1, 2, 3, 4]), order=1)
    2.0
    """
    order = float(v.positive("order", order, allow_inf=True))
    if order < 1:
        raise ValueError(f"order must be >= 1, got {order}")
    if np.isinf(order):
        return w_infinity(prior_i, prior_j)
    x, y, m = quantile_coupling(prior_i, prior_j)
    d = np.abs(x - y)
    top = float(np.max(d[m > 0], initial=0.0))
    if top > 1 and order * np.log(top) > 700:  # |x - y|**order would overflow: factor out the largest gap
        return top * float(np.dot(m, (d / top) ** order) ** (1 / order))
    return float(np.dot(m, d**order) ** (1 / order))


def gaussian_w2_squared(mean_i: ArrayLike, var_i: ArrayLike, mean_j: ArrayLike, var_j: ArrayLike) -> np.ndarray:
    r"""Squared 2-Wasserstein distance between 1-D Gaussians, :math:`(\mu_i-\mu_j)^2 + (\sigma_i-\sigma_j)^2`.

    Variances may be 0 (point masses).  Broadcasts.

    Parameters
    ----------
    mean_i, var_i, mean_j, var_j : array_like
        Means and variances (``>= 0``).

    Returns
    -------
    ndarray or float
        :math:`W_2^2` (``inf`` when it exceeds the largest double).

    Raises
    ------
    ValueError
        If a mean is not finite or a variance is not finite and ``>= 0``.

    Examples
    --------
    >>> float(gaussian_w2_squared(0.0, 1.0, 3.0, 4.0))  # 3^2 + (1 - 2)^2
    10.0
    """
    mean_i, mean_j = v.finite("mean_i", mean_i), v.finite("mean_j", mean_j)
    var_i = v.positive("var_i", var_i, allow_zero=True)
    var_j = v.positive("var_j", var_j, allow_zero=True)
    with np.errstate(over="ignore"):  # means 1e300 apart: W_2^2 = 1e600 is inf in double
        return np.asarray((mean_i - mean_j) ** 2 + (np.sqrt(var_i) - np.sqrt(var_j)) ** 2)


#: Plans of at most this many cells are solved by scipy's ``linprog`` (HiGHS; 1.5 ms at 10 x 10,
#: 5 ms at 40 x 40, where POT's ``ot.emd`` takes 0.1 ms but 2.7 s to import); larger ones by POT's
#: network simplex when POT (the ``[ot]`` extra) is installed (at 80 x 80: 0.4 ms against 31 ms).
LINPROG_MAX_CELLS = 2500


def optimal_plan(a: ArrayLike, b: ArrayLike, cost: ArrayLike) -> np.ndarray:
    r"""Optimal transport plan between two discrete distributions (a vertex of the transport polytope).

    Solves :math:`\min_{\Pi\ge 0,\ \Pi 1 = a,\ \Pi^\top 1 = b}\ \sum_{kl}\Pi_{kl}C_{kl}`.
    Plans of at most ``LINPROG_MAX_CELLS`` (2500) cells, all the package needs (mixture
    components), are solved by ``scipy.optimize.linprog(method="highs")`` at its tightest
    feasibility tolerances (1e-10: optimal to about 1e-10 of the largest cost; the default 1e-7
    left a plan 6e-8 above the optimum where two plans nearly tie); larger ones by POT's
    network simplex ``ot.emd`` when POT is installed (the ``[ot]`` extra, imported here at
    first use), otherwise by ``linprog`` as well.  Both return a vertex of the transport
    polytope; when the optimum is not unique the two may pick different optimal plans (the
    optimal *value* is the same).

    Parameters
    ----------
    a : array_like, shape (K,)
        Source weights (non-negative, summing to 1).
    b : array_like, shape (L,)
        Target weights (non-negative, summing to 1).
    cost : array_like, shape (K, L)
        Finite cost matrix.

    Returns
    -------
    ndarray, shape (K, L)
        The plan.

    Raises
    ------
    ValueError
        If ``a`` or ``b`` is not a probability vector (1-D, ``>= 0``, summing to 1) or ``cost``
        is not a finite matrix of shape ``(K, L)``.

    Examples
    --------
    >>> optimal_plan([0.5, 0.5], [0.5, 0.5], [[0.0, 1.0], [1.0, 0.0]])
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    a = np.ascontiguousarray(v.pmf("a", v.vector("a", a)))
    b = np.ascontiguousarray(v.pmf("b", v.vector("b", b)))
    C = np.ascontiguousarray(v.finite("cost", cost))
    if C.shape != (a.size, b.size):
        raise ValueError(f"cost must be a matrix of shape (K, L) = {(a.size, b.size)}, got shape {C.shape}")
    if C.size <= LINPROG_MAX_CELLS:
        return _linprog_plan(a, b, C)
    try:
        import ot
    except ImportError:
        return _linprog_plan(a, b, C)
    return np.asarray(ot.emd(a, b, C))


def _linprog_plan(a: np.ndarray, b: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Solve the transport linear program with HiGHS (K + L - 1 equality rows; sparse for large plans)."""
    from scipy import sparse
    from scipy.optimize import linprog

    K, L = C.shape
    if C.size <= LINPROG_MAX_CELLS:  # dense constraints: faster to build at this size
        rows = np.kron(np.eye(K), np.ones((1, L)))  # sum_l P_kl = a_k
        cols = np.kron(np.ones((1, K)), np.eye(L))[:-1]  # sum_k P_kl = b_l (one constraint is redundant)
        A_eq = np.vstack([rows, cols])
    else:
        rows = sparse.kron(sparse.eye(K), np.ones((1, L)))
        cols = sparse.kron(np.ones((1, K)), sparse.eye(L)).tocsr()[:-1]
        A_eq = sparse.vstack([rows, cols]).tocsc()
    # HiGHS's default feasibility tolerances (1e-7) let it stop at a vertex whose cost is 1e-7
    # above the optimum when two plans nearly tie (the oracle suite found one: identical
    # components against two of unequal variance); its tightest tolerances (1e-10) reach the optimum
    tight = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    res = linprog(
        C.ravel(), A_eq=A_eq, b_eq=np.concatenate([a, b[:-1]]), bounds=(0, None), method="highs", options=tight
    )
    if res.status != 0:  # pragma: no cover - the transport polytope is never empty
        raise RuntimeError(f"linprog failed on the transport problem: {res.message}")
    return np.maximum(res.x.reshape(K, L), 0.0)


def component_coupling(
    prior_i: Prior,
    prior_j: Prior,
    *,
    cost: str | ArrayLike = "w2",
) -> np.ndarray:
    r"""Optimal coupling of the mixture weights of two priors (Yang et al. 2026, Sec. IV-B).

    Solves :math:`\min_{\Pi\in U(w_i,w_j)} \sum_{kl}\pi_{kl}C_{kl}` over the
    transport polytope :math:`U(w_i,w_j)=\{\Pi\ge0:\Pi 1 = w_i, \Pi^\top 1 = w_j\}`
    by linear programming (:func:`rpp.transport.optimal_plan`, optimal to about 1e-10 of the largest cost).

    Parameters
    ----------
    prior_i, prior_j : Gaussian, GaussianMixture or Empirical
        Each is read as a mixture (an empirical sample as point masses).
    cost : "w2" or array_like, shape (K, L)
        ``"w2"`` uses :math:`C_{kl} = (\mu_{ik}-\mu_{jl})^2 + (\sigma_{ik}-\sigma_{jl})^2`,
        the squared :math:`W_2` between the components (the paper's choice).

    Returns
    -------
    ndarray, shape (K, L)
        The plan :math:`\Pi^*`.

    Raises
    ------
    TypeError
        If a prior is not a Gaussian, GaussianMixture or Empirical (no ``components()``).
    ValueError
        For a cost that is not ``"w2"`` or of the wrong shape.

    Examples
    --------
    >>> P = GaussianMixture(weights=[0.5, 0.5], means=[0, 10], vars=[1, 1])
    >>> component_coupling(P, GaussianMixture(weights=[0.5, 0.5], means=[10, 0], vars=[1, 1]))
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    for name, prior in (("prior_i", prior_i), ("prior_j", prior_j)):
        if not isinstance(prior, (Gaussian, GaussianMixture, Empirical)):
            raise TypeError(
                f"{name} must be an rpp Gaussian, GaussianMixture or Empirical, got a {type(prior).__name__}"
            )
    ci, cj = prior_i.components(), prior_j.components()
    if isinstance(cost, str):
        if cost != "w2":
            raise ValueError(f"cost must be 'w2' or a (K, L) array, got {cost!r}")
        C = gaussian_w2_squared(ci.means[:, None], ci.vars[:, None], cj.means[None, :], cj.vars[None, :])
    else:
        C = v.as_float_array("cost", cost)
        if C.shape != (ci.weights.size, cj.weights.size):
            raise ValueError(f"cost must have shape {(ci.weights.size, cj.weights.size)}, got {C.shape}")
    # Scale for the solver's numerical comfort; the optimiser is invariant.
    scale = np.max(np.abs(C[np.isfinite(C)])) if np.isfinite(C).any() else 1.0
    Cs = np.where(np.isfinite(C), C / (scale if scale > 0 else 1.0), 1e30)
    plan = optimal_plan(ci.weights, cj.weights, Cs)
    plan[plan < 1e-15] = 0.0
    return plan


# ----------------------------------------------------------------------------
# Monotone coupling of continuous priors: quantiles at a normal score
# ----------------------------------------------------------------------------


# Helpers of mixture_quantile_at_score (row-wise log-sum-exp, CDF-table brackets)


def lse_rows(a):
    """Log-sum-exp of each row of a finite 2-D array (no -inf, no weights)."""
    m = a.max(axis=1)
    return m + np.log(np.exp(a - m[:, None]).sum(axis=1))


TABLE_MIN = 128  # scores per call from which the brackets are first narrowed on a table of the CDF
TABLE_SIZE = 257


def narrow_brackets(c, lw, s, z, target, lo, hi):
    """Narrow the brackets ``[lo, hi]`` of :func:`rpp.transport.mixture_quantile_at_score` in place.

    ``log F`` (scores ``z <= 0``) and ``log(1 - F)`` (``z > 0``) on ``TABLE_SIZE`` points
    spanning every bracket: each root lies between the two table points whose values
    straddle its target (up to their round-off, which moves the root by as little), so that
    the safeguarded Newton iteration starts from a bracket a table step wide.  Saves most
    of the iterations on the thousands of scores of a quadrature.
    """
    xs = np.linspace(lo.min(), hi.max(), TABLE_SIZE)
    u = (xs[:, None] - c.means[None, :]) / s[None, :]
    for side, sign in ((z <= 0, 1.0), (z > 0, -1.0)):
        if not side.any():
            continue
        table = sign * lse_rows(lw + special.log_ndtr(sign * u))  # increasing in x
        k = np.searchsorted(table, sign * target[side])  # table[k - 1] < t <= table[k]
        idx = np.flatnonzero(side)
        new_lo = np.maximum(lo[idx], xs[np.maximum(k - 1, 0)])
        new_hi = np.minimum(hi[idx], xs[np.minimum(k, xs.size - 1)])
        ok = new_lo <= new_hi  # else round-off put the root outside the table's bracket: keep the original
        lo[idx[ok]], hi[idx[ok]] = new_lo[ok], new_hi[ok]


def mixture_quantile_at_score(c: Components, z: ArrayLike) -> np.ndarray:
    r""":math:`F^{-1}(\Phi(z))` for a Gaussian mixture (components ``c``), for any real ``z``.

    Solves :math:`h(x) = \log F(x) - \log\Phi(z) = 0` (``z <= 0``) or
    :math:`h(x) = \log(1-F(x)) - \log\Phi(-z) = 0` (``z > 0``) in log space, so
    that scores far in the tails (where :math:`\Phi(z)` rounds to 0 or 1) are
    exact.  Newton's method on :math:`h`, safeguarded by bisection inside the
    bracket :math:`[\min_k(\mu_k+s_kz), \max_k(\mu_k+s_kz)]`, which contains the root.
    The monotone coupling at a normal score (awass2026, arXiv:2605.05723).

    Parameters
    ----------
    c : Components
        The mixture (all variances > 0 unless it has one component).
    z : array_like, 1-d
        Normal scores.

    Returns
    -------
    ndarray
        :math:`F^{-1}(\Phi(z))`, shape of ``z``.

    Raises
    ------
    TypeError
        If ``c`` is not a :class:`~rpp.priors.Components`.
    ValueError
        If ``z`` is not finite (NaN or inf) or has more than one dimension.

    Examples
    --------
    >>> mixture_quantile_at_score(Gaussian(mean=1.0, var=4.0).components(), [-1.0, 0.0]).round(6)
    array([-1.,  1.])
    """
    c = _components_of("c", c)
    z = v.finite("z", z)
    if z.ndim > 1:
        raise ValueError(f"z must be a 1-D array of scores, got an array with {z.ndim} dimensions")
    s = np.sqrt(c.vars)
    if c.weights.size == 1:
        return c.means[0] + s[0] * z
    if z.ndim == 0:
        return mixture_quantile_at_score(c, z[None])[0]
    lw = np.log(c.weights)
    lnorm = lw - np.log(s) - 0.5 * np.log(2 * np.pi)
    cand = c.means[None, :] + s[None, :] * z[:, None]
    lo, hi = cand.min(axis=1), cand.max(axis=1)
    target = special.log_ndtr(-np.abs(z))
    sgn = np.where(z > 0, -1.0, 1.0)  # h increasing (cdf) or decreasing (survival)
    if z.size >= TABLE_MIN:
        narrow_brackets(c, lw, s, z, target, lo, hi)
    x = np.where(np.isfinite(lo + hi), 0.5 * (lo + hi), np.dot(cand, c.weights))  # start inside the bracket
    act, dx, dx_old = np.ones(z.shape, bool), hi - lo, hi - lo  # steps: the last, the one before (rtsafe)
    for _ in range(400):
        xa = x[act]
        u = (xa[:, None] - c.means[None, :]) / s[None, :]
        lF = lse_rows(lw + special.log_ndtr(sgn[act][:, None] * u))
        h = lF - target[act]
        lpdf = lse_rows(lnorm - 0.5 * u**2)
        right = sgn[act] * h < 0  # the root lies right of xa (h increases in x when sgn = +1): new bracket
        lo_a = np.where(right, xa, lo[act])
        hi_a = np.where(right, hi[act], xa)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            # slope = d log F / dx = pdf/F may overflow to inf deep in a tail: the Newton step
            # |h| / slope is then below 1e-300 (|h| is a difference of logs), i.e. converged
            step = h / (sgn[act] * np.exp(lpdf - lF))
        xn = xa - step
        # a Newton step onto a bracket end can cycle between the ends (a quantile 2.3 units off): as in
        # rtsafe, bisect unless it lands strictly inside and is at most half the step before last
        slow = np.abs(xn - xa) > 0.5 * np.abs(dx_old[act])
        bad = ~np.isfinite(xn) | (xn <= lo_a) | (xn >= hi_a) | slow
        xn = np.where(bad, 0.5 * (lo_a + hi_a), xn)
        # stop at the round-off of h or a Newton step within tol (else: a wide bracket bisected)
        tol = 2e-16 * np.maximum(np.abs(xa), 1.0) * 4
        flat = (np.abs(h) <= 8 * np.finfo(float).eps * (1.0 + np.abs(target[act]))) | (np.abs(step) <= tol)
        xn = np.where(flat, xa, xn)
        done = (np.abs(xn - xa) <= tol) | (hi_a - lo_a <= tol) | flat
        idx = np.flatnonzero(act)
        dx_old[idx], dx[idx] = dx[idx], xn - xa
        x[idx], lo[idx], hi[idx] = xn, lo_a, hi_a
        act[idx[done]] = False
        if not act.any():
            break
    else:  # pragma: no cover - the steps halve at least every other iteration
        raise RuntimeError("mixture_quantile_at_score did not converge; please report this as a bug")
    return x


def quantile_difference_tail(ci: Components, cj: Components, Z: float) -> tuple[float, float]:
    r"""Return (a, C) with :math:`|F_i^{-1}(\Phi(z)) - F_j^{-1}(\Phi(z))| \le a z + C` for all :math:`z \ge Z`.

    Upper bound on a mixture quantile: :math:`\max_k(\mu_k + s_k z) \le s_{\max}z + \max_k(\mu_k - (s_{\max} - s_k)Z)`
    for :math:`z \ge Z`.
    Lower bound: with :math:`K` a widest component and :math:`L = \log(1/w_K)`,
    :math:`F^{-1}(\Phi(z)) \ge \mu_K + s_K(z - 2L/z)` for :math:`z^2 \ge 2L`,
    because :math:`\bar\Phi(z-a) \ge e^{az-a^2/2}\bar\Phi(z)` for :math:`a \ge 0`.
    Requires ``Z**2 >= 2 L`` for both mixtures (awass2026, arXiv:2605.05723, tail of the W_α rules).

    Parameters
    ----------
    ci, cj : Components
        The two mixtures (variances > 0).
    Z : float
        Start of the tail, ``Z > 0``.

    Returns
    -------
    a, C : float
        Slope and intercept of the bound.

    Raises
    ------
    TypeError
        If ``ci`` or ``cj`` is not a :class:`~rpp.priors.Components`.
    ValueError
        If ``Z`` is not a finite number ``> 0`` or :math:`Z^2<2\log(1/w_K)` for either mixture.

    Examples
    --------
    >>> a, C = quantile_difference_tail(Gaussian(mean=0.0, var=1.0).components(), Gaussian(mean=1.0, var=4.0).components(), 3.0)
    >>> float(a), float(C)
    (1.0, 1.0)
    """
    ci, cj = _components_of("ci", ci), _components_of("cj", cj)
    Z = v.scalar_in_interval("Z", Z, low=0.0, low_open=True)

    def bounds(c):
        s = np.sqrt(c.vars)
        smax = s.max()
        widest = np.flatnonzero(s == smax)
        K = widest[np.argmax(c.means[widest])]
        L = -np.log(c.weights[K])
        if Z < np.sqrt(2 * L):
            raise ValueError(f"Z must satisfy Z**2 >= 2 log(1/w_K) = {2 * L}, got Z = {Z}")
        lo_const = c.means[K] - smax * 2 * L / Z  # lower: mu_K + s z - s 2L/Z
        # upper: max_k(mu_k + s_k z) = s_max z + max_k(mu_k - (s_max - s_k) z), each term of the
        # last max decreasing in z (max mu, used before, pushed the w-alpha tails to |z| = 1557)
        with np.errstate(over="ignore"):  # a huge Z: -inf for all but the widest (whose term is mu_K)
            hi_const = float(np.max(c.means - (smax - s) * Z))
        return smax, lo_const, hi_const

    si, li, hi_i = bounds(ci)
    sj, lj, hi_j = bounds(cj)
    a = abs(si - sj)
    # d = Q_i - Q_j in [(si - sj) z + li - hi_j, (si - sj) z + hi_i - lj]
    C = max(abs(li - hi_j), abs(hi_i - lj))
    return a, C


def mirrored(c: Components) -> Components:
    r"""Return the components of the law of :math:`-X` (means negated).

    :math:`-X\sim\sum_k w_k\mathcal N(-\mu_k,\sigma_k^2)` (the lower tail of :math:`X` is the upper tail of :math:`-X`).

    Parameters
    ----------
    c : Components
        Law of :math:`X`.

    Returns
    -------
    Components
        Law of :math:`-X`.

    Raises
    ------
    TypeError
        If ``c`` is not a :class:`~rpp.priors.Components`.

    Examples
    --------
    >>> mirrored(Gaussian(mean=1.0, var=4.0).components()).means
    array([-1.])
    """
    c = _components_of("c", c)
    return Components(c.weights, -c.means, c.vars)


class QuantileDifference:
    r"""Memoised quantile difference :math:`d(z) = F_i^{-1}(\Phi(z)) - F_j^{-1}(\Phi(z))` (independent of the noise scale).

    The displacement of the monotone coupling at normal score :math:`z` (awass2026,
    arXiv:2605.05723); calling it evaluates :func:`mixture_quantile_at_score` once per new score.

    Parameters
    ----------
    ci, cj : Components
        The two mixtures.

    Examples
    --------
    >>> d = QuantileDifference(Gaussian(mean=1.0, var=4.0).components(), Gaussian(mean=0.0, var=1.0).components())
    >>> d(np.array([-1.0, 0.0, 1.0])).round(6)
    array([0., 1., 2.])
    """

    memo: dict[float, float]

    def __init__(self, ci: Components, cj: Components) -> None:
        self.ci, self.cj, self.memo = ci, cj, {}

    def __call__(self, z: ArrayLike) -> np.ndarray:
        """Return the quantile difference at normal scores ``z`` (memoised).

        Parameters
        ----------
        z : array_like
            Normal scores.

        Returns
        -------
        ndarray
            The differences, the shape of ``z``.
        """
        z = np.asarray(z, float)
        flat = z.ravel()
        out = np.empty(flat.size)
        memo = self.memo
        missing = [k for k, zz in enumerate(flat.tolist()) if zz not in memo]
        if missing:
            zm = flat[missing]
            dm = mixture_quantile_at_score(self.ci, zm) - mixture_quantile_at_score(self.cj, zm)
            memo.update(zip(zm.tolist(), dm.tolist(), strict=True))
        out[:] = [memo[zz] for zz in flat.tolist()]
        return out.reshape(z.shape)
