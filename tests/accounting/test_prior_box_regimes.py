"""The proofs over a box of priors in the nasty regimes, judged by mpmath (both orders).

Each regime: the budget 1e-6 below the largest corner value (mpmath) must never be proved (a
counterexample that mpmath confirms, or a refusal); the budget 1 % above it is proved with a bound
at least every corner and random member (mpmath), except where the search is documented to refuse
(alpha within 1e-3 of 1: the interval enclosure of the log-determinants, divided by alpha - 1,
is too wide for the budget of sub-boxes); a refusal there claims nothing, which is checked.
The judges are those of test_prior_box.py and test_prior_box_side.py (mpmath, 40 digits, their own
2 x 2 algebra and conditioning); rpp is only the thing judged.
"""

import numpy as np
import pytest
import test_prior_box as plain
import test_prior_box_side as side

from rpp.accounting import prior_box_divergence, prior_box_side_divergence


def _box(dl, dh, si, ri, sj, rj):
    return {
        "delta_low": dl, "delta_high": dh, "sd_i_low": si[0], "sd_i_high": si[1], "corr_i_low": ri[0],
        "corr_i_high": ri[1], "sd_j_low": sj[0], "sd_j_high": sj[1], "corr_j_low": rj[0], "corr_j_high": rj[1],
    }  # fmt: skip


SMALL_I = ([1.0, 1.0], [1.05, 1.02])
SMALL_J = ([1.0, 1.0], [1.02, 1.05])
I2 = np.eye(2)
# name: (box, queries/scales/alpha, proved at +1 %)
REGIMES = {
    "alpha-1.01": (_box([1.0, 0.0], [1.1, 0.1], SMALL_I, (0.0, 0.05), SMALL_J, (-0.05, 0.0)),
                   {"queries": I2, "scales": [1.0, 1.0], "alpha": 1.01}, True),
    "equal-means-unequal-variances": (_box([0.0, 0.0], [0.0, 0.0], ([1.0, 1.0], [1.1, 1.1]), (0.0, 0.1),
                                           ([1.3, 1.3], [1.4, 1.35]), (0.0, 0.1)),
                                      {"queries": I2, "scales": [1.0, 1.0], "alpha": 2.0}, True),
    "sd_j-below-sd_i-alpha-8": (_box([0.1, 0.1], [0.2, 0.2], ([2.0, 2.0], [2.1, 2.1]), (0.0, 0.1),
                                     ([1.0, 1.0], [1.05, 1.05]), (0.0, 0.1)),
                                {"queries": I2, "scales": [6.0, 6.0], "alpha": 8.0}, True),
    "far-from-zero": (_box([1e3, -1e3], [1e3 + 0.5, -1e3 + 0.5], ([1.0, 1.0], [1.1, 1.1]), (0.0, 0.1),
                           ([1.0, 1.0], [1.1, 1.1]), (0.0, 0.1)),
                      {"queries": I2, "scales": [3e3, 3e3], "alpha": 3.0}, True),
    "tiny-epsilon": (_box([0.5, 0.5], [0.6, 0.6], ([1.0, 1.0], [1.1, 1.1]), (0.0, 0.1), ([1.0, 1.0], [1.1, 1.1]),
                          (0.0, 0.1)),
                     {"queries": I2, "scales": [300.0, 300.0], "alpha": 2.0}, True),
    "alpha-1.001": pytest.param(
        _box([1.0, 0.0], [1.1, 0.1], SMALL_I, (0.0, 0.05), SMALL_J, (-0.05, 0.0)),
        {"queries": I2, "scales": [1.0, 1.0], "alpha": 1.001}, False, marks=pytest.mark.slow),
    "alpha-1.01-tiny-epsilon": pytest.param(
        _box([0.01, 0.0], [0.02, 0.01], SMALL_I, (0.0, 0.05), SMALL_J, (-0.05, 0.0)),
        {"queries": I2, "scales": [20.0, 20.0], "alpha": 1.01}, False, marks=pytest.mark.slow),
}  # fmt: skip


@pytest.mark.parametrize(("box", "at", "provable"), list(REGIMES.values()), ids=list(REGIMES))
def test_no_regime_proves_less_than_mpmath_and_the_usual_ones_prove(box, at, provable):
    corners = max(plain.judge(*c, **at) for c in plain._corners(box))
    assert np.isfinite(float(corners))
    below = prior_box_divergence(**box, **at, epsilon=float(corners) * (1 - 1e-6), max_boxes=20_000)
    assert not below.proved and below.upper == np.inf
    if below.counterexample:
        assert plain.judge(*below.worst, **at) > float(corners) * (1 - 1e-6)
    above = prior_box_divergence(**box, **at, epsilon=float(corners) * 1.01, max_boxes=20_000)
    if above.proved:
        u = np.random.default_rng(3).random((60, 8))
        assert max(plain.judge(*m, **at) for m in plain._members(box, u)) <= above.upper
        assert corners <= above.upper <= float(corners) * 1.01
    else:
        assert not provable, "refused where the search is expected to prove"
        assert above.upper == np.inf and not above.counterexample


# at: proved at +1 % (alpha 1.01 on this box is refused within 20 000 sub-boxes: D = 5.3 there, but the
# enclosures of the log-determinants divided by alpha - 1 stay too wide; a refusal claims nothing)
SIDE_REGIMES = {
    "alpha-1.01": pytest.param(
        {"queries": [[0.7, 0.2], [-0.1, 1.0]], "scales": [0.4, 0.9], "alpha": 1.01}, False, marks=pytest.mark.slow
    ),
    "alpha-12": ({"queries": [[0.7, 0.2], [-0.1, 1.0]], "scales": [100.0, 100.0], "alpha": 12.0}, True),
    "tiny-epsilon": ({"queries": [[0.7, 0.2], [-0.1, 1.0]], "scales": [200.0, 200.0], "alpha": 2.0}, True),
}


@pytest.mark.parametrize(("at", "provable"), list(SIDE_REGIMES.values()), ids=list(SIDE_REGIMES))
def test_side_information_never_proves_less_than_mpmath(at, provable):
    """The chapter's box, the age known in [60, 61] (means far from 0: ages near 70, rates near 140)."""
    known = {"known": [0], "known_low": [60.0], "known_high": [61.0]}
    corners = max(side.judge(*c, k=0, **at) for c in side._corners(side.CHAPTER, known))
    assert np.isfinite(float(corners))
    below = prior_box_side_divergence(**side.CHAPTER, **known, **at, epsilon=float(corners) * (1 - 1e-6),
                                      max_boxes=20_000)  # fmt: skip
    assert not below.proved and below.upper == np.inf
    if below.counterexample:
        assert side.judge(*below.worst, k=0, **at) > float(corners) * (1 - 1e-6)
    above = prior_box_side_divergence(**side.CHAPTER, **known, **at, epsilon=float(corners) * 1.01,
                                      max_boxes=20_000)  # fmt: skip
    if above.proved:
        u = np.random.default_rng(4).random((60, 11))
        assert max(side.judge(*m, k=0, **at) for m in side._members(side.CHAPTER, known, u)) <= above.upper
        assert corners <= above.upper <= float(corners) * 1.01
    else:
        assert not provable, "refused where the search is expected to prove"
        assert above.upper == np.inf and not above.counterexample
