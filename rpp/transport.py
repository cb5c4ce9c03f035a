r"""Optimal transport in one dimension and between mixture components.

* :func:`quantile_coupling` -- the monotone (quantile) coupling of two
  empirical distributions, :math:`\pi^* = (F_i^{-1}(U), F_j^{-1}(U))_\#\,\mathrm{Unif}(0,1)`,
  optimal for every cost :math:`h(x-x')` with :math:`h` convex.
* :func:`w_infinity`, :func:`wasserstein` -- :math:`W_\infty` and :math:`W_p`
  computed exactly from that coupling.
* :func:`component_coupling` -- the discrete OT plan between mixture components
  used by Theorem IV.1 of Yang et al. 2026, with the component cost
  :math:`C_{kl} = (\mu_k-\mu'_l)^2 + (\sigma_k-\sigma'_l)^2 = W_2^2(N_k, N'_l)`,
  solved exactly by POT's network simplex (``ot.emd``).
"""

from __future__ import annotations

import numpy as np
import ot

from . import _validation as v
from .distributions import Empirical, Gaussian, GaussianMixture, components

__all__ = ["quantile_coupling", "w_infinity", "wasserstein", "gaussian_w2_squared",
           "component_coupling"]


def _as_empirical(name, p):
    if isinstance(p, Empirical):
        return p
    if isinstance(p, (Gaussian, GaussianMixture)):
        raise ValueError(f"{name} must be an rpp.Empirical sample here, got {type(p).__name__}")
    return Empirical(p)


def quantile_coupling(p, q):
    r"""Monotone coupling of two empirical distributions.

    The pairs :math:`(F_p^{-1}(u), F_q^{-1}(u))` are constant on the intervals
    between consecutive breakpoints of the two CDFs (the union of their
    cumulative probabilities), so the coupling is a finite list of atoms.

    Parameters
    ----------
    p, q : Empirical or array_like
        The two samples (arrays are wrapped in :class:`~rpp.Empirical`).

    Returns
    -------
    x, x_prime, mass : ndarray
        Atoms of the coupling and their probabilities (summing to 1).
    """
    p = _as_empirical("p", p)
    q = _as_empirical("q", q)
    cp = np.cumsum(p.probs)
    cq = np.cumsum(q.probs)
    cp[-1] = cq[-1] = 1.0
    u = np.union1d(cp, cq)
    u = u[u > 0]
    # Snap breakpoints that differ only by round-off.
    u = u[np.concatenate([[True], np.diff(u) > 1e-14])]
    u[-1] = 1.0
    lower = np.concatenate([[0.0], u[:-1]])
    mass = u - lower
    mid = 0.5 * (lower + u)
    ip = np.minimum(np.searchsorted(cp, mid, side="left"), p.support.size - 1)
    iq = np.minimum(np.searchsorted(cq, mid, side="left"), q.support.size - 1)
    keep = mass > 0
    return p.support[ip][keep], q.support[iq][keep], mass[keep]


def w_infinity(p, q):
    r""":math:`W_\infty(p, q) = \sup_{u\in(0,1)} |F_p^{-1}(u) - F_q^{-1}(u)|`.

    * Two empirical samples: exact, from :func:`quantile_coupling`.
    * Two Gaussians: :math:`|\mu_p - \mu_q|` when the variances are equal and
      ``+inf`` otherwise (the quantile functions then drift apart linearly in
      the Gaussian quantile, which is unbounded).  This is the baseline of
      Pierquin et al. 2024 for Gaussian priors; no finite value exists for
      unequal variances.
    """
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        return abs(p.mean - q.mean) if p.var == q.var else np.inf
    if isinstance(p, GaussianMixture) or isinstance(q, GaussianMixture):
        raise ValueError("w_infinity needs two rpp.Empirical samples or two rpp.Gaussian priors; "
                         "for mixtures pass the data samples instead")
    x, y, _ = quantile_coupling(p, q)
    return float(np.max(np.abs(x - y)))


def wasserstein(p, q, order=1.0):
    r""":math:`W_p(p, q) = (\int |x-x'|^p d\pi^*)^{1/p}` from the monotone coupling; ``order=inf`` gives :math:`W_\infty`."""
    order = float(v.positive("order", order, allow_inf=True))
    if order < 1:
        raise ValueError(f"order must be >= 1, got {order}")
    if np.isinf(order):
        return w_infinity(p, q)
    x, y, m = quantile_coupling(p, q)
    return float(np.dot(m, np.abs(x - y) ** order) ** (1 / order))


def gaussian_w2_squared(mu0, var0, mu1, var1):
    r"""Squared 2-Wasserstein distance between 1-D Gaussians, :math:`(\mu_0-\mu_1)^2 + (\sigma_0-\sigma_1)^2`.

    Variances may be 0 (point masses).  Broadcasts.
    """
    return (np.asarray(mu0) - mu1) ** 2 + (np.sqrt(var0) - np.sqrt(var1)) ** 2


def component_coupling(prior_i, prior_j, cost="w2"):
    r"""Optimal coupling of the mixture weights of two priors (Yang et al. 2026, Sec. IV-B).

    Solves :math:`\min_{\Pi\in U(w_i,w_j)} \sum_{kl}\pi_{kl}C_{kl}` over the
    transport polytope :math:`U(w_i,w_j)=\{\Pi\ge0:\Pi 1 = w_i, \Pi^\top 1 = w_j\}`
    exactly with POT's network simplex (``ot.emd``).

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
    """
    ci, cj = components(prior_i), components(prior_j)
    if isinstance(cost, str):
        if cost != "w2":
            raise ValueError(f"cost must be 'w2' or a (K, L) array, got {cost!r}")
        C = gaussian_w2_squared(ci.means[:, None], ci.variances[:, None], cj.means[None, :], cj.variances[None, :])
    else:
        C = v.as_float_array("cost", cost)
        if C.shape != (ci.weights.size, cj.weights.size):
            raise ValueError(f"cost must have shape {(ci.weights.size, cj.weights.size)}, got {C.shape}")
    # Scale for the solver's numerical comfort; the optimiser is invariant.
    scale = np.max(np.abs(C[np.isfinite(C)])) if np.isfinite(C).any() else 1.0
    Cs = np.where(np.isfinite(C), C / (scale if scale > 0 else 1.0), 1e30)
    plan = ot.emd(ci.weights.astype(np.float64), cj.weights.astype(np.float64), Cs)
    plan[plan < 1e-15] = 0.0
    return plan
