"""The claims registry of the three papers (``book/claims.yml``) and the Results appendix.

The registry is data: for every numbered item of a source paper, the book's verdict, the labels
where the book treats it and what checks it. ``tools/book_results.py`` renders it into
``book/results.md``; this file checks, without building the book, that

- the registry has the expected shape and every verdict is one of the four;
- every label it names is defined in the book's sources;
- every test it names exists (the file, and the function or method of the node id);
- every notebook cell it names exists: a cell id of a code cell that asserts, or a marker
  found in exactly one cell;
- it is complete: every box whose title cites one of the papers, and every erratum box of the
  chapters, is registered; each paper has its table on the Results page;
- the book's own statements (issue #35): every theorem, proposition, lemma, corollary and
  conjecture of chapters 1-9 is registered with one of the four verdicts of its own ("proved and
  searched" and "checked numerically" only with a search of ``tests/claims/``), a conjecture
  exactly when the box is one.

``test_results_extension_*`` build a small Sphinx project with the extension, and check that the
listed numbers are the numbers the boxes show and that sphinx-proof's raw index is gone.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import textwrap
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CLAIMS = BOOK / "claims.yml"
RESULTS_PAGE = BOOK / "results.md"
VERDICTS = ("proved here", "checked numerically", "erratum", "not reproduced")


def _load_extension():
    spec = importlib.util.spec_from_file_location("book_results", ROOT / "tools" / "book_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


book_results = _load_extension()


@cache
def claims() -> dict:
    return book_results.load_claims(CLAIMS)


# --------------------------------------------------------------------------------------------
# The book's labels, read from the sources
# --------------------------------------------------------------------------------------------

LABEL_PATTERNS = (
    re.compile(r"^\s*:(?:label|name):\s*(\S+)\s*$", re.M),  # prf:*, {math}, exercise, figure
    re.compile(r"^\((\S+)\)=\s*$", re.M),  # MyST targets: sections, admonitions
    re.compile(r"\$\$\s*\((\S+)\)\s*$", re.M),  # dollarmath with a label: $$ ... $$ (eq-x)
)


def page_sources() -> dict[str, list[dict]]:
    """{path: cells} for every page under book/ (a Markdown page is one markdown cell)."""
    out = {}
    for path in sorted(BOOK.glob("*.ipynb")):
        out[f"book/{path.name}"] = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for path in sorted(BOOK.glob("*.md")):
        out[f"book/{path.name}"] = [
            {"cell_type": "markdown", "id": None, "source": path.read_text(encoding="utf-8"), "metadata": {}}
        ]
    return out


def source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


@cache
def book_labels() -> frozenset[str]:
    labels = set()
    for cells in page_sources().values():
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for pattern in LABEL_PATTERNS:
                    labels.update(pattern.findall(source(cell)))
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if figure.get("name"):
                labels.add(figure["name"])
    return frozenset(labels)


def test_the_label_reader_finds_every_kind_of_label():
    """The reader sees boxes, equations ({math} and $$), figures, sections and errata."""
    for label in (
        "thm-gauss-closed-form",
        "eq-gauss-closed-form",
        "eq-gauss-equal-var",
        "fig-gauss-budget",
        "ch-gaussian",
        "erratum-gmm-domain",
        "ex-ch3-switch",
        "def-preface-rpp",
        "errata",
    ):
        assert label in book_labels(), label
    assert "thm-no-such-theorem" not in book_labels()


# --------------------------------------------------------------------------------------------
# Shape and verdicts
# --------------------------------------------------------------------------------------------


def test_registry_loads_and_every_verdict_is_one_of_four():
    data = claims()
    assert {p["key"] for p in data["papers"]} == {"yang2026rpp", "awass2026", "bai2026composition"}
    assert book_results.VERDICTS == VERDICTS
    assert all(c["verdict"] in VERDICTS for c in data["claims"])
    assert len(data["claims"]) >= 50


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"verdict": "probably true"}, "is not one of"),
        ({"verdict": "not reproduced", "note": None}, "needs a 'note'"),
        ({"paper": "nobody2026"}, "paper must be one of"),
        ({"book": []}, "'book' is missing or empty"),
        ({"checked_by": []}, "needs a test or a cell"),
        ({"checked_by": [{"notebook": "book/03_gaussian_priors.ipynb"}]}, "needs 'cell'"),
        ({"checked_by": [{"notebook": "book/03_gaussian_priors.ipynb", "cell": 30068651}]}, "quote the values"),
        ({"reviewer": "me"}, "unknown keys"),
    ],
)
def test_registry_loader_rejects_bad_entries(tmp_path, change, message):
    """The loader (used by the build and by these tests) refuses a malformed entry."""
    data = yaml.safe_load(CLAIMS.read_text(encoding="utf-8"))
    entry = next(c for c in data["claims"] if c["verdict"] == "proved here")
    entry.update(change)
    entry = {k: v for k, v in entry.items() if v is not None}
    data["claims"] = [entry]
    bad = tmp_path / "claims.yml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        book_results.load_claims(bad)


# --------------------------------------------------------------------------------------------
# Labels, tests and cells exist
# --------------------------------------------------------------------------------------------


def test_every_label_of_the_registry_exists_in_the_book():
    missing = [
        (c["paper"], c["item"], label) for c in claims()["claims"] for label in c["book"] if label not in book_labels()
    ]
    assert not missing, f"labels of book/claims.yml that no page defines: {missing}"


def test_functions(path: Path) -> set[str]:
    """Node ids ``test_f`` and ``TestClass::test_m`` defined in a test file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update(
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            )
    return names


