"""The PDF edition as a reader meets it: checks of the PDF that ``make pdf`` built.

This folder is not under ``tests/``: ``make test`` needs no TeX installation. ``make pdf`` runs
these checks right after building the PDF; ``.ci/run`` runs ``make pdf``.

The text of the PDF is extracted with ``pdftotext`` (Debian's ``poppler-utils``), and
the LaTeX source ``_build/latex/rpp-book.tex`` is read for its structure. Chapter titles and
numbers are read from ``_toc.yml`` and the notebooks, never hard-coded:

- every chapter title of the toc is in the PDF, as "Chapter <n>" with n its place in the
  numbered part (the web book's number), and no chapter number beyond the last chapter exists;
- the preface is front matter (before ``\\mainmatter``, unnumbered) and the appendices follow
  ``\\appendix``;
- every chapter has at least one result numbered with its chapter ("Theorem 3.2", "(3.4)",
  "Figure 6.1", ...), and the preface's results are numbered P.n;
- every MathJax macro of ``_config.yml`` is defined in the LaTeX preamble;
- the bibliography is there, with one entry per cited work;
- every figure of the executed chapters (the execution cache both builds use) is in the PDF, as
  a vector figure (a PDF file, not a bitmap).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
#: The PDF LaTeX wrote; ``make pdf`` copies it to _build/pdf/ (the edition the web book links)
#: only after these checks pass.
PDF = ROOT / "_build" / "latex" / "rpp-book.pdf"
TEX = ROOT / "_build" / "latex" / "rpp-book.tex"
CONFIG = ROOT / "_config.yml"
RESULT_KINDS = (
    "Definition",
    "Theorem",
    "Proposition",
    "Corollary",
    "Lemma",
    "Remark",
    "Algorithm",
    "Example",
    "Exercise",
    "Figure",
)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


new_chapter = _load("new_chapter")


def toc() -> dict:
    return yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))


def chapter_docnames() -> list[str]:
    part = next(p for p in toc()["parts"] if p.get("numbered"))
    return [c["file"] for c in part["chapters"]]


def appendix_docnames() -> list[str]:
    parts = toc()["parts"]
    last_numbered = max(i for i, p in enumerate(parts) if p.get("numbered"))
    return [c["file"] for p in parts[last_numbered + 1 :] for c in p["chapters"]]


def executable_appendices() -> list[str]:
    """Appendices that are executed notebooks: .ipynb, or MyST markdown with a kernelspec."""
    out = []
    for d in appendix_docnames():
        md = ROOT / f"{d}.md"
        if (ROOT / f"{d}.ipynb").exists() or (md.exists() and "kernelspec:" in md.read_text(encoding="utf-8")[:600]):
            out.append(d)
    return out


def page_title(docname: str) -> str:
    """The page's '# Title' line, without a manual number if an old notebook still has one."""
    path = next(p for p in (ROOT / f"{docname}.ipynb", ROOT / f"{docname}.md") if p.exists())
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    title = re.search(r"^# (.+)$", text, re.M).group(1).strip()
    return re.sub(r"^\d+(\.\d+)*\.?\s+", "", title)


def squash(text: str) -> str:
    """Every run of whitespace (line breaks included) as one space, for robust matching."""
    return re.sub(r"\s+", " ", text)


@cache
def pdf_text() -> str:
    if not PDF.is_file():
        pytest.fail(f"no PDF at {PDF.relative_to(ROOT)}: run `make pdf` first", pytrace=False)
    if not shutil.which("pdftotext"):
        pytest.fail("pdftotext missing: apt-get install poppler-utils", pytrace=False)
    out = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(PDF), "-"], check=True, capture_output=True, text=True
    ).stdout
    return squash(out)


@cache
def tex_source() -> str:
    if not TEX.is_file():
        pytest.fail(f"no LaTeX source at {TEX.relative_to(ROOT)}: run `make pdf` first", pytrace=False)
    return TEX.read_text(encoding="utf-8")


