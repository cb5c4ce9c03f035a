"""The student edition (tools/student_edition.py), the Jupyter edition it is written as
(tools/jupyter_edition.py), the bootstrap cell of the source chapters and the launch cell of the
Jupyter edition.

What is checked:
- on a synthetic notebook: solution blocks (code and markdown cells between ``solution-start``
  and ``solution-end``), stray ``solution``-tagged cells and ``{solution}`` directives inside
  markdown are replaced by one empty prompt cell each, outputs are cleared, every other cell is
  kept; the leak check finds a solution line planted back into a student notebook; the CLI writes
  the files;
- for every chapter notebook of ``_toc.yml``: the student notebook has no solution text, tag,
  directive or output; it keeps every other cell unchanged and in order, with one prompt per
  solution (that it also **runs in a fresh kernel up to its first exercise** is a notebook check:
  ``notebook_tests/test_classroom.py``, in the notebook phase of ``make test``);
- the student notebooks are Jupyter-edition notebooks: exercise prompts numbered as on the web
  ("# Exercise 3.2: ..."), no raw MyST, the macros defined in the first Markdown cell, and a
  first cell that installs this commit of ``rpp-book`` with the extras the chapter imports (the
  numbers themselves are checked against the built HTML by browser_tests/test_jupyter_edition.py;
  the launch cell is run end to end, offline, by notebook_tests/test_launch.py);
- the bootstrap cell of the source chapters does nothing when the distribution ``rpp-book`` is
  installed, and otherwise runs exactly one ``%pip install`` of it with every extra a chapter
  needs; the launch cell of the Jupyter edition installs exactly its commit.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


book_toc = _load("book_toc")
student_edition = _load("student_edition")
new_chapter = _load("new_chapter")
jupyter_edition = _load("jupyter_edition")

CHAPTERS = book_toc.toc_chapters(ROOT)
IDS = [p.name for p in CHAPTERS]

md = nbformat.v4.new_markdown_cell
code = nbformat.v4.new_code_cell


def synthetic_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        code(new_chapter.BOOTSTRAP_SOURCE, metadata={"tags": ["remove-cell"]}),
        md("(ch-test)=\n# 9. Test\n"),
        code(
            "x = 41\nprint(x)",
            execution_count=1,
            outputs=[nbformat.v4.new_output("stream", name="stdout", text="41\n")],
        ),
        md(":::{exercise}\n:label: ex-test-one\nAdd one to x.\n:::"),
        md(":::{solution-start} ex-test-one\n:class: dropdown\n:::"),
        code("answer_one = x + 1\nassert answer_one == 42", metadata={"tags": ["solution"]}, execution_count=2),
        md("The secret explanation of exercise one."),
        md(":::{solution-end}\n:::"),
        md(
            ":::{exercise}\n:label: ex-test-two\nExplain.\n:::\n\nText after the exercise.\n\n"
            "::::{solution} ex-test-two\n:class: dropdown\nThe hidden reasoning of two.\n"
            ":::{note}\nA nested secret note.\n:::\n::::\n"
        ),
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
    assert prompts == [
        "# Exercise ex-test-one: write your solution here.",
        "# Exercise ex-test-two: write your solution here.",
        "# Exercise: write your solution here.",
    ]
    assert all(c.cell_type == "code" and not c.outputs for c in student.cells if c.source in prompts)
    joined = "\n".join(sources)
    for secret in (
        "answer_one",
        "secret explanation",
        "hidden reasoning",
        "nested secret",
        "stray_solution_value",
        "{solution",
    ):
        assert secret not in joined, secret
    assert "Text after the exercise." in joined and ":label: ex-test-two" in joined
    assert sources[0] == new_chapter.BOOTSTRAP_SOURCE
    assert "Student edition" in sources[2]  # right after the title
    assert all(
        not c.get("outputs") and c.get("execution_count") is None for c in student.cells if c.cell_type == "code"
    )
    assert student_edition.leaks(original, student) == []
    assert original.cells[2].outputs, "the original notebook must not be modified"
    nbformat.validate(student)


def test_text_after_a_solution_end_is_kept():
    """The next exercise may share the cell that closes a solution (chapters 4, 5, 6, 9 did): the
    student edition once dropped it with the closing directive."""
    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell
    nb.cells = [
        md("# Title"),
        md(":::{exercise}\n:label: ex-a\nFirst statement.\n:::"),
        md(":::{solution-start} ex-a\n:class: dropdown\n:::"),
        md("secret first answer"),
        md(":::{solution-end}\n:::\n\n:::{exercise}\n:label: ex-b\nSecond statement.\n:::"),
        md(":::{solution-start} ex-b\n:::"),
        md("secret second answer"),
        md(":::{solution-end}\n:::"),
    ]
    student = student_edition.make_student_notebook(nb).notebook
    sources = [c.source for c in student.cells]
    assert ":::{exercise}\n:label: ex-b\nSecond statement.\n:::" in sources
    assert not any("secret" in s or "{solution" in s for s in sources)
    assert student_edition.leaks(nb, student) == []


def test_leak_check_finds_planted_solution_text():
    original = synthetic_notebook()
    student = student_edition.make_student_notebook(original).notebook
    student.cells[-1].source += "\nanswer_one = x + 1"
    student.cells[3].metadata["tags"] = ["solution"]
    found = student_edition.leaks(original, student)
    assert any("answer_one = x + 1" in f for f in found), found
    assert any("tagged 'solution'" in f for f in found), found


def test_cli_writes_student_notebooks(tmp_path):
    chapter = CHAPTERS[0]
    out = tmp_path / "class"
    assert jupyter_edition.main(["--student", "--out", str(out), str(chapter)]) == 0
    student = nbformat.read(out / chapter.name, as_version=4)
    assert student_edition.leaks(nbformat.read(chapter, as_version=4), student) == []
    assert student.metadata["rpp_book"]["edition"] == "student"


def test_toc_has_chapters():
    assert CHAPTERS, "no chapter notebook listed in _toc.yml"


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("student")
    jupyter_edition.Edition(ROOT).write(CHAPTERS, out, student=True)
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
def test_student_notebook_keeps_every_other_cell(path):
    """In the source step (MyST), only the solutions go."""
    original = nbformat.read(path, as_version=4)
    student = student_edition.make_student_notebook(original).notebook
    removed = set(student_edition.make_student_notebook(original).removed)
    expected = [
        (c.cell_type, c.source.split(":::{solution-end}\n:::", 1)[-1].lstrip("\n"))
        for c in original.cells
        if c.source not in removed
        and "{solution-start}" not in c.source
        and "solution" not in c.metadata.get("tags", [])
        and c.source.split(":::{solution-end}\n:::", 1)[-1].strip()  # text after a solution's end stays
    ]
    kept = [
        (c.cell_type, c.source)
        for c in student.cells
        if not {"exercise-prompt", "student-edition-note"} & set(c.metadata.get("tags", []))
    ]
    assert kept == expected, f"{path.name}: cells other than solutions were changed or reordered"
    assert student.cells[0].source == new_chapter.BOOTSTRAP_SOURCE


_RAW_MYST = re.compile(
    r"^\s*:{3,}|\{(prf:|cite|eq\}|ref\}|numref\}|math\}|solution|exercise\})|^\s*\([^()\s]+\)=\s*$", re.M
)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_student_notebook_is_a_jupyter_edition_notebook(edition, path):
    """Numbered prompts, no raw MyST, macros defined, the same code, the launch cell first."""
    original = nbformat.read(path, as_version=4)
    source = student_edition.make_student_notebook(original).notebook
    student = nbformat.read(edition / path.name, as_version=4)
    prompts = [c.source for c in student.cells if "exercise-prompt" in c.metadata.get("tags", [])]
    assert prompts and all(
        re.fullmatch(r"# Exercise (\d+|[A-Z])\.\d+: write your solution here\.", p)
        or p == student_edition.PROMPT_NO_LABEL
        for p in prompts
    ), prompts
    markdown = [c.source for c in student.cells if c.cell_type == "markdown"]
    assert not [m for m in markdown if _RAW_MYST.search(m)], "raw MyST left"
    assert markdown[0].startswith("$\\newcommand") or markdown[0].startswith("$\\renewcommand")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    first_line = markdown[0].splitlines()[0]
    assert all(f"command{{\\{name}}}" in first_line for name in macros), first_line

    def code(nb):  # every code cell but the first (launch/bootstrap) and the prompts
        return [
            c.source
            for c in nb.cells[1:]
            if c.cell_type == "code" and "exercise-prompt" not in c.metadata.get("tags", [])
        ]

    assert code(student) == code(source), f"{path.name}: the code cells differ from the source chapter's"
    assert jupyter_edition.LAUNCH_TAG in student.cells[0].metadata.tags
    sha = jupyter_edition.git_commit(ROOT)[0]
    assert f'@{sha}"' in student.cells[0].source


# --------------------------------------------------------------------------------------------
# The Colab bootstrap cell
# --------------------------------------------------------------------------------------------


class _FakeIPython:
    def __init__(self):
        self.magics: list[tuple[str, str]] = []

    namespace: dict = {}  # noqa: RUF012  the cell's globals, set by _run_cell

    def run_line_magic(self, name, line, _stack_depth=1):
        # IPython expands {expr} in a magic's line from the user's namespace (var_expand)
        self.magics.append((name, line.format_map(self.namespace)))


def _run_cell(source: str, patches: dict) -> tuple[list[tuple[str, str]], str]:
    """Run a cell's Python (IPython magics recorded, not run) with ``importlib.metadata``
    functions replaced by ``patches``; return the magics and what it printed."""
    import contextlib
    import io

    from IPython.core.inputtransformer2 import TransformerManager

    python = TransformerManager().transform_cell(source)
    shell = _FakeIPython()
    saved = {name: getattr(importlib.metadata, name) for name in patches}
    out = io.StringIO()
    try:
        for name, value in patches.items():
            setattr(importlib.metadata, name, value)
        with contextlib.redirect_stdout(out):
            shell.namespace = {"get_ipython": lambda: shell}
            exec(compile(python, "<cell>", "exec"), shell.namespace)
    finally:
        for name, value in saved.items():
            setattr(importlib.metadata, name, value)
    return shell.magics, out.getvalue()


def _run_bootstrap(version) -> list[tuple[str, str]]:
    """Run the bootstrap cell with ``importlib.metadata.version`` replaced by ``version``."""
    return _run_cell(new_chapter.BOOTSTRAP_SOURCE, {"version": version})[0]


def _missing(name):
    raise importlib.metadata.PackageNotFoundError(name)


def test_colab_bootstrap_cell_does_nothing_when_the_distribution_is_installed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert importlib.metadata.version(project["name"]) == project["version"], (
        "the test environment must have this repository's rpp-book installed (pip install -e .)"
    )
    assert _run_bootstrap(importlib.metadata.version) == [], "rpp-book is installed: nothing to do"


def test_colab_bootstrap_cell_ignores_an_unrelated_package_named_rpp(monkeypatch):
    """An unrelated distribution providing the import name ``rpp`` must not satisfy the cell."""
    import types

    monkeypatch.setitem(sys.modules, "rpp", types.ModuleType("rpp"))  # someone else's rpp
    magics = _run_bootstrap(lambda name: _missing(name) if name == "rpp-book" else "1.0")
    assert len(magics) == 1 and magics[0][0] == "pip", magics


def _requirement(magic_line: str) -> tuple[str, list[str], str, str]:
    """(name, extras, repository url, ref) of ``install ... "name[extras] @ git+url@ref"``."""
    from packaging.requirements import Requirement

    req = Requirement(magic_line.split('"')[1])
    repo, _, ref = req.url.removeprefix("git+").rpartition("@")
    return req.name, sorted(req.extras), repo, ref


def test_source_bootstrap_cell_installs_every_extra_a_chapter_needs():
    magics = _run_bootstrap(_missing)
    assert len(magics) == 1 and magics[0][0] == "pip", magics
    name, extras, repo, ref = _requirement(magics[0][1])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert name == project["name"], f"the bootstrap installs {name!r}, pyproject declares {project['name']!r}"
    assert repo == jupyter_edition.repository_url(ROOT) and ref == "main"
    needed = set().union(*(jupyter_edition.required_extras(nbformat.read(p, as_version=4)) for p in CHAPTERS))
    installed, todo = set(), list(extras)  # the extras and those they include (rpp-book[fit,ot,...])
    while todo:
        extra = todo.pop()
        installed.add(extra)
        for req in project["optional-dependencies"][extra]:
            if req.startswith(f"{project['name']}["):
                todo += [e.strip() for e in req[req.index("[") + 1 : req.index("]")].split(",") if e not in installed]
    assert needed <= installed, f"the chapters need the extras {sorted(needed)}, the cell installs {extras}"
    assert (
        "rpp"
        in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"][
            "find"
        ]["include"]
    ), "the distribution must ship rpp"
    # the book support (rpp_book), its own distribution in support/, in the same pip run
    support = magics[0][1].split('"')[3]
    assert support == "rpp-book-support @ git+" + jupyter_edition.repository_url(ROOT) + "@main#subdirectory=support"
    assert (ROOT / "support" / "pyproject.toml").is_file()


# --------------------------------------------------------------------------------------------
# The launch cell of the Jupyter edition
# --------------------------------------------------------------------------------------------

SHA = "0123456789abcdef0123456789abcdef01234567"


class _Dist:
    """A stand-in for ``importlib.metadata.distribution("rpp-book")``: its ``direct_url.json``,
    and its record of ``rpp/__init__.py`` at ``where`` (with ``digest``, RECORD's hash)."""

    def __init__(self, direct_url, where: Path | None = None, digest: str | None = None):
        self.direct_url, self.where, self.digest = direct_url, where, digest

    def read_text(self, name):
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)

    @property
    def files(self):
        record = importlib.metadata.PackagePath("rpp/__init__.py")
        record.hash = None if self.digest is None else importlib.metadata.FileHash(f"sha256={self.digest}")
        return [record]

    def locate_file(self, path):
        return self.where

    version = importlib.metadata.version("rpp-book")  # rpp/__init__.py reads it when first imported


