"""The built book's files, read without a browser (``make book`` first; ``make browser-test``
runs this file with the others, and it needs no Chromium):

- **notebooks**: each chapter page's download menu links "Notebook (.ipynb)" to
  ``notebooks/NN_slug.ipynb`` and "Exercises (.ipynb)" to ``notebooks/student/NN_slug.ipynb``,
  both written by ``make book``, the Jupyter and the student edition of that chapter; no chapter
  offers its raw MyST source (``_sources/...ipynb``); the Colab and Binder buttons open the
  chapter on the branch that holds the published Jupyter edition;
- **figures**: every figure of a chapter is an SVG image (a vector figure, sharp at any width);
  no chapter shows a PNG;
- **checked by**: every item of the Results appendix's "Checked by" lines is a link: a test to
  its source on the repository, a cell to the anchor ``cell-<id>`` of its chapter page, which
  exists there and shows a visible "Cell <id>" line;
- **citation**: the preface's BibTeX block is the entry ``tools/citation.py`` generates from
  ``CITATION.cff``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from book_site import HTML, ROOT, toc_notebooks
from bs4 import BeautifulSoup

CHAPTERS = toc_notebooks()


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def page(docname: str) -> BeautifulSoup:
    path = HTML / f"{docname}.html"
    if not path.is_file():
        pytest.fail(f"no {path}: run `make book` first", pytrace=False)
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def local_target(docname: str, href: str) -> Path:
    return (HTML / docname).parent.joinpath(unquote(urlsplit(href).path)).resolve()


def test_toc_has_chapters():
    assert CHAPTERS


@pytest.mark.parametrize("docname", CHAPTERS)
def test_download_menu_offers_both_editions(docname):
    soup = page(docname)
    name = Path(docname).name
    links = {a.get_text(" ", strip=True): a["href"] for a in soup.select(".dropdown-download-buttons a[href]")}
    assert not [h for h in links.values() if "_sources/" in h and h.endswith(".ipynb")], links
    for text, folder, edition in (
        ("Notebook (.ipynb)", "notebooks", "jupyter"),
        ("Exercises (.ipynb)", "notebooks/student", "student"),
    ):
        href = next((h for t, h in links.items() if text in t), None)
        assert href, f"{docname}: no {text!r} in the download menu {links}"
        target = local_target(docname, href)
        assert target == (HTML / folder / f"{name}.ipynb").resolve(), href
        assert target.is_file(), f"{docname}: {href} does not exist (make book writes it)"
        meta = json.loads(target.read_text(encoding="utf-8"))["metadata"]["rpp_book"]
        assert meta["edition"] == edition and meta["source"] == f"{docname}.ipynb", meta


@pytest.mark.parametrize("docname", CHAPTERS)
def test_launch_buttons_open_the_jupyter_edition(docname):
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    branch = config["repository"]["branch"]
    soup = page(docname)
    hrefs = [a["href"] for a in soup.select(".dropdown-launch-buttons a[href]")]
    colab = [h for h in hrefs if "colab" in h]
    binder = [h for h in hrefs if "mybinder" in h]
    assert colab and colab[0].endswith(f"/blob/{branch}/{docname}.ipynb"), hrefs
    assert binder and f"/{branch}?" in binder[0] and binder[0].endswith(f"{docname}.ipynb"), hrefs


@pytest.mark.parametrize("docname", CHAPTERS)
def test_figures_are_vector_images(docname):
    soup = page(docname)
    images = [img["src"] for img in soup.select("div.cell_output img")]
    assert not [s for s in images if not s.endswith(".svg")], f"{docname}: bitmap figures {images}"
    for src in images:
        assert local_target(docname, src).is_file(), src


def test_every_check_of_the_registry_is_a_link():
    claims = yaml.safe_load((ROOT / "book" / "claims.yml").read_text(encoding="utf-8"))["claims"]
    n_tests = sum("test" in c for claim in claims for c in claim["checked_by"])
    n_cells = sum("notebook" in c for claim in claims for c in claim["checked_by"])
    soup = page("book/results")
    lines = soup.select("p.rpp-checked-by")
    assert lines
    test_links = [a for p in lines for a in p.select("a.rpp-test-link")]
    assert len(test_links) == n_tests, f"{len(test_links)} test links, {n_tests} tests in claims.yml"
    for a in test_links:
        assert re.fullmatch(r"https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/tests/\S+\.py#L\d+", a["href"]), a
    cell_links = [a for p in lines for a in p.select("a[href*='#cell-']")]
    assert len(cell_links) == n_cells, f"{len(cell_links)} cell links, {n_cells} cells in claims.yml"
    targets = {}
    for a in cell_links:
        path, _, anchor = a["href"].partition("#")
        targets.setdefault(path, set()).add(anchor)
    for path, anchors in targets.items():
        doc = local_target("book/results", path)
        soup = BeautifulSoup(doc.read_text(encoding="utf-8"), "html.parser")
        for anchor in anchors:
            el = soup.find(id=anchor)
            assert el is not None, f"{path}: no anchor {anchor}"
            line = el.find_parent("p", class_="rpp-cell-anchor")
            assert line is not None and line.get_text().startswith(f"Cell {anchor[5:]}"), f"{path}#{anchor}"


def test_preface_shows_the_bibtex_generated_from_citation_cff():
    citation = _load("citation")
    expected = citation.bibtex(citation.read_cff(ROOT))
    blocks = [pre.get_text() for pre in page("book/preface").select("div.rpp-bibtex pre")]
    assert [b.strip() for b in blocks] == [expected], blocks
