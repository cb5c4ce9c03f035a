"""Input checks: the package's only validators (private module, used by every public function).

Conventions: the argument *name* comes first, then the value; a value outside the allowed
range raises :class:`ValueError` (a value of the wrong kind, e.g. a string where a number is
expected or an object where a seed is expected, :class:`TypeError`); both messages name the
argument and what is allowed, instead of letting NaN propagate.

**No data in messages.**  A message never repeats a data-derived value (an array entry, a
sum, a variance of a prior: a confidential value could leak into logs).  Only scalar
*parameters* chosen by the caller (an order ``alpha``, an integer ``k``, a method name) may
be shown.

The common rules of the public API, all enforced here:

* arrays of data are finite (:func:`finite`), 1-D where a vector is meant (:func:`vector`);
* counts are finite and ``>= 0`` (:func:`counts`); a number of items ``k`` satisfies
  ``1 <= k <= K`` (:func:`k_of`); a sensitivity is finite and ``> 0`` (:func:`positive`);
* ``rng`` is ``None``, an int seed or a :class:`numpy.random.Generator` (:func:`rng_from`);
* a Rényi order lies in the range the function's docstring states (:func:`alpha_order`,
  :func:`alpha_scalar`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "finite",
    "vector",
    "positive",
    "counts",
    "k_of",
    "alpha_order",
    "alpha_scalar",
    "epsilon_budget",
    "rng_from",
    "integer",
    "integers",
    "probability",
    "pmf",
    "channel",
    "transition_matrix",
    "one_of",
    "flag",
    "curve",
    "mask",
    "uncertainty",
]

_SUM_TOL = 1e-9


def _kind(value: Any) -> str:
    """Return the type of ``value`` (never its content), for messages."""
    return type(value).__name__


def _to_float(value: Any) -> np.ndarray | None:
    """``np.asarray(value, dtype=float)``, or None if it fails.

    numpy's own error repeats the offending content ("could not convert string to float:
    '...'"); the callers raise their own message *outside* the ``except`` block, so that
    text is neither the ``__cause__`` nor the ``__context__`` of what the caller sees.
    """
    if isinstance(value, (str, bytes)):  # "3.14" converts, but a string is never a number here
        return None
    try:
        with warnings.catch_warnings():  # a complex number is not a real one: no silent cast
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError, np.exceptions.ComplexWarning):
        return None
    if isinstance(value, (list, tuple, np.ndarray)):
        raw = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
        if raw.dtype.kind in "USa" or (raw.dtype.kind == "O" and any(isinstance(x, (str, bytes)) for x in raw.ravel())):
            return None  # strings inside a sequence, likewise
    return arr


def as_float_array(name: str, value: Any) -> np.ndarray:
    """Return ``value`` as a float array; non-numeric input is a TypeError, NaN a ValueError."""
    arr = _to_float(value)
    if arr is None:
        raise TypeError(f"{name} must be numeric (a float or an array of floats), got a {_kind(value)}")
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN")
    return arr


def finite(name: str, value: Any) -> np.ndarray:
    """Float array, finite everywhere."""
    arr = as_float_array(name, value)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no inf or NaN)")
    return arr


def vector(name: str, value: Any, *, min_size: int = 1) -> np.ndarray:
    """Return a finite 1-D float array with at least ``min_size`` entries (2-D input is rejected, never flattened)."""
    arr = finite(name, value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got an array with {arr.ndim} dimensions")
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} entries, got {arr.size}")
    return arr


def positive(name: str, value: Any, *, allow_zero: bool = False, allow_inf: bool = False) -> np.ndarray:
    """Float array with every entry > 0 (or >= 0 with ``allow_zero``), finite unless ``allow_inf``."""
    arr = as_float_array(name, value)
    rng = ">= 0" if allow_zero else "> 0"
    if not allow_inf and np.isinf(arr).any():
        raise ValueError(f"{name} must be finite and {rng}")
    bad = arr < 0 if allow_zero else arr <= 0
    if bad.any():
        raise ValueError(f"{name} must be {rng}")
    return arr


def counts(name: str, value: Any) -> np.ndarray:
    """Return counts: a finite 1-D float array with every entry ``>= 0`` (at least one entry)."""
    arr = vector(name, value)
    if (arr < 0).any():
        raise ValueError(f"{name} must be counts >= 0")
    return arr


def k_of(name: str, value: Any, K: int) -> int:
    """Return a number of items ``k`` with ``1 <= k <= K`` (``K`` the number available)."""
    k = integer(name, value, 1)
    if k > K:
        raise ValueError(f"{name} must satisfy 1 <= {name} <= K = {K} (the number of items), got {k}")
    return k


def _alpha_ranges(allow_zero: bool, allow_below_one: bool, allow_one: bool, allow_inf: bool) -> str:
    parts = []
    if allow_zero:
        parts.append("alpha = 0")
    parts.append("0 < alpha < 1 or 1 < alpha < inf" if allow_below_one else "1 < alpha < inf")
    if allow_one:
        parts.append("alpha = 1 (KL)")
    if allow_inf:
        parts.append("alpha = inf (max-divergence)")
    return " or ".join(parts)


def alpha_order(
    value: Any,
    *,
    name: str = "alpha",
    allow_zero: bool = False,
    allow_below_one: bool = False,
    allow_one: bool = False,
    allow_inf: bool = False,
) -> np.ndarray:
    r"""Validate a Rényi order (a scalar or an array of orders).

    By default the allowed range is ``1 < alpha < inf`` (the range of the RPP
    definition).  ``allow_below_one`` admits ``0 < alpha < 1``, ``allow_one``
    the Kullback-Leibler limit ``alpha = 1``, ``allow_inf`` the
    max-divergence limit ``alpha = inf`` and ``allow_zero`` the limit
    ``alpha = 0`` (:math:`D_0=-\log Q(\operatorname{supp}P)`).  A scalar order is
    shown in the message (a parameter, not data).
    """
    arr = _to_float(value)
    if arr is None:
        raise TypeError(
            f"{name} must be a number with "
            f"{_alpha_ranges(allow_zero, allow_below_one, allow_one, allow_inf)}, got a {_kind(value)}"
        )
    ok = (arr > 1) & np.isfinite(arr)
    if allow_below_one:
        ok |= (arr > 0) & (arr < 1)
    if allow_one:
        ok |= arr == 1
    if allow_inf:
        ok |= np.isposinf(arr)
    if allow_zero:
        ok |= arr == 0
    if not ok.all():
        shown = f", got {float(arr)!r}" if arr.ndim == 0 else ""
        raise ValueError(
            f"{name} must satisfy {_alpha_ranges(allow_zero, allow_below_one, allow_one, allow_inf)}{shown}"
        )
    return arr


def alpha_scalar(value: Any, *, name: str = "alpha", **allow: bool) -> float:
    """Return a single Rényi order (a ValueError naming ``name`` for a list or array); ranges as :func:`alpha_order`."""
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single number (a scalar order), got an array of shape {np.shape(value)}")
    return float(alpha_order(value, name=name, **allow))


# The smallest budget: below it a budget (and the divergences compared with it) is subnormal or near
# it, with too few bits for a comparison that must never err on the unsafe side (a Laplace scale came
# out 20 % too small at epsilon = 5e-324); the rules are checked down to 1e-300.
EPSILON_MIN = 1e-300


def epsilon_budget(value: Any, name: str = "epsilon") -> np.ndarray:
    """Privacy budget: finite and at least ``EPSILON_MIN`` (1e-300)."""
    arr = positive(name, value)
    if (arr < EPSILON_MIN).any():
        shown = f", got {float(arr)!r}" if arr.ndim == 0 else ""
        raise ValueError(f"{name} must be finite and >= 1e-300{shown}")
    return arr


def rng_from(rng: Any, name: str = "rng") -> np.random.Generator:
    """Turn ``None``, an int seed (``>= 0``) or a Generator into a :class:`numpy.random.Generator`.

    The one way every public function takes its randomness: ``rng=0`` and
    ``rng=np.random.default_rng(0)`` give the same draws.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{name} must be None, an int seed >= 0 or a numpy Generator, got a negative seed")
        return np.random.default_rng(int(rng))
    raise TypeError(f"{name} must be None, an int seed >= 0 or a numpy Generator, got a {_kind(rng)}")


