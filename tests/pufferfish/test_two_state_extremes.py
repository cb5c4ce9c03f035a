"""The two-state chain's log-ratios and exact a(b) at extreme staying probabilities, against mpmath.

The closed form pi + lam^d (delta - pi) cancels when p or q is tiny or lam^d is near 1: at
p = 0.045, q = 1.8e-110, d = 1 it gave a log-ratio of 141.4 for the true 252.6 (a transition
probability too large by 1e48), so a(b) could come out below the exact value, claiming less
leakage than there is. Judged by P^d computed in mpmath (50 digits), never by rpp.
"""

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rpp.pufferfish import two_state_ab_exact, two_state_side_logratios

U = 2.0**-53


def _mp_logratios(p, q, d):
    with mp.workdps(50):
        m = mp.matrix([[mp.mpf(p), 1 - mp.mpf(p)], [1 - mp.mpf(q), mp.mpf(q)]]) ** int(d)
        return [mp.log(m[0, 0]) - mp.log(m[1, 0]), mp.log(m[0, 1]) - mp.log(m[1, 1])]


def _mp_ab(p, q, b):
    with mp.workdps(50):
        best = mp.inf
        for dl in range(1, b + 1):
            gl, gr = _mp_logratios(p, q, dl), _mp_logratios(p, q, b + 1 - dl)
            best = min(best, max(max(gl) + max(gr), -(min(gl) + min(gr))))
        return best


prob = st.one_of(
    st.floats(1e-300, 1e-3).map(float),
    st.floats(1e-16, 1e-3).map(lambda e: 1.0 - e),
    st.floats(0.01, 0.99),
)


@settings(max_examples=120, deadline=None)
@given(p=prob, q=prob, d=st.one_of(st.integers(1, 8), st.integers(9, 10**6)))
def test_side_logratios_match_the_matrix_power(p, q, d):
    got = two_state_side_logratios(p, q, d)
    for g, ref in zip(got, _mp_logratios(p, q, d), strict=True):
        assert abs(mp.mpf(float(g)) - ref) <= 2 * (2 * d + 2) * U * 1.01 + 4 * U * abs(ref), (p, q, d, g, ref)


@pytest.mark.parametrize(
    "p, q, b",
    [
        (0.045, 1.827780609497814e-110, 1),
        (2.4e-143, 0.95, 3),
        (0.9999758517897293, 0.9999989128676292, 6),
        (1e-300, 0.5, 4),
    ],
)
def test_exact_ab_is_never_below_the_exact_value(p, q, b):
    ref = _mp_ab(p, q, b)
    got = two_state_ab_exact(p, q, b)
    assert mp.mpf(got) >= ref
    assert mp.mpf(got) - ref <= 1e-12 + 1e-12 * ref