test_functions.__test__ = False  # a helper, not a test


def node_id_problem(node_id: str) -> str | None:
    """Why a pytest node id ``tests/file.py::test_x`` does not exist (None if it does)."""
    path, sep, name = node_id.partition("::")
    name = name.split("[", 1)[0]  # a parametrised id names the function
    if not sep or not path.startswith(("tests/", "notebook_tests/")) or not path.endswith(".py"):
        return "not a node id of the form tests/<file>.py::<test>"
    if not (ROOT / path).is_file():
        return f"no file {path}"
    if not name.split("::")[-1].startswith("test"):
        return f"{name} is not a test"
    if name not in test_functions(ROOT / path):
        return f"{path} defines no {name}"
    return None


def test_node_id_checker_detects_missing_tests():
    assert node_id_problem("tests/book/test_claims.py::test_node_id_checker_detects_missing_tests") is None
    assert node_id_problem("tests/book/test_claims.py::test_no_such_test") is not None
    assert node_id_problem("tests/test_no_such_file.py::test_x") is not None
    assert node_id_problem("test_claims.py::test_x") is not None


def test_every_test_of_the_registry_exists():
    problems = [
        (c["item"], check["test"], node_id_problem(check["test"]))
        for c in claims()["claims"]
        for check in c["checked_by"]
        if "test" in check
    ]
    problems = [p for p in problems if p[2]]
    assert not problems, f"tests named in book/claims.yml that do not exist: {problems}"


def cell_problem(check: dict) -> str | None:
    """Why a notebook check of the registry does not point at an asserting cell."""
    cells = page_sources().get(check["notebook"])
    if cells is None:
        return f"no page {check['notebook']}"
    if check.get("cell"):
        cell = next((c for c in cells if c.get("id") == check["cell"]), None)
        if cell is None:
            return f"no cell with id {check['cell']}"
        if cell["cell_type"] != "code" or "assert" not in source(cell):
            return f"cell {check['cell']} is not a code cell that asserts"
        if check.get("marker") and check["marker"] not in source(cell):
            return f"cell {check['cell']} does not contain {check['marker']!r}"
        return None
    found = [c for c in cells if check["marker"] in source(c)]
    if len(found) != 1:
        return f"marker {check['marker']!r} is in {len(found)} cells (must be in exactly one)"
    return None


def test_cell_checker_detects_missing_and_non_asserting_cells():
    nb = "book/03_gaussian_priors.ipynb"
    assert cell_problem({"notebook": nb, "cell": "cd9ee55d"}) is None
    assert "no cell" in cell_problem({"notebook": nb, "cell": "00000000"})
    assert "asserts" in cell_problem({"notebook": nb, "cell": "37329c5f"})  # a markdown cell
    assert "exactly one" in cell_problem({"notebook": nb, "marker": "assert"})
    assert "no page" in cell_problem({"notebook": "book/99_none.ipynb", "cell": "x"})


