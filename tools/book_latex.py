"""Sphinx extension of The RPP Book: the PDF edition (``make pdf``) has the web book's structure.

Loaded through ``_config.yml`` (``sphinx: local_extensions: book_latex: tools/``); it changes
nothing in the HTML build.

``jupyter-book build . --builder pdflatex`` inlines every page of the toc into the root page
(the preface): by default every section of the preface became a numbered "Chapter", and the
first chapter came out as "Chapter 8". This extension gives the LaTeX document the structure of
a book (LaTeX class ``book`` under Sphinx's ``sphinxmanual``):

- **front matter**: the preface is one unnumbered chapter "Preface" (its sections unnumbered),
  its equations numbered (P.1), (P.2) like its boxes (``tools/book_numbering.py``);
- **main matter**: the pages of the numbered toc part, numbered 1..7 by LaTeX exactly as Sphinx
  numbers them on the web (same order); their figures and equations are numbered per chapter
  by LaTeX (3.4), and their sphinx-proof and sphinx-exercise boxes carry Sphinx's own numbers;
- **appendices** (``\\appendix``): the pages after the numbered part, lettered A, B, C (the
  letters ``book_numbering`` gives their results on the web); the bibliography comes last.

The LaTeX preamble defines the MathJax macros of ``_config.yml``
(``sphinx.config.mathjax3_config.tex.macros``): they are generated from that one source at each
build, so the web book and the PDF cannot disagree on a macro.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

__version__ = "1.0"


# --------------------------------------------------------------------------------------------
# Preamble: the MathJax macros as LaTeX commands
# --------------------------------------------------------------------------------------------


def latex_macros(macros: dict) -> str:
    """``\\DeclareRobustCommand`` lines for MathJax 3 ``tex.macros``.

    A macro is ``name: body`` or ``name: [body, number of arguments]`` (MathJax's two forms).
    ``\\DeclareRobustCommand`` defines the command, or redefines it if a package already did
    (LaTeX logs that), so the book's meaning always wins, as it does in MathJax.
    """
    lines = []
    for name, value in macros.items():
        if not name.isalpha():
            raise ConfigError(f"MathJax macro name {name!r}: LaTeX needs letters only")
        if isinstance(value, str):
            body, nargs = value, 0
        elif (
            isinstance(value, (list, tuple))
            and len(value) == 2
            and isinstance(value[0], str)
            and isinstance(value[1], int)
        ):
            body, nargs = value
        else:
            raise ConfigError(
                f"MathJax macro {name!r}: unsupported definition {value!r} "
                "(use 'body' or ['body', number of arguments])"
            )
        args = f"[{nargs}]" if nargs else ""
        lines.append(f"\\DeclareRobustCommand{{\\{name}}}{args}{{{body}}}")
    return "\n".join(lines)


#: Front matter helpers: the preface's equations and figures numbered P.n, its sections
#: unnumbered; \rppmainmatter restores Sphinx's chapter-based numbering.
FRONTMATTER_PREAMBLE = r"""
% Sphinx names the table of contents after the first toctree's caption ("Chapters").
\addto\captionsenglish{\renewcommand{\contentsname}{Contents}}
\newcommand{\rppfrontmatter}{%
  \frontmatter
  \edef\rppsecnumdepth{\the\value{secnumdepth}}%
  \setcounter{secnumdepth}{-1}%
  \let\rppsavedtheequation\theequation
  \let\rppsavedthefigure\thefigure
  \renewcommand{\theequation}{P.\arabic{equation}}%
  \renewcommand{\thefigure}{P.\arabic{figure}}%
  \setcounter{equation}{0}\setcounter{figure}{0}}
\newcommand{\rppmainmatter}{%
  \mainmatter
  \setcounter{secnumdepth}{\rppsecnumdepth}%
  \let\theequation\rppsavedtheequation
  \let\thefigure\rppsavedthefigure
  \setcounter{equation}{0}\setcounter{figure}{0}}
"""


def configure_latex(app: Sphinx, config: Config) -> None:
    """Macros and book structure in the preamble; class ``book`` for ``\\frontmatter``."""
    macros = (config.mathjax3_config or {}).get("tex", {}).get("macros", {})
    elements = dict(config.latex_elements or {})
    elements["preamble"] = "\n".join(
        part
        for part in (
            elements.get("preamble", ""),
            "% MathJax macros of _config.yml (tools/book_latex.py)",
            latex_macros(macros),
            FRONTMATTER_PREAMBLE,
        )
        if part
    )
    # LaTeX's own chapter heads ("Chapter 3" / title), not fncychap's "CHAPTER THREE": the PDF
    # says "Chapter 3" as the web book says "3." and as references say "Theorem 3.5".
    elements.setdefault("fncychap", "")
    config.latex_elements = elements
    docclass = dict(config.latex_docclass or {})
    docclass["manual"] = "book"
    config.latex_docclass = docclass


# --------------------------------------------------------------------------------------------
# Structure of the assembled document
# --------------------------------------------------------------------------------------------


def _raw(tex: str) -> nodes.raw:
    return nodes.raw("", tex + "\n", format="latex")


def is_numbered(env, docname: str) -> bool:
    return bool(env.toc_secnumbers.get(docname, {}).get(""))


def structure_book(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved`` for the LaTeX builder's one assembled document (the root page)."""
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    env = app.env
    root = next(iter(doctree.findall(nodes.section)), None)
    if root is None or not isinstance(root.children[0], nodes.title):
        return
    # toctree wrappers hold the inlined pages (start_of_file nodes)
    wrappers = [
        child for child in root.children if isinstance(child, nodes.compound) and "toctree-wrapper" in child["classes"]
    ]
    if not wrappers:
        return
    first_wrapper = root.index(wrappers[0])
    title = root.children[0]
    body = root.children[1:first_wrapper]

    # The preface: one front-matter chapter holding the root page's own text. Its results are
    # numbered through the root page (find_parent in sphinx-proof/-exercise reads 'docname').
    preface = nodes.section(ids=list(root["ids"]), names=list(root["names"]))
    preface["docname"] = docname
    preface += nodes.title(title.astext(), "", *[c.deepcopy() for c in title.children])
    for child in body:
        child.parent = None
        preface += child
    root["ids"] = []
    root["names"] = []

    rest: list[nodes.Node] = [_raw(r"\rppfrontmatter"), preface]
    seen_main = seen_appendix = False
    for wrapper in root.children[first_wrapper:]:
        pages = [sof for sof in wrapper.findall(addnodes.start_of_file) if sof.parent is wrapper]
        if pages and not seen_main and is_numbered(env, pages[0]["docname"]):
            rest.append(_raw(r"\rppmainmatter"))
            seen_main = True
        elif pages and seen_main and not seen_appendix and not is_numbered(env, pages[0]["docname"]):
            rest.append(_raw(r"\appendix"))
            seen_appendix = True
        wrapper.parent = None
        rest.append(wrapper)
    root.children = [title]
    for node in rest:
        root += node


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", configure_latex)
    app.connect("doctree-resolved", structure_book)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
