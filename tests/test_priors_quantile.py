"""``Empirical.ppf`` is the exact left-continuous quantile (issue #37: a ``u - 1e-12`` fudge gave 0.0 at 0.5 + 5e-13).

The judge is exact rational arithmetic (``fractions``) over the stored probabilities, never rpp.
"""

from fractions import Fraction

import numpy as np
import pytest

from rpp import Empirical


def _exact_ppf(prior: Empirical, u: float) -> float:
    if np.all(prior.weights == prior.weights[0]):  # the law of the sample: count / n
        cum = [Fraction(int(np.sum(prior.atoms <= s)), prior.n) for s in prior.support]
    else:
        cum, total = [], Fraction(0)
        for p in prior.probs:
            total += Fraction(float(p))
            cum.append(total)
    k = next((k for k, c in enumerate(cum) if c >= Fraction(u)), len(cum) - 1)
    return float(prior.support[k])


def test_the_review_reproducer():
    assert Empirical([0.0, 1.0]).ppf(0.5 + 5e-13) == 1.0
    assert Empirical([0.0, 1.0]).ppf(0.5) == 0.0


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [3, 7, 50])
def test_quantiles_at_and_beside_every_jump_are_exact(n, weighted):
    rng = np.random.default_rng(n + 100 * weighted)
    x = np.round(rng.normal(size=n), 1)  # ties among the atoms, as in real samples
    prior = Empirical(x, weights=rng.random(n)) if weighted else Empirical(x)
    jumps = [float(c) for c in np.cumsum(prior.probs)] + [k / n for k in range(1, n + 1)]
    us = np.array([*jumps, *np.nextafter(jumps, 2.0), *np.nextafter(jumps, 0.0), *rng.random(200), 1e-300, 1.0])
    us = us[(us > 0) & (us <= 1)]
    got = prior.ppf(us)
    assert got.tolist() == [_exact_ppf(prior, float(u)) for u in us]
    assert [float(prior.ppf(float(u))) for u in us[:20]] == got[:20].tolist()  # scalars as arrays
