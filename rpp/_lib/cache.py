"""The package's caches: one store keyed by content, one lock, one memory budget (private module).

Every result ``rpp`` keeps between calls lives in a :class:`Cache` of this module, and every key
that stands for an array is its *content* (:func:`key`: shape, dtype and a BLAKE2b digest of the
bytes), never its identity: an array changed in place, or a new array at a reused address, is a
new key, never a stale result.  All caches share

- :data:`LOCK`, held while any cache is read or written (re-entrant: a cached computation may use
  another cache), so that threads (``rpp._lib.parallel.thread_map``) can share them;
- one memory budget (:func:`set_cache_budget`, 256 MiB by default, or ``$RPP_CACHE_MB``): when the
  entries of all caches hold more bytes than that, the least recently used entries go first;
- :func:`clear_caches` (``rpp.clear_caches``), which empties them all.

A cached value must not keep a reference to a caller's writeable array (it would change under
the key): a module that caches objects built from its inputs builds them from :func:`frozen`
copies.  Digests of read-only arrays that own their memory (the arrays of ``rpp``'s priors, which are
immutable values) are remembered per array object, so a hit costs a dictionary lookup, not a pass
over the data; a writeable array is digested afresh at every lookup.  (An array made read-only,
then writeable, changed and read-only again is beyond what a cache can see; ``rpp`` never does it,
and a caller who does it to a prior's arrays has left the API.)
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "LOCK",
    "Cache",
    "CacheInfo",
    "cache_info",
    "clear_caches",
    "frozen",
    "immutable",
    "key",
    "register",
    "set_cache_budget",
]

#: Held while a cache is read or written (re-entrant: a cached computation may use another cache).
LOCK = threading.RLock()

_MIB = 1 << 20


def _budget_from_env() -> int:
    """Return the budget from ``$RPP_CACHE_MB`` (MiB, ``0 <= x < 1e9``); another value is refused aloud (the default)."""
    raw = os.environ.get("RPP_CACHE_MB", "")
    if not raw.strip():
        return 256 * _MIB
    try:
        mb = float(raw)
    except ValueError:
        mb = math.nan
    if not 0 <= mb < 1e9:
        warnings.warn(
            "RPP_CACHE_MB must be a number of MiB with 0 <= RPP_CACHE_MB < 1e9: the default 256 is used",
            RuntimeWarning,
            stacklevel=2,
        )
        return 256 * _MIB
    return int(mb * _MIB)


_BUDGET = _budget_from_env()
# The entries of every cache, least recently used first: (cache name, key) -> (value, bytes).
_STORE: OrderedDict[tuple[str, Hashable], tuple[Any, int]] = OrderedDict()
_HELD = [0]  # bytes held by _STORE's entries
_CACHES: dict[str, Cache] = {}
_CLEARERS: list[Callable[[], None]] = []  # caches kept outside the store (per-object memos)


# --------------------------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------------------------

# id(array) -> (weak reference, digest), for read-only arrays that own their memory.
_DIGESTS: dict[int, tuple[weakref.ref, bytes]] = {}


def immutable(a: np.ndarray) -> bool:
    """Whether ``a``'s bytes cannot change through the array API (read-only, and so is all memory it views)."""
    while True:
        if a.flags.writeable:
            return False
        base = a.base
        if base is None:
            return True
        if not isinstance(base, np.ndarray):
            return isinstance(base, bytes)  # a view of a bytes object is immutable; of anything else, unknown
        a = base


def frozen(a: np.ndarray) -> np.ndarray:
    """Return ``a`` if it is :func:`immutable`, else a read-only copy (what a cached value may keep)."""
    if immutable(a):
        return a
    out = np.array(a, copy=True)
    out.flags.writeable = False
    return out


def _digest_now(a: np.ndarray) -> bytes:
    c = np.ascontiguousarray(a)
    return hashlib.blake2b(c.data.cast("B") if c.size else b"", digest_size=20).digest()


