"""The preface's class-room steps, followed as written ("How to run it in class").

The preface tells a teacher to run ``make test``, ``make book`` (which writes the chapter
notebooks), then to start JupyterLab from ``.venv`` on a folder of notebooks, and to give the
students another folder, the exercise notebooks. This file reads those steps from
``book/preface.md`` (never a copy of them) and checks that

- every ``make`` target the steps name exists in the ``Makefile``;
- the JupyterLab they start is in ``.venv`` and runs (``jupyter-lab --version``);
- ``make book`` writes the Jupyter edition into the folder the preface opens, and the student
  edition into the folder it gives the students (read from ``make -n book``);
- the notebooks, written by the very commands of that recipe (into a temporary copy of those
  folders), are every chapter of ``_toc.yml``, in both folders;
- each exercise notebook runs up to its first exercise (after it, cells may use the students'
  answers) in a fresh kernel whose working directory is its folder, as JupyterLab starts it, and
  the first and last chapters' Jupyter editions run from top to bottom there (the others' code
  cells are nbval's, run in full by ``make test``).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
PREFACE = ROOT / "book" / "preface.md"
sys.path.insert(0, str(ROOT / "tools"))

import book_toc
import jupyter_edition

CHAPTERS = book_toc.toc_chapters(ROOT)


def classroom_section() -> str:
    text = PREFACE.read_text(encoding="utf-8")
    m = re.search(r"^## How to run it in class\n(.*?)(?=^## )", text, re.M | re.S)
    assert m, "book/preface.md has no section 'How to run it in class'"
    return m.group(1)


def shell_commands() -> list[list[str]]:
    """The commands of the section's ```bash blocks (comments dropped), split as a shell would."""
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", classroom_section(), re.M | re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append(words)
    return commands


def jupyter_lab_command() -> list[str]:
    found = [c for c in shell_commands() if Path(c[0]).name == "jupyter-lab"]
    assert len(found) == 1, f"the class-room steps start JupyterLab once, found {found}"
    return found[0]


def student_folder() -> str:
    folders = set(re.findall(r"`([^`\s]+/student)`", classroom_section()))
    assert len(folders) == 1, f"the class-room steps name one folder of exercise notebooks, found {folders}"
    return folders.pop()


def book_recipe_outputs() -> dict[bool, str]:
    """{student?: folder} of the tools/jupyter_edition.py commands of `make -n book`."""
    out = subprocess.run(
        ["make", "-n", "--no-print-directory", "book"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    found = {}
    for line in out.splitlines():
        if "tools/jupyter_edition.py" in line:
            words = shlex.split(line)
            found["--student" in words] = words[words.index("--out") + 1]
    return found


def test_make_targets_of_the_steps_exist():
    targets = [c[1] for c in shell_commands() if c[0] == "make"]
    assert {"test", "book"} <= set(targets), targets
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"no target {target!r} in the Makefile"


def test_jupyter_lab_is_in_the_venv_and_runs():
    program = ROOT / jupyter_lab_command()[0]
    assert program.is_relative_to(ROOT / ".venv"), f"{program}: not the venv's JupyterLab"
    assert os.access(program, os.X_OK), f"{program} missing: JupyterLab must be in the reader's lock"
    version = subprocess.run([str(program), "--version"], check=True, capture_output=True, text=True, timeout=120)
    assert re.fullmatch(r"\d+\.\d+\S*\n?", version.stdout), version.stdout


def test_make_book_writes_the_folders_the_preface_names():
    folder = jupyter_lab_command()[1].rstrip("/")
    assert book_recipe_outputs() == {False: folder, True: student_folder()}
    assert student_folder() == f"{folder}/student"


@pytest.fixture(scope="module")
def classroom(tmp_path_factory) -> tuple[Path, Path]:
    """The two folders, written by the recipe's commands (into a temporary copy of the tree)."""
    base = tmp_path_factory.mktemp("classroom")
    folders = {}
    for student, folder in book_recipe_outputs().items():
        target = base / folder
        args = ["--student"] if student else []
        assert jupyter_edition.main([*args, "--out", str(target)]) == 0
        folders[student] = target
    return folders[False], folders[True]


def test_every_chapter_is_in_both_folders(classroom):
    jupyter, student = classroom
    names = [p.name for p in CHAPTERS]
    assert names, "no chapter in _toc.yml"
    for folder, edition in ((jupyter, "jupyter"), (student, "student")):
        assert sorted(p.name for p in folder.glob("*.ipynb")) == sorted(names), folder
        for name in names:
            nb = nbformat.read(folder / name, as_version=4)
            assert nb.metadata["rpp_book"]["edition"] == edition, f"{folder / name}"


def _run(nb: nbformat.NotebookNode, folder: Path, what: str) -> None:
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    client = NotebookClient(
        nb, timeout=600, kernel_name=nb.metadata.kernelspec.name, resources={"metadata": {"path": str(folder)}}
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{what} fails in a fresh kernel started in {folder}:\n{exc}", pytrace=False)


# In full: the first and the last chapter. What the class folder adds to nbval's run of book/ is the
# launch cell and the working directory; every exercise notebook runs those (with the cells up to its
# first exercise) in `make test` below, and nbval runs every chapter's code cells in full, so running
# all nine Jupyter editions in full again only repeated nbval (about 7 minutes of CI on 2 cores).
FULL_RUNS = [CHAPTERS[0], CHAPTERS[-1]]


@pytest.mark.slow  # chapters in full, as long as their nbval phase again: `make test-slow`
@pytest.mark.parametrize("path", FULL_RUNS, ids=[p.stem for p in FULL_RUNS])
def test_jupyter_edition_runs_top_to_bottom(classroom, path):
    folder = classroom[0]
    _run(nbformat.read(folder / path.name, as_version=4), folder, f"{path.name} (Jupyter edition)")


# The only run of the student edition (it was run twice, here and by a notebook_tests/test_student_runs.py
# that wrote the same edition with the same tool into another folder: 9 partial chapter runs of CI).
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_exercise_notebook_runs_up_to_its_first_exercise(classroom, path):
    folder = classroom[1]
    nb = nbformat.read(folder / path.name, as_version=4)
    stop = next((i for i, c in enumerate(nb.cells) if "exercise-prompt" in c.metadata.get("tags", [])), None)
    assert stop is not None, f"{path.name}: no exercise prompt in the exercise notebook"
    nb.cells = nb.cells[:stop]
    assert sum(c.cell_type == "code" for c in nb.cells) > 1
    _run(nb, folder, f"{path.name} (exercise notebook, up to its first exercise)")
