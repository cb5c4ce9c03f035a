r"""The Rényi divergence of the noisy outputs under two priors: :func:`renyi_divergence`."""

from __future__ import annotations


import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ..priors import Empirical, Gaussian, Prior
from .closed_forms import gaussian_renyi
from .gaussian_noise import _discrete_pair, _validate_pair, renyi_divergence_bound

__all__ = ["renyi_divergence"]


def renyi_divergence(p: Prior, q: Prior, alpha: ArrayLike, noise_var: ArrayLike = 0.0) -> float | np.ndarray:
    r"""Rényi divergence of the Gaussian mechanism's outputs under two priors.

    .. math::

        D_\alpha\bigl(p \circledast N(0, t)\,\|\, q \circledast N(0, t)\bigr),
        \qquad t = \texttt{noise\_var} \ge 0 .

    This is the privacy loss of the Gaussian mechanism ``M(x) = x + N(0, t)``
    for the secret pair whose conditional priors are ``p`` and ``q``
    (Yang et al. 2026, Definition II.1 and Corollary III.3).

    * Two :class:`~rpp.Gaussian` priors: closed form :func:`gaussian_renyi`;
      ``alpha`` and ``noise_var`` broadcast (arrays allowed); ``alpha = 1``
      (KL) and ``alpha = inf`` (max-divergence) are supported.
    * Mixtures / empirical samples: log-space quadrature
      (:func:`renyi_divergence_bound`), ``alpha`` in (0, 1) or (1, inf).
      Arrays of ``alpha`` / ``noise_var`` are evaluated point by point.
    * Two empirical samples with ``noise_var = 0``: the discrete divergence;
      an empirical sample against a continuous law without noise: ``+inf``.

    Returns ``+inf`` where the integral diverges, never NaN.

    Parameters
    ----------
    p, q : Gaussian, GaussianMixture or Empirical
        The two priors.
    alpha : float or array_like
        Order (see above).
    noise_var : float or array_like
        Noise variance :math:`t \ge 0`.

    Returns
    -------
    float or ndarray
        The divergence (``+inf`` where it diverges).

    Raises
    ------
    TypeError
        If a prior is not an rpp.Gaussian, rpp.GaussianMixture or rpp.Empirical.
    ValueError
        If an argument is outside its range (the message names it).

    Examples
    --------
    >>> float(renyi_divergence(Gaussian(0, 1), Gaussian(1, 1), 2.0, noise_var=1.0))  # 2 * 1 / (2 * 2)
    0.5
    """
    _validate_pair(p, q)
    if isinstance(p, Gaussian) and isinstance(q, Gaussian):
        tg = v.positive("noise_var", noise_var, allow_zero=True)
        return gaussian_renyi(p.mean, p.var + tg, q.mean, q.var + tg, alpha)
    alpha_arr = v.alpha_order(alpha, allow_below_one=True)
    t_arr = v.positive("noise_var", noise_var, allow_zero=True)
    if alpha_arr.ndim or t_arr.ndim:
        a_b, t_b = np.broadcast_arrays(alpha_arr, t_arr)
        out = np.array(
            [renyi_divergence(p, q, float(a), float(t)) for a, t in zip(a_b.ravel(), t_b.ravel(), strict=True)]
        )
        return out.reshape(a_b.shape)
    alpha, t = float(alpha_arr), float(t_arr)
    if t == 0:
        pe, qe = isinstance(p, Empirical), isinstance(q, Empirical)
        if pe and qe:
            return _discrete_pair(p, q, alpha)
        if pe or qe:
            return np.inf  # a discrete law against a continuous one: mutually singular
    return renyi_divergence_bound(p, q, alpha, t)[0]
