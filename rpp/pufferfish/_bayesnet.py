r"""Bayesian-network priors and their :math:`a(b)`-influence curve (Bai et al. 2026, Secs. 6.3.1–6.3.2, 6.4).

A network is a dict ``node -> (parents, table of Pr(node = 1 | parent values))`` of binary
nodes; the Asia network used by the book is :data:`rpp_book.composition_examples.ASIA`.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lib.validation import integer, integers, one_of
from ._influence import a_star_bruteforce

__all__ = ["bn_joint", "moral_graph", "bfs_neighbour_sets", "bn_ab_curve"]

#: ``node -> (parents, {parent values: Pr(node = 1 | parent values)})``
Network = Mapping[str, tuple[Sequence[str], Mapping[tuple[int, ...], float]]]
#: any ``node -> (parents, ...)`` mapping (also the general networks of ``rpp/pufferfish/_bif.py``)
AnyNetwork = Mapping[str, tuple[Any, ...]]


def check_network(network: Any, *, binary: bool = False) -> None:
    """Check that ``network`` is a mapping ``node -> (parents, table, ...)`` over its own nodes.

    The one validator of a network's shape for this module and ``rpp/pufferfish/_bif.py`` (a name
    of the package, not in ``__all__``).

    Parameters
    ----------
    network : object
        The network to check.
    binary : bool
        Require the binary networks of this module (every table a dict ``parent values ->
        Pr(node = 1)``); otherwise any table (the general networks of ``rpp/pufferfish/_bif.py``).

    Raises
    ------
    TypeError
        If ``network`` is not such a mapping (or a node's entry is not a ``(parents, table, ...)``
        tuple, its parents not a sequence, or, with ``binary``, its table not a dict).
    ValueError
        If ``network`` is empty or a parent is not a node of it.
    """
    kind = "dict node -> (parents, {parent values: Pr(node = 1)})" if binary else "dict node -> (parents, table, ...)"
    if not isinstance(network, Mapping):
        raise TypeError(f"network must be a {kind}, got a {type(network).__name__}")
    if not network:
        raise ValueError("network must have at least one node")
    for entry in network.values():
        if not isinstance(entry, (tuple, list)) or len(entry) < 2 or isinstance(entry[0], (str, bytes)):
            raise TypeError(f"network must be a {kind}: every node needs a (parents, table) tuple")
        try:
            parents = list(entry[0])
        except TypeError:
            raise TypeError(f"network must be a {kind}: the parents must be a sequence of nodes") from None
        if any(p not in network for p in parents):
            raise ValueError("network: every parent must be a node of the network")
        if binary and not isinstance(entry[1], Mapping):
            raise TypeError(f"network must be a {kind}: every table must be a dict")


def bn_joint(network: Network) -> tuple[np.ndarray, list[str]]:
    r"""Joint pmf :math:`\prod_v\Pr(x_v\mid x_{\mathrm{pa}(v)})` of a binary network, shape ``(2,)*n``.

    Axis order = insertion order of ``network`` (returned as the second value). The
    factorisation of a Bayesian network (Bai et al. 2026, Sec. 6.3.1).

    Parameters
    ----------
    network : dict
        ``node -> (parents, cpt)``, ``cpt`` mapping each tuple of parent values to
        :math:`\Pr(\text{node}=1\mid\text{parents})`.

    Returns
    -------
    J : ndarray, shape ``(2,)*n``
        The joint pmf.
    names : list of str
        The node of each axis.

    Raises
    ------
    TypeError
        If ``network`` is not a dict ``node -> (parents, cpt)`` with dict tables.
    ValueError
        If the tables do not define a distribution (a missing parent configuration), or a
        parent is not a node of the network.

    Examples
    --------
    >>> from rpp_book.composition_examples import ASIA
    >>> J, names = bn_joint(ASIA)
    >>> J.shape, round(float(J.sum()), 12)
    ((2, 2, 2, 2, 2, 2, 2, 2), 1.0)
    """
    check_network(network, binary=True)
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


def moral_graph(network: AnyNetwork) -> dict[str, set[str]]:
    """Adjacency sets of the moral graph (parents married, directions dropped).

    Used for the neighbourhoods of Bai et al. (2026), Sec. 6.3.1.

    Parameters
    ----------
    network : dict
        A binary network, as in :func:`bn_joint`.

    Returns
    -------
    dict of str to set of str
        The neighbours of every node.

    Raises
    ------
    TypeError
        If ``network`` is not a dict ``node -> (parents, table, ...)``.
    ValueError
        If a parent is not a node of the network.

    Examples
    --------
    >>> from rpp_book.composition_examples import ASIA
    >>> sorted(moral_graph(ASIA)["either"])
    ['bronc', 'dysp', 'lung', 'tub', 'xray']
    """
    check_network(network)
    adj: dict[str, set[str]] = {v: set() for v in network}
    for v, (parents, *_) in network.items():
        for p in parents:
            adj[v].add(p)
            adj[p].add(v)
        for p, q in itertools.combinations(parents, 2):
            adj[p].add(q)
            adj[q].add(p)
    return adj


def bfs_neighbour_sets(network: AnyNetwork, node: str, size: int) -> list[tuple[str, ...]]:
    r"""Candidate neighbourhoods :math:`\mathcal N_{size}(X_s)` for the estimate of Sec. 6.3.1.

    The ``size`` nodes closest to ``node`` in the moral graph (breadth-first order); when the
    last layer has more nodes than needed, every choice among them is a candidate.

    Parameters
    ----------
    network : dict
        A binary network, as in :func:`bn_joint`.
    node : str
        The secret node :math:`X_s`.
    size : int
        Neighbourhood size, ``0 <= size < n``.

    Returns
    -------
    list of tuple of str
        The candidate neighbourhoods (``[()]`` for ``size = 0``).

    Raises
    ------
    TypeError
        If ``network`` is not a network dict or ``size`` not an integer.
    ValueError
        If ``node`` is not a node of the network or ``size`` is outside ``[0, n - 1]``.

    Examples
    --------
    >>> from rpp_book.composition_examples import ASIA
    >>> bfs_neighbour_sets(ASIA, "either", 2)[:2]
    [('bronc', 'dysp'), ('bronc', 'lung')]
    """
    adj = moral_graph(network)
    if not isinstance(node, str) or node not in network:
        raise ValueError(f"node must be a node of the network, got a {type(node).__name__} that is not one")
    size = integer("size", size, 0)
    if size > len(network) - 1:
        raise ValueError(f"size must satisfy 0 <= size <= n - 1 = {len(network) - 1}, got {size}")
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


def bn_ab_curve(
    network: Network, bs: ArrayLike, method: str = "exact", uncertainty: tuple[float, float] | None = None
) -> np.ndarray:
    r""":math:`a(b)` for single-node secrets :math:`(X_v=1,X_v=0)` of a binary network.

    ``method="exact"``: minimum over *all* high-influence sets of size ``b`` containing the
    secret node; ``method="estimate"``: only :math:`\{X_s\}\cup N`, :math:`N` from
    :func:`bfs_neighbour_sets` (Sec. 6.3.1: an upper bound, far fewer sets).
    ``uncertainty=(lower, upper)`` uses the bound of Sec. 6.3.2. The curve is
    :math:`a(b)=\max_v\min_{|\mathcal H|=b,\,v\in\mathcal H}` leak (Bai et al. 2026, Def. 2).

    Parameters
    ----------
    network : dict
        A binary network, as in :func:`bn_joint`.
    bs : array_like of int
        Sizes :math:`b\ge1`.
    method : {"exact", "estimate"}, default "exact"
        Which high-influence sets are searched.
    uncertainty : (float, float), optional
        ``(lower, upper)`` multiplicative box on the joint.

    Returns
    -------
    ndarray
        :math:`a(b)` for each ``b``.

    Raises
    ------
    TypeError
        If ``network`` is not a binary network dict or ``bs`` not integers.
    ValueError
        If ``method`` is unknown, the network invalid or a ``b`` outside ``[1, n]``.

    Examples
    --------
    >>> net = {"a": ((), {(): 0.3}), "b": (("a",), {(0,): 0.2, (1,): 0.9})}
    >>> bn_ab_curve(net, [1, 2]).round(4)
    array([2.5612, 0.    ])
    """
    J, names = bn_joint(network)
    n = len(names)
    one_of("method", method, ("exact", "estimate"))
    out = []
    for b in integers("bs", bs, 1, n):
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