def _forget(ident: int) -> Callable[[weakref.ref], None]:
    def drop(_ref: weakref.ref) -> None:
        _DIGESTS.pop(ident, None)

    return drop


def digest(a: np.ndarray) -> bytes:
    """BLAKE2b digest (160 bits) of the bytes of ``a`` (remembered for immutable arrays)."""
    if not immutable(a):
        return _digest_now(a)
    ident = id(a)
    with LOCK:
        hit = _DIGESTS.get(ident)
        if hit is not None and hit[0]() is a:
            return hit[1]
    d = _digest_now(a)
    with LOCK:
        _DIGESTS[ident] = (weakref.ref(a, _forget(ident)), d)
    return d


def key(*parts: Any) -> tuple:
    """Return a hashable key for ``parts`` by content: arrays by (shape, dtype, digest), tuples by their items.

    Numbers, strings, booleans and ``None`` are kept as they are (a float by its value and sign:
    ``-0.0`` and ``0.0`` are different keys, as they are different inputs).  Any other object is
    a key by its own ``__hash__``/``__eq__`` only if it is a value (``rpp``'s priors and noise
    objects compare by content); else :class:`TypeError`.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.arange(3.0)
    >>> k = key(a, 2.0)
    >>> a[0] = 9.0
    >>> key(a, 2.0) == k  # changed in place: another key
    False
    """
    out: list[Hashable] = []
    for p in parts:
        if isinstance(p, np.ndarray):
            out.append(("nd", p.shape, p.dtype.str, digest(p)))
        elif isinstance(p, tuple):
            out.append(("tuple", key(*p)))
        elif isinstance(p, float | int | str | bool | bytes) or p is None:
            out.append((type(p).__name__, p, repr(p) if isinstance(p, float) else None))
        elif getattr(type(p), "__hash__", None) is not None and hasattr(p, "_key"):
            out.append((type(p).__name__, p))  # an immutable value object (compares by content)
        else:
            raise TypeError(f"cannot key a cache by a {type(p).__name__}")
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------


