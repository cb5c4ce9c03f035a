#!/usr/bin/env python
"""Write the student edition of The RPP Book: the Jupyter edition of every chapter without its
solutions.

Usage (from the repository root, with the book's environment)::

    .venv/bin/python tools/student_edition.py                  # every chapter of _toc.yml -> student/
    .venv/bin/python tools/student_edition.py --out /tmp/class book/03_gaussian_priors.ipynb

(``make student`` runs the first form.) For each chapter notebook ``book/NN_slug.ipynb`` it writes
``<out>/NN_slug.ipynb``: first the solutions are taken out of the MyST source
(:func:`make_student_notebook`, checked for leaks by :func:`leaks`), then the result is written
as the Jupyter edition (``tools/jupyter_edition.py``: MyST turned into Markdown that Jupyter and
Colab render, the web book's numbers, the launch cell of the commit). In the source step

- every solution block (the markdown cell ``:::{solution-start} <label>``, the cells after it,
  and the markdown cell ``:::{solution-end}``) is replaced by **one empty code cell** holding only
  the prompt ``# Exercise <label>: write your solution here.`` (the Jupyter edition writes the
  exercise's number: ``# Exercise 3.2: ...``), like the exercise notebooks of
  the scikit-learn MOOC; a code cell tagged ``solution`` outside such a block, and a
  ``{solution}`` directive written inside a markdown cell, are removed the same way; text that
  follows the ``{solution-end}`` directive in its cell (often the next exercise) is kept;
- all outputs and execution counts are cleared (students run the cells themselves);
- a short note after the title says that this is the student edition;
- everything else (the text, the code, the exercise statements) is kept in order, so the
  notebook runs exactly as the book's does up to its first exercise.

Before writing, each student notebook is checked for leaks: no solution cell, no solution tag or
directive, and no line of solution text (a line that occurs only inside the solutions of the
original) may be left. ``tests/book/test_student_edition.py`` repeats these checks, and
``notebook_tests/test_student_runs.py`` (the notebook phase of ``make test``, after nbval) runs
every student notebook in a fresh kernel up to its first exercise.

The output folder ``student/`` is generated (git-ignored) and is not part of the web book
(``_config.yml`` excludes it).
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]

SOLUTION_TAG = "solution"
PROMPT_TAG = "exercise-prompt"
NOTE_TAG = "student-edition-note"
PROMPT = "# Exercise {label}: write your solution here."
PROMPT_NO_LABEL = "# Exercise: write your solution here."
NOTE = (
    "> **Student edition.** The solutions of the exercises are not included: write yours in the "
    "empty code cells that start with `# Exercise ...: write your solution here.` "
    "Run the notebook from the top first: the exercises use what the chapter computes."
)

_START_RE = re.compile(r"^\s*(?::{3,}|`{3,})\{solution-start\}\s*(\S*)", re.M)
_END_RE = re.compile(r"^\s*(?::{3,}|`{3,})\{solution-end\}", re.M)
_FENCE_OPEN_RE = re.compile(r"^\s*(:{3,}|`{3,})\{solution\}\s*(\S*)")
_EXERCISE_RE = re.compile(r"^\s*(?::{3,}|`{3,})\{exercise\}", re.M)
_MIN_LEAK_LINE = 4  # shorter lines (")", "$$", ":::") carry no solution content


@dataclass
class StudentNotebook:
    """A student notebook and what was removed from the original to make it."""

    notebook: nbformat.NotebookNode
    labels: list[str] = field(default_factory=list)  # one per prompt cell, "" if unknown
    removed: list[str] = field(default_factory=list)  # sources of the removed solution text


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _prompt_cell(label: str) -> nbformat.NotebookNode:
    source = PROMPT.format(label=label) if label else PROMPT_NO_LABEL
    return nbformat.v4.new_code_cell(source, metadata={"tags": [PROMPT_TAG]})


def strip_solution_directives(markdown: str) -> tuple[str, list[tuple[str, str]]]:
    """Remove every ``{solution}`` directive block from a markdown text.

    Returns the remaining text and, for each removed block, ``(label, block text)``. A block
    ends at the first line made only of its fence character, at least as long as its opening
    fence (so shorter, nested fences inside it are removed with it).
    """
    lines = markdown.splitlines(keepends=True)
    kept, removed, i = [], [], 0
    while i < len(lines):
        m = _FENCE_OPEN_RE.match(lines[i])
        if not m:
            kept.append(lines[i])
            i += 1
            continue
        fence, label = m.group(1), m.group(2)
        closing = re.compile(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        removed.append((label, "".join(lines[i : j + 1])))
        i = j + 1
    return "".join(kept), removed


def after_solution_end(markdown: str) -> str:
    """The text of a markdown cell after its ``{solution-end}`` directive (and the directive's closing
    fence), leading blank lines removed; empty when the directive ends the cell."""
    lines = markdown.splitlines(keepends=True)
    for i, line in enumerate(lines):
        m = _END_RE.match(line)
        if m:
            fence = re.match(r"\s*(:{3,}|`{3,})", line).group(1)
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            return "".join(lines[j + 1 :]).lstrip("\n")
    return ""


def make_student_notebook(nb: nbformat.NotebookNode) -> StudentNotebook:
    """The student edition of one chapter notebook (the input is not modified)."""
    nb = copy.deepcopy(nb)
    cells, labels, removed = [], [], []
    inside = False
    for cell in nb.cells:
        src = cell.source
        if cell.cell_type == "markdown" and _START_RE.search(src):
            label = _START_RE.search(src).group(1)
            inside = not _END_RE.search(src)
            cells.append(_prompt_cell(label))
            labels.append(label)
            continue
        if cell.cell_type == "markdown" and _END_RE.search(src):
            inside = False
            rest = after_solution_end(src)
            if rest.strip():  # e.g. the next exercise, written in the same cell: it stays
                cell.source = rest
                cells.append(cell)
            continue
        if inside:
            removed.append(src)
            continue
        if cell.cell_type == "code" and SOLUTION_TAG in _tags(cell):
            removed.append(src)
            cells.append(_prompt_cell(""))
            labels.append("")
            continue
        if cell.cell_type == "markdown":
            text, blocks = strip_solution_directives(src)
            removed.extend(block for _, block in blocks)
            if blocks:
                if text.strip():
                    cell.source = text.rstrip() + "\n"
                    cells.append(cell)
                for label, _ in blocks:
                    cells.append(_prompt_cell(label))
                    labels.append(label)
                continue
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    # The note goes right after the title cell (the first markdown cell).
    title = next((i for i, c in enumerate(cells) if c.cell_type == "markdown"), -1)
    cells.insert(title + 1, nbformat.v4.new_markdown_cell(NOTE, metadata={"tags": [NOTE_TAG]}))
    nb.cells = cells
    return StudentNotebook(nb, labels, removed)


def solution_only_lines(original: nbformat.NotebookNode) -> set[str]:
    """Stripped lines that occur in the solutions of ``original`` and nowhere else in it."""
    student = make_student_notebook(original)
    in_solutions = {line.strip() for text in student.removed for line in text.splitlines()}
    elsewhere = {line.strip() for cell in student.notebook.cells for line in cell.source.splitlines()}
    return {
        line
        for line in in_solutions - elsewhere
        if len(line) >= _MIN_LEAK_LINE and not re.fullmatch(r"[:`]{3,}.*", line)
    }


def leaks(original: nbformat.NotebookNode, student: nbformat.NotebookNode) -> list[str]:
    """Every trace of a solution in a student notebook (empty when there is none)."""
    found = []
    secret = solution_only_lines(original)
    for i, cell in enumerate(student.cells, start=1):
        where = f"cell {i}"
        if SOLUTION_TAG in _tags(cell):
            found.append(f"{where}: tagged '{SOLUTION_TAG}'")
        if re.search(r"\{solution(-start|-end)?\}", cell.source):
            found.append(f"{where}: a solution directive is left")
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count")):
            found.append(f"{where}: stored output or execution count")
        for line in cell.source.splitlines():
            if line.strip() in secret:
                found.append(f"{where}: solution text {line.strip()[:60]!r}")
    return found


_JUPYTER_EXERCISE_RE = re.compile(r"^>\s*\*\*Exercise (?:\d+|[A-Z])\.\d+\*\*", re.M)


def first_exercise_index(nb: nbformat.NotebookNode) -> int | None:
    """Index of the first cell with an exercise: an ``{exercise}`` directive (MyST) or, in the
    Jupyter edition, its blockquote ``> **Exercise 3.1**`` (None if there is none)."""
    return next(
        (
            i
            for i, c in enumerate(nb.cells)
            if c.cell_type == "markdown" and (_EXERCISE_RE.search(c.source) or _JUPYTER_EXERCISE_RE.search(c.source))
        ),
        None,
    )


def toc_chapters(root: Path = ROOT) -> list[Path]:
    """The chapter notebooks listed in ``_toc.yml``, in reading order."""

    def names(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    yield node[key]
            for value in node.values():
                if isinstance(value, (list, dict)):
                    yield from names(value)
        elif isinstance(node, list):
            for item in node:
                yield from names(item)

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    paths = (root / f"{name.removesuffix('.ipynb')}.ipynb" for name in names(toc))
    return list(dict.fromkeys(p for p in paths if p.is_file()))


def write_student_edition(notebooks: list[Path], out_dir: Path, *, root: Path = ROOT, **edition_options) -> list[Path]:
    """Write the student edition of ``notebooks`` into ``out_dir``; return the written paths.

    ``edition_options`` go to ``jupyter_edition.Edition`` (``web_url``, ``repo_url``, ``commit``).

    Raises
    ------
    ValueError
        If a student notebook would still contain solution text (nothing is written for it).
    """
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    from jupyter_edition import Edition

    return Edition(root, **edition_options).write(notebooks, out_dir, student=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "notebooks", nargs="*", type=Path, help="chapter notebooks (default: every notebook of _toc.yml)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "student", help="output folder (default: student/)")
    args = parser.parse_args(argv)
    notebooks = args.notebooks or toc_chapters()
    if not notebooks:
        parser.error("no chapter notebook found in _toc.yml")
    for path in write_student_edition(notebooks, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
