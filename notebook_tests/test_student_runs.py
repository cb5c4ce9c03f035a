"""The student edition of every chapter runs in a fresh kernel, from the student folder, up to its
first exercise (the part that needs no solution).

Executing notebooks is a notebook check, not a unit test: it lives outside ``tests/`` and runs in
the notebook phase of ``make test``, after nbval (each run takes about as long as its chapter).
The structural checks of the student edition (no solution left, every other cell kept) stay in
``tests/book/test_student_edition.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


student_edition = _load("student_edition")
CHAPTERS = student_edition.toc_chapters(ROOT)


def test_toc_has_chapters():
    assert CHAPTERS, "no chapter notebook listed in _toc.yml"


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    student_edition.write_student_edition(CHAPTERS, out)
    return out


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_student_notebook_runs_up_to_first_exercise(edition, path):
    """A fresh kernel in the student folder runs every cell before the first exercise."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    student = nbformat.read(edition / path.name, as_version=4)
    stop = student_edition.first_exercise_index(student)
    assert stop is not None, f"{path.name}: no exercise"
    student.cells = student.cells[:stop]
    assert sum(c.cell_type == "code" for c in student.cells) > 1
    client = NotebookClient(
        student,
        timeout=300,
        kernel_name=student.metadata.kernelspec.name,
        resources={"metadata": {"path": str(edition)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{path.name} (student edition) fails before its first exercise:\n{exc}", pytrace=False)
