r"""``Certified``: a number with its error and whether that error is proved.

Every divergence of :mod:`rpp` returns one :class:`Certified` (issue #22, item 2).  A result
``c`` states that the true value lies in :math:`[c.value - c.error, c.value + c.error]`; the flag
``c.rigorous`` says how strongly:

* ``rigorous=True``: the interval is **proved** to contain the true value: a closed form with
  its rounding analysis, interval arithmetic (arb ball enclosures, Johansson 2017), or proved
  quadrature and truncation bounds.
* ``rigorous=False``: ``error`` is an **estimate** (for example :math:`|GL_{20}-GL_{10}|` of
  a quadrature panel); the interval holds as far as that estimate does.

Words follow the flag: only a ``rigorous=True`` result is called proved or certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Certified"]


def _as_float_or_array(name: str, x: Any) -> float | np.ndarray:
    """``x`` as a float (0-d input) or a read-only float64 array; ValueError naming ``name``."""
    try:
        arr: np.ndarray | None = np.array(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None:  # raised outside the except block: numpy's message repeats the content
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {type(x).__name__}")
    if arr.ndim == 0:
        return float(arr)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Certified:
    r"""A value with an error bar that is either proved or estimated.

    The true quantity lies in :math:`[\text{value} - \text{error},\ \text{value} + \text{error}]`;
    ``rigorous`` says whether that is proved (``True``) or estimated (``False``).

    Parameters
    ----------
    value : float or array_like
        The computed value: finite or ``+inf`` (a divergent divergence), never NaN or ``-inf``.
    error : float or array_like
        Half-width of the interval, ``>= 0`` (``+inf`` allowed: nothing is known), broadcastable
        to ``value``'s shape; it must be 0 where ``value`` is ``+inf``.
    rigorous : bool
        ``True`` only if the interval is proved to contain the true value (closed form with a
        rounding analysis, interval arithmetic, proved quadrature and truncation bounds);
        ``False`` if ``error`` is an estimate.

    Attributes
    ----------
    upper : float or ndarray
        ``value + error`` rounded up (``np.nextafter`` toward ``+inf``): a float at or above
        every point of the interval.
    lower : float or ndarray
        ``value - error`` rounded down: a float at or below every point of the interval.

    Raises
    ------
    ValueError
        If ``value`` is NaN or ``-inf``, ``error`` is negative or NaN, the shapes do not
        broadcast, ``error`` is nonzero where ``value`` is infinite, or ``rigorous`` is not a bool.

    Examples
    --------
    >>> c = Certified(0.5, 1e-16, rigorous=True)
    >>> c
    Certified(value=0.5, error=1e-16, rigorous=True)
    >>> c.lower <= 0.5 <= c.upper, float(c)
    (True, 0.5)
    >>> Certified([0.5, 1.0], 0.0, rigorous=False).value.shape
    (2,)
    """

    value: float | np.ndarray
    error: float | np.ndarray
    rigorous: bool

    def __init__(self, value: Any, error: Any, rigorous: bool) -> None:
        val = _as_float_or_array("value", value)
        err = _as_float_or_array("error", error)
        if not isinstance(rigorous, bool | np.bool_):
            raise ValueError(f"rigorous must be a bool, got {type(rigorous).__name__}")
        va, ea = np.asarray(val), np.asarray(err)
        try:
            shape = np.broadcast_shapes(va.shape, ea.shape)
        except ValueError:
            raise ValueError(f"error's shape {ea.shape} does not broadcast to value's shape {va.shape}") from None
        if np.isnan(va).any() or np.isneginf(va).any():
            raise ValueError("value must be finite or +inf, got NaN or -inf")
        if np.isnan(ea).any() or (ea < 0).any():
            raise ValueError("error must be >= 0 (or +inf), got a negative or NaN error")
        va, ea = np.broadcast_to(va, shape), np.broadcast_to(ea, shape)
        if (np.isposinf(va) & (ea != 0)).any():
            raise ValueError("error must be 0 where value is +inf")
        if shape != np.shape(val) or shape != np.shape(err):
            val, err = _as_float_or_array("value", va), _as_float_or_array("error", ea)
        object.__setattr__(self, "value", val)
        object.__setattr__(self, "error", err)
        object.__setattr__(self, "rigorous", bool(rigorous))

    @property
    def upper(self) -> float | np.ndarray:
        """``value + error`` rounded up to the next float (``+inf`` stays ``+inf``)."""
        with np.errstate(over="ignore"):
            u = np.nextafter(np.add(self.value, self.error), np.inf)
        u = np.where(np.isposinf(self.value) | np.isposinf(self.error), np.inf, u)
        return float(u) if np.ndim(u) == 0 else u

    @property
    def lower(self) -> float | np.ndarray:
        """``value - error`` rounded down to the next float (``-inf`` where ``error`` is infinite)."""
        with np.errstate(invalid="ignore"):
            d = np.subtract(self.value, self.error)
            lo = np.nextafter(d, -np.inf)
        lo = np.where(np.isposinf(self.value), np.inf, lo)
        return float(lo) if np.ndim(lo) == 0 else lo

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of ``value`` (``()`` for a scalar)."""
        return np.shape(self.value)

    def __float__(self) -> float:
        """Return the value of a scalar result; ``TypeError`` for an array."""
        if np.ndim(self.value):
            raise TypeError(f"only a scalar Certified converts to float, this one has shape {self.shape}")
        return float(self.value)

    def __eq__(self, other: object) -> bool:
        """Equal when value, error (element-wise, all) and rigorous are."""
        if not isinstance(other, Certified):
            return NotImplemented
        return (
            self.rigorous == other.rigorous
            and np.shape(self.value) == np.shape(other.value)
            and bool(np.array_equal(self.value, other.value))
            and bool(np.array_equal(self.error, other.error))
        )

    __hash__ = None  # type: ignore[assignment]  # arrays inside: not hashable

    def __repr__(self) -> str:
        """``Certified(value=..., error=..., rigorous=...)``."""
        return f"Certified(value={self.value!r}, error={self.error!r}, rigorous={self.rigorous})"
