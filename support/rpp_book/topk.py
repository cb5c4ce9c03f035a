r"""Noisy Top-:math:`k` queries on categorical time series (Bai et al. 2026, Section 7).

* **Ours-Exp**: the exponential mechanism (McSherry & Talwar 2007) with utility = count
  (per-entry sensitivity 1) run :math:`k` times without replacement, each run with budget
  :math:`\epsilon_{DP}/k`, where :math:`\epsilon_{DP}=\max_b(\epsilon_{puffer}-a(b))/b`
  (Theorems 3–4). Sequential exponential mechanisms without replacement are sampled in one
  shot as the top-:math:`k` of Gumbel-perturbed scores :math:`\epsilon_{run}c_j/2+G_j`.
* **MQM**: Laplace noise of scale :math:`L\sigma_{\max}` on every count (:math:`L=2`, the
  :math:`\ell_1` change of a histogram when one entry changes), then the top-:math:`k` noisy
  counts (Song, Wang & Chaudhuri 2017).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from rpp._lib import validation as v

__all__ = ["activity_chain", "em_topk", "laplace_topk", "topk_metrics", "true_topk"]


def activity_chain(popularity: ArrayLike, persistence: float) -> np.ndarray:
    r"""Documented simulation chain :math:`P=\rho I+(1-\rho)\mathbf 1\mathbf w^\top`.

    With probability :math:`\rho` (``persistence``) the activity continues; otherwise the
    next activity is drawn from the popularity vector :math:`\mathbf w`, which is also the
    stationary law. All non-unit eigenvalues equal :math:`\rho` (Bai et al. 2026, Sec. 7).

    Parameters
    ----------
    popularity : array_like, shape (K,)
        Positive probability vector :math:`\mathbf w`.
    persistence : float
        :math:`\rho\in[0,1)`.

    Returns
    -------
    ndarray, shape (K, K)
        The transition matrix :math:`P`.

    Raises
    ------
    ValueError
        If ``popularity`` is not a positive probability vector or ``persistence`` is not in [0, 1).

    Examples
    --------
    >>> activity_chain([0.5, 0.5], 0.5)
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    w = v.pmf("popularity", v.vector("popularity", popularity))
    if np.any(w <= 0):
        raise ValueError("popularity must be a positive probability vector (every entry > 0)")
    persistence = float(v.probability("persistence", persistence, low_open=False))
    K = w.size
    return persistence * np.eye(K) + (1 - persistence) * np.ones((K, 1)) * w[None, :]


def true_topk(counts: ArrayLike, k: int) -> np.ndarray:
    r"""Return the indices of the ``k`` largest counts (ties broken by index), along the last axis.

    The true ranking :math:`\pi` of Bai et al. (2026), Sec. 7.1.5.

    Parameters
    ----------
    counts : array_like, shape (..., K)
        Scores.
    k : int
        Number of indices kept, ``1 <= k <= K``.

    Returns
    -------
    ndarray of int, shape (..., k)
        Indices in decreasing order of the counts.

    Raises
    ------
    ValueError
        If ``counts`` is empty or not finite, or ``k`` is not in ``[1, K]``.

    Examples
    --------
    >>> true_topk(np.array([3, 1, 2]), 2)
    array([0, 2])
    """
    counts = v.finite("counts", counts)
    if counts.ndim == 0 or counts.shape[-1] == 0:
        raise ValueError("counts must have at least one entry along its last axis")
    return _topk(counts, v.k_of("k", k, counts.shape[-1]))


def _topk(scores: np.ndarray, k: int) -> np.ndarray:
    """Return the indices of the ``k`` largest ``scores`` along the last axis (stable: ties by index); no checks."""
    return np.argsort(-scores, axis=-1, kind="stable")[..., :k]


def em_topk(
    counts: ArrayLike, epsilon: float, k: int, reps: int, rng: Any = None, sensitivity: float = 1.0
) -> np.ndarray:
    r"""``reps`` draws of :math:`k` sequential exponential mechanisms (no replacement).

    Each selection is :math:`\epsilon_{run}`-DP: :math:`\Pr(j)\propto\exp(\epsilon_{run}c_j/(2\Delta))`.
    ``epsilon = 0`` gives uniformly random rankings. Sampled as the top-:math:`k` of the
    Gumbel-perturbed scores :math:`\epsilon_{run}c_j/(2\Delta)+G_j` (McSherry & Talwar 2007;
    Bai et al. 2026, Sec. 7, "Ours-Exp").

    Parameters
    ----------
    counts : array_like, shape (K,)
        Counts :math:`c_j \ge 0` (the utility), finite.
    epsilon : float
        Budget of each selection, :math:`\ge0`.
    k : int
        Number of selections, :math:`1\le k\le K`.
    reps : int
        Number of independent draws, :math:`\ge1`.
    rng : None, int or numpy.random.Generator
        Source of randomness (an int is a seed).
    sensitivity : float, default 1.0
        :math:`\Delta>0`, the utility's sensitivity (finite).

    Returns
    -------
    ndarray of int, shape (reps, k)
        The selected indices, in selection order.

    Raises
    ------
    ValueError
        If ``counts`` is not a finite 1-D array of counts ``>= 0``, ``epsilon < 0``,
        ``k`` is not in ``[1, K]``, ``reps < 1`` or ``sensitivity <= 0``.

    Examples
    --------
    >>> em_topk(np.array([30, 1, 20]), 10.0, 2, 3, np.random.default_rng(0)).shape
    (3, 2)
    """
    c = v.counts("counts", counts)
    epsilon = float(v.positive("epsilon", epsilon, allow_zero=True))
    k = v.k_of("k", k, c.size)
    reps = v.integer("reps", reps, 1)
    sensitivity = float(v.positive("sensitivity", sensitivity))
    g = v.rng_from(rng).gumbel(size=(reps, c.size))
    return _topk(epsilon * c[None, :] / (2 * sensitivity) + g, k)


