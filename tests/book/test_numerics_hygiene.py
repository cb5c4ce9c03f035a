"""Rounding-noise hygiene of the chapters and of the detector that runs them (issue 27).

- every silencing of a numpy floating-point warning in a chapter names its categories (never
  ``all``, never a global ``np.seterr``) and says on the same or the next line why it is harmless;
- a ``warnings`` filter set in a chapter names the category it is for: a bare
  ``simplefilter("always")`` inside ``catch_warnings`` would also swallow the RuntimeWarnings that
  the test kernels turn into errors (tools/strict_kernel);
- no chapter convolves densities with an FFT (its tails are rounding noise of either sign);
- the detector (tools/numerics_matrix.py) runs each lower SIMD level of this CPU, with one and
  with two threads, and numpy really runs at that level under its environment; by default the
  chapters are shared out among the levels, each chapter once.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb"))


def _code_cells(path: Path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for k, cell in enumerate(c for c in cells if c["cell_type"] == "code"):
        yield k, "".join(cell["source"]).splitlines()


def silencing_problems(lines: list[str]) -> list[str]:
    """What is wrong with the warning silencing in one cell's lines (empty if nothing)."""
    out = []
    for j, line in enumerate(lines):
        code = line.split("#", 1)[0]
        nxt = lines[j + 1].strip() if j + 1 < len(lines) else ""
        explained = "#" in line or nxt.startswith("#")
        if re.search(r"\bseterr\s*\(", code):
            out.append(f"line {j + 1}: np.seterr changes every later cell: use np.errstate where needed")
        m = re.search(r"\berrstate\s*\(([^)]*)\)", code)
        if m:
            if re.search(r"\ball\s*=", m.group(1)):
                out.append(f"line {j + 1}: np.errstate(all=...) silences every warning: name one")
            if not explained:
                out.append(f"line {j + 1}: np.errstate without a comment saying why it is harmless")
        m = re.search(r"\b(simplefilter|filterwarnings)\s*\(([^)]*)\)", code)
        if m and "category" not in m.group(2) and m.group(2).count(",") < (1 if m.group(1) == "simplefilter" else 2):
            out.append(f"line {j + 1}: warnings.{m.group(1)} without a category")
    return out


@pytest.mark.parametrize(
    "lines, n",
    [
        (["with np.errstate(divide='ignore'):  # log(0) = -inf wanted"], 0),
        (["with np.errstate(divide='ignore'):", "    # log(0) = -inf wanted"], 0),
        (["with np.errstate(divide='ignore'):", "    x = np.log(p)"], 1),
        (["with np.errstate(all='ignore'):  # why"], 1),
        (["np.seterr(all='ignore')"], 1),
        (["    warnings.simplefilter('always')"], 1),
        (["    warnings.simplefilter('always', rpp.PrivacyWarning)"], 0),
        (["warnings.filterwarnings('ignore', category=UserWarning)"], 0),
    ],
)
def test_the_silencing_check_itself(lines, n):
    assert len(silencing_problems(lines)) == n


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapters_silence_warnings_only_by_name_and_with_a_reason(path):
    problems = [f"code cell {k}, {p}" for k, lines in _code_cells(path) for p in silencing_problems(lines)]
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_fft_convolution_of_densities(path):
    hits = [k for k, lines in _code_cells(path) if any(re.search(r"\bfftconvolve\b|\bfft\.", ln) for ln in lines)]
    assert not hits, (
        f"{path.name}, code cells {hits}: an FFT convolution leaves tails of +-1e-17 "
        "(use rpp or a closed-form density in log space)"
    )


