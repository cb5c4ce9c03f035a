r"""Independent numpy work on the machine's cores: one shared thread pool (private module).

numpy releases the GIL inside its loops, so chunks of an array computed by independent calls
(the panels of a quadrature, the prefix sums of two priors) run side by side in threads; the
results are written to their own slices, so they are the same, to the bit, as a sequential run
(nothing is summed across threads).  Used only where a call is large enough to be worth it
(hundreds of thousands of points): small calls stay on the caller's thread.

The pool has one worker per core available to the process (at most ``_MAX_WORKERS``); it is
created on first use.  The caller's floating-point error state (:func:`numpy.geterr`) is applied
in the workers, so a task warns or raises exactly as it would on the caller's thread, and an
exception in a task is raised to the caller.  A task must be a function of its own inputs: it
may write its own slice of an output array, never shared state (the package's caches of
divergences are not locked, so whole divergences are never run side by side).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

__all__ = ["workers", "thread_map", "MIN_ITEMS"]

#: Elements per task below which threads cost more than they save (callers pass ``parallel=``).
MIN_ITEMS = 1 << 16
_MAX_WORKERS = 8
_POOL: ThreadPoolExecutor | None = None
_LOCK = threading.Lock()
_INSIDE = threading.local()  # set in the pool's threads: a task never waits on the pool


def workers() -> int:
    """Return the number of cores this process may use (at most ``_MAX_WORKERS``, at least 1)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        n = os.cpu_count() or 1
    return max(1, min(_MAX_WORKERS, n))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=workers(), thread_name_prefix="rpp")
        return _POOL


def _forget_pool_in_child() -> None:
    """After a fork, drop the parent's pool (its threads do not exist in the child) and lock."""
    global _POOL, _LOCK
    _POOL, _LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # a forked worker (multiprocessing on Linux) makes its own pool
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def thread_map(fn: Callable[[Any], Any], items: Iterable[Any], *, parallel: bool = True) -> list[Any]:
    """Return ``[fn(x) for x in items]``, computed by the pool's threads when there are several items and cores.

    The order of the results is that of ``items``.  Sequential with ``parallel=False`` (the
    caller's tasks are small: see ``MIN_ITEMS``), on one core, for one item, and inside a task
    of the pool (no nesting: a task never waits for the pool it runs in).

    Examples
    --------
    >>> thread_map(lambda x: x * x, range(5))
    [0, 1, 4, 9, 16]
    """
    items = list(items)
    if not parallel or len(items) < 2 or workers() < 2 or getattr(_INSIDE, "flag", False):
        return [fn(x) for x in items]
    err = np.geterr()

    def task(x):
        _INSIDE.flag = True
        try:
            with np.errstate(**err):
                return fn(x)
        finally:
            _INSIDE.flag = False

    return list(_pool().map(task, items))
