r"""Discrete Bayesian networks of any arity.

A BIF reader, exact marginals by variable elimination, and the :math:`a(b)` estimate of Bai et al. (2026), Sec. 6.3.1, for networks
whose joint is far too large to enumerate (ALARM: 37 nodes, about :math:`10^{16}` cells).

A *general network* is a dict ``node -> (parents, cpt, states)``: ``cpt`` has shape
``(*parent cardinalities, cardinality)`` and holds :math:`\Pr(\text{node}\mid\text{parents})`
(last axis sums to 1), ``states`` names the values. :func:`~rpp.pufferfish.moral_graph`
and :func:`~rpp.pufferfish.bfs_neighbour_sets` accept it unchanged.

The ALARM network of the book's chapter 8 (Bai et al.'s example) ships with the book support:
``rpp_book.composition_examples.load_alarm``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib.validation import integers
from .._lib.validation import uncertainty as check_uncertainty
from ._bayesnet import bfs_neighbour_sets, check_network, moral_graph

__all__ = ["read_bif", "bn_marginal", "bn_ab_estimate"]

#: ``node -> (parents, cpt, states)``
GeneralNetwork = Mapping[str, tuple[Sequence[str], np.ndarray, Sequence[str]]]

_VAR_RE = re.compile(r"variable\s+(\S+)\s*\{[^}]*?\[\s*(\d+)\s*\]\s*\{([^}]*)\}", re.S)
_PROB_RE = re.compile(r"probability\s*\(\s*([^|)]+?)\s*(?:\|\s*([^)]*))?\)\s*\{([^}]*)\}", re.S)


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.split(r"[\s,;]+", text.strip()) if x]


def read_bif(text: str) -> dict[str, tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]]:
    r"""Parse a discrete network in the Bayesian Interchange Format (BIF 0.15).

    ``table`` rows and ``(parent values) p1, p2, ...;`` rows are supported, which covers the
    files of the bnlearn repository.

    Parameters
    ----------
    text : str
        The BIF text.

    Returns
    -------
    dict
        ``node -> (parents, cpt, states)``, nodes in file order; ``cpt`` has shape
        ``(*parent cardinalities, cardinality)``.

    Raises
    ------
    ValueError
        If a variable has no probability block, a row has the wrong length, a parent is
        undeclared or a conditional distribution does not sum to 1 (tolerance 1e-6).

    Examples
    --------
    >>> bif = '''variable A { type discrete [ 2 ] { yes, no }; }
    ... variable B { type discrete [ 2 ] { on, off }; }
    ... probability ( A ) { table 0.3, 0.7; }
    ... probability ( B | A ) { (yes) 0.9, 0.1; (no) 0.2, 0.8; }'''
    >>> net = read_bif(bif)
    >>> net["B"][0], net["B"][1][1].tolist(), net["B"][2]
    (('A',), [0.2, 0.8], ('on', 'off'))
    """
    states = {m[0]: tuple(s.strip() for s in m[2].split(",")) for m in _VAR_RE.findall(text)}
    for name, card, _ in _VAR_RE.findall(text):
        if int(card) != len(states[name]):
            raise ValueError(f"text: variable {name} declares {card} states, lists {len(states[name])}")
    out: dict[str, tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]] = {}
    for child, par, body in _PROB_RE.findall(text):
        child = child.strip()
        parents = tuple(p.strip() for p in par.split(",") if p.strip()) if par else ()
        if child not in states or any(p not in states for p in parents):
            raise ValueError(f"text: undeclared variable in probability ( {child} | {par} )")
        k = len(states[child])
        cpt = np.full([len(states[p]) for p in parents] + [k], np.nan)
        if "table" in body:
            cpt[...] = np.reshape(_numbers(body.split("table", 1)[1]), cpt.shape)
        for vals, nums in re.findall(r"\(([^)]*)\)\s*([^;]*);", body):
            cell = [s.strip() for s in vals.split(",")]
            if len(cell) != len(parents):
                raise ValueError(f"text: row ({vals}) of {child} needs {len(parents)} parent values")
            idx = tuple(states[p].index(s) for p, s in zip(parents, cell, strict=True))
            row = _numbers(nums)
            if len(row) != k:
                raise ValueError(f"text: row {vals} of {child} has {len(row)} values, needs {k}")
            cpt[idx] = row
        if np.isnan(cpt).any() or not np.allclose(cpt.sum(-1), 1, atol=1e-6):
            raise ValueError(f"text: the table of {child} is incomplete or not normalised")
        out[child] = (parents, cpt, states[child])
    missing = set(states) - set(out)
    if missing:
        raise ValueError(f"text: no probability block for {sorted(missing)}")
    return {v: out[v] for v in states}


def bn_marginal(network: GeneralNetwork, keep: Sequence[str]) -> np.ndarray:
    r"""Exact joint marginal :math:`\Pr(X_{keep})` by variable elimination.

    One ``numpy.einsum`` over all conditional probability tables,
    :math:`\sum_{x_{\overline{keep}}}\prod_v\Pr(x_v\mid x_{\mathrm{pa}(v)})`, with a greedy
    elimination order (exact up to floating-point rounding).

    Parameters
    ----------
    network : dict
        A general network (see the module docstring).
    keep : sequence of str
        The variables to keep, in the order of the output axes (distinct).

    Returns
    -------
    ndarray
        The marginal, one axis per variable of ``keep``.

    Raises
    ------
    ValueError
        If ``keep`` names an unknown or repeated node.

    Examples
    --------
    >>> net = read_bif('''variable A { type discrete [ 2 ] { y, n }; }
    ... variable B { type discrete [ 2 ] { y, n }; }
    ... probability ( A ) { table 0.3, 0.7; }
    ... probability ( B | A ) { (y) 0.9, 0.1; (n) 0.2, 0.8; }''')
    >>> bn_marginal(net, ["B"]).round(2).tolist()  # 0.3*0.9 + 0.7*0.2
    [0.41, 0.59]
    """
    names = list(network)
    if len(set(keep)) != len(keep) or any(k not in network for k in keep):
        raise ValueError(f"keep must list distinct nodes of the network, got {list(keep)}")
    ax = {v: i for i, v in enumerate(names)}
    args: list[Any] = []
    for v, (parents, cpt, _) in network.items():
        args += [np.asarray(cpt, float), [ax[p] for p in parents] + [ax[v]]]
    return np.einsum(*args, [ax[k] for k in keep], optimize="greedy")


def _pair_leaks(T: np.ndarray, prior: np.ndarray, support: np.ndarray | None = None) -> np.ndarray:
    """Max over D_B of |log-odds shift| for every ordered value pair.

    T = P(v, D_B) up to a factor depending on D_B only; prior = P(v).
    """
    T = T.reshape(T.shape[0], -1)
    keep = T.sum(0) > 0 if support is None else np.ravel(support) > 0
    T = T[:, keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.log(T) - np.log(T.sum(0))  # log P(x | D_B)
        lpr = np.log(prior)
        d = lp[:, None, :] - lp[None, :, :] - (lpr[:, None] - lpr[None, :])[..., None]
    d = np.where(np.isnan(d), 0.0, np.abs(d))  # nan: impossible under both values
    return d.max(-1) if d.shape[-1] else np.zeros(d.shape[:2])


def _local_table(network: GeneralNetwork, v: str, H: set[str], B: list[str]) -> np.ndarray:
    """Sum over H minus v the product of the tables that involve H.

    The result is P(v, D_B) up to a factor of D_B (the other tables do not involve v or the rest of H).
    """
    ax = {u: i for i, u in enumerate(network)}
    args: list[Any] = []
    for u, (parents, cpt, _) in network.items():
        if u in H or H.intersection(parents):
            args += [np.asarray(cpt, float), [ax[p] for p in parents] + [ax[u]]]
    return np.einsum(*args, [ax[v]] + [ax[u] for u in B], optimize="greedy")


def bn_ab_estimate(
    network: GeneralNetwork,
    bs: ArrayLike,
    uncertainty: tuple[float, float] | None = None,
    max_cells: int = 2**16,
) -> np.ndarray:
    r"""Estimate :math:`\hat a(b)` of Bai et al. (2026), Sec. 6.3.1, without enumerating the joint.

    For the secrets :math:`X_v=x` vs :math:`X_v=x'` (every node, every value pair).

    For :math:`\mathcal H=\{X_v\}\cup N`, :math:`N\in\mathcal N_{b-1}(X_v)`
    (:func:`~rpp.pufferfish.bfs_neighbour_sets`), the moral-graph boundary :math:`B` of
    :math:`\mathcal H` separates it from the rest, so
    :math:`\Pr(x\mid D_{\mathcal L})=\Pr(x\mid D_B)` and

    .. math:: a^\dagger(\mathcal L)=\max_{D_B:\,\Pr(D_B)>0}\Bigl|\log\frac{\Pr(x\mid D_B)}
       {\Pr(x'\mid D_B)}-\log\frac{\Pr(x)}{\Pr(x')}\Bigr| ,

    where :math:`\Pr(x\mid D_B)` needs only the tables that involve :math:`\mathcal H` (the
    others cancel), :math:`\Pr(x)` and the support of :math:`D_B` come from
    :func:`bn_marginal`. ``uncertainty=(l, u)``: the joint
    cells :math:`p(D_{\mathcal L},s)` are known within :math:`[l\,p,u\,p]` (Sec. 6.3.2);
    then :math:`\overline P_s\le(u/l)\Pr(D_{\mathcal L}\mid s)` and
    :math:`\underline P_s\ge(l/u)\Pr(D_{\mathcal L}\mid s)`, so
    :math:`\bar a^\dagger\le a^\dagger+2\log(u/l)` for non-empty :math:`\mathcal L` — an
    upper bound (sharp as the cell probabilities tend to 0). Sets whose table
    :math:`\Pr(X_v,X_B)` would exceed ``max_cells`` are skipped; a minimum over fewer sets
    is still an upper bound. Since every :math:`a^\star_{(s_i,s_j)}(b)` is non-increasing in
    :math:`b`, the estimate at a ``b`` is also capped by the one at the previous (smaller)
    ``b``; ``inf`` remains only when every set up to that ``b`` was skipped.

    Parameters
    ----------
    network : dict
        A general network (see the module docstring).
    bs : array_like of int
        Sizes :math:`1\le b\le n`.
    uncertainty : (float, float), optional
        ``(lower, upper)`` with ``0 < lower <= 1 <= upper``.
    max_cells : int, default 2**16
        Largest table :math:`\Pr(X_v,X_B)` evaluated.

    Returns
    -------
    ndarray
        :math:`\hat a(b)` for each ``b``.

    Raises
    ------
    TypeError
        If ``network`` is not a dict ``node -> (parents, table, states)`` or ``bs`` not integers.
    ValueError
        If a ``b`` is outside ``[1, n]`` (or not a 1-D list of integers) or ``uncertainty`` is
        not a valid box.

    Examples
    --------
    >>> net = read_bif('''variable A { type discrete [ 2 ] { y, n }; }
    ... variable B { type discrete [ 2 ] { y, n }; }
    ... probability ( A ) { table 0.3, 0.7; }
    ... probability ( B | A ) { (y) 0.9, 0.1; (n) 0.2, 0.8; }''')
    >>> bn_ab_estimate(net, [1, 2]).round(4).tolist()  # secret on B: log((27/41)/(3/59))
    [2.5612, 0.0]
    """
    check_network(network)
    names = list(network)
    n = len(names)
    bs = integers("bs", bs, 1, n)
    extra = 0.0
    if uncertainty is not None:
        lo, up = check_uncertainty(uncertainty)
        extra = 2 * np.log(up / lo)
    adj = moral_graph(network)
    out = np.zeros(bs.size)
    order = np.argsort(bs)
    for v in names:
        k = len(network[v][2])
        prior = bn_marginal(network, [v])
        prev = np.full((k, k), np.inf)  # a*(b) is non-increasing: carry the last value
        for t in order:
            b = int(bs[t])
            if b == n:
                continue  # L empty: a = 0
            best = prev.copy()
            for N in bfs_neighbour_sets(network, v, b - 1):
                H = {v, *N}
                B = sorted(set().union(*(adj[h] for h in H)) - H)
                if k * np.prod([len(network[u][2]) for u in B]) > max_cells:
                    continue
                leak = _pair_leaks(_local_table(network, v, H, B), prior)
                if np.isinf(leak).any():  # exclude values of B impossible in the network
                    support = bn_marginal(network, B) if B else None
                    leak = _pair_leaks(_local_table(network, v, H, B), prior, support)
                best = np.minimum(best, leak)
            np.fill_diagonal(best, 0.0)
            prev = best
            out[t] = max(out[t], best.max() + extra)
    return out