RPP_INIT = (ROOT / "rpp" / "__init__.py").resolve()
EDITABLE = _Dist({"url": ROOT.as_uri(), "dir_info": {"editable": True}})


def _record_hash(path: Path) -> str:
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=").decode()


def _vcs(commit: str, where: Path = RPP_INIT, digest: str | None = "") -> _Dist:
    url = {"url": "https://github.com/rpp-book/rpp-book", "vcs_info": {"vcs": "git", "commit_id": commit}}
    return _Dist(url, where, _record_hash(where) if digest == "" else digest)


def _run_launch(distribution, monkeypatch, *, pip_rc=0, extras=("ot",)):
    """Run the launch cell with ``distribution`` patched and pip replaced by a recorder; return
    (the commands pip was run with, what the cell printed)."""
    import subprocess

    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, pip_rc, stdout="", stderr="ERROR: planted pip failure")

    monkeypatch.setattr(subprocess, "run", fake_run)
    cell = jupyter_edition.launch_cell(SHA, list(extras), "https://github.com/rpp-book/rpp-book", "chapter 4")
    magics, printed = _run_cell(cell.source, {"distribution": distribution})
    assert magics == [], "the launch cell must not use %pip (it does not raise when pip fails)"
    return calls, printed


def test_launch_cell_installs_exactly_its_commit_with_the_extras(monkeypatch):
    import subprocess

    state = {"installed": False}

    def distribution(name):
        if not state["installed"]:
            raise importlib.metadata.PackageNotFoundError(name)
        return EDITABLE

    def fake_run(cmd, **kwargs):
        state["installed"] = True
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout="", stderr="")

    calls: list = []
    monkeypatch.setattr(subprocess, "run", fake_run)
    cell = jupyter_edition.launch_cell(SHA, ["ot"], "https://github.com/rpp-book/rpp-book", "chapter 4")
    magics, _ = _run_cell(cell.source, {"distribution": distribution})
    assert magics == [] and len(calls) == 1, (magics, calls)
    cmd = calls[0]
    assert cmd[:5] == [sys.executable, "-m", "pip", "install", "--quiet"], cmd
    assert _requirement(f'install "{cmd[5]}"') == ("rpp-book", ["ot"], "https://github.com/rpp-book/rpp-book", SHA)


