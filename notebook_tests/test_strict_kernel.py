"""The test kernels turn numpy's floating-point RuntimeWarnings into errors (tools/strict_kernel).

A chapter cell whose verdict rests on rounding noise (a density of -2e-17 taken to a negative
power) prints "divide by zero encountered" on one CPU and passes silently on another; nbval
with the plugin fails it everywhere. Silencing one warning where it is meant (np.errstate with
a comment) still passes, and the book build, which does not load the plugin, is unchanged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

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


def _nbval(tmp_path: Path, source: str, plugin: bool) -> subprocess.CompletedProcess:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    path = tmp_path / "cell.ipynb"
    nbformat.write(nb, path)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval-lax",
           "--nbval-current-env", str(path)]
    if plugin:
        cmd[3:3] = ["-p", "tools.strict_kernel.nbval_plugin"]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("case", ["divide", "overflow", "invalid"])
def test_numpy_floating_point_warnings_fail_the_cell(tmp_path, case):
    strict = _nbval(tmp_path, CELLS[case], plugin=True)
    assert strict.returncode == 1 and "encountered" in strict.stdout, strict.stdout[-2000:]
    # without the plugin the same cell passes (only prints a warning): the plugin is what fails it
    assert _nbval(tmp_path, CELLS[case], plugin=False).returncode == 0


@pytest.mark.parametrize("case", ["silenced", "other warning"])
def test_silenced_or_other_warnings_pass(tmp_path, case):
    run = _nbval(tmp_path, CELLS[case], plugin=True)
    assert run.returncode == 0, run.stdout[-2000:]
