"""The student edition's source step: a chapter notebook without its solutions, checked for leaks.

The student edition of The RPP Book is the Jupyter edition of every chapter without its
solutions. ``tools/jupyter_edition.py --student`` writes it (``make student`` into ``student/``,
``make notebooks`` into ``_build/html/notebooks/student/``); this module is the step it takes
first, on the MyST source: :func:`make_student_notebook` takes the solutions out and
:func:`leaks` checks that none is left. It imports nothing of the other tools (the Jupyter edition
imports it, never the other way round). In the source step

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
original) may be left (the Jupyter edition refuses to write a notebook that leaks).
``tests/book/test_student_edition.py`` repeats these checks, and
``notebook_tests/test_classroom.py`` (the notebook phase of ``make test``, after nbval) runs
every student notebook, written as the class-room steps write it, in a fresh kernel up to its first
exercise.

The output folder ``student/`` is generated (git-ignored) and is not part of the web book
(``_config.yml`` excludes it).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

import nbformat

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