def _matrix():
    spec = importlib.util.spec_from_file_location("numerics_matrix", ROOT / "tools" / "numerics_matrix.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_detector_runs_every_lower_simd_level_with_one_and_two_threads():
    mod = _matrix()
    cfgs = mod.passes()  # make test runs the default dispatch with two threads
    assert cfgs and cfgs[0]["threads"] == 1
    info = mod._numpy_features(dict(mod.os.environ, NPY_DISABLE_CPU_FEATURES=""))
    found = [f for f in info["dispatch"] if info["features"].get(f)]
    if not found:
        pytest.skip("numpy dispatches nothing on this CPU: one level only")
    sets = [set(c["disable"]) for c in cfgs]
    assert sets and all(a < b for a, b in itertools.pairwise(sets)), "each pass must go one level lower"
    assert set(found[found.index(min(sets[-1], key=found.index)) :]) == sets[-1]
    if any(f.startswith("X86_V") for f in found):  # numpy >= 2.4: the last pass is the baseline
        assert sets[-1] == set(found) and len(cfgs) == sum(f.startswith("X86_V") for f in found)
    if len(cfgs) > 1:
        assert {c["threads"] for c in cfgs} == {1, 2}
    for cfg in cfgs:
        feats = mod._numpy_features(mod.environment(cfg))["features"]
        assert not any(feats[f] for f in cfg["disable"]), cfg["label"]
        assert all(feats[f] for f in found if f not in cfg["disable"]), cfg["label"]


def test_detector_shares_every_chapter_out_once():
    """By default each chapter runs under exactly one lower level, and every level gets chapters."""
    mod = _matrix()
    chapters = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "book").glob("*.ipynb"))
    for n in (1, 2, 3):
        parts = mod.shares(chapters, n)
        assert len(parts) == n and all(parts)
        assert sorted(itertools.chain.from_iterable(parts)) == chapters


def test_detector_lists_its_passes():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "numerics_matrix.py"), "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.startswith("pass 1: ") and "disabled (runs at" in out and "1 thread" in out


def test_under_runs_a_command_at_the_pass_level_with_strict_kernels(tmp_path):
    """``--under`` (the book build's execution in .ci/docs_lane, the other environments' chapters):
    the command sees the pass's environment, numpy at that level, and an IPYTHONDIR holding the strict
    startup file; its exit status is the tool's; a pass that does not exist is a usage error."""
    mod = _matrix()
    cfgs = mod.passes()
    if not cfgs:
        pytest.skip("numpy dispatches nothing on this CPU: no lower level")
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import json, os, sys\n"
        "import numpy\n"
        "try:\n"
        "    from numpy._core import _multiarray_umath as m\n"
        "except ImportError:\n"
        "    from numpy.core import _multiarray_umath as m\n"
        "startup = os.path.join(os.environ['IPYTHONDIR'], 'profile_default', 'startup', '00-rpp-strict-warnings.py')\n"
        "json.dump({'env': os.environ['NPY_DISABLE_CPU_FEATURES'], 'threads': os.environ['OPENBLAS_NUM_THREADS'],\n"
        "           'startup': open(startup).read(), 'on': [k for k, v in m.__cpu_features__.items() if v]},\n"
        "          open(sys.argv[1], 'w'))\n"
    )
    out = tmp_path / "out.json"
    tool = [sys.executable, str(ROOT / "tools" / "numerics_matrix.py")]
    for under, cfg in ((1, cfgs[0]), (-1, cfgs[-1])):
        subprocess.run([*tool, "--under", str(under), "--", sys.executable, str(probe), str(out)], check=True)
        seen = json.loads(out.read_text())
        assert seen["env"].split() == cfg["disable"] and seen["threads"] == str(cfg["threads"])
        assert not set(seen["on"]) & set(cfg["disable"])
        assert seen["startup"] == (ROOT / "tools" / "strict_kernel" / "startup.py").read_text()
    assert subprocess.run([*tool, "--under", "1", "--", sys.executable, "-c", "raise SystemExit(3)"]).returncode == 3
    bad = subprocess.run([*tool, "--under", str(len(cfgs) + 1), "--", "true"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--under" in bad.stderr
