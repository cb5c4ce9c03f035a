"""The claims registry's "checked by" items are links (tools/book_cells.py).

- every test the registry names has a ``def`` line, so its link points at the test's source;
- every notebook check resolves to one code cell that its chapter page shows (not removed by a
  ``remove-cell`` tag), so the visible anchor above it exists;
- the line finder follows classes and parametrized ids and refuses unknown names.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("book_cells", ROOT / "tools" / "book_cells.py")
book_cells = importlib.util.module_from_spec(spec)
sys.modules["book_cells"] = book_cells
spec.loader.exec_module(book_cells)

CHECKS = [
    check
    for claim in yaml.safe_load((ROOT / "book" / "claims.yml").read_text(encoding="utf-8"))["claims"]
    for check in claim["checked_by"]
]
TESTS = sorted({c["test"] for c in CHECKS if "test" in c})
CELLS = [c for c in CHECKS if "notebook" in c]


def test_the_registry_has_both_kinds_of_check():
    assert TESTS and CELLS


@pytest.mark.parametrize("node_id", TESTS)
def test_every_test_of_the_registry_has_a_source_line(node_id):
    line = book_cells.line_of_test(ROOT, node_id)
    assert line is not None, f"{node_id}: no def to link to"
    path, _, name = node_id.partition("::")
    text = (ROOT / path).read_text(encoding="utf-8").splitlines()[line - 1]
    assert f" {name.split('::')[-1].split('[')[0]}" in text, text


def test_every_cited_cell_is_shown_on_its_page():
    problems = []
    for check in CELLS:
        cell_id = book_cells.resolve_cell(ROOT, check)
        cells = json.loads((ROOT / check["notebook"]).read_text(encoding="utf-8"))["cells"]
        cell = next((c for c in cells if c.get("id") == cell_id), None)
        if cell is None:
            problems.append(f"{check}: no such cell")
        elif cell["cell_type"] != "code" or "remove-cell" in cell["metadata"].get("tags", []):
            problems.append(f"{check}: cell {cell_id} is not a code cell the page shows")
    assert not problems, problems


def test_line_finder_follows_classes_and_refuses_unknown_names(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import pytest\n\n\nclass TestA:\n    def test_m(self):\n        pass\n\n\ndef test_f(x):\n    pass\n"
    )
    assert book_cells.line_of_test(tmp_path, "tests/test_x.py::TestA::test_m") == 5
    assert book_cells.line_of_test(tmp_path, "tests/test_x.py::test_f[case-1]") == 9
    assert book_cells.line_of_test(tmp_path, "tests/test_x.py::test_missing") is None
    assert book_cells.line_of_test(tmp_path, "tests/test_y.py::test_f") is None
    assert book_cells.cell_anchor("36c33513") == "cell-36c33513"
