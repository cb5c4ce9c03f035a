"""Sphinx extension of The RPP Book: the claims registry's checks are links.

Loaded through ``_config.yml`` (``sphinx: local_extensions: book_cells: tools/``).
``book/claims.yml`` says what checks each claim of the source papers: a test of ``tests/``
(``tests/<file>.py::<function>``) or a code cell of a chapter (its cell id, or a marker text
unique to that cell). The Results appendix (``tools/book_results.py``) lists them; this module
makes each one a link (:func:`check_reference`):

- **a cell** gets a visible anchor on its chapter's page: a line "Cell 36c33513: checks a claim
  of the Results appendix" just above the cell, holding the target ``cell-36c33513`` (an
  ``id`` in HTML, a ``\\label`` in the PDF) and a link back to the Results appendix. The
  Results appendix links "cell 36c33513" to it. A marker is resolved to its cell's id when the
  chapter is read. A cited cell that the page does not show (``remove-cell``) is a warning;
- **a test** links to its source on the repository (``repository.url`` of ``_config.yml``), at
  the commit the book is built from and the line of its ``def``
  (``https://github.com/<org>/<repo>/blob/<sha>/tests/...py#L<n>``); outside a git checkout, at
  the branch ``main``. A test that cannot be found (``tests/book/test_claims.py`` fails on it)
  or a book without ``repository.url`` keeps the plain node id.
"""

from __future__ import annotations

import ast
import json
import posixpath
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

__version__ = "1.0"

logger = logging.getLogger(__name__)

RESULTS_DOC = "book/results"
ANCHOR_CLASS = "rpp-cell-anchor"


def cell_anchor(cell_id: str) -> str:
    return f"cell-{cell_id}"


def _claims_file(app: Sphinx) -> Path:
    """``rpp_claims_file`` (a configuration value of ``tools/book_results.py``)."""
    return Path(app.confdir) / getattr(app.config, "rpp_claims_file", "book/claims.yml")


def _claims(app: Sphinx) -> list[dict]:
    path = _claims_file(app)
    if not path.is_file():
        return []
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("claims") or []


def _cells(path: Path) -> list[dict]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return cells


def resolve_cell(root: Path, check: dict) -> str | None:
    """The id of the cell a notebook check names (``cell``, or the one cell holding ``marker``)."""
    if check.get("cell"):
        return check["cell"]
    found = [c.get("id") for c in _cells(root / check["notebook"]) if check["marker"] in c["source"]]
    return found[0] if len(found) == 1 else None


def cited_cells(app: Sphinx, docname: str) -> set[str]:
    """Ids of the cells of ``docname`` that the registry cites."""
    notebook = f"{docname}.ipynb"
    out = set()
    for claim in _claims(app):
        for check in claim.get("checked_by") or []:
            if isinstance(check, dict) and check.get("notebook") == notebook:
                cell_id = resolve_cell(Path(app.confdir), check)
                if cell_id:
                    out.add(cell_id)
    return out


def add_cell_anchors(app: Sphinx, doctree: nodes.document) -> None:
    """``doctree-read``: a visible anchor above every cell of this page that the registry cites."""
    docname = app.env.docname
    source = Path(app.env.doc2path(docname))
    if source.suffix != ".ipynb":
        return
    wanted = cited_cells(app, docname)
    if not wanted:
        return
    ids = [c.get("id") for c in _cells(source)]
    app.env.note_dependency(str(_claims_file(app)))
    done = set()
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        index = container.get("cell_index")
        cell_id = ids[index] if isinstance(index, int) and index < len(ids) else None
        if cell_id not in wanted or cell_id in done:
            continue
        done.add(cell_id)
        anchor = cell_anchor(cell_id)
        line = nodes.paragraph("", "", classes=[ANCHOR_CLASS])
        line += nodes.target("", "", ids=[anchor])
        line += nodes.reference("", "", nodes.strong(f"Cell {cell_id}", f"Cell {cell_id}"), refid=anchor)
        line += nodes.Text(": checks a claim of the ")
        ref = addnodes.pending_xref(
            "", refdomain="std", reftype="doc", reftarget="/" + RESULTS_DOC, refexplicit=True, refdoc=docname
        )
        ref += nodes.inline("Results appendix", "Results appendix")
        line += ref
        line += nodes.Text(".")
        container.parent.insert(container.parent.index(container), line)
    for cell_id in sorted(wanted - done):
        logger.warning(
            f"claims.yml cites cell {cell_id} of {docname}.ipynb, which the page does not show",
            location=docname,
            type="rpp",
            subtype="cell",
        )


# --------------------------------------------------------------------------------------------
# The links of the Results appendix
# --------------------------------------------------------------------------------------------


@cache
def _git_commit(root: str) -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "main"


def line_of_test(root: Path, node_id: str) -> int | None:
    """The line of the ``def`` of ``tests/x.py::[Class::]function`` (a parametrized id allowed)."""
    path, _, qualname = node_id.partition("::")
    file = root / path
    if not file.is_file() or not qualname:
        return None
    names = [n.split("[", 1)[0] for n in qualname.split("::")]
    body: list[Any] = ast.parse(file.read_text(encoding="utf-8")).body
    node = None
    for name in names:
        node = next(
            (
                n
                for n in body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n.name == name
            ),
            None,
        )
        if node is None:
            return None
        body = node.body
    return node.lineno if node is not None else None


def url_of_test(app: Sphinx, node_id: str) -> str | None:
    repo = (app.config.html_theme_options or {}).get("repository_url", "").rstrip("/")
    line = line_of_test(Path(app.confdir), node_id)
    if not repo or line is None:
        return None
    path = node_id.split("::", 1)[0]
    return f"{repo}/blob/{_git_commit(str(app.confdir))}/{path}#L{line}"


def check_reference(app: Sphinx, fromdoc: str, check: dict, location: Any = None) -> list[nodes.Node]:
    """The nodes of one "checked by" item of the Results appendix: a link to the test's source,
    or the notebook's name and a link to the cell's anchor on its chapter page."""
    if "test" in check:
        url = url_of_test(app, check["test"])
        code = nodes.literal(check["test"], check["test"])
        if url is None:  # tests/book/test_claims.py fails on a test that does not exist
            logger.info(f"claims.yml: no repository URL or no test {check['test']!r} to link to", location=location)
            return [code]
        return [nodes.reference("", "", code, refuri=url, classes=["rpp-test-link"])]
    nb = posixpath.basename(check["notebook"])
    docname = check["notebook"].removesuffix(".ipynb")
    cell_id = resolve_cell(Path(app.confdir), check)
    out: list[nodes.Node] = [nodes.literal(nb, nb), nodes.Text(", ")]
    if cell_id is None:
        logger.warning(f"claims.yml: no single cell of {nb} holds {check.get('marker')!r}", location=location)
        return [*out, nodes.Text(f"the cell with “{check.get('marker')}”")]
    text = f"cell {cell_id}" if check.get("cell") else f"the cell with “{check['marker']}”"
    inner = nodes.inline(text, text)
    out.append(make_refnode(app.builder, fromdoc, docname, cell_anchor(cell_id), inner, f"cell {cell_id} of {nb}"))
    return out


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", add_cell_anchors)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
