"""Error-free transformations and cancellation-free elementary kernels (private).

Used by :func:`rpp.gaussian_renyi` and :func:`rpp.discrete_renyi_divergence` to keep every
digit where the textbook formulas cancel: Knuth's TwoSum and Dekker's TwoProduct (a sum or
product as an exact pair of doubles), ``log(a / b)`` without overflow, ``log(1 + x) - x`` and
``exp(y) - 1 - y`` by series near 0, and correctly rounded sums (``math.fsum``).
All broadcast; no validation (inner kernels).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["two_sum", "two_prod", "log_ratio", "log1pmx", "expm1mx", "fsum_keep"]

_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp splitting)


def two_sum(a, b):
    """``s, e`` with ``s + e == a + b`` exactly (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a, b):
    """``p, e`` with ``p + e == a * b`` exactly (Dekker's TwoProduct; ``|a|, |b| < 1e300``)."""
    p = a * b
    ca = _SPLIT * a
    ah = ca - (ca - a)
    al = a - ah
    cb = _SPLIT * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def log_ratio(a, b):
    """``log(a / b)`` for ``a >= 0, b > 0`` without overflow: mantissas and exponents apart."""
    ma, ea = np.frexp(a)
    mb, eb = np.frexp(b)
    return np.log(ma / mb) + (ea - eb) * _LN2


def log1pmx(x, log1px):
    """``log(1 + x) - x <= 0`` to a few ulps; ``log1px`` (an accurate ``log(1 + x)``) is used where ``|x| > 1/4``."""
    x = np.asarray(x, float)
    small = np.abs(x) <= 0.25
    if not small.any():
        return log1px - x
    xs = np.where(small, x, 0.0)
    z = xs / (2 + xs)  # log1p(x) = 2 atanh(z) = 2 (z + z^3/3 + ...), and 2 z - x = -x z
    z2 = z * z
    acc = np.zeros_like(z)
    for k in range(25, 1, -2):  # Horner in z^2 of 1/3 + z^2/5 + ... + z^22/25; |z| <= 1/7: the rest < 1e-20 relative
        acc = acc * z2 + 1.0 / k
    series = -xs * z + 2 * z * z2 * acc
    return series if small.all() else np.where(small, series, log1px - x)


def expm1mx(y):
    """``exp(y) - 1 - y >= 0`` to a few ulps (Taylor series for ``|y| <= 1/2``)."""
    y = np.asarray(y, float)
    small = np.abs(y) <= 0.5
    if not small.any():
        return np.expm1(y) - y
    ys = np.where(small, y, 0.0)
    acc = np.zeros_like(ys)
    for k in range(20, 2, -1):  # Horner: y^2/2! (1 + y/3 (1 + y/4 (...))); 0.5^19 / 20! < 1e-24
        acc = 1.0 + acc * ys / k
    series = ys * ys / 2 * acc
    return series if small.all() else np.where(small, series, np.expm1(y) - y)


def fsum_keep(x, axis):
    """Correctly rounded sums along ``axis`` (kept as a length-1 axis)."""
    x = np.asarray(x, float)
    if x.ndim == 1:
        return np.array([math.fsum(x.tolist())])
    return np.expand_dims(np.apply_along_axis(lambda r: math.fsum(r.tolist()), axis, x), axis)