@pytest.mark.parametrize("rpp_installed", [False, True], ids=["fresh-runtime", "rpp-book-already-there"])
def test_launch_cell_installs_the_book_support_of_its_commit(monkeypatch, rpp_installed):
    """A chapter that imports rpp_book: the support distribution of the same commit, in the same pip run
    (alone when rpp-book is there already, e.g. after an earlier chapter in the same runtime)."""
    import subprocess

    state = {"installed": {"rpp-book"} if rpp_installed else set()}

    def distribution(name):
        if name not in state["installed"]:
            raise importlib.metadata.PackageNotFoundError(name)
        return EDITABLE

    def fake_run(cmd, **kwargs):
        state["installed"] |= {"rpp-book", "rpp-book-support"}
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, stdout="", stderr="")

    calls: list = []
    monkeypatch.setattr(subprocess, "run", fake_run)
    cell = jupyter_edition.launch_cell(SHA, ["chapters"], "https://github.com/rpp-book/rpp-book", "ch. 4", support=True)
    magics, _ = _run_cell(cell.source, {"distribution": distribution})
    assert magics == [] and len(calls) == 1, (magics, calls)
    support = f"rpp-book-support @ git+https://github.com/rpp-book/rpp-book@{SHA}#subdirectory=support"
    if rpp_installed:
        assert calls[0][5:] == [support], calls
    else:
        assert _requirement(f'install "{calls[0][5]}"')[0] == "rpp-book" and calls[0][6:] == [support], calls
    plain = jupyter_edition.launch_cell(SHA, ["chapters"], "https://github.com/rpp-book/rpp-book", "ch. 1")
    assert "rpp-book-support" not in plain.source and "RPP_SUPPORT_REQUIREMENT" not in plain.source