def test_pdf_has_pages():
    info = subprocess.run(["pdfinfo", str(PDF)], check=True, capture_output=True, text=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    # one page per chapter at the very least, plus front matter and appendices
    assert pages > len(chapter_docnames()) + len(appendix_docnames()), f"only {pages} pages"


@pytest.mark.parametrize("number,docname", list(enumerate(chapter_docnames(), start=1)))
def test_chapter_title_and_number(number, docname):
    text = pdf_text()
    title = squash(page_title(docname))
    assert re.search(rf"Chapter {number}\b", text), f"no 'Chapter {number}' in the PDF"
    assert title in text, f"chapter {number} title {title!r} not in the PDF"
    # the chapter heading is the number followed (after the line break) by the title
    assert re.search(rf"Chapter {number} {re.escape(title)}", text), (
        f"'Chapter {number}' is not followed by its title {title!r}"
    )


def test_no_chapter_beyond_the_last():
    extra = len(chapter_docnames()) + 1
    assert not re.search(rf"Chapter {extra}\b", pdf_text()), (
        f"a 'Chapter {extra}': the preface or an appendix is numbered as a chapter"
    )


@pytest.mark.parametrize("number", range(1, len(chapter_docnames()) + 1))
def test_results_are_numbered_by_chapter(number):
    kinds = "|".join(RESULT_KINDS)
    found = re.findall(rf"\b(?:{kinds}) {number}\.\d+\b|\({number}\.\d+\)", pdf_text())
    assert found, f"no result numbered {number}.n (Theorem {number}.1, ({number}.1), ...)"


def test_preface_is_front_matter_and_appendices_follow_appendix():
    tex = tex_source().split(r"\begin{document}", 1)[1]  # the preamble defines the macros
    preface = page_title(toc()["root"])
    first = page_title(chapter_docnames()[0])
    positions = {
        "front matter": tex.find(r"\rppfrontmatter"),
        f"chapter {preface}": tex.find(rf"\chapter{{{preface}}}"),
        "main matter": tex.find(r"\rppmainmatter"),
        f"chapter {first}": tex.find(rf"\chapter{{{first}"),
        "appendix": tex.find(r"\appendix"),
    }
    for docname in appendix_docnames():
        title = page_title(docname)
        positions[f"appendix {title}"] = tex.find(rf"\chapter{{{title}}}")
    missing = [k for k, v in positions.items() if v < 0]
    assert not missing, f"not in {TEX.name}: {missing}"
    order = sorted(positions, key=positions.get)
    assert order == list(positions), f"structure out of order: {order}"
    assert re.search(r"\b(?:Definition|Theorem) P\.1\b", pdf_text()), (
        "the preface's results are not numbered P.1, P.2, ..."
    )


def test_mathjax_macros_are_defined_in_the_preamble():
    cfg = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    macros = cfg["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    preamble = tex_source().split(r"\begin{document}")[0]
    missing = [name for name, body in macros.items() if f"\\DeclareRobustCommand{{\\{name}}}{{{body}}}" not in preamble]
    assert not missing, f"MathJax macros not defined in the LaTeX preamble: {missing}"


def cited_keys() -> set[str]:
    """Every key cited with a {cite...} role in a page of the book (Markdown and notebooks)."""
    texts = [p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")]
    for path in (ROOT / "book").glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    groups = re.findall(r"\{(?:foot)?cite(?::[a-z]+)?\}`([^`]+)`", "\n".join(texts))
    return {k.strip() for group in groups for k in group.split(",") if k.strip()}


def test_bibliography_is_in_the_pdf():
    """The bibliography lists every cited work (sphinxcontrib-bibtex lists the cited ones)."""
    tex = tex_source()
    assert r"\begin{sphinxthebibliography}" in tex
    items = len(re.findall(r"\\bibitem\[", tex))
    assert items == len(cited_keys()), (
        f"{items} entries in the PDF's bibliography, {len(cited_keys())} works cited in the book"
    )


def executed_plots(docname: str) -> int:
    """Images in the executed notebook the builds use (the jupyter-cache of _build)."""
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(ROOT / "_build" / ".jupyter_cache")
    path = ROOT / f"{docname}.ipynb"
    if path.exists():
        nb = nbformat.read(path, as_version=4)
    else:  # a MyST-markdown notebook (the Status appendix), read as myst-nb reads it
        from myst_nb.core.read import read_myst_markdown_notebook

        nb = read_myst_markdown_notebook((ROOT / f"{docname}.md").read_text(encoding="utf-8"))
    record = cache.match_cache_notebook(nb)  # raises if the notebook was never executed
    executed = cache.get_cache_bundle(record.pk).nb
    # The figures are stored as SVG and PDF (the chapters' setup cells); the LaTeX builder
    # includes the PDF, or a PNG where a figure has no PDF.
    return sum(
        1
        for c in executed.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if {"application/pdf", "image/png"} & set(o.get("data", {}))
    )


def test_every_figure_of_the_executed_notebooks_is_in_the_pdf():
    """As many images are in the PDF as the executed pages display (the chapters and any
    appendix that is a notebook, such as the Status appendix), and there are some."""
    plots = sum(executed_plots(d) for d in chapter_docnames() + executable_appendices())
    included = len(re.findall(r"\\sphinxincludegraphics", tex_source()))
    assert plots > 0, "the executed chapters display no figure (MPLBACKEND=Agg in the kernel?)"
    assert included == plots, f"{included} images in the PDF, {plots} in the executed chapters"


def test_figures_are_vector_in_the_pdf():
    """Every figure the LaTeX source includes is a PDF (the chapters store their figures as SVG
    for the web and PDF for print): nothing is a bitmap scaled to the page."""
    graphics = re.findall(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{(.*?)\}\s", tex_source() + " ")
    assert graphics, "no figure in the LaTeX source"
    bitmaps = [g for g in graphics if not g.rstrip("}").endswith(".pdf")]
    assert not bitmaps, f"{len(bitmaps)} bitmap figures in the PDF: {bitmaps[:5]}"
