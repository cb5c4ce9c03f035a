r"""Bayesian-network priors and their :math:`a(b)`-influence curve (Bai et al. 2026, Secs. 6.3.1–6.3.2, 6.4).

A network is a dict ``node -> (parents, table of Pr(node = 1 | parent values))`` of binary
nodes; the Asia network used by the book is :data:`rpp.paper.composition_examples.ASIA`.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from .influence import a_star_bruteforce

__all__ = ["bn_joint", "moral_graph", "bfs_neighbour_sets", "bn_ab_curve"]


def bn_joint(network):
    r"""Joint pmf :math:`\prod_v\Pr(x_v\mid x_{\mathrm{pa}(v)})` of a binary network, shape ``(2,)*n``.

    Axis order = insertion order of ``network`` (returned as the second value).

    Examples
    --------
    >>> from rpp.paper.composition_examples import ASIA
    >>> J, names = bn_joint(ASIA)
    >>> J.shape, round(float(J.sum()), 12)
    ((2, 2, 2, 2, 2, 2, 2, 2), 1.0)
    """
    names = list(network)
    n = len(names)
    pos = {v: k for k, v in enumerate(names)}
    J = np.ones((2,) * n)
    grids = np.indices((2,) * n)
    for v, (parents, cpt) in network.items():
        p1 = np.zeros((2,) * n)
        for key, pr in cpt.items():
            sel = np.ones((2,) * n, bool)
            for par, val in zip(parents, key, strict=True):
                sel &= grids[pos[par]] == val
            p1 = np.where(sel, pr, p1)
        J *= np.where(grids[pos[v]] == 1, p1, 1 - p1)
    if not np.isclose(J.sum(), 1.0):
        raise ValueError("network CPTs do not define a distribution")
    return J, names


def moral_graph(network):
    """Adjacency sets of the moral graph (parents married, directions dropped).

    Examples
    --------
    >>> from rpp.paper.composition_examples import ASIA
    >>> sorted(moral_graph(ASIA)["either"])
    ['bronc', 'dysp', 'lung', 'tub', 'xray']
    """
    adj = {v: set() for v in network}
    for v, (parents, _) in network.items():
        for p in parents:
            adj[v].add(p)
            adj[p].add(v)
        for p, q in itertools.combinations(parents, 2):
            adj[p].add(q)
            adj[q].add(p)
    return adj


def bfs_neighbour_sets(network, node, size):
    r"""Candidate neighbourhoods :math:`\mathcal N_{size}(X_s)` for the estimate of Sec. 6.3.1.

    The ``size`` nodes closest to ``node`` in the moral graph (breadth-first order); when the
    last layer has more nodes than needed, every choice among them is a candidate.
    Returns a list of tuples of node names.

    Examples
    --------
    >>> from rpp.paper.composition_examples import ASIA
    >>> bfs_neighbour_sets(ASIA, "either", 2)[:2]
    [('bronc', 'dysp'), ('bronc', 'lung')]
    """
    adj = moral_graph(network)
    dist = {node: 0}
    dq = deque([node])
    while dq:
        u = dq.popleft()
        for w in sorted(adj[u]):
            if w not in dist:
                dist[w] = dist[u] + 1
                dq.append(w)
    others = sorted((v for v in dist if v != node), key=lambda v: dist[v])
    others += [v for v in network if v not in dist and v != node]  # disconnected: far away
    if size == 0:
        return [()]
    dmax = dist.get(others[size - 1], np.inf)
    inner = [v for v in others if dist.get(v, np.inf) < dmax]
    ring = [v for v in others if dist.get(v, np.inf) == dmax]
    return [tuple(inner) + extra for extra in itertools.combinations(ring, size - len(inner))]


def bn_ab_curve(network, bs, method="exact", uncertainty=None):
    r""":math:`a(b)` for single-node secrets :math:`(X_v=1,X_v=0)` of a binary network.

    ``method="exact"``: minimum over *all* high-influence sets of size ``b`` containing the
    secret node; ``method="estimate"``: only :math:`\{X_s\}\cup N`, :math:`N` from
    :func:`bfs_neighbour_sets` (Sec. 6.3.1: an upper bound, far fewer sets).
    ``uncertainty=(lower, upper)`` uses the bound of Sec. 6.3.2.
    """
    J, names = bn_joint(network)
    n = len(names)
    out = []
    for b in np.atleast_1d(bs):
        worst = 0.0
        for k, v in enumerate(names):
            si, sj = np.indices(J.shape)[k] == 1, np.indices(J.shape)[k] == 0
            if method == "exact":
                cands = [H for H in itertools.combinations(range(n), b) if k in H]
            elif method == "estimate":
                cands = [
                    tuple(sorted({k} | {names.index(u) for u in N})) for N in bfs_neighbour_sets(network, v, b - 1)
                ]
            else:
                raise ValueError(f"method must be 'exact' or 'estimate', got {method!r}")
            val, _ = a_star_bruteforce(J, si, sj, b, uncertainty, candidates=cands)
            worst = max(worst, val)
        out.append(worst)
    return np.array(out)