def test_launch_cell_raises_when_pip_fails(monkeypatch):
    with pytest.raises(RuntimeError, match=r"(?s)Installing rpp failed.*planted pip failure.*What to do"):
        _run_launch(_missing, monkeypatch, pip_rc=1)


def test_launch_cell_leaves_an_installed_rpp_book_alone(monkeypatch):
    assert _run_launch(lambda name: EDITABLE, monkeypatch) == ([], "")
    assert _run_launch(lambda name: _vcs(SHA), monkeypatch) == ([], "")
    calls, printed = _run_launch(lambda name: _vcs("f" * 40), monkeypatch)
    assert calls == [] and "fffffffffff" in printed and SHA[:12] in printed, printed


@pytest.mark.parametrize(
    "dist",
    [
        _vcs(SHA, where=Path("/elsewhere/site-packages/rpp/__init__.py"), digest=None),  # another rpp first on the path
        _vcs(SHA, digest="A" * 43),  # rpp-book's files overwritten by another distribution's rpp
        _Dist({"url": "file:///elsewhere/src", "dir_info": {"editable": True}}),
    ],
    ids=["shadowed", "overwritten", "editable-elsewhere"],
)
def test_launch_cell_refuses_an_rpp_that_is_not_rpp_book(dist, monkeypatch):
    with pytest.raises(ImportError, match=r"not the rpp of the distribution rpp-book.*pip install rpp"):
        _run_launch(lambda name: dist, monkeypatch)


