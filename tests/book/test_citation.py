"""The book's citation has one source, ``CITATION.cff`` (tools/citation.py), and a stray page in
``book/`` stops the build with a clear message (tools/book_html.py).

- the BibTeX entry ``rppbook<year>`` of ``book/references.bib`` is exactly the one generated
  from ``CITATION.cff``, and the preface shows that entry (``{rpp-bibtex}``), not a copy;
- the generator follows the file (a new version or title changes the entry) and refuses what
  it cannot spell in BibTeX; ``--check`` fails on a drifted entry and ``--write`` mends it;
- every page directly in ``book/`` is listed in ``_toc.yml``, and an unlisted one is named,
  with what to do, before Sphinx reads anything.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


citation = _load("citation")
book_html = _load("book_html")


def test_references_bib_holds_the_entry_generated_from_citation_cff():
    entry = citation.bibtex(citation.read_cff(ROOT))
    text = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    start, end = citation.find_entry(text, citation.key_of(entry))
    assert text[start:end] == entry
    assert citation.check(ROOT) is None


def test_preface_shows_the_generated_entry_and_no_copy():
    preface = (ROOT / "book" / "preface.md").read_text(encoding="utf-8")
    key = citation.key_of(citation.bibtex(citation.read_cff(ROOT)))
    assert re.search(r"^```\{rpp-bibtex\} " + key + r"\n```$", preface, re.M), "the preface must show {rpp-bibtex}"
    assert not re.search(r"^@\w+\{", preface, re.M), "a hand-written BibTeX entry in the preface"
    assert f"{{cite:t}}`{key}`" in preface


def test_entry_follows_the_citation_file():
    cff = citation.read_cff(ROOT)
    cff["version"] = "9.8.7"
    cff["preferred-citation"]["title"] = "The data of Ørsted"
    with pytest.raises(ValueError, match="no BibTeX spelling"):  # Ø has no accent form
        citation.bibtex(cff)
    cff["preferred-citation"]["title"] = "Les données de Müller & co, 50%"
    cff["preferred-citation"]["authors"] = [{"family-names": "Rényi", "given-names": "Alfréd"}, {"name": "A Team"}]
    entry = citation.bibtex(cff)
    assert "note   = {Version 9.8.7}" in entry
    assert "title  = {{Les donn{\\'e}es de M{\\\"u}ller \\& co, 50\\%}}" in entry
    assert "author = {R{\\'e}nyi, Alfr{\\'e}d and {A Team}}" in entry
    del cff["preferred-citation"]["year"]
    with pytest.raises(ValueError, match="year"):
        citation.bibtex(cff)


def test_check_fails_on_drift_and_write_mends_it(tmp_path):
    shutil.copy(ROOT / "CITATION.cff", tmp_path / "CITATION.cff")
    (tmp_path / "book").mkdir()
    shutil.copy(ROOT / "book" / "references.bib", tmp_path / "book" / "references.bib")
    assert citation.main(["--check", "--root", str(tmp_path)]) == 0
    cff = yaml.safe_load((tmp_path / "CITATION.cff").read_text(encoding="utf-8"))
    cff["version"] = "0.9.9"
    (tmp_path / "CITATION.cff").write_text(yaml.safe_dump(cff, allow_unicode=True), encoding="utf-8")
    assert "differs" in citation.check(tmp_path)
    assert citation.main(["--check", "--root", str(tmp_path)]) == 1
    assert citation.write(tmp_path) is True
    assert citation.check(tmp_path) is None
    bib = (tmp_path / "book" / "references.bib").read_text(encoding="utf-8")
    assert "{Version 0.9.9}" in bib and bib.count("rppbook2026,") == 1
    assert "@article{lauritzen1988local" in bib  # the other entries are kept


def test_build_warns_when_the_entry_drifted(tmp_path, monkeypatch):
    shutil.copy(ROOT / "CITATION.cff", tmp_path / "CITATION.cff")
    (tmp_path / "book").mkdir()
    bib = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    (tmp_path / "book" / "references.bib").write_text(bib.replace("Version 0.2.0", "Version 0.1"), encoding="utf-8")
    warnings = []
    monkeypatch.setattr(book_html.LOGGER, "warning", lambda msg, **kw: warnings.append(msg))
    book_html.check_citation(SimpleNamespace(srcdir=str(tmp_path)), None)
    assert warnings and "tools/citation.py --write" in warnings[0]


def test_every_page_of_book_is_in_the_toc():
    assert book_html.pages_missing_from_toc(ROOT) == []


def test_a_stray_page_is_named_with_what_to_do(tmp_path):
    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    (tmp_path / "book").mkdir()
    for page in book_html._toc_files(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))):
        suffix = ".md" if (ROOT / f"{page}.md").exists() else ".ipynb"
        (tmp_path / f"{page}{suffix}").write_text("{}", encoding="utf-8")
    app = SimpleNamespace(srcdir=str(tmp_path))
    book_html.check_toc(app, None)  # every page listed: nothing to say
    (tmp_path / "book" / "10_scratch.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(book_html.ConfigError, match=r"book/10_scratch\.ipynb: in book/ but not in _toc\.yml\. Add"):
        book_html.check_toc(app, None)


def test_the_preface_shows_the_entry_unchanged():
    """The preface's {rpp-bibtex} wraps long lines for its column; the generated entry is wrapped
    already, so the preface shows exactly the text of references.bib."""
    spec = importlib.util.spec_from_file_location("book_results", ROOT / "tools" / "book_results.py")
    book_results = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(book_results)
    entry = citation.bibtex(citation.read_cff(ROOT))
    assert book_results.wrap_bibtex(entry) == entry
    assert max(len(line) for line in entry.splitlines()) <= citation.WIDTH
