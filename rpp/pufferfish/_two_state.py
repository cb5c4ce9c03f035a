r"""The stationary two-state Markov chain: closed forms of its :math:`a(b)`-influence curve.

Bai et al. (2026), Sec. 6.4. States 0 and 1 with :math:`P(0,0)=p`, :math:`P(1,1)=q`,
:math:`\lambda=p+q-1`, :math:`\pi_0=(1-q)/(2-p-q)`. Re-exported by
``rpp/pufferfish/_markov.py`` and :mod:`rpp.pufferfish`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib import validation as v

__all__ = ["two_state_side_logratios", "two_state_ab_paper", "two_state_ab_exact"]


def _two_state(p, q):
    v.probability("p", p)
    v.probability("q", q)
    lam = p + q - 1.0
    pi0 = (1 - q) / (2 - p - q)
    return lam, pi0


def two_state_side_logratios(p: float, q: float, d: ArrayLike) -> np.ndarray:
    r""":math:`g_d(u)=\log P^d(0,u)/P^d(1,u)` for :math:`u=0,1` (stationary two-state chain).

    With :math:`\lambda=p+q-1` and :math:`\pi_0=(1-q)/(2-p-q)`,
    :math:`P^d(x,y)=\pi_y+\lambda^d(\delta_{xy}-\pi_y)`; by reversibility this is also the
    left-side log-ratio (Bai et al. 2026, Sec. 6.4).

    Parameters
    ----------
    p, q : float
        Staying probabilities :math:`P(0,0)=p`, :math:`P(1,1)=q`, in [0, 1].
    d : array_like of int
        Distances :math:`d\ge1`.

    Returns
    -------
    ndarray, shape ``(..., 2)``
        ``[g_d(0), g_d(1)]`` for every ``d``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability in (0, 1) or a ``d`` is not an integer ``>= 1``.

    Examples
    --------
    >>> two_state_side_logratios(0.1, 0.2, 1)
    array([-2.07944154,  1.5040774 ])
    """
    _two_state(p, q)  # validates p and q (the closed form, which cancels, is not used here)
    d = v.finite("d", d)
    if (d < 1).any() or (d != np.round(d)).any() or (d > 2**62).any():
        raise ValueError("d must be integers in [1, 2**62] (distances)")
    # P^d by repeated squaring of P: sums and products of non-negative numbers only, so each entry
    # keeps its relative accuracy (about 4 log2(d) ulps). The closed form pi + lam^d (delta - pi)
    # cancels when p or q is tiny or lam^d is near 1, and could return a transition probability
    # too large by orders of magnitude (a log-ratio, hence a(b), too small: less leakage than there is).
    # A probability that underflows to 0 gives a log-ratio of +-inf: an upper bound, no privacy claimed.
    m00, m01, m10, m11 = _matrix_power(float(p), float(q), d)
    with np.errstate(divide="ignore"):
        g0 = np.log(m00) - np.log(m10)
        g1 = np.log(m01) - np.log(m11)
    return np.stack([g0, g1], axis=-1)


def _matrix_power(p: float, q: float, d: np.ndarray) -> tuple[np.ndarray, ...]:
    """Entries (00, 01, 10, 11) of P^d for P = [[p, 1 - p], [1 - q, q]], elementwise over integer ``d >= 1``."""
    d = np.asarray(d, dtype=np.int64)
    r = [np.ones(d.shape), np.zeros(d.shape), np.zeros(d.shape), np.ones(d.shape)]  # the identity
    b = [p, 1.0 - p, 1.0 - q, q]
    e = d.copy()
    while np.any(e > 0):
        odd = (e & 1) == 1
        prod = [
            r[0] * b[0] + r[1] * b[2],
            r[0] * b[1] + r[1] * b[3],
            r[2] * b[0] + r[3] * b[2],
            r[2] * b[1] + r[3] * b[3],
        ]
        r = [np.where(odd, x, y) for x, y in zip(prod, r, strict=True)]
        b = [b[0] * b[0] + b[1] * b[2], b[0] * b[1] + b[1] * b[3], b[2] * b[0] + b[3] * b[2], b[2] * b[1] + b[3] * b[3]]
        e = e >> 1
    return tuple(r)


def two_state_ab_paper(p: float, q: float, b: ArrayLike) -> np.ndarray:
    r"""Return the closed form of Bai et al. (2026), Sec. 6.4, with the omitted :math:`q\le p` case.

    Balanced split :math:`d_L=\lfloor(b+1)/2\rfloor`, :math:`d_R=\lceil(b+1)/2\rceil`, both
    boundary nodes in the rarer state:

    .. math::
       a(b)=\sum_{d\in\{d_L,d_R\}}\Bigl|\log\frac{\pi_r+\lambda^{d}(1-\pi_r)}{\pi_r-\lambda^{d}\pi_r}\Bigr|,
       \qquad \pi_r=\begin{cases}\pi_0 & q>p\\ \pi_1 & q\le p.\end{cases}

    The paper states only :math:`q>p` (:math:`\pi_r=\pi_0`). Valid for a stationary start,
    an interior node and :math:`p+q\ge1` (see :func:`two_state_ab_exact`).

    Parameters
    ----------
    p, q : float
        Staying probabilities :math:`P(0,0)=p`, :math:`P(1,1)=q`.
    b : array_like of int
        Sizes :math:`b\ge1` of the high-influence set.

    Returns
    -------
    ndarray
        :math:`a(b)`, same shape as ``b``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability or some ``b < 1``.

    Examples
    --------
    >>> round(float(two_state_ab_paper(0.1, 0.2, 2)), 12)  # the paper's bound, >= the exact value
    3.19184715248
    """
    lam, pi0 = _two_state(p, q)
    v.finite("b", b)
    b = np.asarray(b)
    if np.any(b < 1):
        raise ValueError("b must be >= 1")
    pir = pi0 if q > p else 1 - pi0
    dl = np.floor((b + 1) / 2)
    dr = np.ceil((b + 1) / 2)

    def f(d):
        with np.errstate(divide="ignore"):  # a tiny p or q: a probability rounds to 0, the term is inf (see above)
            return np.abs(np.log((pir + lam**d * (1 - pir)) / (pir - lam**d * pir)))

    return f(dl) + f(dr)


def two_state_ab_exact(p: float, q: float, b: ArrayLike) -> float | np.ndarray:
    r"""Exact :math:`a(b)` of an interior node of a long stationary two-state chain.

    .. math::

        a(b) = \min_{d_L+d_R=b+1}\max\Bigl\{&\max_u g_{d_L}(u)+\max_v g_{d_R}(v),\\
        &-\min_u g_{d_L}(u)-\min_v g_{d_R}(v)\Bigr\}

    (the two signs of the secret pair), the transition probabilities :math:`P^d` computed by
    repeated squaring (no cancellation) and the result raised by its rounding bound
    :math:`4(2b + 4)u` plus 8 ulps of the result (so it is never below the exact value). Valid in every regime, including negatively
    correlated chains (:math:`p+q<1`); Bai et al. (2026), Def. 2 with the Markov-quilt reduction.

    Parameters
    ----------
    p, q : float
        Staying probabilities :math:`P(0,0)=p`, :math:`P(1,1)=q`.
    b : int or array_like of int
        Sizes :math:`b\ge1` of the high-influence set.

    Returns
    -------
    float or ndarray
        :math:`a(b)`; a float for scalar ``b``, else an array of the shape of ``b``.

    Raises
    ------
    ValueError
        If ``p`` or ``q`` is not a probability or some ``b < 1``.

    Examples
    --------
    >>> round(two_state_ab_exact(0.1, 0.2, 2), 12)
    3.114338015962
    """
    _two_state(p, q)
    v.finite("b", b)
    bs = np.atleast_1d(np.asarray(b))
    if np.any(bs < 1):
        raise ValueError("b must be >= 1")
    out = np.empty(bs.shape, float)
    for k, bb in enumerate(bs):
        dl = np.arange(1, bb + 1)
        dr = bb + 1 - dl
        gl = two_state_side_logratios(p, q, dl)
        gr = two_state_side_logratios(p, q, dr)
        leak = np.maximum(gl.max(-1) + gr.max(-1), -(gl.min(-1) + gr.min(-1)))
        # each entry of P^d is within (2d + 2) u of its value relatively (non-negative products:
        # the relative errors of the factors add, doubling at each squaring), so each log-ratio is
        # within 2 (2d + 2) u of its own and a leak within twice that: added, a(b) is never too small
        # (plus the rounding of the logs and sums themselves, 8 ulps of the result)
        top = leak.min()
        out[k] = top + 4.0 * (2.0 * bb + 4.0) * 2.0**-53 * 1.01 + 8 * 2.0**-53 * abs(top)
    return out if np.ndim(b) else float(out[0])
