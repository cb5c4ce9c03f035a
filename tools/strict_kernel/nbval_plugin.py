"""pytest plugin for the notebook passes: chapter kernels turn numpy's RuntimeWarnings into errors.

``pytest -p tools.strict_kernel.nbval_plugin --nbval-lax --nbval-current-env book/*.ipynb``
(``make test`` and ``make test-numerics`` pass it).  nbval starts its kernels with the
environment of this process; the plugin points ``IPYTHONDIR`` at a temporary directory whose
``profile_default/startup/`` holds ``startup.py`` (next to this file), so every kernel runs it
before the first cell.  The book build (``make book``) does not load this plugin: what readers
see is unchanged.  A user's own ``~/.ipython`` is not read during the test (reproducible runs).
"""

from __future__ import annotations

import os
import shutil

from tools.strict_kernel import strict_ipython_dir

_SAVED: dict[str, str | None] = {}


def pytest_configure():
    root = strict_ipython_dir()
    _SAVED["IPYTHONDIR"] = os.environ.get("IPYTHONDIR")
    _SAVED["root"] = str(root)
    os.environ["IPYTHONDIR"] = str(root)


def pytest_unconfigure():
    root = _SAVED.pop("root", None)
    old = _SAVED.pop("IPYTHONDIR", None)
    if old is None:
        os.environ.pop("IPYTHONDIR", None)
    else:
        os.environ["IPYTHONDIR"] = old
    if root:
        shutil.rmtree(root, ignore_errors=True)
