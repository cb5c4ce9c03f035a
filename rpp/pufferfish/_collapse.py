r"""Posteriors and repeated runs of finite mechanisms (Bai et al. 2026, Section 4).

:func:`posterior_of_secret` and :func:`composed_output_distribution` are the exact
computations behind privacy collapse under composition; the paper's Examples 1, 3 and 5
are in :mod:`rpp_book.composition_examples`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v
from ._chains import MAX_CELLS

__all__ = ["posterior_of_secret", "composed_output_distribution"]


# ----------------------------------------------------------------------------- helpers
def posterior_of_secret(prior: ArrayLike, mechanism: ArrayLike, secret_mask: ArrayLike) -> np.ndarray:
    r"""Posterior :math:`\Pr(s\mid\mathcal M(\mathrm{Data})=\omega)` for every output.

    ``prior`` has shape (N,), ``mechanism`` (N, Ω) with rows
    :math:`\Pr(\mathcal M(D)=\cdot)`, ``secret_mask`` a boolean (N,) array for
    :math:`s(D)`. Outputs of zero probability get ``nan``-free value equal to the prior.

    Parameters
    ----------
    prior : array_like, shape (N,)
        Prior over the datasets.
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    secret_mask : array_like of bool, shape (N,)
        The datasets where the secret holds.

    Returns
    -------
    ndarray, shape (Ω,)
        The posterior of the secret after each output.

    Raises
    ------
    ValueError
        If ``prior`` or ``mechanism`` is not a distribution, or ``secret_mask`` not a boolean
        mask of the shape of ``prior``.

    Examples
    --------
    >>> posterior_of_secret([0.5, 0.5], np.array([[0.75, 0.25], [0.25, 0.75]]), np.array([True, False]))
    array([0.75, 0.25])
    """
    prior = v.pmf("prior", prior)
    mechanism = v.pmf("mechanism", mechanism, axis=1)
    if mechanism.ndim != 2 or mechanism.shape[0] != prior.size:
        raise ValueError(f"mechanism must have shape (N, Omega) with N = {prior.size} rows (one per dataset of prior)")
    m = np.asarray(secret_mask) if not isinstance(secret_mask, (str, bytes)) else np.asarray(None)
    if m.dtype.kind not in "biu" or m.shape != prior.shape or ((m != 0) & (m != 1)).any():
        raise ValueError(f"secret_mask must be a boolean mask of shape {prior.shape} (one entry per dataset)")
    m = m.astype(bool)
    joint = prior[:, None] * mechanism
    tot = joint.sum(0)
    num = joint[m].sum(0)
    prior_s = prior[m].sum()
    return np.where(tot > 0, num / np.where(tot > 0, tot, 1.0), prior_s)


def composed_output_distribution(mechanism: ArrayLike, runs: int) -> np.ndarray:
    r"""Output distribution of ``runs`` independent runs of a finite mechanism.

    Row :math:`D` of the result is :math:`\Pr(\mathcal M(D)=\omega_1)\cdots\Pr(\mathcal M(D)=\omega_r)`
    over the :math:`\Omega^r` output tuples (lexicographic order).

    Parameters
    ----------
    mechanism : array_like, shape (N, Ω)
        Row-stochastic output probabilities of every dataset.
    runs : int
        Number of independent runs, ``>= 1``.

    Returns
    -------
    ndarray, shape (N, Ω**runs)
        The output distribution of every dataset.

    Raises
    ------
    ValueError
        If ``mechanism`` is not row-stochastic, ``runs < 1`` or the result would have more
        than ``2**26`` cells (``N * Omega**runs``).

    Examples
    --------
    >>> composed_output_distribution(np.array([[0.75, 0.25], [0.25, 0.75]]), 2)[0]  # outputs (0,0), (0,1), (1,0), (1,1)
    array([0.5625, 0.1875, 0.1875, 0.0625])
    """
    mechanism = v.pmf("mechanism", mechanism, axis=1)
    runs = v.integer("runs", runs, 1)
    N, omega = mechanism.shape
    if runs > 1 and np.log2(N) + runs * np.log2(max(omega, 1)) > np.log2(MAX_CELLS):
        raise ValueError(f"runs must satisfy N * Omega**runs <= 2**26 (the cells of the result), got runs = {runs}")
    out = mechanism
    for _ in range(runs - 1):
        out = (out[:, :, None] * mechanism[:, None, :]).reshape(mechanism.shape[0], -1)
    return out
