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

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v

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
    w = np.asarray(popularity, float)
    if np.any(w <= 0) or not np.isclose(w.sum(), 1):
        raise ValueError("popularity must be a positive probability vector")
    if not (0 <= persistence < 1):
        raise ValueError(f"persistence must be in [0, 1), got {persistence}")
    K = w.size
    return persistence * np.eye(K) + (1 - persistence) * np.ones((K, 1)) * w[None, :]


def true_topk(counts: ArrayLike, k: int) -> np.ndarray:
    r"""Indices of the ``k`` largest counts (ties broken by index), along the last axis.

    The true ranking :math:`\pi` of Bai et al. (2026), Sec. 7.1.5.

    Parameters
    ----------
    counts : array_like, shape (..., K)
        Scores.
    k : int
        Number of indices kept.

    Returns
    -------
    ndarray of int, shape (..., k)
        Indices in decreasing order of the counts.

    Examples
    --------
    >>> true_topk(np.array([3, 1, 2]), 2)
    array([0, 2])
    """
    counts = np.asarray(counts)
    order = np.argsort(-counts, axis=-1, kind="stable")
    return order[..., :k]


def em_topk(
    counts: ArrayLike, eps_run: float, k: int, reps: int, rng: np.random.Generator, sensitivity: float = 1.0
) -> np.ndarray:
    r"""``reps`` draws of :math:`k` sequential exponential mechanisms (no replacement).

    Each selection is :math:`\epsilon_{run}`-DP: :math:`\Pr(j)\propto\exp(\epsilon_{run}c_j/(2\Delta))`.
    ``eps_run = 0`` gives uniformly random rankings. Sampled as the top-:math:`k` of the
    Gumbel-perturbed scores :math:`\epsilon_{run}c_j/(2\Delta)+G_j` (McSherry & Talwar 2007;
    Bai et al. 2026, Sec. 7, "Ours-Exp").

    Parameters
    ----------
    counts : array_like, shape (K,)
        Counts :math:`c_j` (the utility).
    eps_run : float
        Budget of each selection, :math:`\ge0`.
    k : int
        Number of selections, :math:`\ge1`.
    reps : int
        Number of independent draws.
    rng : numpy.random.Generator
        Source of randomness.
    sensitivity : float, default 1.0
        :math:`\Delta`, the utility's sensitivity.

    Returns
    -------
    ndarray of int, shape (reps, k)
        The selected indices, in selection order.

    Raises
    ------
    ValueError
        If ``eps_run < 0`` or ``k < 1``.

    Examples
    --------
    >>> em_topk(np.array([30, 1, 20]), 10.0, 2, 3, np.random.default_rng(0)).shape
    (3, 2)
    """
    v.positive("eps_run", eps_run, allow_zero=True)
    k = v.integer("k", k, 1)
    c = np.asarray(counts, float)
    g = rng.gumbel(size=(reps, c.size))
    return true_topk(eps_run * c[None, :] / (2 * sensitivity) + g, k)


def laplace_topk(counts: ArrayLike, scale: float, k: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    r"""``reps`` draws of the top-``k`` of Laplace-noised counts (noise scale ``scale``).

    :math:`\hat\pi=\operatorname{top}_k(c_j+Z_j)`, :math:`Z_j\sim\mathrm{Lap}(b)`; with
    :math:`b=L\sigma_{\max}` this is the MQM baseline (Song, Wang & Chaudhuri 2017;
    Bai et al. 2026, Sec. 7).

    Parameters
    ----------
    counts : array_like, shape (K,)
        Counts :math:`c_j`.
    scale : float
        Laplace scale :math:`b>0`.
    k : int
        Number of indices kept.
    reps : int
        Number of independent draws.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of int, shape (reps, k)
        The noisy top-``k`` indices.

    Raises
    ------
    ValueError
        If ``scale <= 0``.

    Examples
    --------
    >>> laplace_topk(np.array([30, 1, 20]), 0.1, 2, 3, np.random.default_rng(0))
    array([[0, 2],
           [0, 2],
           [0, 2]])
    """
    v.positive("scale", scale)
    c = np.asarray(counts, float)
    return true_topk(c[None, :] + rng.laplace(scale=scale, size=(reps, c.size)), k)


def topk_metrics(pred: ArrayLike, counts: ArrayLike, k: int) -> dict[str, np.ndarray]:
    r"""Metrics of Bai et al. (2026), Sec. 7.1.5, for predictions ``pred`` (reps, k).

    Returns a dict of arrays over reps: ``acc`` (reps, k) exact-rank accuracy Acc@j,
    ``hr`` Hit Rate@k (fraction of the true top-k recovered), ``ndcg`` NDCG@k with graded
    relevance rel = true count, :math:`\mathrm{DCG}=\sum_j rel(\hat\pi_j)/\log_2(j+1)`, and
    ``l1`` :math:`\sum_j|\tilde c_j-c_j|` (count of the item placed at rank j vs the true
    j-th count).

    Parameters
    ----------
    pred : array_like of int, shape (reps, k)
        Predicted rankings.
    counts : array_like, shape (K,)
        True counts.
    k : int
        Length of the rankings.

    Returns
    -------
    dict of str to ndarray
        ``acc`` (reps, k), ``hr``, ``ndcg``, ``l1`` (reps,).

    Examples
    --------
    >>> topk_metrics(np.array([[0, 2]]), np.array([3, 1, 2]), 2)["hr"]
    array([1.])
    """
    c = np.asarray(counts, float)
    true = true_topk(c, k)
    pred = np.asarray(pred)
    acc = pred == true[None, :]
    hr = np.isin(pred, true).sum(1) / k
    disc = 1 / np.log2(np.arange(2, k + 2))
    dcg = (c[pred] * disc).sum(1)
    idcg = (c[true] * disc).sum()
    l1 = np.abs(c[pred] - c[true][None, :]).sum(1)
    return {"acc": acc.astype(float), "hr": hr, "ndcg": dcg / idcg, "l1": l1}