def laplace_topk(counts: ArrayLike, scale: float, k: int, reps: int, rng: Any = None) -> np.ndarray:
    r"""``reps`` draws of the top-``k`` of Laplace-noised counts (noise scale ``scale``).

    :math:`\hat\pi=\operatorname{top}_k(c_j+Z_j)`, :math:`Z_j\sim\mathrm{Lap}(b)`; with
    :math:`b=L\sigma_{\max}` this is the MQM baseline (Song, Wang & Chaudhuri 2017;
    Bai et al. 2026, Sec. 7).

    Parameters
    ----------
    counts : array_like, shape (K,)
        Counts :math:`c_j \ge 0`, finite.
    scale : float
        Laplace scale :math:`b>0`, finite.
    k : int
        Number of indices kept, :math:`1\le k\le K`.
    reps : int
        Number of independent draws, :math:`\ge1`.
    rng : None, int or numpy.random.Generator
        Source of randomness (an int is a seed).

    Returns
    -------
    ndarray of int, shape (reps, k)
        The noisy top-``k`` indices.

    Raises
    ------
    ValueError
        If ``counts`` is not a finite 1-D array of counts ``>= 0``, ``scale <= 0``, ``k`` is
        not in ``[1, K]`` or ``reps < 1``.

    Examples
    --------
    >>> laplace_topk(np.array([30, 1, 20]), 0.1, 2, 3, np.random.default_rng(0))
    array([[0, 2],
           [0, 2],
           [0, 2]])
    """
    c = v.counts("counts", counts)
    scale = float(v.positive("scale", scale))
    k = v.k_of("k", k, c.size)
    reps = v.integer("reps", reps, 1)
    return _topk(c[None, :] + v.rng_from(rng).laplace(scale=scale, size=(reps, c.size)), k)


def topk_metrics(pred: ArrayLike, counts: ArrayLike, k: int) -> dict[str, np.ndarray]:
    r"""Compute the metrics of Bai et al. (2026), Sec. 7.1.5, for predictions ``pred`` (reps, k).

    Returns a dict of arrays over reps: ``acc`` (reps, k) exact-rank accuracy Acc@j,
    ``hr`` Hit Rate@k (fraction of the true top-k recovered), ``ndcg`` NDCG@k with graded
    relevance rel = true count, :math:`\mathrm{DCG}=\sum_j rel(\hat\pi_j)/\log_2(j+1)`, and
    ``l1`` :math:`\sum_j|\tilde c_j-c_j|` (count of the item placed at rank j vs the true
    j-th count).  When every count is 0 the ideal DCG is 0 and every ranking is ideal:
    ``ndcg`` is then 1 (the value of :math:`\mathrm{DCG}/\mathrm{IDCG}` for any positive
    relevances of equal size), never NaN.

    Parameters
    ----------
    pred : array_like of int, shape (reps, k)
        Predicted rankings, entries in ``[0, K)``.
    counts : array_like, shape (K,)
        True counts, finite and :math:`\ge 0`.
    k : int
        Length of the rankings, :math:`1\le k\le K`.

    Returns
    -------
    dict of str to ndarray
        ``acc`` (reps, k), ``hr``, ``ndcg``, ``l1`` (reps,).

    Raises
    ------
    ValueError
        If ``counts`` is not a finite 1-D array of counts ``>= 0``, ``k`` is not in ``[1, K]``
        or ``pred`` is not an integer array of shape ``(reps, k)`` with entries in ``[0, K)``.

    Examples
    --------
    >>> topk_metrics(np.array([[0, 2]]), np.array([3, 1, 2]), 2)["hr"]
    array([1.])
    """
    c = v.counts("counts", counts)
    k = v.k_of("k", k, c.size)
    pred = np.asarray(pred)
    if pred.ndim != 2 or pred.shape[1] != k or not np.issubdtype(pred.dtype, np.integer):
        raise ValueError("pred must be an integer array of shape (reps, k)")
    if ((pred < 0) | (pred >= c.size)).any():
        raise ValueError("pred must hold indices in [0, K)")
    true = _topk(c, k)
    acc = pred == true[None, :]
    hr = np.isin(pred, true).sum(1) / k
    disc = 1 / np.log2(np.arange(2, k + 2))
    dcg = (c[pred] * disc).sum(1)
    idcg = (c[true] * disc).sum()
    l1 = np.abs(c[pred] - c[true][None, :]).sum(1)
    ndcg = dcg / idcg if idcg > 0 else np.ones(pred.shape[0])  # all counts 0: every ranking is ideal
    return {"acc": acc.astype(float), "hr": hr, "ndcg": ndcg, "l1": l1}
