"""Optional dependencies: the error raised when an extra of ``rpp-book`` is missing.

``rpp`` needs numpy, scipy and python-flint (the last imported on first use: the secure noise
of :mod:`rpp.sampling` and the proved divergences need it).  A feature that needs more imports it inside the function
that uses it and, when it is missing, raises the ``ImportError`` of :func:`missing`, which
names the feature, the distribution and the extra that installs it.  The extras (pyproject.toml):

=========  ==================  =====================================================
extra      distribution        used by
=========  ==================  =====================================================
fit        scikit-learn        ``rpp.fit_gmm``, ``rpp.bic_curve``
ot         POT                 ``rpp.transport.optimal_plan`` for large plans (optional:
                               scipy's ``linprog`` solves them without it)
tables     pandas              the table of ``calibrate_all_pairs``; the book support
chapters   all of the above,   what the chapters import (matplotlib, sympy, mpmath, ...)
           and more
=========  ==================  =====================================================
"""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "EXTRA", "missing"]

#: import name -> (distribution, extra of rpp-book that installs it)
EXTRA = {
    "sklearn": ("scikit-learn", "fit"),
    "ot": ("POT", "ot"),
    "pandas": ("pandas", "tables"),
}
#: The distribution that ships ``rpp``.
DISTRIBUTION = "rpp-book"


def missing(module: str, feature: str, *, extra: str | None = None) -> ImportError:
    """Return the error for a missing optional dependency (raise it ``from`` the original ImportError).

    Parameters
    ----------
    module : str
        The import name of the missing module (a key of :data:`EXTRA`).
    feature : str
        What needs it, e.g. ``"rpp.fit_gmm"``.
    extra : str, optional
        The extra to name instead of the module's own (e.g. ``"chapters"`` for the book support).

    Returns
    -------
    ImportError
        With a message naming the feature, the distribution and the extra to install.

    Examples
    --------
    >>> print(missing("sklearn", "rpp.fit_gmm"))
    rpp.fit_gmm needs scikit-learn, an optional dependency: pip install 'rpp-book[fit]'
    """
    dist, own = EXTRA[module]
    extra = own if extra is None else extra
    return ImportError(f"{feature} needs {dist}, an optional dependency: pip install '{DISTRIBUTION}[{extra}]'")