def test_launch_requirement_parses_with_old_pips():
    """pip < 24 (what ``python -m venv`` bundles on Python 3.11 and 3.12) rejects a URL without a
    host; a local repository is written ``file://localhost/...``, which git reads the same way."""
    assert jupyter_edition.pip_url("file:///tmp/clone") == "file://localhost/tmp/clone"
    assert jupyter_edition.pip_url("https://github.com/rpp-book/rpp-book") == "https://github.com/rpp-book/rpp-book"
    req = jupyter_edition.launch_requirement(SHA, ["chapters"], "file:///tmp/clone")
    assert req == f"rpp-book[chapters] @ git+file://localhost/tmp/clone@{SHA}"


def test_binder_post_build_installs_the_published_commit():
    script = jupyter_edition.binder_post_build(SHA, "https://github.com/rpp-book/rpp-book")
    assert script.startswith("#!/bin/sh\n") and "\nset -e\n" in script
    line = script.strip().splitlines()[-1]
    assert line.startswith("python -m pip install --no-deps ")
    assert _requirement(line) == ("rpp-book", [], "https://github.com/rpp-book/rpp-book", SHA)
    assert line.endswith(f' "rpp-book-support @ git+https://github.com/rpp-book/rpp-book@{SHA}#subdirectory=support"')


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_launch_extras_follow_the_chapters_imports(path):
    """Every chapter's launch cell installs [chapters]; it includes [ot] where a chapter imports ot."""
    nb = nbformat.read(path, as_version=4)
    extras = jupyter_edition.required_extras(nb)
    assert extras == ["chapters"], (path.name, extras)
    if "ot" in jupyter_edition.chapter_imports(nb):
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        chapters = project["optional-dependencies"]["chapters"]
        included = [r[r.index("[") + 1 : r.index("]")].split(",") for r in chapters if r.startswith("rpp-book[")]
        assert any("ot" in extras for extras in included), chapters


def test_an_import_beyond_the_chapters_extra_adds_its_extra():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import ot\nimport pandas\nimport selenium")]
    assert jupyter_edition.required_extras(nb) == ["browser", "chapters"]


def test_an_import_from_no_dependency_is_an_error():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%matplotlib inline\nimport numpy\nimport not_a_dependency_xyz")]
    with pytest.raises(jupyter_edition.EditionError, match="not_a_dependency_xyz"):
        jupyter_edition.required_extras(nb)