def nbytes(value: Any, _depth: int = 0) -> int:
    """Approximate bytes held by ``value``: arrays by ``nbytes``; containers and objects by their parts."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + 112
    if _depth > 4:
        return 64
    if isinstance(value, tuple | list | set | frozenset):
        return 56 + sum(nbytes(v, _depth + 1) for v in value)
    if isinstance(value, dict):
        return 232 + sum(nbytes(v, _depth + 1) for v in value.values())
    if isinstance(value, float | int | bool | str | bytes) or value is None:
        return 64
    parts: list[Any] = []
    if hasattr(value, "__dict__"):
        parts.extend(vars(value).values())
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(value, name):
                parts.append(getattr(value, name))
    return 64 + sum(nbytes(v, _depth + 1) for v in parts)


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------


def _evict_over(budget: int) -> None:
    """Drop least recently used entries until the store holds at most ``budget`` bytes (LOCK held)."""
    while _STORE and _HELD[0] > budget:
        (name, _k), (_v, size) = _STORE.popitem(last=False)
        _HELD[0] -= size
        _CACHES[name]._count -= 1


class Cache:
    """A least-recently-used map from content keys to results, in the package's one store.

    Parameters
    ----------
    name : str
        Its name, unique: the module and the cache, e.g. ``"laplace_atoms.results"``).
    entries : int
        At most this many entries of this cache are kept (besides the shared byte budget).

    Examples
    --------
    >>> c = Cache("doctest.squares", entries=2)
    >>> c.get(key(3.0)) is None
    True
    >>> c.put(key(3.0), 9.0)
    9.0
    >>> c.get(key(3.0))
    9.0
    """

    def __init__(self, name: str, *, entries: int) -> None:
        with LOCK:
            if name in _CACHES:  # a module reloaded (or a doctest run again): the new cache replaces the old
                _CACHES[name].clear()
            self.name = name
            self.entries = int(entries)
            self._count = 0
            _CACHES[name] = self

    def get(self, k: Hashable, default: Any = None) -> Any:
        """Return the value stored under ``k`` (and mark it recently used), else ``default``."""
        sk = (self.name, k)
        with LOCK:
            hit = _STORE.get(sk)
            if hit is None:
                return default
            _STORE.move_to_end(sk)
            return hit[0]

    def put(self, k: Hashable, value: Any) -> Any:
        """Store ``value`` under ``k`` (within this cache's entries and the byte budget) and return it.

        A value larger than the whole budget is returned without being stored.
        """
        size = nbytes(value)
        sk = (self.name, k)
        with LOCK:
            old = _STORE.pop(sk, None)
            if old is not None:
                _HELD[0] -= old[1]
                self._count -= 1
            if size > _BUDGET:
                return value
            _STORE[sk] = (value, size)
            _HELD[0] += size
            self._count += 1
            if self._count > self.entries:  # this cache's oldest entry goes
                for other in _STORE:
                    if other[0] == self.name:
                        _HELD[0] -= _STORE.pop(other)[1]
                        self._count -= 1
                        break
            _evict_over(_BUDGET)
        return value

    def items(self) -> list[tuple[Hashable, Any]]:
        """``[(key, value), ...]`` of this cache, least recently used first (a copy)."""
        with LOCK:
            return [(sk[1], v[0]) for sk, v in _STORE.items() if sk[0] == self.name]

    def __len__(self) -> int:
        """Return the number of entries of this cache."""
        return self._count

    def clear(self) -> None:
        """Drop this cache's entries."""
        with LOCK:
            for sk in [sk for sk in _STORE if sk[0] == self.name]:
                _HELD[0] -= _STORE.pop(sk)[1]
            self._count = 0


def register(clear: Callable[[], None]) -> None:
    """Register the function that empties a cache kept outside the store (cleared by :func:`clear_caches`)."""
    with LOCK:
        _CLEARERS.append(clear)


def clear_caches() -> None:
    """Empty every cache of the package (results are recomputed on the next call).

    Examples
    --------
    >>> import rpp
    >>> rpp.clear_caches()
    >>> rpp.cache_info().entries
    0
    """
    with LOCK:
        _STORE.clear()
        _HELD[0] = 0
        for c in _CACHES.values():
            c._count = 0
        _DIGESTS.clear()
        for clear in _CLEARERS:
            clear()


@dataclass(frozen=True)
class CacheInfo:
    """What the package's caches hold: ``entries``, their ``nbytes`` (approximate) and the ``budget`` in bytes."""

    entries: int
    nbytes: int
    budget: int


def cache_info() -> CacheInfo:
    """Return the number of cached entries, the bytes they hold (approximate) and the budget.

    Examples
    --------
    >>> import rpp
    >>> info = rpp.cache_info()
    >>> info.nbytes <= info.budget
    True
    """
    with LOCK:
        return CacheInfo(entries=len(_STORE), nbytes=_HELD[0], budget=_BUDGET)


def set_cache_budget(*, megabytes: float) -> None:
    """Set the memory budget of all of the package's caches, in MiB (0 turns caching off).

    The least recently used entries are dropped at once until the caches fit.  The default is
    256 MiB, or the environment variable ``RPP_CACHE_MB`` when the package is imported.

    Parameters
    ----------
    megabytes : float
        The budget, ``0 <= megabytes < 1e9``.

    Examples
    --------
    >>> set_cache_budget(megabytes=64)  # also rpp.set_cache_budget
    >>> cache_info().budget
    67108864
    >>> set_cache_budget(megabytes=256)
    """
    from . import validation as v

    mb = float(v.positive("megabytes", megabytes, allow_zero=True))
    if not mb < 1e9:
        raise ValueError("megabytes must be below 1e9 (0 <= megabytes < 1e9)")
    global _BUDGET
    with LOCK:
        _BUDGET = int(mb * _MIB)
        _evict_over(_BUDGET)
