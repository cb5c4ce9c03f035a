"""Input checks: the package's only validators (private module, used by every public function).

Conventions: the argument *name* comes first, then the value; a value of the wrong type
raises :class:`TypeError`, a value outside the allowed range :class:`ValueError`, and both
messages name the argument and what is allowed, instead of letting NaN propagate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "finite",
    "positive",
    "alpha_order",
    "epsilon_budget",
    "rng_from",
    "integer",
    "probability",
    "pmf",
    "channel",
    "transition_matrix",
    "one_of",
    "flag",
]

_SUM_TOL = 1e-9


def as_float_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a float array; non-numeric input is a TypeError, NaN a ValueError."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric, got {value!r}") from exc
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN, got {value!r}")
    return arr


def finite(name: str, value: Any) -> np.ndarray:
    """Float array, finite everywhere."""
    arr = as_float_array(name, value)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got {value!r}")
    return arr


def positive(name: str, value: Any, *, allow_zero: bool = False, allow_inf: bool = False) -> np.ndarray:
    """Float array with every entry > 0 (or >= 0 with ``allow_zero``), finite unless ``allow_inf``."""
    arr = as_float_array(name, value)
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite and {'>= 0' if allow_zero else '> 0'}, got {value!r}")
    bad = arr < 0 if allow_zero else arr <= 0
    if bad.any():
        rng = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    return arr


def alpha_order(
    value: Any, *, name: str = "alpha", allow_below_one: bool = False, allow_one: bool = False, allow_inf: bool = False
) -> np.ndarray:
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


def epsilon_budget(value: Any, name: str = "epsilon") -> np.ndarray:
    """Privacy budget: finite and > 0."""
    return positive(name, value)


def rng_from(rng: Any) -> np.random.Generator:
    """Turn ``None``, an int seed or a Generator into a :class:`numpy.random.Generator`."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be None, an int seed or a numpy Generator, got {rng!r}")


def integer(name: str, value: Any, minimum: int = 1) -> int:
    """An integer ``>= minimum`` (bools and non-integral floats rejected); returned as ``int``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}")
    try:
        ok = int(value) == value
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r}") from exc
    if not ok or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def probability(name: str, value: Any, *, low_open: bool = True, high_open: bool = True) -> np.ndarray:
    """Scalar or array of probabilities in (0, 1) (closed ends on request)."""
    x = as_float_array(name, value)
    lo_ok = (x > 0) if low_open else (x >= 0)
    hi_ok = (x < 1) if high_open else (x <= 1)
    if not np.all(np.isfinite(x) & lo_ok & hi_ok):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}, got {value!r}")
    return x


def pmf(name: str, value: Any, axis: int = -1, atol: float = _SUM_TOL) -> np.ndarray:
    """Probability vector(s): finite entries ``>= 0`` summing to 1 (within ``atol``) along ``axis``."""
    p = as_float_array(name, value)
    if p.ndim == 0 or p.size == 0:
        raise ValueError(f"{name} must be a non-empty probability vector, got {value!r}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{name} must contain finite probabilities >= 0, got {value!r}")
    s = p.sum(axis=axis)
    if not np.allclose(s, 1.0, atol=atol, rtol=0):
        raise ValueError(f"{name} must sum to 1 along axis {axis}, got sums in [{np.min(s):.6g}, {np.max(s):.6g}]")
    return p


def channel(name: str, value: Any) -> np.ndarray:
    """A row-stochastic 2-D matrix (a mechanism's channel ``K[x, y] = P(M(x) = y)``)."""
    arr = as_float_array(name, value)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D channel matrix, got shape {arr.shape}")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must have entries in [0, 1]")
    if not np.allclose(arr.sum(axis=1), 1.0, rtol=0, atol=_SUM_TOL):
        raise ValueError(f"{name} rows must sum to 1 (row-stochastic), got {arr.sum(axis=1)!r}")
    return arr


def transition_matrix(name: str, value: Any) -> np.ndarray:
    """A square row-stochastic matrix."""
    P = as_float_array(name, value)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {P.shape}")
    return channel(name, P)


def one_of(name: str, value: Any, allowed) -> Any:
    """``value`` must be one of ``allowed`` (a ValueError listing them otherwise)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def flag(name: str, value: Any) -> bool:
    """A boolean (``bool`` or ``numpy.bool_``); anything else is a TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)
