"""Structural checks of the book, fast enough to run before every commit (no build, no kernel).

What is checked:
- ``_toc.yml`` and the pages under ``book/`` agree: every notebook/page is listed, every entry exists;
- each chapter notebook: valid nbformat, ``python3`` kernel, first cell = the Colab bootstrap cell
  tagged ``remove-cell``, second cell = ``(ch-<name>)=`` label + ``# Title`` + learning
  objectives, no heading with a manual number (the numbered toc numbers chapters and sections),
  ``## Summary`` and ``## Exercises`` sections, every code line at most 88 columns, stored
  with outputs from one
  top-to-bottom run (every code cell executed, counts increasing), no stored error output, no
  skeleton placeholder left, solution code cells tagged ``solution`` inside solution blocks;
- every ``{prf:ref}``/``{eq}``/``{ref}``/``{numref}`` target and every solution's exercise label
  exists somewhere in the book, and no label is defined twice;
- every cited key exists in ``book/references.bib``, which parses and has complete entries;
- every ``erratum-*`` label of a chapter is listed on the errata page, and vice versa;
- the configuration keeps execution errors fatal with a finite timeout, and requirements are pinned.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
TOC = ROOT / "_toc.yml"
CONFIG = ROOT / "_config.yml"
BIB = BOOK / "references.bib"
ERRATA = BOOK / "errata.md"


def _load_new_chapter():
    spec = importlib.util.spec_from_file_location("new_chapter", ROOT / "tools" / "new_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


new_chapter = _load_new_chapter()
BOOTSTRAP_SOURCE = new_chapter.BOOTSTRAP_SOURCE
PLACEHOLDER = new_chapter.PLACEHOLDER

REQUIRED_BIB_KEYS = {
    "kifer2014pufferfish",
    "pierquin2024rpp",
    "song2017pufferfish",
    "ding2022kantorovich",
    "ding2024gaussian",
    "mironov2017renyi",
    "vanerven2014renyi",
    "yang2026rpp",
    "awass2026",
    "bai2026composition",
    "uci_adult",
    "uci_heart",
    "uci_student",
    "rppbook2026",
}

# --------------------------------------------------------------------------------------------
# Collecting pages, sources, labels and references
# --------------------------------------------------------------------------------------------


def _skip(path: Path) -> bool:
    return any(part.startswith(".") or part == "_build" for part in path.relative_to(ROOT).parts)


def book_pages() -> list[Path]:
    """Every page under book/: notebooks and MyST markdown files."""
    return sorted(p for ext in ("*.ipynb", "*.md") for p in BOOK.rglob(ext) if not _skip(p))


def notebooks() -> list[Path]:
    return [p for p in book_pages() if p.suffix == ".ipynb"]


NOTEBOOKS = notebooks()
NB_IDS = [p.name for p in NOTEBOOKS]


def toc_docnames(node=None) -> list[str]:
    """Docnames listed in _toc.yml (root + every file entry, recursively); one reader: tools/new_chapter.py."""
    if node is None:
        node = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    return new_chapter.toc_docnames(node)


def docname(path: Path) -> str:
    return path.relative_to(ROOT).with_suffix("").as_posix()


@cache
def read_nb(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


@cache
def markdown_sources() -> dict[str, str]:
    """{page: all of its MyST markdown text} for every page under book/."""
    out = {}
    for page in book_pages():
        if page.suffix == ".md":
            out[page.name] = page.read_text(encoding="utf-8")
        else:
            nb = read_nb(page)
            out[page.name] = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    return out


_FENCE_LINE_RE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*?)\s*$")


def strip_code_fences(text: str) -> str:
    """Drop fenced code blocks (```python, ```bash, ...): their text is not MyST markup.

    Directive fences (```{math}, ````{prf:theorem}, ...) are kept, including nested ones.
    """
    out, stack = [], []  # stack of (fence char, fence length, is_code)
    for line in text.splitlines():
        m = _FENCE_LINE_RE.match(line)
        closes = bool(
            m and stack and not m.group(2) and m.group(1)[0] == stack[-1][0] and len(m.group(1)) >= stack[-1][1]
        )
        if stack and stack[-1][2]:  # inside a code block: nothing is markup
            if closes:
                stack.pop()
            continue
        if closes:
            stack.pop()
        elif m:
            is_code = not m.group(2).startswith("{")
            stack.append((m.group(1)[0], len(m.group(1)), is_code))
            if is_code:
                continue
        out.append(line)
    return "\n".join(out)


_TARGET_RE = re.compile(r"^\s*\(([^()\s]+)\)=\s*$", re.M)  # (label)=
_OPTION_LABEL_RE = re.compile(r"^\s*:label:\s*(\S+)\s*$", re.M)  # :label: x (directives)
_DOLLAR_LABEL_RE = re.compile(r"\$\$\s*\(([^()\s]+)\)")  # $$ ... $$ (label)
_ROLE_RE = re.compile(r"\{(prf:ref|eq|ref|numref)\}`([^`]+)`")
_SOLUTION_RE = re.compile(r"^\s*(?:`{3,}|:{3,})\{solution(?:-start)?\}\s+(\S+)", re.M)
_CITE_RE = re.compile(r"\{(?:foot)?cite(?::[a-z]+)?\}`([^`]+)`")


def figure_names(page: Path) -> list[str]:
    """Labels of myst-nb figures: ``mystnb.figure.name`` in a code cell's metadata."""
    if page.suffix != ".ipynb":
        return []
    names = []
    for cell in read_nb(page).cells:
        figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
        if cell.cell_type == "code" and figure.get("name"):
            names.append(str(figure["name"]))
    return names


def labels_by_page() -> dict[str, list[str]]:
    out = {}
    pages = {page.name: page for page in book_pages()}
    for page, text in markdown_sources().items():
        text = strip_code_fences(text)
        out[page] = (
            _TARGET_RE.findall(text)
            + _OPTION_LABEL_RE.findall(text)
            + _DOLLAR_LABEL_RE.findall(text)
            + figure_names(pages[page])
        )
    return out


def role_target(content: str) -> str:
    """`text <label>` -> label; `label` -> label."""
    m = re.search(r"<([^<>]+)>\s*$", content)
    return (m.group(1) if m else content).strip()


def references_by_page() -> dict[str, list[tuple[str, str]]]:
    out = {}
    for page, text in markdown_sources().items():
        text = strip_code_fences(text)
        refs = [(role, role_target(c)) for role, c in _ROLE_RE.findall(text)]
        refs += [("solution", label) for label in _SOLUTION_RE.findall(text)]
        out[page] = refs
    return out


def cited_keys() -> dict[str, set[str]]:
    out = {}
    for page, text in markdown_sources().items():
        keys = set()
        for content in _CITE_RE.findall(strip_code_fences(text)):
            keys.update(k.strip() for k in content.split(",") if k.strip())
        out[page] = keys
    return out


@cache
def bib_entries():
    from pybtex.database import parse_file

    return parse_file(str(BIB), bib_format="bibtex").entries


# --------------------------------------------------------------------------------------------
# Table of contents
# --------------------------------------------------------------------------------------------


def test_toc_is_a_valid_jupyter_book_toc():
    from sphinx_external_toc.parsing import parse_toc_yaml

    site_map = parse_toc_yaml(TOC)
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    assert toc["format"] == "jb-book"
    assert toc["root"] == "book/preface", "the preface is the book's root page"
    assert site_map.root.docname == "book/preface"


def test_every_toc_entry_exists():
    missing = []
    for name in toc_docnames():
        candidates = [ROOT / f"{name}{ext}" for ext in (".ipynb", ".md")]
        found = [c for c in candidates if c.exists()]
        if len(found) != 1:
            missing.append(f"{name} ({'no file' if not found else 'both .ipynb and .md'})")
    assert not missing, f"_toc.yml entries without exactly one page: {missing}"


def test_every_page_is_in_toc():
    listed = set(toc_docnames())
    absent = [docname(p) for p in book_pages() if docname(p) not in listed]
    assert not absent, (
        f"pages under book/ missing from _toc.yml: {absent} (add them, e.g. with tools/new_chapter.py for new chapters)"
    )


def test_toc_lists_each_page_once():
    names = toc_docnames()
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"pages listed more than once in _toc.yml: {dupes}"


def test_appendices_close_the_book():
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    last = toc["parts"][-1]
    assert last["caption"] == "Appendices"
    files = [c["file"] for c in last["chapters"]]
    assert "book/errata" in files and files[-1] == "book/bibliography"


def test_chapters_are_numbered_and_appendices_are_not():
    """Chapters 1..N get their numbers from the toc (Definition 3.2, eq. (3.4)); the preface
    (root) and the appendices are unnumbered (tools/book_numbering.py prefixes P, A, B...)."""
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    parts = {p["caption"]: p for p in toc["parts"]}
    assert parts[new_chapter.CHAPTERS_CAPTION].get("numbered") is True
    for caption, part in parts.items():
        if caption != new_chapter.CHAPTERS_CAPTION:
            assert not part.get("numbered"), f"part {caption!r} must not be numbered"
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    sphinx_cfg = cfg["sphinx"]["config"]
    assert sphinx_cfg["numfig"] is True and sphinx_cfg["math_numfig"] is True
    assert sphinx_cfg["numfig_secnum_depth"] == 1
    assert cfg["sphinx"]["local_extensions"].get("book_numbering") == "tools/"


def test_toc_round_trips_through_new_chapter():
    """tools/new_chapter.py rewrites _toc.yml: it must reproduce the file exactly."""
    toc, header = new_chapter.read_toc(TOC)
    assert new_chapter.dump_toc(toc, header) == TOC.read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Chapter notebooks
# --------------------------------------------------------------------------------------------


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def check_notebook_structure(path: Path, nb) -> list[str]:  # noqa: C901  one independent rule of the layout after another
    """Problems with a chapter notebook's layout (not its execution); [] when it is fine."""
    problems = []
    m = new_chapter.NOTEBOOK_RE.match(path.name)
    if not m:
        return [f"file name must be NN_slug.ipynb (e.g. 03_gaussian_priors.ipynb), got {path.name}"]
    number, slug = int(m.group(1)), m.group(2)
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append("kernelspec name must be 'python3'")
    if not nb.cells:
        return [*problems, "notebook has no cells"]
    first = nb.cells[0]
    if first.cell_type != "code" or first.source.strip() != BOOTSTRAP_SOURCE.strip():
        problems.append("cell 1 must be exactly the Colab bootstrap cell of tools/new_chapter.py")
    if "remove-cell" not in _tags(first):
        problems.append("cell 1 (bootstrap) must be tagged 'remove-cell'")
    if len(nb.cells) < 2 or nb.cells[1].cell_type != "markdown":
        problems.append("cell 2 must be a markdown cell with the chapter label and title")
    else:
        head = nb.cells[1].source
        if not re.match(r"\(ch-[a-z0-9][a-z0-9-]*\)=\s*\n", head):
            problems.append(f"cell 2 must start with a chapter label line such as (ch-{new_chapter.topic_of(slug)})=")
        title = re.search(r"^# (\S.*)$", head, re.M)
        if not title:
            problems.append("cell 2 must contain the title line '# <Title>'")
        elif NUMBERED_HEADING_RE.match(title.group(0)):
            problems.append(
                f"title {title.group(0)!r} carries a manual number: write "
                f"'# <Title>' (Sphinx numbers chapter {number} from _toc.yml)"
            )
        if "{admonition} Learning objectives" not in head:
            problems.append("cell 2 must contain the 'Learning objectives' admonition")
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    numbered = [h for h in markdown_headings(md) if NUMBERED_HEADING_RE.match(h)]
    if numbered:
        problems.append(
            "headings with a manual number (the numbered toc adds chapter and "
            f"section numbers; write the heading without it): {numbered}"
        )
    for heading in ("## Summary", "## Exercises"):
        if not re.search(rf"^{heading}\s*$", md, re.M):
            problems.append(f"missing section '{heading}'")
    if not re.search(r"\{exercise\}", md):
        problems.append("no {exercise} directive")
    # solution blocks: code cells between solution-start and solution-end are tagged 'solution'
    inside = False
    for i, cell in enumerate(nb.cells, start=1):
        src = cell.source
        if cell.cell_type == "markdown" and "{solution-start}" in src:
            if inside:
                problems.append(f"cell {i}: solution-start inside an open solution block")
            inside = "{solution-end}" not in src
            continue
        if cell.cell_type == "markdown" and "{solution-end}" in src:
            if not inside:
                problems.append(f"cell {i}: solution-end without solution-start")
            inside = False
            continue
        if cell.cell_type == "code":
            if inside and "solution" not in _tags(cell):
                problems.append(f"cell {i}: code cell inside a solution block is not tagged 'solution'")
            if not inside and "solution" in _tags(cell):
                problems.append(f"cell {i}: cell tagged 'solution' outside a solution block")
    if inside:
        problems.append("a solution-start block is never closed by solution-end")
    return problems


#: A heading that starts with a hand-typed number: "# 3. Gaussian priors", "## 3.1 The ...",
#: "### 3.4.2 ...", "## 2) ..." (Sphinx adds the numbers; a manual one doubles them).
NUMBERED_HEADING_RE = re.compile(r"^#{1,6}\s+\d+(\.\d+)*[.):]?(\s|$)")
MAX_CODE_COLUMNS = 88


def markdown_headings(text: str) -> list[str]:
    """ATX heading lines of MyST text, outside fenced code blocks."""
    return [line.strip() for line in strip_code_fences(text).splitlines() if re.match(r"^#{1,6}\s", line)]


def long_code_lines(nb) -> list[str]:
    """``cell N line M: L columns`` for every code line longer than MAX_CODE_COLUMNS."""
    out = []
    for i, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        for j, line in enumerate(cell.source.splitlines(), start=1):
            if len(line) > MAX_CODE_COLUMNS:
                out.append(f"cell {i} line {j}: {len(line)} columns")
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_code_lines_fit_88_columns(path):
    """Every line of every code cell (hidden ones included: Colab and GitHub show them) fits in
    88 columns, the width the web book and the PDF show without scrolling or wrapping.
    Fix with ``ruff format --line-length 88`` on the notebook, then wrap comments and strings."""
    long = long_code_lines(read_nb(path))
    assert not long, f"{path.name}: {len(long)} code line(s) over {MAX_CODE_COLUMNS} columns:\n  " + "\n  ".join(long)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_structure(path):
    nb = read_nb(path)
    nbformat.validate(nb)
    problems = check_notebook_structure(path, nb)
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_has_no_error_outputs(path):
    bad = [
        i
        for i, c in enumerate(read_nb(path).cells, start=1)
        if c.cell_type == "code" and any(o.get("output_type") == "error" for o in c.get("outputs", []))
    ]
    assert not bad, f"{path.name}: stored error output in cells {bad}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_is_executed_top_to_bottom(path):
    """Stored with outputs from one fresh run: every code cell executed, counts increasing."""
    cells = [(i, c) for i, c in enumerate(read_nb(path).cells, start=1) if c.cell_type == "code"]
    unexecuted = [i for i, c in cells if c.get("execution_count") is None]
    assert not unexecuted, (
        f"{path.name}: code cells never executed: {unexecuted} (delete empty cells, then run "
        f"`jupyter execute --inplace book/{path.name}`)"
    )
    counts = [c["execution_count"] for _, c in cells]
    assert counts == sorted(set(counts)), (
        f"{path.name}: execution counts {counts} are not increasing: re-run the notebook top to "
        "bottom in a fresh kernel"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_has_no_placeholder(path):
    marks = re.compile(rf"{PLACEHOLDER}|\bTODO\b|\bFIXME\b", re.I)
    bad = [i for i, c in enumerate(read_nb(path).cells, start=1) if marks.search(c.source)]
    assert not bad, f"{path.name}: placeholder text ({PLACEHOLDER}/TODO/FIXME) in cells {bad}"


def test_new_chapter_skeleton_follows_conventions(tmp_path):
    """The skeleton made by tools/new_chapter.py passes the structural checks and executes."""
    (tmp_path / "book").mkdir()
    (tmp_path / "_toc.yml").write_text(TOC.read_text(encoding="utf-8"), encoding="utf-8")
    assert new_chapter.main(["42", "test_topic", "A test chapter", "--root", str(tmp_path)]) == 0
    path = tmp_path / "book" / "42_test_topic.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert check_notebook_structure(path, nb) == []
    assert long_code_lines(nb) == []
    codes = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in codes] == list(range(1, len(codes) + 1))
    assert not [o for c in codes for o in c.outputs if o.get("output_type") == "error"]
    toc = yaml.safe_load((tmp_path / "_toc.yml").read_text(encoding="utf-8"))
    assert "book/42_test_topic" in toc_docnames(toc)
    assert toc["parts"][-1]["caption"] == "Appendices"
    with pytest.raises(SystemExit):  # the same chapter number cannot be created twice
        new_chapter.main(["42", "other", "Other", "--root", str(tmp_path), "--no-execute"])


# --------------------------------------------------------------------------------------------
# Cross-references and citations
# --------------------------------------------------------------------------------------------


def test_labels_are_unique():
    seen, dupes = {}, []
    for page, labels in labels_by_page().items():
        for label in labels:
            if label in seen:
                dupes.append(f"{label} ({seen[label]} and {page})")
            seen[label] = page
    assert not dupes, f"labels defined twice: {dupes}"


def test_every_reference_target_exists():
    known = {label for labels in labels_by_page().values() for label in labels}
    missing = [
        f"{page}: {{{role}}}`{target}`"
        for page, refs in references_by_page().items()
        for role, target in refs
        if target not in known
    ]
    assert not missing, "references to labels defined nowhere in the book:\n  " + "\n  ".join(missing)


def test_every_cited_key_is_in_references_bib():
    keys = set(bib_entries())
    missing = sorted(f"{page}: {k}" for page, cited in cited_keys().items() for k in cited if k not in keys)
    assert not missing, f"cited keys missing from book/references.bib: {missing}"


def test_references_bib_is_complete():
    entries = bib_entries()  # pybtex raises on syntax errors and duplicate keys
    assert REQUIRED_BIB_KEYS <= set(entries), f"missing: {REQUIRED_BIB_KEYS - set(entries)}"
    problems = []
    for key, entry in entries.items():
        fields = {k.lower(): v for k, v in entry.fields.items()}
        for field in ("title", "year"):
            if not fields.get(field):
                problems.append(f"{key}: no {field}")
        if "author" not in entry.persons and "editor" not in entry.persons and "note" not in fields:
            problems.append(f"{key}: no author (add a note saying why)")
        doi = fields.get("doi")
        if doi and not re.fullmatch(r"10\.\d{4,9}/\S+", doi):
            problems.append(f"{key}: malformed doi {doi!r}")
        if entry.type == "article" and not fields.get("journal"):
            problems.append(f"{key}: article without journal")
        if entry.type == "inproceedings" and not fields.get("booktitle"):
            problems.append(f"{key}: inproceedings without booktitle")
    assert not problems, problems


def test_errata_page_lists_every_erratum():
    """Each chapter's `(erratum-...)=` box is linked from the errata appendix, and vice versa."""
    defined = {
        label
        for page, labels in labels_by_page().items()
        if page != ERRATA.name
        for label in labels
        if label.startswith("erratum-")
    }
    linked = {target for _, target in references_by_page()[ERRATA.name] if target.startswith("erratum-")}
    assert defined - linked == set(), f"errata not listed in book/errata.md: {defined - linked}"
    assert linked - defined == set(), f"errata.md lists undefined errata: {linked - defined}"


# --------------------------------------------------------------------------------------------
# Configuration and environment
# --------------------------------------------------------------------------------------------


def test_config_keeps_execution_honest():
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    ex = cfg["execute"]
    assert ex["execute_notebooks"] in {"cache", "force"}
    assert 0 < ex["timeout"] <= 600, "per-cell timeout must be finite"
    assert ex["allow_errors"] is False and ex["raise_on_error"] is True
    extensions = cfg["sphinx"]["extra_extensions"]
    assert {"sphinx_proof", "sphinx_exercise", "sphinxcontrib.bibtex"} <= set(extensions)
    assert cfg["bibtex_bibfiles"] == ["book/references.bib"]
    assert cfg["sphinx"]["config"]["bibtex_reference_style"] == "author_year"
    macros = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    assert {"Dalpha", "RPP", "E", "N", "KL", "Winf", "Walpha"} <= set(macros)
    assert "Pr" not in macros, "\\Pr is a TeX built-in: do not redefine it"
    launch = cfg["launch_buttons"]
    assert launch["colab_url"] and launch["binderhub_url"]


def test_requirements_are_pinned():
    """Both locks (requirements.txt, the reader's; requirements-dev.txt, the developers') pin
    every requirement exactly; their hashes are checked in tests/test_packaging.py."""
    reqs = []
    for lock in ("requirements.txt", "requirements-dev.txt"):
        for ln in (ROOT / lock).read_text().splitlines():
            ln = re.sub(r"\s*;[^\\]*", "", ln).rstrip(" \\").strip()  # markers, continuation
            if ln and not ln.startswith(("#", "--hash=", "-r ")):
                reqs.append(ln)
    unpinned = [ln for ln in reqs if not re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[A-Za-z0-9_.+\-!]+", ln)]
    assert not unpinned, f"unpinned or editable requirement lines: {unpinned}"
    names = {re.split(r"==", ln)[0].lower().replace("_", "-") for ln in reqs}
    needed = {
        "jupyter-book",
        "numpy",
        "scipy",
        "scikit-learn",
        "pandas",
        "matplotlib",
        "sympy",
        "mpmath",
        "pot",
        "hypothesis",
        "pytest",
        "nbval",
        "tqdm",
        "sphinx-proof",
        "sphinx-exercise",
        "sphinxcontrib-bibtex",
        "ipykernel",
    }
    assert needed <= names, f"not pinned: {needed - names}"


def test_latex_preamble_defines_every_mathjax_macro():
    """The PDF edition's preamble is generated from _config.yml's MathJax macros (one source)."""
    spec = importlib.util.spec_from_file_location("book_latex", ROOT / "tools" / "book_latex.py")
    book_latex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(book_latex)
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    macros = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    lines = book_latex.latex_macros(macros).splitlines()
    assert lines == [f"\\DeclareRobustCommand{{\\{name}}}{{{body}}}" for name, body in macros.items()]
    assert book_latex.latex_macros({"pair": ["(#1, #2)", 2]}) == "\\DeclareRobustCommand{\\pair}[2]{(#1, #2)}"
    assert cfg["sphinx"]["local_extensions"].get("book_latex") == "tools/"
    assert cfg["latex"]["use_jupyterbook_latex"] is False, (
        "jupyterBook.cls needs bbm.sty (texlive-fonts-extra, 508 MB): keep Sphinx's class"
    )
