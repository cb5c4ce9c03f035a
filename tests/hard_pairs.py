"""The hard regimes of a calibration on two small samples, shared by the arb checks of tests/calibration.

Priors far from 0, alpha near 1 and large, tiny epsilon, equal means with unequal spreads:
``(name, p, q, alpha, epsilon)`` for samples of 40 and 35 draws (seeded).
"""

import numpy as np

import rpp


def sample_pairs(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(0, 1, 40), rng.normal(0.5, 1.2, 35)
    yield "far from 0", rpp.Empirical(1e6 + x), rpp.Empirical(1e6 + y), 2.0, 1.0
    yield "alpha = 1.01", rpp.Empirical(x), rpp.Empirical(y), 1.01, 0.1
    yield "alpha = 20", rpp.Empirical(x), rpp.Empirical(y), 20.0, 0.5
    yield "epsilon = 1e-3", rpp.Empirical(x), rpp.Empirical(y), 2.0, 1e-3
    yield "equal means, spreads 1 and 0.4", rpp.Empirical(x - x.mean()), rpp.Empirical(0.4 * (y - y.mean())), 5.0, 0.3
