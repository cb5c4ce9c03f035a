"""Sphinx extension of The RPP Book: numbers by chapter, and no number shared by two pages.

Loaded through ``_config.yml`` (``sphinx: local_extensions: book_numbering: tools/``).

How the book is numbered
------------------------
The "Chapters" part of ``_toc.yml`` is a numbered toctree (``numbered: true``), so Sphinx gives
each chapter its number (1 to 7) and each section its own (3.1, 3.2, ...); with ``numfig`` and
``numfig_secnum_depth: 1`` every *enumerable* node is numbered within its chapter: figures
("Figure 6.3"), ``{math}`` and ``$$ ... $$ (label)`` equations ("(3.4)", through ``math_numfig``),
and the boxes of sphinx-proof 0.4 and sphinx-exercise 1.2. Both extensions register their boxes
with ``app.add_enumerable_node`` and read their numbers from ``env.toc_fignumbers`` (sphinx-proof
``nodes.get_node_number``, sphinx-exercise ``utils.get_node_number``), which Sphinx's
``TocTreeCollector.assign_figure_numbers`` fills with ``section number[:numfig_secnum_depth] +
(counter,)``: so they follow ``numfig_secnum_depth`` with no patch (read in their installed
source, sphinx-proof 0.4.0 and sphinx-exercise 1.2.1). Each box type has its own counter per
chapter: Definition 3.1, Theorem 3.1, Theorem 3.2, ...

What this extension changes
---------------------------
Pages outside the numbered part (the preface, which is the root page, and the appendices) have
no section number, and Sphinx numbers their figures, equations and boxes with one counter
shared by all of them: "Theorem 1", "(2)", and the appendices would continue the preface's
count. A bare "Theorem 1" next to "Theorem 1.1" reads like a collision. After Sphinx has
assigned the numbers (``env-get-updated``, run after the TocTreeCollector), every such page gets
its own prefix and its own counters:

- the root page (the preface): ``P`` -> "Definition P.1", "Theorem P.1", "(P.1)", "Exercise P.1";
- the pages of the unnumbered parts after it, in toc order: ``A``, ``B``, ``C`` ... (the same
  letters LaTeX's ``\\appendix`` gives them in the PDF edition, ``tools/book_latex.py``).

A chapter built alone as the root page (``make page``) takes its number from its file name
(``03_...`` -> 3.1, 3.2, ...), so a one-page build shows the book's numbers. The numbers stay
tuples, so every consumer (HTML titles, ``{numref}``, ``{eq}``,
``{prf:ref}``, exercise titles, LaTeX) joins them with "." as usual.
"""

from __future__ import annotations

import posixpath
import re
import string

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

__version__ = "1.0"

ROOT_PREFIX = "P"


def toc_order(env: BuildEnvironment, root: str) -> list[str]:
    """Every document reachable from ``root`` through toctrees, in reading order."""
    seen: list[str] = []

    def walk(doc: str) -> None:
        if doc in seen:
            return
        seen.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(root)
    return seen


def is_numbered(env: BuildEnvironment, docname: str) -> bool:
    """True when the page has a section number (it is in a ``numbered`` toctree)."""
    return bool(env.toc_secnumbers.get(docname, {}).get(""))


def root_prefix(root: str) -> str | int:
    """``P`` for the preface; a chapter's own number when a chapter is the root page.

    ``make page NB=book/03_gaussian_priors.ipynb`` builds one chapter as the root of a small
    toc: its results then get the numbers they have in the whole book (3.1, 3.2, ...).
    """
    m = re.match(r"(\d+)_", posixpath.basename(root))
    return int(m.group(1)) if m else ROOT_PREFIX


def unnumbered_prefixes(env: BuildEnvironment, root: str) -> dict[str, str | int]:
    """{docname: prefix} for the root page (``P``) and the unnumbered pages after it (A, B, ...)."""
    prefixes = {root: root_prefix(root)}
    letters = iter(string.ascii_uppercase)
    for doc in toc_order(env, root)[1:]:
        if not is_numbered(env, doc):
            prefixes[doc] = next(letters)
    return prefixes


def renumber(numbers: dict[str, tuple], prefix: str | int) -> dict[str, tuple]:
    """Renumber one page's items of one type as (prefix, 1), (prefix, 2), ... in their order."""
    ordered = sorted(numbers, key=lambda key: numbers[key])
    return {key: (prefix, i) for i, key in enumerate(ordered, start=1)}


def prefix_unnumbered_pages(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-get-updated`` handler: runs after Sphinx assigned ``env.toc_fignumbers``."""
    if not app.config.numfig:
        return []
    changed = []
    for doc, prefix in unnumbered_prefixes(env, app.config.root_doc).items():
        by_type = env.toc_fignumbers.get(doc)
        if not by_type:
            continue
        env.toc_fignumbers[doc] = {figtype: renumber(numbers, prefix) for figtype, numbers in by_type.items()}
        changed.append(doc)
    # These pages, and every page that refers to them, show the new numbers: rewrite them.
    return changed


def setup(app: Sphinx) -> dict:
    # The TocTreeCollector assigns section and figure numbers at the default priority (500).
    app.connect("env-get-updated", prefix_unnumbered_pages, priority=900)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