def integer(name: str, value: Any, minimum: int = 1) -> int:
    """Return an integer ``>= minimum`` (bools and non-integral floats rejected); returned as ``int``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer >= {minimum}, got a bool")
    try:
        ok: bool | None = bool(int(value) == value)
    except (TypeError, ValueError, OverflowError):
        ok = None
    if ok is None:
        raise TypeError(f"{name} must be an integer >= {minimum}, got a {_kind(value)}")
    if not ok:  # a non-integral number is shown by its type only (it may be data)
        raise ValueError(f"{name} must be an integer >= {minimum}, got a non-integral {_kind(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {int(value)}")
    return int(value)


def integers(name: str, value: Any, minimum: int = 1, maximum: int | None = None) -> np.ndarray:
    """Return a 1-D int array (a scalar becomes one entry) of integers in ``[minimum, maximum]``.

    Bools, non-integral or non-finite numbers and nested (2-D) input are rejected; the bounds
    are parameters, so a value out of range is not shown.
    """
    span = f"[{minimum}, {maximum}]" if maximum is not None else f">= {minimum}"
    arr = _to_float(value)
    is_bool = isinstance(value, (bool, np.bool_)) or (isinstance(value, np.ndarray) and value.dtype.kind == "b")
    if arr is None or is_bool:
        raise TypeError(f"{name} must be integers {span}, got a {_kind(value)}")
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a 1-D array of integers {span}, got an array with {arr.ndim} dimensions")
    arr = np.atleast_1d(arr)
    if not np.isfinite(arr).all() or (arr != np.round(arr)).any():
        raise ValueError(f"{name} must be integers {span} (finite, integral)")
    top = 2**62 if maximum is None else min(maximum, 2**62)  # beyond it, no int64 to hold it
    if (arr < minimum).any() or (arr > top).any():
        raise ValueError(f"{name} must be integers {span}" + (f" (and <= {top})" if maximum is None else ""))
    return arr.astype(int)


def probability(name: str, value: Any, *, low_open: bool = True, high_open: bool = True) -> np.ndarray:
    """Scalar or array of probabilities in (0, 1) (closed ends on request)."""
    x = as_float_array(name, value)
    lo_ok = (x > 0) if low_open else (x >= 0)
    hi_ok = (x < 1) if high_open else (x <= 1)
    if not np.all(np.isfinite(x) & lo_ok & hi_ok):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}")
    return x


def pmf(name: str, value: Any, axis: int = -1, atol: float = _SUM_TOL) -> np.ndarray:
    """Probability vector(s): finite entries ``>= 0`` summing to 1 (within ``atol``) along ``axis``."""
    p = as_float_array(name, value)
    if p.ndim == 0 or p.size == 0:
        raise ValueError(f"{name} must be a non-empty probability vector")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{name} must contain finite probabilities >= 0")
    s = p.sum(axis=axis)
    if not np.allclose(s, 1.0, atol=atol, rtol=0):
        raise ValueError(f"{name} must sum to 1 along axis {axis} (within {atol:g})")
    return p


def channel(name: str, value: Any) -> np.ndarray:
    """Return a row-stochastic 2-D matrix (a mechanism's channel ``K[x, y] = P(M(x) = y)``)."""
    arr = as_float_array(name, value)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D channel matrix, got an array with {arr.ndim} dimensions")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must have entries in [0, 1]")
    if not np.allclose(arr.sum(axis=1), 1.0, rtol=0, atol=_SUM_TOL):
        raise ValueError(f"{name} rows must sum to 1 (row-stochastic, within {_SUM_TOL:g})")
    return arr


