"""The student edition (tools/student_edition.py) and the Colab bootstrap cell.

What is checked:
- on a synthetic notebook: solution blocks (code and markdown cells between ``solution-start``
  and ``solution-end``), stray ``solution``-tagged cells and ``{solution}`` directives inside
  markdown are replaced by one empty prompt cell each, outputs are cleared, every other cell is
  kept; the leak check finds a solution line planted back into a student notebook; the CLI writes
  the files;
- for every chapter notebook of ``_toc.yml``: the student notebook has no solution text, tag,
  directive or output; it keeps every other cell unchanged and in order, with one prompt per
  solution (that it also **runs in a fresh kernel up to its first exercise** is a notebook check:
  ``notebook_tests/test_student_runs.py``, in the notebook phase of ``make test``);
- the Colab bootstrap cell (first cell of every chapter, and of every student notebook) does
  nothing when ``rpp`` is importable, and otherwise runs exactly one ``%pip install`` of the
  distribution this repository declares in ``pyproject.toml``.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import tomllib
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
new_chapter = _load("new_chapter")

CHAPTERS = student_edition.toc_chapters(ROOT)
IDS = [p.name for p in CHAPTERS]

md = nbformat.v4.new_markdown_cell
code = nbformat.v4.new_code_cell


def synthetic_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        code(new_chapter.BOOTSTRAP_SOURCE, metadata={"tags": ["remove-cell"]}),
        md("(ch-test)=\n# 9. Test\n"),
        code("x = 41\nprint(x)", execution_count=1,
             outputs=[nbformat.v4.new_output("stream", name="stdout", text="41\n")]),
        md(":::{exercise}\n:label: ex-test-one\nAdd one to x.\n:::"),
        md(":::{solution-start} ex-test-one\n:class: dropdown\n:::"),
        code("answer_one = x + 1\nassert answer_one == 42", metadata={"tags": ["solution"]},
             execution_count=2),
        md("The secret explanation of exercise one."),
        md(":::{solution-end}\n:::"),
        md(":::{exercise}\n:label: ex-test-two\nExplain.\n:::\n\nText after the exercise.\n\n"
           "::::{solution} ex-test-two\n:class: dropdown\nThe hidden reasoning of two.\n"
           ":::{note}\nA nested secret note.\n:::\n::::\n"),
        code("stray_solution_value = 3", metadata={"tags": ["solution"]}),
        code("y = x * 2", execution_count=3),
    ]
    return nb


def test_synthetic_notebook_becomes_a_student_notebook():
    original = synthetic_notebook()
    result = student_edition.make_student_notebook(original)
    student = result.notebook
    sources = [c.source for c in student.cells]
    assert result.labels == ["ex-test-one", "ex-test-two", ""]
    prompts = [c.source for c in student.cells if "exercise-prompt" in c.metadata.get("tags", [])]
    assert prompts == ["# Exercise ex-test-one: write your solution here.",
                       "# Exercise ex-test-two: write your solution here.",
                       "# Exercise: write your solution here."]
    assert all(c.cell_type == "code" and not c.outputs for c in student.cells
               if c.source in prompts)
    joined = "\n".join(sources)
    for secret in ("answer_one", "secret explanation", "hidden reasoning", "nested secret",
                   "stray_solution_value", "{solution"):
        assert secret not in joined, secret
    assert "Text after the exercise." in joined and ":label: ex-test-two" in joined
    assert sources[0] == new_chapter.BOOTSTRAP_SOURCE
    assert "Student edition" in sources[2]  # right after the title
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in student.cells if c.cell_type == "code")
    assert student_edition.leaks(original, student) == []
    assert original.cells[2].outputs, "the original notebook must not be modified"
    nbformat.validate(student)


def test_leak_check_finds_planted_solution_text():
    original = synthetic_notebook()
    student = student_edition.make_student_notebook(original).notebook
    student.cells[-1].source += "\nanswer_one = x + 1"
    student.cells[3].metadata["tags"] = ["solution"]
    found = student_edition.leaks(original, student)
    assert any("answer_one = x + 1" in f for f in found), found
    assert any("tagged 'solution'" in f for f in found), found


def test_cli_writes_student_notebooks(tmp_path):
    src = tmp_path / "09_test.ipynb"
    nbformat.write(synthetic_notebook(), src)
    out = tmp_path / "class"
    assert student_edition.main(["--out", str(out), str(src)]) == 0
    student = nbformat.read(out / "09_test.ipynb", as_version=4)
    assert student_edition.leaks(synthetic_notebook(), student) == []


def test_toc_has_chapters():
    assert CHAPTERS, "no chapter notebook listed in _toc.yml"


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    student_edition.write_student_edition(CHAPTERS, out)
    return out


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_student_notebook_has_no_solution(edition, path):
    original = nbformat.read(path, as_version=4)
    student = nbformat.read(edition / path.name, as_version=4)
    found = student_edition.leaks(original, student)
    assert not found, f"{path.name}: " + "; ".join(found)
    n_blocks = sum("{solution-start}" in c.source for c in original.cells)
    n_prompts = sum("exercise-prompt" in c.metadata.get("tags", []) for c in student.cells)
    assert n_prompts >= n_blocks > 0, f"{path.name}: {n_blocks} solutions, {n_prompts} prompts"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_student_notebook_keeps_every_other_cell(edition, path):
    original = nbformat.read(path, as_version=4)
    student = nbformat.read(edition / path.name, as_version=4)
    removed = set(student_edition.make_student_notebook(original).removed)
    expected = [(c.cell_type, c.source) for c in original.cells
                if c.source not in removed and "{solution-start}" not in c.source
                and "{solution-end}" not in c.source and "solution" not in c.metadata.get("tags", [])]
    kept = [(c.cell_type, c.source) for c in student.cells
            if not {"exercise-prompt", "student-edition-note"} & set(c.metadata.get("tags", []))]
    assert kept == expected, f"{path.name}: cells other than solutions were changed or reordered"
    assert student.cells[0].source == new_chapter.BOOTSTRAP_SOURCE


# --------------------------------------------------------------------------------------------
# The Colab bootstrap cell
# --------------------------------------------------------------------------------------------


class _FakeIPython:
    def __init__(self):
        self.magics: list[tuple[str, str]] = []

    def run_line_magic(self, name, line, _stack_depth=1):
        self.magics.append((name, line))


def _run_bootstrap(version) -> list[tuple[str, str]]:
    """Run the bootstrap cell with ``importlib.metadata.version`` replaced by ``version``."""
    from IPython.core.inputtransformer2 import TransformerManager

    python = TransformerManager().transform_cell(new_chapter.BOOTSTRAP_SOURCE)
    shell = _FakeIPython()
    real = importlib.metadata.version
    importlib.metadata.version = version
    try:
        exec(compile(python, "<bootstrap cell>", "exec"), {"get_ipython": lambda: shell})
    finally:
        importlib.metadata.version = real
    return shell.magics


def _missing(name):
    raise importlib.metadata.PackageNotFoundError(name)


def test_colab_bootstrap_cell_does_nothing_when_the_distribution_is_installed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert importlib.metadata.version(project["name"]) == project["version"], (
        "the test environment must have this repository's rpp-book installed (pip install -e .)")
    assert _run_bootstrap(importlib.metadata.version) == [], "rpp-book is installed: nothing to do"


def test_colab_bootstrap_cell_ignores_an_unrelated_package_named_rpp(monkeypatch):
    """An unrelated distribution providing the import name ``rpp`` must not satisfy the cell."""
    import types

    monkeypatch.setitem(sys.modules, "rpp", types.ModuleType("rpp"))  # someone else's rpp
    magics = _run_bootstrap(lambda name: _missing(name) if name == "rpp-book" else "1.0")
    assert len(magics) == 1 and magics[0][0] == "pip", magics


def test_colab_bootstrap_cell_installs_the_pinned_release_when_missing():
    magics = _run_bootstrap(_missing)
    assert len(magics) == 1 and magics[0][0] == "pip", magics
    requirement = magics[0][1].split('"')[1]            # rpp-book @ git+https://...@vX.Y.Z
    name, _, url = (part.strip() for part in requirement.partition("@"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert name == project["name"], f"the bootstrap installs {name!r}, pyproject declares {project['name']!r}"
    assert url.startswith("git+https://github.com/")
    repo, _, ref = url.rpartition("@")
    assert ref == "v" + project["version"], (
        f"the bootstrap must install the tag of this release (v{project['version']}), not {ref!r}")
    assert "rpp*" in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["packages"]["find"]["include"], "the distribution must ship rpp"
