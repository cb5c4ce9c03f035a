"""rpp._lib.numerics.largest_feasible with a bracket: used only if it brackets, the result always feasible."""

import pytest

from rpp._lib.numerics import largest_feasible


def _counted(root):
    calls = []

    def g(t):
        calls.append(t)
        return t - root

    return g, calls


@pytest.mark.parametrize(
    "bracket, uses_it",
    [
        ((2.9, 3.1), True),
        ((3.1, 3.3), False),
        ((2.0, 2.5), False),
        ((3.1, 2.9), False),
        ((0.0, 4.0), False),
        (None, False),
    ],
)
def test_a_bracket_is_used_only_when_it_holds_the_root(bracket, uses_it):
    g, calls = _counted(3.0)
    t = largest_feasible(g, 1.0, bracket=bracket)
    assert g(t) <= 0 and 3.0 * (1 - 1e-14) < t <= 3.0
    assert (1.0 in calls) is not uses_it  # the doubling from t0 = 1 ran only without a usable bracket
