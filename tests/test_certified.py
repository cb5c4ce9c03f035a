"""Certified(value, error, rigorous): validation, outward rounding, float(), equality."""

import numpy as np
import pytest

from rpp.certified import Certified


def test_scalar_interval_and_float():
    c = Certified(0.1, 1e-17, rigorous=True)
    assert isinstance(c.value, float) and isinstance(c.error, float)
    assert float(c) == 0.1 and c.rigorous is True
    # outward rounding: the float bounds enclose the real interval [0.1 - 1e-17, 0.1 + 1e-17]
    assert c.upper > 0.1 + 1e-17 or c.upper == np.nextafter(0.1 + 1e-17, np.inf)
    assert c.lower < 0.1 and c.upper > 0.1
    assert repr(c) == "Certified(value=0.1, error=1e-17, rigorous=True)"


def test_zero_error_still_steps_outward():
    c = Certified(0.5, 0.0, rigorous=True)
    assert c.lower == np.nextafter(0.5, 0) and c.upper == np.nextafter(0.5, 1)


def test_arrays_broadcast_and_are_read_only():
    c = Certified([0.5, 1.0], 0.0, rigorous=False)
    assert c.shape == (2,) and c.error.shape == (2,)
    assert np.all(c.upper > c.value) and np.all(c.lower < c.value)
    with pytest.raises(ValueError):
        c.value[0] = 2.0
    with pytest.raises(TypeError, match="scalar"):
        float(c)


def test_infinite_value():
    c = Certified(np.inf, 0.0, rigorous=True)
    assert c.upper == np.inf and c.lower == np.inf and float(c) == np.inf


def test_infinite_error_means_nothing_known():
    c = Certified(1.0, np.inf, rigorous=False)
    assert c.upper == np.inf and c.lower == -np.inf


@pytest.mark.parametrize(
    ("value", "error", "rigorous", "word"),
    [
        (np.nan, 0.0, True, "value"),
        (-np.inf, 0.0, True, "value"),
        (1.0, -1e-300, True, "error"),
        (1.0, np.nan, True, "error"),
        (np.inf, 1.0, True, "error"),
        ([1.0, 2.0], [0.0, 0.0, 0.0], True, "shape"),
        ("a", 0.0, True, "value"),
        (1.0, 0.0, 1, "rigorous"),
    ],
)
def test_bad_input_names_the_argument(value, error, rigorous, word):
    with pytest.raises(ValueError, match=word):
        Certified(value, error, rigorous=rigorous)


def test_frozen_and_value_equality():
    a = Certified([0.5, 1.0], [1e-16, 0.0], rigorous=True)
    assert a == Certified(np.array([0.5, 1.0]), np.array([1e-16, 0.0]), rigorous=True)
    assert a != Certified([0.5, 1.0], [1e-16, 0.0], rigorous=False)
    with pytest.raises(AttributeError):
        a.rigorous = False  # type: ignore[misc]
