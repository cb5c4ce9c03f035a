"""python-flint's working precision, set for one computation at a time (a lock across threads).

python-flint keeps one context for the whole process (``flint.ctx.prec`` is shared by every
thread).  A computation that set the precision while another thread computed in ball arithmetic
changed the other's precision midway: the balls stayed valid enclosures, but their widths, and so
``Certified.error`` and the calibrations built on it, varied with the threads' timing (a thread
pool's ``calibrate_all_pairs`` differed from the serial one in ``divergence_error``).  Every module
of ``rpp`` that sets the precision does it inside :data:`LOCK`, through :func:`precision`; python-flint
holds the interpreter lock while it computes, so serialising its use costs no parallelism.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["LOCK", "precision"]

#: Held while ``flint.ctx.prec`` is set by rpp (re-entrant: a proved path calls others).
LOCK = threading.RLock()


@contextmanager
def precision(flint: Any, prec: int) -> Iterator[None]:
    """Set ``flint.ctx.prec`` to ``prec`` bits under :data:`LOCK`; restore it on exit.

    Examples
    --------
    >>> import flint
    >>> before = flint.ctx.prec
    >>> with precision(flint, 200):
    ...     flint.ctx.prec
    200
    >>> flint.ctx.prec == before
    True
    """
    with LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            yield
        finally:
            flint.ctx.prec = old