def test_every_cell_of_the_registry_exists_and_asserts():
    problems = [
        (c["item"], check, cell_problem(check))
        for c in claims()["claims"]
        for check in c["checked_by"]
        if "notebook" in check
    ]
    problems = [p for p in problems if p[2]]
    assert not problems, f"cells named in book/claims.yml: {problems}"


# --------------------------------------------------------------------------------------------
# Completeness
# --------------------------------------------------------------------------------------------

#: How the chapters' box titles cite the papers: "(Yang et al. 2026, Thm III.5)",
#: "(α-W paper, Thm 1)", "(Bai et al. 2026, Def. 2)".
PAPER_IN_TITLE = re.compile(r"Yang et al\.|α-W paper|Bai et al\.")
BOX = re.compile(r"^:{3,}\{prf:(?!proof)\w+\}(?P<title>.*)\n(?::class:.*\n)?:label:\s*(?P<label>\S+)", re.M)


def test_every_box_citing_a_paper_is_registered():
    registered = {label for c in claims()["claims"] for label in c["book"]}
    boxes = [
        (m["label"], m["title"].strip())
        for cells in page_sources().values()
        for cell in cells
        if cell["cell_type"] == "markdown"
        for m in BOX.finditer(source(cell))
        if PAPER_IN_TITLE.search(m["title"])
    ]
    assert len(boxes) >= 15
    missing = [b for b in boxes if b[0] not in registered]
    assert not missing, f"boxes that cite a paper but are not in book/claims.yml: {missing}"


def test_every_erratum_of_the_chapters_is_registered():
    registered = {label for c in claims()["claims"] for label in c["book"]}
    errata = {label for label in book_labels() if label.startswith("erratum-")}
    assert len(errata) >= 10
    assert not errata - registered, f"erratum boxes missing from book/claims.yml: {sorted(errata - registered)}"
    erratum_entries = [c for c in claims()["claims"] if c["verdict"] == "erratum"]
    assert all(any(label.startswith("erratum-") for label in c["book"]) for c in erratum_entries), (
        "an 'erratum' entry must link the erratum box"
    )


def test_every_paper_has_its_table_on_the_results_page():
    text = RESULTS_PAGE.read_text(encoding="utf-8")
    rendered = re.findall(r"^```\{rpp-claims\}\s+(\S+)\s*$", text, re.M)
    assert sorted(rendered) == sorted(p["key"] for p in claims()["papers"])
    assert re.search(r"^```\{rpp-results\}", text, re.M)
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    appendices = [c["file"] for c in toc["parts"][-1]["chapters"]]
    assert "book/results" in appendices


# --------------------------------------------------------------------------------------------
# The extension, on a small Sphinx project
# --------------------------------------------------------------------------------------------

CHAPTER = """\
({chap})=
# Chapter {n}

:::{{prf:definition}} A definition of chapter {n}
:label: def-{chap}

Text.
:::

:::{{prf:theorem}} First theorem with $x^2$
:label: thm-{chap}-a

Text.
:::

:::{{prf:theorem}} Second theorem
:label: thm-{chap}-b

Text.
:::

```{{math}}
:label: eq-{chap}

a = b
```

({chap}-erratum)=
:::{{admonition}} Erratum: a box of chapter {n}
:class: warning
Text.
:::

:::{{exercise}}
:label: ex-{chap}
Do it.
:::
"""


