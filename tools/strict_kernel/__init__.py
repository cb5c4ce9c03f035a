"""The strict kernel of the notebook passes: numpy's floating-point RuntimeWarnings become errors.

:func:`strict_ipython_dir` writes an ``IPYTHONDIR`` whose ``profile_default/startup/`` holds
``startup.py`` (next to this file); a kernel started with that ``IPYTHONDIR`` in its environment
runs it before the first cell.  Used by ``nbval_plugin`` (``make test``, ``make test-numerics``)
and by ``tools/numerics_matrix.py --under`` (the book build's execution in ``.ci/docs_lane``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

STARTUP = Path(__file__).resolve().with_name("startup.py")


def strict_ipython_dir() -> Path:
    """A new temporary ``IPYTHONDIR`` with the strict startup file (the caller removes it)."""
    root = Path(tempfile.mkdtemp(prefix="rpp-ipython-"))
    startup = root / "profile_default" / "startup"
    startup.mkdir(parents=True)
    shutil.copy(STARTUP, startup / "00-rpp-strict-warnings.py")
    return root
