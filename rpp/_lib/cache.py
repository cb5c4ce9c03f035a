"""The package's caches: one registry, one lock, :func:`clear_caches` (private module; ``rpp.clear_caches`` is public).

A module that keeps results between calls registers each of its caches here (:func:`register`) and
holds :data:`LOCK` while it reads or writes one; :func:`clear_caches` empties them all (memory held by
large priors is released).  An entry keyed by the identity of arrays must also keep a read-only copy of
their content and check it on every hit (:func:`snapshot`, :func:`unchanged`): an array changed in place,
or a new array at a reused address, is then a miss, never a stale result.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["LOCK", "register", "clear_caches", "snapshot", "unchanged"]

#: Held while a registered cache is read or written (re-entrant: a cached computation may use another cache).
LOCK = threading.RLock()
_CLEARERS: list[Callable[[], None]] = []


def register(clear: Callable[[], None]) -> None:
    """Register the function that empties a cache (e.g. a dict's ``clear``)."""
    with LOCK:
        _CLEARERS.append(clear)


def clear_caches() -> None:
    """Empty every cache of the package (results are recomputed on the next call).

    Examples
    --------
    >>> import rpp
    >>> rpp.clear_caches()
    """
    with LOCK:
        for clear in _CLEARERS:
            clear()


def snapshot(*arrays: Any) -> tuple[np.ndarray, ...]:
    """Return read-only copies of ``arrays`` (what a cache entry keeps to check its key's content)."""
    out = []
    for a in arrays:
        c = np.array(a, copy=True)
        c.flags.writeable = False
        out.append(c)
    return tuple(out)


def unchanged(kept: tuple[np.ndarray, ...], *arrays: Any) -> bool:
    """Whether ``arrays`` hold exactly the content (shape, dtype, bytes) of the snapshot ``kept``."""
    return len(kept) == len(arrays) and all(
        k.shape == np.shape(a) and k.dtype == np.asarray(a).dtype and np.array_equal(k, a)
        for k, a in zip(kept, arrays, strict=True)
    )
