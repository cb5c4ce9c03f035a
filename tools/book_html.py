"""Sphinx extension of The RPP Book: the HTML pages work offline and load without console errors.

Loaded through ``_config.yml``::

    sphinx:
      local_extensions:
        book_html: tools/              # this file
      config:
        mathjax_path: mathjax/tex-chtml.js

It does six things, the first four checked in a real browser by ``browser_tests/`` (``make browser-test``).

1. **MathJax from the book itself, never from a CDN.** A class room without internet (or a
   reader who downloaded ``_build/html``) would otherwise see raw ``$$`` on every page. The book
   ships the MathJax 3 distribution that the PyPI package ``django-static-mathjax`` carries
   (``mathjax/static/mathjax/es5/``; pinned in ``requirements.txt``; it has no dependencies and
   needs no Django). Sphinx turns the relative ``mathjax_path`` into
   ``_static/mathjax/tex-chtml.js``; after each HTML build the ``es5`` tree is copied into
   ``<outdir>/_static/mathjax/``, without the alternative bundles a ``tex-chtml.js`` page never
   loads (SVG output, MathML input, the "full" and Node builds): about 8 MB instead of 24 MB.
   MathJax loads its fonts and autoloaded TeX extensions relative to ``tex-chtml.js``. With an
   absolute ``mathjax_path`` (a CDN URL) nothing is copied.

2. **No inline script twice.** With Sphinx 7.4, sphinx-thebe's inline configuration script
   (``const THEBE_JS_URL = ...``) is emitted twice in every page, and the second copy is a
   JavaScript ``SyntaxError`` (a ``const`` declared twice) in the console of every page. Before
   each page is rendered, later copies of an identical script (same file, same inline body, same
   attributes) are dropped; the page keeps the first one, in its original place.

3. **A link to the PDF edition, when there is one.** ``make pdf`` writes the whole book as
   ``_build/pdf/rpp-book.pdf`` (``rpp_pdf_edition``). When that file exists at the start of an
   HTML build, it is copied to ``_static/rpp-book.pdf`` and every page's download menu (the
   theme's header button) gets a "Book (PDF)" entry linking to it. When it does not exist, the
   web book is built exactly as before, with no link (and nothing that could be a broken link);
   the build log says so. The presence of the PDF is an HTML-level configuration value, so the
   first ``make book`` after ``make pdf`` rewrites every page with the link.

   **The chapters' notebooks.** A chapter's download menu offers "Notebook (.ipynb)", its
   Jupyter edition (``notebooks/NN_slug.ipynb``), and "Exercises (.ipynb)", its student edition
   (``notebooks/student/NN_slug.ipynb``), both written by ``make book`` after the HTML
   (``tools/jupyter_edition.py``), instead of the MyST source in ``_sources/``.

4. **The book's CSS and script** (``tools/static/rpp-book.css`` and ``rpp-book.js``, served
   from ``_static/``). The CSS: code blocks, API text and displays that fit their column at
   1280 px, and pages that do not scroll sideways on phones and tablets (390 and 768 px). The
   script: the navigation and page-contents buttons of the page header work (pydata-sphinx-theme
   issue #2451: the themes' scripts bind the first, hidden, copy of each button; the script's
   comment explains). One search control at every width: the top header's search field at
   992 px and more, the page header's magnifier button below (the theme's own rules;
   ``html_sidebars`` in ``_config.yml`` drops the sidebar's copy of the field).

5. **One source for the book's citation.** At the start of every build, the entry
   ``rppbook<year>`` of ``book/references.bib`` (which the preface shows verbatim) must be the
   one ``tools/citation.py`` generates from ``CITATION.cff``; otherwise a warning (an error
   under ``-W``) says to run ``python tools/citation.py --write``.

6. **No stray page.** A notebook or Markdown file directly in ``book/`` that ``_toc.yml`` does
   not list stops the build at once, naming the file and what to do (add it to ``_toc.yml``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path, PurePosixPath

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError
from sphinx.util import logging

__version__ = "1.0"

LOGGER = logging.getLogger(__name__)

MATHJAX_PACKAGE = "django-static-mathjax"
#: Files of the es5 tree that a ``tex-chtml.js`` page never loads (~16 MB of 24 MB).
MATHJAX_IGNORED = ("tex-svg*.js", "tex-mml-*.js", "mml-*.js", "tex-chtml-full*.js", "node-main.js", "svg.js", "svg")


# --------------------------------------------------------------------------------------------
# 1. MathJax served from _static/
# --------------------------------------------------------------------------------------------


def mathjax_es5_dir() -> Path:
    """The ``es5`` folder of the installed MathJax 3 distribution.

    Raises
    ------
    ConfigError
        If the package is missing or does not hold MathJax 3.
    """
    spec = importlib.util.find_spec("mathjax")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        root = Path(location) / "static" / "mathjax"
        if (root / "es5" / "tex-chtml.js").is_file():
            version = json.loads((root / "package.json").read_text(encoding="utf-8"))["version"]
            if not version.startswith("3."):
                raise ConfigError(f"{MATHJAX_PACKAGE} ships MathJax {version}; the book needs MathJax 3")
            return root / "es5"
    raise ConfigError(
        f"MathJax is served from the book's _static folder, but the Python package "
        f"{MATHJAX_PACKAGE} is not installed: run `pip install -r requirements.txt` (or `make book`)."
    )


def is_local(mathjax_path: str) -> bool:
    """True when ``mathjax_path`` points into ``_static`` (a relative path, not a URL)."""
    return bool(mathjax_path) and "://" not in mathjax_path and not mathjax_path.startswith("/")


def _local_target(config: Config) -> PurePosixPath:
    """``mathjax_path`` as ``<folder>/<bundle>.js`` inside ``_static``."""
    target = PurePosixPath(config.mathjax_path)
    if len(target.parts) != 2 or target.suffix != ".js":
        raise ConfigError(
            "a local mathjax_path must look like 'mathjax/tex-chtml.js' "
            f"(<folder>/<bundle>.js inside _static), got {config.mathjax_path!r}"
        )
    return target


def check_mathjax_config(app: Sphinx, config: Config) -> None:
    """Fail early (before any notebook runs) when the local copy cannot be served."""
    if not is_local(config.mathjax_path):
        return
    target = _local_target(config)
    es5 = mathjax_es5_dir()
    if not (es5 / target.name).is_file():
        raise ConfigError(f"mathjax_path names {target.name}, which is not in {es5}")


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copy the MathJax distribution into ``<outdir>/_static/<folder>/`` after an HTML build."""
    if exception is not None or app.builder.format != "html" or not is_local(app.config.mathjax_path):
        return
    target = _local_target(app.config)
    dest = Path(app.outdir) / "_static" / target.parent
    shutil.copytree(mathjax_es5_dir(), dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*MATHJAX_IGNORED))
    LOGGER.info(f"MathJax served locally from {dest.relative_to(app.outdir)}/{target.name}")


