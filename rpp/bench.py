"""``python -m rpp.bench``: the timing, tightness and scaling benchmark of :mod:`rpp.paper.bench`.

``python -m rpp.bench --scaling`` prints the scaling table of
:func:`rpp.paper.bench.scaling_table` (empirical pairs of 10^2--10^4 atoms, mixtures of 5--50
components, every method); ``--help`` lists the options.  This module only forwards to
:func:`rpp.paper.bench.main`, so that the benchmark is reachable under the short name.
"""

from __future__ import annotations

from .paper.bench import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
