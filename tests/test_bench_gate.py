"""The benchmark gate (tools/bench_gate.py, issue #38): what fails it, what it prints.

The benchmarks themselves run in `make bench` / `make bench-check` (tests/benchmarks/ holds no
test module: pytest does not collect them); here, the comparison on made-up measurements, the
baseline on disk, and one real end-to-end run of the gate on the cheapest case.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import bench_gate


def _run(**ratios):
    return {
        "reference_s": 0.1,
        "machine": {"python": "3.11", "numpy": "2", "cores": 2, "load": [0, 0, 0], "platform": "x"},
        "cases": {
            n: dict(seconds=r * 0.1, ratio=r, reference_s=0.1, gated=not n.startswith("free"), what="")
            for n, r in ratios.items()
        },
    }


def test_compare_flags_a_slowdown_beyond_the_factor_by_name():
    base = _run(grid=1.0, atoms=2.0, tiny=0.01, free=1.0)
    now = _run(grid=1.49, atoms=3.2, tiny=0.4, free=9.0, added=1.0)
    status = bench_gate.compare(now, base, factor=1.5, floor=0.05)
    assert status == {"grid": "ok", "atoms": "SLOWER", "tiny": "ok", "free": "not gated", "added": "new"}
    # below the floor (0.04 s) a 40x change of a tiny case is timer jitter; above it, a regression
    assert bench_gate.compare(now, base, factor=1.5, floor=0.01)["tiny"] == "SLOWER"
    text = bench_gate.table(now, base, status)
    assert "atoms" in text and "1.60x  SLOWER" in text and "reference kernel 0.1000 s" in text


def test_the_baseline_covers_every_gated_case():
    base = json.loads((ROOT / "tests" / "benchmarks" / "baseline.json").read_text())
    mod = bench_gate.load_cases()
    gated = {c.name for c in mod.CASES if c.gated}
    assert gated == set(base["cases"]), sorted(gated ^ set(base["cases"]))
    assert all(row["ratio"] > 0 and row["seconds"] > 0 for row in base["cases"].values())
    # the paths are all there, the slow cells (1e6 atoms, 200 components, chapters) in `make bench` only
    names = {c.name for c in mod.CASES}
    for n in (
        "closed_form_grid_1e5",
        "exact_grid_1e5",
        "import_rpp",
        "proved_check_mixture_3v2",
        "calibrate_all_pairs_class",
        "release_report_x20",
        "exact_laplace_atoms_1e6",
        "exact_mixture_200",
    ):
        assert n in names, n
    assert any(n.startswith("chapter_") for n in names - gated)


def test_unknown_case_is_refused():
    with pytest.raises(SystemExit, match="unknown benchmark"):
        bench_gate.select(bench_gate.load_cases(), ["no_such_case"])


def test_the_gate_fails_and_names_the_case(tmp_path, capsys):
    """End to end on `import rpp` (a fresh interpreter, a few ms): a baseline 1000x faster fails."""
    baseline = tmp_path / "baseline.json"
    assert bench_gate.main(["--only", "import_rpp", "--write-baseline", str(baseline)]) == 0
    written = json.loads(baseline.read_text())
    assert set(written["cases"]) == {"import_rpp"}
    assert bench_gate.main(["--only", "import_rpp", "--check", str(baseline), "--factor", "50", "--floor", "0"]) == 0
    written["cases"]["import_rpp"]["ratio"] /= 1000
    baseline.write_text(json.dumps(written))
    capsys.readouterr()
    assert bench_gate.main(["--only", "import_rpp", "--check", str(baseline), "--floor", "0"]) == 1
    err = capsys.readouterr().err
    assert "BENCHMARK GATE FAILED: import_rpp is" in err and "re-measuring ['import_rpp']" in err