# --------------------------------------------------------------------------------------------
# 2. Each script once per page
# --------------------------------------------------------------------------------------------


def _script_key(script) -> tuple:
    """What makes two script entries the same ``<script>`` tag (file or inline body, attributes)."""
    filename = getattr(script, "filename", script)
    attributes = getattr(script, "attributes", {}) or {}
    return (os.fspath(filename or ""), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def drop_duplicate_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Keep the first of identical ``script_files`` entries of a page (see module docstring)."""
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, unique = set(), []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    if len(unique) != len(scripts):
        context["script_files"] = unique  # a new list: the builder's own list stays untouched


# --------------------------------------------------------------------------------------------
# 3. The PDF edition in the download menu
# --------------------------------------------------------------------------------------------

PDF_STATIC_NAME = "rpp-book.pdf"


def _pdf_source(app: Sphinx) -> Path:
    return Path(app.srcdir) / app.config.rpp_pdf_edition


def detect_pdf(app: Sphinx, config: Config) -> None:
    """Record whether the PDF edition exists (a change rewrites every HTML page)."""
    config.rpp_pdf_edition_present = (Path(app.srcdir) / config.rpp_pdf_edition).is_file()
    if not config.rpp_pdf_edition_present:
        LOGGER.info(
            f"no PDF edition at {config.rpp_pdf_edition} (run `make pdf`): the web book is built without a link to it"
        )


def add_pdf_button(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """A "Book (PDF)" entry in the theme's download menu of every page."""
    if not app.config.rpp_pdf_edition_present:
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](f"_static/{PDF_STATIC_NAME}", 1),
                    "text": "Book (PDF)",
                    "tooltip": "Download the whole book as a PDF",
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                }
            )


NOTEBOOKS_DIR = "notebooks"


