"""Small input validators shared by the :mod:`rpp.composition` modules."""
from __future__ import annotations

import numpy as np


def as_distribution(p, name, axis=-1, atol=1e-9):
    """Return ``p`` as a float array of probabilities summing to one along ``axis``.

    Raises ``ValueError`` naming ``name`` when an entry is negative / not finite or a
    slice does not sum to one (within ``atol``).
    """
    p = np.asarray(p, dtype=float)
    if p.size == 0:
        raise ValueError(f"{name} must be non-empty")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"{name} must contain finite non-negative probabilities")
    s = p.sum(axis=axis)
    if not np.allclose(s, 1.0, atol=atol, rtol=0):
        raise ValueError(f"{name} must sum to 1 along axis {axis}, got sums in "
                         f"[{np.min(s):.6g}, {np.max(s):.6g}]")
    return p


def check_prob(x, name, low_open=True, high_open=True):
    """Check a scalar/array probability lies in (0, 1) (or closed ends if requested)."""
    x = np.asarray(x, dtype=float)
    lo_ok = (x > 0) if low_open else (x >= 0)
    hi_ok = (x < 1) if high_open else (x <= 1)
    if not np.all(np.isfinite(x) & lo_ok & hi_ok):
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {lo}0, 1{hi}, got {x}")
    return x


def check_positive(x, name, allow_zero=False):
    """Check ``x`` (scalar or array) is finite and > 0 (or >= 0)."""
    x = np.asarray(x, dtype=float)
    ok = (x >= 0) if allow_zero else (x > 0)
    if not np.all(np.isfinite(x) & ok):
        rel = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be finite and {rel}, got {x}")
    return x


def check_int(x, name, minimum=1):
    """Check ``x`` is an integer >= ``minimum``; return it as ``int``."""
    if isinstance(x, bool) or int(x) != x or x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x}")
    return int(x)


def check_transition_matrix(P, name="P"):
    """Validate a square row-stochastic matrix; return it as a float array."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {P.shape}")
    return as_distribution(P, name, axis=1)
