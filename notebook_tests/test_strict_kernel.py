"""The test kernels turn numpy's floating-point RuntimeWarnings into errors (tools/strict_kernel).

A chapter cell whose verdict rests on rounding noise (a density of -2e-17 taken to a negative
power) prints "divide by zero encountered" on one CPU and passes silently on another; nbval
with the plugin fails it everywhere. Silencing one warning where it is meant (np.errstate with
a comment) still passes, and the book build, which does not load the plugin, is unchanged.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]

CELLS = {
    "divide": "import numpy as np\nq = np.array([0.25, 0.0])\nprint(np.sum(q ** -1.0))",
    "overflow": "import numpy as np\nprint(np.exp(np.array([1000.0])))",
    "invalid": "import numpy as np\nprint(np.array([0.0]) / np.array([0.0]))",
    "silenced": (
        "import numpy as np\n"
        "with np.errstate(divide='ignore'):  # log(0) = -inf is the value wanted here\n"
        "    print(np.log(np.array([0.0, 1.0])))"
    ),
    "other warning": "import warnings\nwarnings.warn('not numpy', RuntimeWarning)\nprint(1)",
}


def _nbval(tmp_path: Path, plugin: bool) -> subprocess.CompletedProcess:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS.values()]
    path = tmp_path / "cells.ipynb"
    nbformat.write(nb, path)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--nbval-lax",
        "--nbval-current-env",
        str(path),
    ]
    if plugin:
        cmd[3:3] = ["-p", "tools.strict_kernel.nbval_plugin"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def _outcomes(run: subprocess.CompletedProcess) -> dict[str, str]:
    """{case: "PASSED" or "FAILED"} from pytest's -rA summary (nbval names items "Cell k")."""
    names = list(CELLS)
    out = {}
    for status, k in re.findall(r"^(PASSED|FAILED) \S*::Cell (\d+)", run.stdout, flags=re.M):
        out[names[int(k)]] = status
    return out


def test_numpy_floating_point_warnings_fail_the_cell_only_in_the_test_kernels(tmp_path):
    strict = _outcomes(_nbval(tmp_path, plugin=True))
    assert strict == {
        "divide": "FAILED",
        "overflow": "FAILED",
        "invalid": "FAILED",
        "silenced": "PASSED",
        "other warning": "PASSED",
    }, strict
    # without the plugin (the book build's kernels) every cell passes, printing its warning
    plain = _outcomes(_nbval(tmp_path, plugin=False))
    assert set(plain.values()) == {"PASSED"} and len(plain) == len(CELLS), plain