def notebook_buttons(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """A chapter's download menu offers its Jupyter edition and its student edition, never the
    MyST source (which Jupyter would show as raw directives and roles).

    ``make book`` writes both editions next to the pages, ``notebooks/NN_slug.ipynb`` and
    ``notebooks/student/NN_slug.ipynb`` (``tools/jupyter_edition.py``); a chapter is a page whose
    source is a notebook. The source download ("_sources/....ipynb") is replaced by the Jupyter
    edition, and "Exercises (.ipynb)" added after it.
    """
    if context.get("page_source_suffix") != ".ipynb":
        return
    name = PurePosixPath(pagename).name + ".ipynb"
    pathto = context["pathto"]
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        kept = [
            b for b in group["buttons"] if b.get("label") not in ("download-source-button", "download-notebook-button")
        ]
        editions = [
            {
                "type": "link",
                "url": pathto(f"{NOTEBOOKS_DIR}/{name}", 1),
                "text": "Notebook (.ipynb)",
                "tooltip": "Download this chapter as a Jupyter notebook (the Jupyter edition)",
                "icon": "fas fa-code",
                "label": "download-notebook-button",
            },
            {
                "type": "link",
                "url": pathto(f"{NOTEBOOKS_DIR}/student/{name}", 1),
                "text": "Exercises (.ipynb)",
                "tooltip": "Download the exercise notebook: this chapter without the solutions (the student edition)",
                "icon": "fas fa-pencil-alt",
                "label": "download-student-notebook-button",
            },
        ]
        group["buttons"] = editions + kept


def copy_pdf(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html" or not app.config.rpp_pdf_edition_present:
        return
    dest = Path(app.outdir) / "_static" / PDF_STATIC_NAME
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_pdf_source(app), dest)
    LOGGER.info(f"PDF edition linked from every page: {dest.relative_to(app.outdir)}")


STATIC_DIR = Path(__file__).resolve().parent / "static"
CSS_FILE = "rpp-book.css"
JS_FILE = "rpp-book.js"


def add_static_dir(app: Sphinx, config: Config) -> None:
    """tools/static/ (the book's CSS and script, section 4) is served from _static/.

    ``rpp_static_digest`` (an HTML-level configuration value) is the digest of those files: a
    change rewrites every page of an existing build, whose ``<link>``/``<script>`` tags carry
    the files' checksums (and a newly added file would otherwise be missing from old pages).
    """
    if str(STATIC_DIR) not in config.html_static_path:
        config.html_static_path = [*config.html_static_path, str(STATIC_DIR)]
    digest = hashlib.sha256()
    for path in sorted(STATIC_DIR.iterdir()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    config.rpp_static_digest = digest.hexdigest()[:16]


# --------------------------------------------------------------------------------------------
# 5. The book's citation has one source (CITATION.cff)
# --------------------------------------------------------------------------------------------


def _citation_module():
    spec = importlib.util.spec_from_file_location("rpp_book_citation", Path(__file__).resolve().parent / "citation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_citation(app: Sphinx, config: Config) -> None:
    """The book's BibTeX entry (shown by the preface) must be the one CITATION.cff gives."""
    root = Path(app.srcdir)
    if not (root / "CITATION.cff").is_file():
        return
    problem = _citation_module().check(root)
    if problem:
        LOGGER.warning(f"citation: {problem}", type="rpp", subtype="citation")


# --------------------------------------------------------------------------------------------
# 6. Every page of book/ is in the table of contents
# --------------------------------------------------------------------------------------------


def _toc_files(toc: object) -> set[str]:
    found: set[str] = set()
    if isinstance(toc, dict):
        for key, value in toc.items():
            if key in ("file", "root") and isinstance(value, str):
                found.add(value)
            else:
                found |= _toc_files(value)
    elif isinstance(toc, list):
        for item in toc:
            found |= _toc_files(item)
    return found


def pages_missing_from_toc(root: Path, folder: str = "book") -> list[str]:
    """The pages (``.ipynb``, ``.md``) directly in ``root/folder`` that ``_toc.yml`` does not list."""
    import yaml

    toc_path = root / "_toc.yml"
    if not toc_path.is_file():
        return []
    listed = {str(PurePosixPath(f).with_suffix("")) for f in _toc_files(yaml.safe_load(toc_path.read_text("utf-8")))}
    pages = sorted(p for suffix in ("*.ipynb", "*.md") for p in (root / folder).glob(suffix))
    return [f"{folder}/{p.name}" for p in pages if f"{folder}/{p.stem}" not in listed]


def check_toc(app: Sphinx, config: Config) -> None:
    """A page in book/ that _toc.yml does not list stops the build with a clear message (it
    would be read without a chapter number, and the book's numbering extensions would fail on
    it with an obscure error)."""
    missing = pages_missing_from_toc(Path(app.srcdir))
    if missing:
        raise ConfigError(
            f"{', '.join(missing)}: in book/ but not in _toc.yml. Add each to _toc.yml (a new "
            f'chapter: `python tools/new_chapter.py N slug "Title"`), or move it out of book/.'
        )


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", check_toc)
    app.connect("config-inited", check_citation)
    app.add_config_value("rpp_static_digest", "", "html", [str])
    app.connect("config-inited", add_static_dir)
    app.add_css_file(CSS_FILE)
    app.add_js_file(JS_FILE)
    app.add_config_value("rpp_pdf_edition", "_build/pdf/rpp-book.pdf", "html", [str])
    app.add_config_value("rpp_pdf_edition_present", False, "html", [bool])
    app.connect("config-inited", detect_pdf)
    app.connect("build-finished", copy_pdf)
    # After sphinx-book-theme has built its header buttons (priority 501).
    app.connect("html-page-context", add_pdf_button, priority=800)
    app.connect("html-page-context", notebook_buttons, priority=800)
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", check_mathjax_config)
    app.connect("build-finished", copy_mathjax)
    # Late (default is 500): after every extension has added its scripts to the page.
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