def transition_matrix(name: str, value: Any) -> np.ndarray:
    """Return a square row-stochastic matrix."""
    P = as_float_array(name, value)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {P.shape}")
    return channel(name, P)


def in_interval(
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
    arr = _to_float(value)
    if arr is None:
        raise TypeError(f"{name} must be numeric (a float or an array of floats), got a {_kind(value)}")
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


def scalar_in_interval(name: str, value: Any, **bounds: Any) -> float:
    """One float (a 0-d array or a Python number) checked like :func:`in_interval`."""
    arr = in_interval(name, value, **bounds)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got an array with {arr.ndim} dimensions")
    return float(arr)


def one_of(name: str, value: Any, allowed) -> Any:
    """``value`` must be one of ``allowed`` (a ValueError listing them otherwise)."""
    if not isinstance(value, str) or value not in allowed:
        shown = "" if not isinstance(value, str) else " (an unknown name)"
        raise ValueError(f"{name} must be one of {list(allowed)}, got a {_kind(value)}{shown}")
    return value


def noise_family(name: str, value: Any, allowed) -> str:
    """Return the noise family named by ``value``: a name in ``allowed``, or a noise class (its ``family``).

    ``rpp.GaussianNoise`` stands for ``"gaussian"`` and ``rpp.LaplaceNoise`` for ``"laplace"`` (the
    classes: where a family is asked for, the scale is what the function computes or is given
    apart).  A noise *object* is refused by name, as is anything else not in ``allowed``.
    """
    family = getattr(value, "family", None)
    if isinstance(value, type) and isinstance(family, str) and family:
        value = family
    elif not isinstance(value, str) and isinstance(family, str):
        raise ValueError(
            f"{name} must be a noise family {list(allowed)} or a noise class (rpp.GaussianNoise, "
            f"rpp.LaplaceNoise), got a {type(value).__name__} object: its scale is not used here"
        )
    if not isinstance(value, str) or value not in allowed:
        shown = "" if not isinstance(value, str) else " (an unknown name)"
        raise ValueError(
            f"{name} must be one of {list(allowed)} or a noise class (rpp.GaussianNoise, "
            f"rpp.LaplaceNoise), got a {_kind(value)}{shown}"
        )
    return value


def flag(name: str, value: Any) -> bool:
    """Return a boolean (``bool`` or ``numpy.bool_``); anything else is a TypeError (a wrong type, as everywhere)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got a {_kind(value)}")
    return bool(value)


def curve(bs_name: str, bs: Any, a_name: str, a: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return an :math:`a(b)` curve: ``bs`` finite 1-D ``>= 0``, ``a`` 1-D of the same length, ``>= 0``, ``+inf`` allowed."""
    b = vector(bs_name, bs)
    if (b < 0).any():
        raise ValueError(f"{bs_name} must be >= 0")
    y = positive(a_name, a, allow_zero=True, allow_inf=True)
    if y.shape != b.shape:
        raise ValueError(f"{a_name} must be a 1-D array as long as {bs_name} ({b.size} entries)")
    return b, y


def mask(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Return a boolean mask of the given shape (a secret as a set of outcomes)."""
    m = np.asarray(value)
    if m.dtype != bool or m.shape != tuple(shape):
        raise ValueError(f"{name} must be a boolean mask of shape {tuple(shape)}")
    return m


def uncertainty(value: Any, name: str = "uncertainty") -> tuple[float, float]:
    """Return a pair ``(lower, upper)`` of multiplicative prior uncertainty, ``0 < lower <= 1 <= upper < inf``."""
    allowed = f"{name} must be a pair (lower, upper) with 0 < lower <= 1 <= upper < inf"
    try:
        pair: tuple[float, float] | None = tuple(float(x) for x in value)  # type: ignore[assignment]
    except (TypeError, ValueError, OverflowError):
        pair = None
    if pair is None or len(pair) != 2:
        raise ValueError(allowed)
    lower, upper = pair
    if not (0 < lower <= 1 <= upper < np.inf):
        raise ValueError(allowed)
    return lower, upper
