"""Argument checks of the accounting modules (conversions, interpretation, linear queries, adapter).

Every message names the argument and the allowed range, never the value received: the arguments of
these functions can be derived from confidential data (a divergence computed from a fitted prior).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def real(
    name: str,
    value: Any,
    *,
    low: float = -np.inf,
    high: float = np.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> np.ndarray:
    """Float array with every entry in the interval from ``low`` to ``high``; NaN is always rejected.

    Infinite entries are rejected unless ``allow_inf`` (and then only where the interval allows them).
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be numeric (a float or an array of floats), got a {type(value).__name__}"
        ) from exc
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    span = f"{left}{low:g}, {high:g}{right}"
    if np.isnan(arr).any():
        raise ValueError(f"{name} must be a number in {span}, not NaN")
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite and in {span}")
    below = arr <= low if low_open else arr < low
    above = arr >= high if high_open else arr > high
    if below.any() or above.any():
        raise ValueError(f"{name} must be in {span}")
    return arr


def scalar(name: str, value: Any, **bounds: Any) -> float:
    """One float (a 0-d array or a Python number) checked like :func:`real`."""
    arr = real(name, value, **bounds)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array with {arr.ndim} dimensions")
    return float(arr)


def choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    """One of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}")
    return value


def flag(name: str, value: Any) -> bool:
    """A bool (numpy's bool accepted); anything else is a ValueError."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False")
    return bool(value)
