"""Input checks shared by the whole package.

Every public function of :mod:`rpp` validates its arguments with these helpers, so
that bad input raises a :class:`ValueError` that names the argument and the
allowed range instead of propagating NaN.
"""

from __future__ import annotations

import numpy as np


def as_float_array(name, value):
    """Return ``value`` as a float array, rejecting NaN and non-numeric input."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:  # pragma: no cover - message path
        raise ValueError(f"{name} must be numeric, got {value!r}") from exc
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN, got {value!r}")
    return arr


def finite(name, value):
    """Float array, finite everywhere."""
    arr = as_float_array(name, value)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def positive(name, value, *, allow_zero=False, allow_inf=False):
    """Float array with every entry > 0 (or >= 0 with ``allow_zero``)."""
    arr = as_float_array(name, value)
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite, got {value!r}")
    bad = arr < 0 if allow_zero else arr <= 0
    if bad.any():
        rng = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    return arr


def alpha_order(value, *, name="alpha", allow_below_one=False, allow_one=False,
                allow_inf=False):
    """Validate a Rényi order.

    By default the allowed range is ``1 < alpha < inf`` (the range of the RPP
    definition).  ``allow_below_one`` admits ``0 < alpha < 1``, ``allow_one``
    the Kullback-Leibler limit ``alpha = 1`` and ``allow_inf`` the
    max-divergence limit ``alpha = inf``.
    """
    arr = as_float_array(name, value)
    ok = arr > 1
    if allow_below_one:
        ok |= (arr > 0) & (arr < 1)
    if allow_one:
        ok |= arr == 1
    if allow_inf:
        ok |= np.isposinf(arr)
    else:
        ok &= np.isfinite(arr)
    if not ok.all():
        parts = ["alpha > 1" if not allow_below_one else "alpha in (0, 1) or (1, inf)"]
        if allow_one:
            parts.append("alpha = 1 (KL)")
        if allow_inf:
            parts.append("alpha = inf (max-divergence)")
        raise ValueError(f"{name} must satisfy {' or '.join(parts)}, got {value!r}")
    return arr


def epsilon_budget(value, name="epsilon"):
    """Privacy budget: finite and > 0."""
    return positive(name, value)


def rng_from(rng):
    """Turn ``None``, an int seed or a Generator into a :class:`numpy.random.Generator`."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    raise ValueError(f"rng must be None, an int seed or a numpy Generator, got {rng!r}")