def small_project(tmp_path: Path, claim_label: str) -> Path:
    src = tmp_path / "src"
    (src / "book").mkdir(parents=True)
    (src / "index.md").write_text(
        textwrap.dedent("""\
        # A book

        ```{toctree}
        :numbered:
        book/one
        book/two
        ```

        ```{toctree}
        book/results
        ```
        """),
        encoding="utf-8",
    )
    (src / "book" / "one.md").write_text(CHAPTER.format(chap="one", n=1), encoding="utf-8")
    (src / "book" / "two.md").write_text(CHAPTER.format(chap="two", n=2), encoding="utf-8")
    (src / "book" / "results.md").write_text(
        textwrap.dedent("""\
        # Results

        ```{rpp-results}
        :exercises:
        ```

        ```{rpp-claims} paper2026
        ```

        ```{rpp-statements}
        ```

        ```{rpp-cite} thm-two-b
        ```
        """),
        encoding="utf-8",
    )
    (src / "book" / "claims.yml").write_text(
        yaml.safe_dump(
            {
                "papers": [{"key": "paper2026", "short": "P", "title": "A paper"}],
                "claims": [
                    {
                        "paper": "paper2026",
                        "item": "Theorem 7",
                        "title": "a statement",
                        "verdict": "erratum",
                        "book": ["thm-two-b", "eq-one", "two-erratum", claim_label],
                        "checked_by": [{"test": "tests/book/test_claims.py::test_x_with_a_long_name"}],
                    }
                ],
                "statements": [
                    {
                        "label": "thm-one-b",
                        "statement": "a general statement",
                        "domain": "every x > 0",
                        "verdict": "proved and searched",
                        "proof": "thm-one-b",
                        "checked_by": [{"test": "tests/claims/test_search.py::test_fast_search"}],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    (src / "conf.py").write_text(
        textwrap.dedent(f"""\
        import sys
        sys.path.insert(0, {str(ROOT / "tools")!r})
        extensions = ["myst_parser", "sphinx_proof", "sphinx_exercise", "book_numbering",
                      "book_results"]
        myst_enable_extensions = ["colon_fence", "dollarmath", "amsmath"]
        numfig = True
        rpp_results_doc = "book/results"
        numfig_secnum_depth = 1
        math_numfig = True
        html_theme = "basic"
        bibtex_bibfiles = []
        """),
        encoding="utf-8",
    )
    return src


def build_small(tmp_path: Path, claim_label: str):
    from sphinx.application import Sphinx

    src = small_project(tmp_path, claim_label)
    out = tmp_path / "html"
    warnings = tmp_path / "warnings.txt"
    with warnings.open("w") as stream:
        app = Sphinx(
            str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None, warning=stream, freshenv=True
        )
        app.build()
    return out, warnings.read_text(), app.config


@pytest.fixture(scope="module")
def small_build(tmp_path_factory):
    return build_small(tmp_path_factory.mktemp("results"), "thm-one-a")


def test_results_extension_lists_the_numbers_the_boxes_show(small_build):
    from bs4 import BeautifulSoup

    out, warnings, _ = small_build
    assert "WARNING" not in warnings, warnings
    results = BeautifulSoup((out / "book" / "results.html").read_text(), "html.parser")
    listed = {}
    for table in results.select("table.rpp-results-list"):
        for row in table.select("tbody tr"):
            link = row.select_one("a")
            assert "\xa0" in link.get_text()  # "Theorem 2.2" never breaks across lines
            listed[link["href"].split("#")[1]] = link.get_text().replace("\xa0", " ")
    assert set(listed) == {"def-one", "thm-one-a", "thm-one-b", "def-two", "thm-two-a", "thm-two-b"}
    for label, text in listed.items():
        page = "one" if "-one" in label else "two"
        html = BeautifulSoup((out / "book" / f"{page}.html").read_text(), "html.parser")
        shown = html.find(id=label).find(class_="admonition-title").get_text(" ", strip=True)
        assert shown.startswith(text + " "), (label, text, shown)
    assert listed["thm-two-b"] == "Theorem 2.2" and listed["def-one"] == "Definition 1.1"
    exercises = [a.get_text().replace("\xa0", " ") for a in results.select("p.rpp-results-exercises a")]
    assert exercises == ["Exercise 1.1", "Exercise 2.1"]
    # the titles keep their math; the claims table resolves every kind of label
    assert results.select("table.rpp-results-list span.math, table.rpp-results-list .math")
    claims_text = results.select_one("table.rpp-claims-table").get_text(" ", strip=True)
    for shown in ("Theorem 2.2", "(1.1)", "Erratum: a box of chapter 2", "erratum"):
        assert shown in claims_text.replace("\xa0", " "), shown
    assert "Theorem 2.2: Second theorem" in results.select_one("pre, div.highlight").get_text()


def test_results_extension_drops_the_raw_proof_index(small_build):
    """Neither the HTML nor the LaTeX builder generates sphinx-proof's index; other domain
    indices are kept."""
    out, _, config = small_build
    for name in ("html_domain_indices", "latex_domain_indices"):
        indices = getattr(config, name)
        assert isinstance(indices, list) and "prf-prf" not in indices, (name, indices)
        assert "py-modindex" in indices
    assert not (out / "prf-prf.html").exists()
    assert (out / "genindex.html").exists()


def test_results_extension_warns_for_an_unknown_label(tmp_path):
    _, warnings, _ = build_small(tmp_path, "thm-no-such-theorem")
    assert "claims.yml: Theorem 7 of paper2026: the book has no label 'thm-no-such-theorem'" in warnings


def test_stale_proof_index_is_removed(tmp_path):
    """An earlier build's prf-prf.html is deleted: nothing links it and it shows raw labels."""
    out = tmp_path / "html"
    out.mkdir()
    (out / "prf-prf.html").write_text("stale")
    src = small_project(tmp_path, "thm-one-a")
    from sphinx.application import Sphinx

    app = Sphinx(
        str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None, warning=None, freshenv=True
    )
    app.build()
    assert not (out / "prf-prf.html").exists()
    shutil.rmtree(out)


def test_results_extension_in_the_latex_edition(tmp_path):
    """The PDF's Results appendix: the same numbers, exercises that LaTeX can number, long test
    ids that may break, and no proof index (the .tex of the small project; no TeX run)."""
    from sphinx.application import Sphinx

    src = small_project(tmp_path, "thm-one-a")
    out = tmp_path / "latex"
    app = Sphinx(
        str(src),
        str(src),
        str(out),
        str(tmp_path / "doctrees"),
        "latex",
        status=None,
        warning=None,
        freshenv=True,
        confoverrides={"latex_documents": [("index", "small.tex", "Small", "A", "manual")]},
    )
    app.build()
    tex = (out / "small.tex").read_text(encoding="utf-8")
    results = tex[tex.index("Results") :].replace("\xa0", " ")  # XeLaTeX takes the no-break space
    assert "{\\sphinxcrossref{Theorem 2.2}}" in results
    assert "{\\sphinxcrossref{Definition 1.1}}" in results
    assert "\\hyperref[exercise:ex-one]{Exercise 1.1}" in results
    assert "Exercise \\ref{" not in results  # Sphinx's \ref has no counter for exercises: "??"
    assert "\\allowbreak{}" in results  # tests/book/test_claims.py::test_x may break
    assert "Proof Index" not in tex and "prf-prf" not in tex


# --------------------------------------------------------------------------------------------
# The book's own statements (issue #35)
# --------------------------------------------------------------------------------------------

OWN_KINDS = re.compile(
    r"^:{3,}\{prf:(theorem|proposition|lemma|corollary|conjecture)\}.*\n(?::class:.*\n)?:label:\s*(\S+)", re.M
)


def test_statement_verdicts_are_the_four_of_the_issue():
    assert book_results.STATEMENT_VERDICTS == (
        "proved in the text",
        "proved and searched",
        "checked numerically",
        "conjecture",
    )
    assert all(s["verdict"] in book_results.STATEMENT_VERDICTS for s in claims()["statements"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"verdict": "true"}, "is not one of"),
        ({"proof": None}, "needs 'proof'"),
        ({"checked_by": []}, "needs a test or a cell"),
        ({"checked_by": [{"notebook": "book/03_gaussian_priors.ipynb", "cell": "9541e574"}]}, "needs a search"),
        ({"domain": ""}, "'domain' is missing"),
        ({"author": "me"}, "unknown keys"),
    ],
)
def test_statement_loader_rejects_bad_entries(tmp_path, change, message):
    good = {
        "label": "prop-gauss-monotone-eps",
        "statement": "x",
        "domain": "y",
        "verdict": "proved and searched",
        "proof": "prop-gauss-monotone-eps",
        "checked_by": [{"test": "tests/claims/test_search.py::test_fast_search"}],
    }
    data = {"papers": claims()["papers"], "claims": [], "statements": [{**good, **change}]}
    bad = tmp_path / "claims.yml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        book_results.load_claims(bad)


def test_every_own_statement_of_chapters_1_to_9_is_registered():
    registered = {s["label"] for s in claims()["statements"]}
    boxes = {
        m[1]
        for path, cells in page_sources().items()
        if re.match(r"book/0[1-9]_", path)
        for cell in cells
        if cell["cell_type"] == "markdown"
        for m in OWN_KINDS.findall(source(cell))
    }
    assert len(boxes) >= 40
    assert not boxes - registered, f"boxes missing from the statements of book/claims.yml: {sorted(boxes - registered)}"
    assert not registered - boxes, f"statements that are no box of chapters 1-9: {sorted(registered - boxes)}"


def test_every_label_test_and_cell_of_the_statements_exists():
    problems = []
    for s in claims()["statements"]:
        for label in (s["label"], s.get("proof")):
            if label and label not in book_labels():
                problems.append((s["label"], label, "no such label"))
        for check in s["checked_by"]:
            why = node_id_problem(check["test"]) if "test" in check else cell_problem(check)
            if why:
                problems.append((s["label"], check, why))
    assert not problems, f"book/claims.yml statements: {problems}"


def unsearched(statements: list[dict]) -> list[str]:
    """Labels of the statements "checked numerically" that name no search of ``tests/claims/``.

    A statement without a proof in the text must at least be searched for a counterexample
    (issue #35): a node ``tests/claims/test_search.py::test_fast_search[<label>]`` or the like,
    whose parameter, if it has one, is the statement's own label."""
    out = []
    for s in statements:
        if s["verdict"] != "checked numerically":
            continue
        tests = [c["test"] for c in s["checked_by"] if c.get("test", "").startswith("tests/claims/")]
        if not any("[" not in t or t.endswith(f"[{s['label']}]") for t in tests):
            out.append(s["label"])
    return out


def test_a_statement_checked_numerically_names_a_search():
    assert not unsearched(claims()["statements"]), "statements 'checked numerically' without a search of tests/claims/"


def test_the_search_check_rejects_a_statement_without_a_search():
    entry = {
        "label": "thm-x",
        "verdict": "checked numerically",
        "checked_by": [{"notebook": "book/x.ipynb", "cell": "1"}],
    }
    assert unsearched([entry]) == ["thm-x"]
    other = {"test": "tests/claims/test_search.py::test_fast_search[thm-y]"}
    assert unsearched([{**entry, "checked_by": [other]}]) == ["thm-x"]  # another statement's search
    own = {"test": "tests/claims/test_search.py::test_fast_search[thm-x]"}
    assert unsearched([{**entry, "checked_by": [own]}]) == []
    assert unsearched([{**entry, "verdict": "proved in the text"}]) == []


def test_a_conjecture_is_written_as_one_in_the_chapter():
    """A statement without a proof and without a survived search must be a conjecture box."""
    conjectures = {
        m[1]
        for cells in page_sources().values()
        for cell in cells
        if cell["cell_type"] == "markdown"
        for m in OWN_KINDS.findall(source(cell))
        if m[0] == "conjecture"
    }
    for s in claims()["statements"]:
        assert (s["verdict"] == "conjecture") == (s["label"] in conjectures), s["label"]


def test_the_results_page_renders_the_statements():
    text = RESULTS_PAGE.read_text(encoding="utf-8")
    assert len(re.findall(r"^```\{rpp-statements\}\s*$", text, re.M)) == 1


def test_results_extension_renders_the_statements(small_build):
    from bs4 import BeautifulSoup

    out, _, _ = small_build  # its warnings are checked by the first test of the extension
    results = BeautifulSoup((out / "book" / "results.html").read_text(), "html.parser")
    tables = results.select("table.rpp-claims-table")
    assert len(tables) == 2  # the paper's claims, then the book's statements
    text = tables[1].get_text(" ", strip=True).replace("\xa0", " ")
    for shown in ("Theorem 1.2 : a general statement", "Domain: every x > 0", "proved and searched", "Proof: after"):
        assert shown in text, shown
    assert tables[1].select_one("em.rpp-verdict-proved-and-searched")
    assert tables[1].select_one("a")["href"].endswith("one.html#thm-one-b")


def test_a_registered_box_shows_its_verdict_linked_to_its_row(small_build):
    from bs4 import BeautifulSoup

    out, _, _ = small_build
    page = BeautifulSoup((out / "book" / "one.html").read_text(), "html.parser")
    chips = page.select("p.rpp-verdict-chip")
    assert len(chips) == 1  # thm-one-b only: the other boxes are not registered
    link = chips[0].select_one("a")
    assert link.get_text() == "proved and searched"
    assert link["href"] == "results.html#statement-thm-one-b"
    box = page.find(id="thm-one-b")
    assert box.find_next("p", class_="rpp-verdict-chip") is chips[0]
    results = BeautifulSoup((out / "book" / "results.html").read_text(), "html.parser")
    assert results.find(id="statement-thm-one-b")