# --------------------------------------------------------------------------------------------
# The conversion of MyST (tools/jupyter_edition.py), on small inputs
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def book_index():
    return jupyter_edition.BookIndex.load(ROOT)


def _convert(index, text, docname="book/03_gaussian_priors"):
    return jupyter_edition.convert_markdown(text, jupyter_edition._Context(index, docname))


def test_conversion_numbers_links_and_math(book_index):
    label = next(
        k
        for k, v in book_index.env.proof_list.items()
        if v["docname"] == "book/03_gaussian_priors" and v["realtype"] == "theorem"
    )
    _kind, number, url = book_index.proof(label)
    out = _convert(book_index, f"(sec-x)=\nSee {{prf:ref}}`{label}` and {{prf:ref}}`this one <{label}>`.")
    assert out == f"See [Theorem {number}]({url}) and [this one]({url}).", out
    eq = next(k for k, (doc, _) in book_index.env.domaindata["math"]["objects"].items() if doc == "book/02_renyi_rpp")
    n, eq_url = book_index.equation(eq)
    assert _convert(book_index, f"By {{eq}}`{eq}`.") == f"By [({n})]({eq_url})."
    block = _convert(book_index, f"```{{math}}\n:label: {eq}\na = b \\\\\nc = d\n```")
    assert block == f"$$ \\begin{{split}}a = b \\\\ c = d\\end{{split}} \\tag{{{n}}} $$", block


def test_blockquoted_math_stays_on_one_line(book_index):
    out = _convert(book_index, ":::{note}\nText $a +\nb$ and\n\n$$\nx = 1\n$$\n:::")
    assert out.splitlines() == ["> **Note.**", ">", "> Text $a + b$ and", ">", "> $$ x = 1 $$"], out


@pytest.mark.parametrize(
    "text, match",
    [
        (":::{unknown-directive}\nx\n:::", "unknown-directive"),
        ("{unknownrole}`x`", "unknownrole"),
        ("{prf:ref}`thm-does-not-exist`", "thm-does-not-exist"),
        ("{cite:t}`nobody2099`", "nobody2099"),
    ],
)
def test_conversion_refuses_what_it_cannot_render(book_index, text, match):
    with pytest.raises(jupyter_edition.EditionError, match=match):
        _convert(book_index, text)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_jupyter_edition_keeps_every_exercise(book_index, path):
    """Every exercise box of the source becomes one numbered exercise of the Jupyter edition, also
    one written in the cell that closes the previous solution (the edition once dropped it)."""
    original = nbformat.read(path, as_version=4)
    n_source = sum(len(re.findall(r"^\s*:{3,}\{exercise\}", c.source, re.M)) for c in original.cells)
    docname = path.resolve().relative_to(ROOT.resolve()).with_suffix("").as_posix()
    out = jupyter_edition.jupyter_notebook(
        original, docname, book_index, commit="0" * 40, repo_url="file:///nowhere", extras=[]
    )
    text = "\n".join(c.source for c in out.cells if c.cell_type == "markdown")
    assert len(re.findall(r"\*\*Exercise \d+\.\d+\*\*", text)) == n_source, path.name


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_markdown_cell_defines_the_macros_it_uses(book_index, path):
    """A renderer that typesets each cell on its own (KaTeX, a re-rendered cell) finds every
    macro of _config.yml that the cell uses defined at the top of that very cell."""
    original = nbformat.read(path, as_version=4)
    docname = path.resolve().relative_to(ROOT.resolve()).with_suffix("").as_posix()
    out = jupyter_edition.jupyter_notebook(
        original, docname, book_index, commit="0" * 40, repo_url="file:///nowhere", extras=[]
    )
    macros = book_index.macros()
    checked = 0
    for cell in out.cells:
        if cell.cell_type != "markdown":
            continue
        head, _, body = cell.source.partition("\n\n")
        used = {m for m in re.findall(r"\\([A-Za-z]+)", body) if m in macros}
        if not used:
            continue
        checked += 1
        assert head.startswith("$\\") and head.endswith("$"), f"{path.name}: no macro line in {body[:80]!r}"
        defined = set(re.findall(r"command\{\\([A-Za-z]+)\}", head))
        assert used <= defined, f"{path.name}: {sorted(used - defined)} undefined in {body[:80]!r}"
    source_uses = any(
        set(re.findall(r"\\([A-Za-z]+)", c.source)) & set(macros)
        for c in original.cells[1:]
        if c.cell_type == "markdown"
    )
    assert checked >= source_uses, f"{path.name}: the source uses macros, the edition's cells do not"
