"""Sphinx extension of The RPP Book: the "Results" appendix, generated from the book itself.

Loaded through ``_config.yml`` (``sphinx: local_extensions: book_results: tools/``). It adds
four directives for ``book/results.md`` and hides sphinx-proof's raw index:

``{rpp-results}``
    Every numbered result of the book (the boxes of sphinx-proof: definition, theorem,
    proposition, lemma, corollary, algorithm, remark, example, ...; and the exercises of
    sphinx-exercise), chapter by chapter in reading order, as tables "Result | Title | Label".

``{rpp-claims} <paper key>``
    The claims registry ``book/claims.yml`` for one paper: every numbered item of the paper,
    the book's verdict, where the book treats it and what checks it (``tests/book/test_claims.py``
    checks the registry against the sources and the tests).

``{rpp-statements}``
    The book's own statements from the same registry (its ``statements`` list): each theorem,
    proposition, lemma and corollary of the chapters in one line, with its domain, its verdict
    (proved in the text, proved and searched, checked numerically, conjecture), where the proof
    stands and what checks it; ``tests/claims/`` searches the general ones for counterexamples.

``{rpp-bibtex} <key>`` and ``{rpp-cite} <label or document>``
    The "How to cite" box: an entry of ``book/references.bib`` as it is there (long fields
    wrapped), and a BibTeX entry for one result or one chapter, with the number and title of
    this build and the label as the stable anchor.

How the numbers are obtained (and why they cannot drift)
--------------------------------------------------------
Nothing here computes a number. While the documents are read, the extension records each
sphinx-proof box (label, type, title nodes) from the doctrees (``doctree-read``). When a page
is written, a post-transform (priority 4, before Sphinx's ``ReferencesResolver`` at 10) replaces
the placeholders with tables whose first column is an ordinary cross-reference node: a
``{prf:ref}`` for a box, ``{numref}`` for an exercise or a figure, ``{eq}`` for an equation,
``{ref}`` for a section (a labelled admonition, e.g. an erratum box, is linked directly with
its title). Sphinx then resolves them exactly as it resolves the same roles in the
chapters, from ``env.toc_fignumbers`` after ``tools/book_numbering.py`` has renumbered the
unnumbered pages: the appendix shows the numbers the boxes themselves show, in the web book and
in the PDF (``make pdf`` resolves the inlined document the same way). A label of
``claims.yml`` that the book does not define is a Sphinx warning, hence a build error. When
any page changes, the Results page is read again (``env-get-outdated``), so an incremental
build never shows stale numbers.

sphinx-proof's own index (``prf-prf.html``, raw labels without numbers, linked from nowhere)
is not generated: the index name ``prf-prf`` is removed from ``html_domain_indices`` and
``latex_domain_indices`` (every other domain index is kept), and a stale ``prf-prf.html``
left by an earlier build is deleted.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any, ClassVar

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

__version__ = "1.0"

logger = logging.getLogger(__name__)

#: The four verdicts of the claims registry (tests/book/test_claims.py checks the same list).
VERDICTS = ("proved here", "checked numerically", "erratum", "not reproduced")
#: The index of sphinx-proof that this extension suppresses.
PROOF_INDEX = "prf-prf"
#: The verdicts of the book's own statements (the ``statements`` list of the registry).
STATEMENT_VERDICTS = ("proved in the text", "proved and searched", "checked numerically", "conjecture")
STATEMENT_KEYS = ("label", "statement", "domain", "verdict", "proof", "note", "checked_by")
PAPER_KEYS = ("key", "short", "title")
CLAIM_KEYS = ("paper", "item", "title", "verdict", "book", "checked_by", "note")


# --------------------------------------------------------------------------------------------
# The registry file
# --------------------------------------------------------------------------------------------


def load_claims(path: Path) -> dict:
    """Read ``claims.yml`` and check its shape; raise ``ValueError`` naming the bad entry."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("papers"), list)
        or not isinstance(data.get("claims"), list)
    ):
        raise ValueError(f"{path.name}: expected the keys 'papers' and 'claims' (two lists)")
    keys = []
    for paper in data["papers"]:
        missing = [k for k in PAPER_KEYS if not paper.get(k)]
        if missing:
            raise ValueError(f"{path.name}: paper {paper!r} lacks {missing}")
        keys.append(paper["key"])
    for i, claim in enumerate(data["claims"]):
        where = f"{path.name}: claim {i + 1} ({claim.get('paper')}, {claim.get('item')})"
        _check_claim(claim, keys, where)
        for check in claim["checked_by"]:
            _check_check(check, where)
    statements = data.setdefault("statements", [])
    if not isinstance(statements, list):
        raise ValueError(f"{path.name}: 'statements' must be a list")
    seen: set[str] = set()
    for i, statement in enumerate(statements):
        where = f"{path.name}: statement {i + 1} ({statement.get('label')})"
        _check_statement(statement, where)
        if statement["label"] in seen:
            raise ValueError(f"{where}: the label is registered twice")
        seen.add(statement["label"])
        for check in statement["checked_by"]:
            _check_check(check, where)
    return data


def _check_statement(statement: dict, where: str) -> None:
    unknown = set(statement) - set(STATEMENT_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    for k in ("label", "statement", "domain", "verdict"):
        if not statement.get(k) or not isinstance(statement[k], str):
            raise ValueError(f"{where}: '{k}' is missing or empty")
    verdict = statement["verdict"]
    if verdict not in STATEMENT_VERDICTS:
        raise ValueError(f"{where}: verdict {verdict!r} is not one of {STATEMENT_VERDICTS}")
    if verdict.startswith("proved") and not statement.get("proof"):
        raise ValueError(f"{where}: a {verdict!r} statement needs 'proof' (the label the proof follows)")
    if not isinstance(statement.get("checked_by"), list):
        raise ValueError(f"{where}: 'checked_by' must be a list")
    if not statement["checked_by"] and verdict != "conjecture":
        raise ValueError(f"{where}: a {verdict!r} statement needs a test or a cell")
    if verdict == "proved and searched" and not any(
        check.get("test", "").startswith("tests/claims/") for check in statement["checked_by"]
    ):
        raise ValueError(f"{where}: 'proved and searched' needs a search of tests/claims/ in 'checked_by'")


def _check_claim(claim: dict, keys: list[str], where: str) -> None:
    unknown = set(claim) - set(CLAIM_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    for k in ("paper", "item", "title", "verdict", "book"):
        if not claim.get(k):
            raise ValueError(f"{where}: '{k}' is missing or empty")
    if claim["paper"] not in keys:
        raise ValueError(f"{where}: paper must be one of {keys}")
    if claim["verdict"] not in VERDICTS:
        raise ValueError(f"{where}: verdict {claim['verdict']!r} is not one of {VERDICTS}")
    if claim["verdict"] == "not reproduced" and not claim.get("note"):
        raise ValueError(f"{where}: 'not reproduced' needs a 'note' saying why")
    if not isinstance(claim["book"], list) or not all(isinstance(x, str) for x in claim["book"]):
        raise ValueError(f"{where}: 'book' must be a list of labels")
    if not isinstance(claim.get("checked_by"), list):
        raise ValueError(f"{where}: 'checked_by' must be a list")
    if not claim["checked_by"] and claim["verdict"] != "not reproduced":
        raise ValueError(f"{where}: a {claim['verdict']!r} entry needs a test or a cell")


def _check_check(check: Any, where: str) -> None:
    if not isinstance(check, dict) or not (("test" in check) ^ ("notebook" in check)):
        raise ValueError(
            f"{where}: each 'checked_by' item is {{test: node id}} or {{notebook: path, cell: id or marker: text}}"
        )
    if "notebook" in check and not (check.get("cell") or check.get("marker")):
        raise ValueError(f"{where}: a notebook check needs 'cell' (an id) or 'marker'")
    if not all(isinstance(v, str) for v in check.values()):
        raise ValueError(f"{where}: {check!r}: quote the values (a cell id such as 30068651 would be read as a number)")


def claims_path(app: Sphinx) -> Path:
    return Path(app.confdir) / app.config.rpp_claims_file


# --------------------------------------------------------------------------------------------
# Placeholders and directives
# --------------------------------------------------------------------------------------------


class results_placeholder(nodes.General, nodes.Element):
    """Replaced by the list of the book's results when the page is written."""


class claims_placeholder(nodes.General, nodes.Element):
    """Replaced by one paper's table of the claims registry when the page is written."""


class statements_placeholder(nodes.General, nodes.Element):
    """Replaced by the table of the book's own statements when the page is written."""


class cite_placeholder(nodes.General, nodes.Element):
    """Replaced by a BibTeX entry for one result or one chapter when the page is written."""


class ResultsDirective(SphinxDirective):
    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"exercises": directives.flag}

    def run(self) -> list[nodes.Node]:
        node = results_placeholder()
        node["exercises"] = "exercises" in self.options
        return [node]


class ClaimsDirective(SphinxDirective):
    has_content = False
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        path = claims_path(self.env.app)
        self.env.note_dependency(str(path))
        try:
            data = load_claims(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            return [self.state.document.reporter.warning(str(exc), line=self.lineno)]
        key = self.arguments[0]
        papers = {p["key"]: p for p in data["papers"]}
        if key not in papers:
            return [
                self.state.document.reporter.warning(
                    f"rpp-claims: unknown paper {key!r} (claims.yml has {sorted(papers)})", line=self.lineno
                )
            ]
        node = claims_placeholder()
        node["paper"] = key
        node["claims"] = [c for c in data["claims"] if c["paper"] == key]
        return [node]


class StatementsDirective(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = claims_path(self.env.app)
        self.env.note_dependency(str(path))
        try:
            data = load_claims(path)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            return [self.state.document.reporter.warning(str(exc), line=self.lineno)]
        node = statements_placeholder()
        node["statements"] = data["statements"]
        return [node]


class CiteDirective(SphinxDirective):
    """``{rpp-cite} <label or docname>``: a BibTeX entry for one result (its label) or one
    chapter (its document name, e.g. ``book/03_gaussian_priors``), with the number and title
    the book shows at this build."""

    has_content = False
    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"crossref": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        node = cite_placeholder()
        node["target"] = self.arguments[0]
        node["crossref"] = self.options.get("crossref", "rppbook2026")
        return [node]


# --------------------------------------------------------------------------------------------
# Collecting the results while the documents are read
# --------------------------------------------------------------------------------------------


def _proof_node_types() -> tuple[type, ...]:
    from sphinx_proof.nodes import NODE_TYPES

    return tuple(NODE_TYPES.values())


def _exercise_node_type() -> type | None:
    try:
        from sphinx_exercise.nodes import exercise_enumerable_node
    except ImportError:  # pragma: no cover - the book always loads sphinx-exercise
        return None
    return exercise_enumerable_node


def _title_children(title: nodes.Node) -> list[nodes.Node]:
    """The title of a sphinx-proof box without the " (" ... ")" of ``proof_title_format``."""
    children = [child.deepcopy() for child in title.children]
    if children and isinstance(children[0], nodes.Text) and str(children[0]).startswith(" ("):
        rest = str(children[0])[2:]
        children[0] = nodes.Text(rest)
    if children and isinstance(children[-1], nodes.Text) and str(children[-1]).endswith(")"):
        children[-1] = nodes.Text(str(children[-1])[:-1])
    return [c for c in children if not (isinstance(c, nodes.Text) and not str(c))]


def collect_results(app: Sphinx, doctree: nodes.document) -> None:
    """``doctree-read``: record the document's numbered boxes and exercises, in page order."""
    env = app.env
    if not hasattr(env, "rpp_results"):
        env.rpp_results = {}
    proof_types = _proof_node_types()
    exercise_type = _exercise_node_type()
    items = []
    for node in doctree.findall(nodes.Element):
        if isinstance(node, proof_types) and node.get("label"):
            title = node.children[0] if node.children else None
            items.append(
                {
                    "kind": "proof",
                    "label": node["label"],
                    "type": node.get("realtype", ""),
                    "title": _title_children(title) if isinstance(title, nodes.title) else [],
                }
            )
        elif exercise_type is not None and isinstance(node, exercise_type) and node.get("label"):
            subtitle = [c for c in node.findall(nodes.Element) if c.__class__.__name__ == "exercise_subtitle"]
            items.append(
                {
                    "kind": "exercise",
                    "label": node["label"],
                    "type": "exercise",
                    "title": [c.deepcopy() for c in subtitle[0].children] if subtitle else [],
                }
            )
    if items:
        env.rpp_results[env.docname] = items
    else:
        env.rpp_results.pop(env.docname, None)
    # Labelled admonitions ("(erratum-x)=" before a box): their titles, for the claims tables.
    if not hasattr(env, "rpp_box_titles"):
        env.rpp_box_titles = {}
    boxes = {}
    for node in doctree.findall(nodes.Admonition):
        if node.children and isinstance(node.children[0], nodes.title):
            for label in node["ids"]:
                boxes[label] = [c.deepcopy() for c in node.children[0].children]
    env.rpp_box_titles[env.docname] = boxes
    # The Results page shows the boxes' titles, which contain math: load MathJax there.
    if not hasattr(env, "rpp_results_pages"):
        env.rpp_results_pages = set()
    if any(doctree.findall(results_placeholder)) or any(doctree.findall(claims_placeholder)):
        env.get_domain("math").data["has_equations"][env.docname] = True
        env.rpp_results_pages.add(env.docname)
    else:
        env.rpp_results_pages.discard(env.docname)


def results_pages_outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    """``env-get-outdated``: the Results page shows every page's results; when any page is
    added, changed or removed, read (and so write) the pages with the placeholders again."""
    if not (added or changed or removed):
        return []
    return sorted(getattr(env, "rpp_results_pages", set()) - removed)


def purge_results(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "rpp_results", {}).pop(docname, None)
    getattr(env, "rpp_box_titles", {}).pop(docname, None)


def merge_results(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    if not hasattr(env, "rpp_results"):
        env.rpp_results = {}
    if not hasattr(env, "rpp_box_titles"):
        env.rpp_box_titles = {}
    env.rpp_results_pages = getattr(env, "rpp_results_pages", set()) | (
        getattr(other, "rpp_results_pages", set()) & set(docnames)
    )
    for docname in docnames:
        if docname in getattr(other, "rpp_results", {}):
            env.rpp_results[docname] = other.rpp_results[docname]
        if docname in getattr(other, "rpp_box_titles", {}):
            env.rpp_box_titles[docname] = other.rpp_box_titles[docname]


# --------------------------------------------------------------------------------------------
# Building the tables when a page is written
# --------------------------------------------------------------------------------------------


def _toc_order(env: BuildEnvironment, root: str) -> list[str]:
    seen: list[str] = []

    def walk(doc: str) -> None:
        if doc in seen:
            return
        seen.append(doc)
        for child in env.toctree_includes.get(doc, []):
            walk(child)

    walk(root)
    return seen


def _xref(domain: str, reftype: str, target: str, docname: str, literal: bool = False) -> addnodes.pending_xref:
    """The node a role such as {prf:ref}`target` leaves for Sphinx's ReferencesResolver."""
    inner = nodes.literal(target, target) if literal else nodes.inline(target, target)
    inner["classes"] += ["xref", domain, f"{domain}-{reftype}"]
    return addnodes.pending_xref(
        "", inner, refdomain=domain, reftype=reftype, reftarget=target, refdoc=docname, refexplicit=False, refwarn=True
    )


def _table(
    headers: list[str], rows: list[list[list[nodes.Node]]], widths: list[int], classes: list[str]
) -> nodes.table:
    """A table; a cell is a list of inline nodes (one paragraph) or a list of paragraphs."""
    table = nodes.table(classes=["rpp-results-table", "colwidths-given", *classes])
    tgroup = nodes.tgroup(cols=len(headers))
    table += tgroup
    for width in widths:
        tgroup += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    tgroup += thead
    head = nodes.row()
    for text in headers:
        head += nodes.entry("", nodes.paragraph(text, text))
    thead += head
    tbody = nodes.tbody()
    tgroup += tbody
    for cells in rows:
        row = nodes.row()
        for cell in cells:
            if cell and all(isinstance(c, nodes.paragraph) for c in cell):
                row += nodes.entry("", *cell)
            else:
                row += nodes.entry("", nodes.paragraph("", "", *cell))
        tbody += row
    table["classes"].append("longtable")  # LaTeX: the table may break across pages
    return table


def label_reference(env: BuildEnvironment, label: str, docname: str, builder: Any = None) -> nodes.Node | None:
    """A cross-reference to any label of the book, with the role the chapters would use.

    A sphinx-proof box -> {prf:ref} ("Theorem 3.5"); an equation -> {eq} ("(3.4)"); a figure,
    table or exercise -> {numref} ("Figure 6.3", "Exercise 3.2"); a section -> {ref} (its
    title); a labelled admonition (an erratum box) -> a link with the box's title; ``None`` if
    the book has no such label.
    """
    if label in getattr(env, "proof_list", {}):
        return _xref("prf", "ref", label, docname)
    math = env.get_domain("math")
    if label in math.data["objects"]:
        return _xref("math", "eq", label, docname)
    std = env.get_domain("std")
    if label in std.labels or label in std.anonlabels:
        target_doc, labelid = std.anonlabels[label][:2]
        for numbers in env.toc_fignumbers.get(target_doc, {}).values():
            if labelid in numbers:
                return _xref("std", "numref", label, docname)
        if label in std.labels:
            return _xref("std", "ref", label, docname)
        title = getattr(env, "rpp_box_titles", {}).get(target_doc, {}).get(labelid)
        if title is not None and builder is not None:
            return make_refnode(
                builder, docname, target_doc, labelid, nodes.inline("", "", *[c.deepcopy() for c in title])
            )
    return None


class BuildResultTables(SphinxPostTransform):
    """Replace the placeholders of ``{rpp-results}`` and ``{rpp-claims}`` by their tables."""

    default_priority = 4  # before sphinx-exercise (5) and the ReferencesResolver (10)

    def run(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(results_placeholder)):
            node.replace_self(self.results(node))
        for node in list(self.document.findall(claims_placeholder)):
            node.replace_self(self.claims(node))
        for node in list(self.document.findall(statements_placeholder)):
            node.replace_self(self.statements(node))
        if self.app.builder.format == "html":
            self.verdict_chips()
        for node in list(self.document.findall(cite_placeholder)):
            node.replace_self(self.cite(node))

    # -- {rpp-cite} ---------------------------------------------------------------------------

    def page_url(self, docname: str, anchor: str = "") -> str:
        base = (self.config.html_baseurl or "").rstrip("/")
        page = f"{docname}.html" + (f"#{anchor}" if anchor else "")
        return f"{base}/{page}" if base else page

    def cite(self, placeholder: cite_placeholder) -> nodes.Node:
        env, target = self.env, placeholder["target"]
        proofs = getattr(env, "proof_list", {})
        if target in proofs:
            info = proofs[target]
            doc = info["docname"]
            number = ".".join(map(str, env.toc_fignumbers[doc][info["countertype"]][target]))
            title = next(
                (nodes.Element("", *i["title"]).astext() for i in env.rpp_results.get(doc, []) if i["label"] == target),
                "",
            )
            what = f"{info['realtype'].title()} {number}"
            key, anchor = target, target
            fields = {"title": f"{what}: {title}" if title else what}
        elif target in env.titles:
            doc, anchor = target, ""
            key = posixpath.basename(target).split("_", 1)[-1].replace("_", "-")
            fields = {"title": env.titles[doc].astext()}
        else:
            logger.warning(f"rpp-cite: no result label or page {target!r}", location=placeholder)
            return nodes.paragraph()
        secnum = env.toc_secnumbers.get(doc, {}).get("")
        if secnum:
            fields["chapter"] = ".".join(map(str, secnum))
        fields["note"] = f"Stable anchor: {self.page_url(doc, anchor)}"
        body = ",\n".join(f"  {k:<8} = {{{v}}}" for k, v in [("crossref", placeholder["crossref"]), *fields.items()])
        text = wrap_bibtex(f"@incollection{{{placeholder['crossref']}-{key},\n{body}\n}}")
        return nodes.literal_block(text, text, language="bibtex", classes=["rpp-bibtex"])

    # -- {rpp-results} ------------------------------------------------------------------------

    def results(self, placeholder: results_placeholder) -> list[nodes.Node]:
        env, builder = self.env, self.app.builder
        fromdoc = self.env.docname
        found = getattr(env, "rpp_results", {})
        out: list[nodes.Node] = []
        for doc in _toc_order(env, self.config.root_doc):
            items = found.get(doc, [])
            boxes = [i for i in items if i["kind"] == "proof"]
            exercises = [i for i in items if i["kind"] == "exercise"]
            if not boxes and not (placeholder["exercises"] and exercises):
                continue
            secnum = env.toc_secnumbers.get(doc, {}).get("")
            title = env.titles[doc].deepcopy().children
            caption = nodes.rubric("", "", classes=["rpp-results-chapter"])
            prefix = [nodes.Text("Chapter " + ".".join(map(str, secnum)) + ". ")] if secnum else []
            caption += make_refnode(builder, fromdoc, doc, "", nodes.inline("", "", *prefix, *title))
            out.append(caption)
            if boxes:
                rows = [
                    [
                        [_xref("prf", "ref", i["label"], fromdoc)],
                        [c.deepcopy() for c in i["title"]],
                        [nodes.literal(i["label"], i["label"])],
                    ]
                    for i in boxes
                ]
                out.append(
                    _table(["Result", "Title", "Label (stable anchor)"], rows, [22, 50, 28], ["rpp-results-list"])
                )
            if placeholder["exercises"] and exercises:
                para = nodes.paragraph("", "", classes=["rpp-results-exercises"])
                para += nodes.strong("Exercises: ", "Exercises: ")
                for k, ex in enumerate(exercises):
                    if k:
                        para += nodes.Text(", ")
                    para += _xref("std", "numref", ex["label"], fromdoc)
                out.append(para)
        if not out:
            out.append(nodes.paragraph("No numbered results.", "No numbered results."))
        return out

    # -- {rpp-claims} -------------------------------------------------------------------------

    def claims(self, placeholder: claims_placeholder) -> list[nodes.Node]:
        fromdoc = self.env.docname
        rows = []
        for claim in placeholder["claims"]:
            item = nodes.paragraph(
                "", "", nodes.strong(claim["item"], claim["item"]), nodes.Text(": " + claim["title"])
            )
            verdict = nodes.paragraph("", "", classes=["rpp-verdict-line"])
            verdict += nodes.emphasis(
                claim["verdict"],
                claim["verdict"],
                classes=["rpp-verdict", "rpp-verdict-" + claim["verdict"].replace(" ", "-")],
            )
            if claim.get("note"):
                verdict += nodes.Text(": " + claim["note"])
            where = nodes.paragraph("", "")
            for k, label in enumerate(claim["book"]):
                ref = label_reference(self.env, label, fromdoc, self.app.builder)
                if ref is None:
                    logger.warning(
                        f"claims.yml: {claim['item']} of {claim['paper']}: the book has no label {label!r}",
                        location=placeholder,
                    )
                    ref = nodes.literal(label, label)
                if k:
                    where += nodes.Text("; ")
                where += ref
            cells = [where]
            if claim["checked_by"]:
                checks = nodes.paragraph("", "", nodes.Text("Checked by: "), classes=["rpp-checked-by"])
                for k, check in enumerate(claim["checked_by"]):
                    if k:
                        checks += nodes.Text("; ")
                    # links to the test's source and to the cell's anchor (tools/book_cells.py)
                    checks += _book_cells().check_reference(self.app, fromdoc, check, placeholder)
                cells.append(checks)
            rows.append([[item, verdict], cells])
        # The numbers ("Theorem 3.1", "(3.4)") must not wrap: see KeepNumbersTogether.
        return [
            _table(
                ["The paper's item and the book's verdict", "Where in this book"], rows, [50, 50], ["rpp-claims-table"]
            )
        ]

    # -- {rpp-statements} ----------------------------------------------------------------------

    def _label_or_literal(self, label: str, placeholder: nodes.Node) -> nodes.Node:
        ref = label_reference(self.env, label, self.env.docname, self.app.builder)
        if ref is None:
            logger.warning(f"claims.yml: statements: the book has no label {label!r}", location=placeholder)
            return nodes.literal(label, label)
        return ref

    def verdict_chips(self) -> None:
        """Beside each registered box of a chapter, its verdict, linked to its row on the Results page.

        HTML only: the PDF keeps the boxes as they are (the Results appendix lists the verdicts).
        """
        statements = self._registered_statements()
        if not statements:
            return
        proof_types = _proof_node_types()
        for node in list(self.document.findall(nodes.Element)):
            if not isinstance(node, proof_types):
                continue
            entry = statements.get(node.get("label", ""))
            if entry is None:
                continue
            chip = nodes.paragraph("", "", classes=["rpp-verdict-chip"])
            link = nodes.reference(
                "",
                "",
                nodes.emphasis(entry["verdict"], entry["verdict"]),
                internal=True,
                refuri=self.app.builder.get_relative_uri(self.env.docname, self.config.rpp_results_doc)
                + "#statement-"
                + entry["label"],
                classes=["rpp-verdict", "rpp-verdict-" + entry["verdict"].replace(" ", "-")],
            )
            chip += nodes.Text("Verdict: ")
            chip += link
            node.parent.insert(node.parent.index(node) + 1, chip)

    def _registered_statements(self) -> dict[str, dict]:
        try:
            data = load_claims(claims_path(self.app))
        except (OSError, ValueError, yaml.YAMLError):
            return {}  # the Results page's directive reports the error
        return {entry["label"]: entry for entry in data["statements"]}

    def statements(self, placeholder: statements_placeholder) -> list[nodes.Node]:
        rows = []
        for entry in placeholder["statements"]:
            head = nodes.paragraph("", "", ids=["statement-" + entry["label"]])
            head += self._label_or_literal(entry["label"], placeholder)
            head += nodes.Text(": " + entry["statement"])
            domain = nodes.paragraph("", "", nodes.Text("Domain: " + entry["domain"]))
            verdict = nodes.paragraph("", "", classes=["rpp-verdict-line"])
            verdict += nodes.emphasis(
                entry["verdict"],
                entry["verdict"],
                classes=["rpp-verdict", "rpp-verdict-" + entry["verdict"].replace(" ", "-")],
            )
            if entry.get("note"):
                verdict += nodes.Text(": " + entry["note"])
            cells = []
            if entry.get("proof"):
                proof = nodes.paragraph("", "", nodes.Text("Proof: after "), classes=["rpp-proof-after"])
                proof += self._label_or_literal(entry["proof"], placeholder)
                cells.append(proof)
            if entry["checked_by"]:
                cells.append(self._checks(entry["checked_by"]))
            rows.append([[head, domain, verdict], cells])
        return [
            _table(["The statement, its domain and verdict", "Proof and checks"], rows, [60, 40], ["rpp-claims-table"])
        ]

    @staticmethod
    def _checks(checked_by: list[dict]) -> nodes.paragraph:
        checks = nodes.paragraph("", "", nodes.Text("Checked by: "), classes=["rpp-checked-by"])
        for k, check in enumerate(checked_by):
            if k:
                checks += nodes.Text("; ")
            if "test" in check:
                checks += nodes.literal(check["test"], check["test"])
            else:
                nb = posixpath.basename(check["notebook"])
                checks += nodes.literal(nb, nb)
                checks += nodes.Text(
                    ", cell " + check["cell"] if check.get("cell") else f", the cell with “{check['marker']}”"
                )
        return checks


def _book_cells():
    """``tools/book_cells.py`` (the links of the "checked by" items), imported from this folder."""
    import importlib.util
    import sys

    if "book_cells" not in sys.modules:
        spec = importlib.util.spec_from_file_location("book_cells", Path(__file__).resolve().parent / "book_cells.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["book_cells"] = module
        spec.loader.exec_module(module)
    return sys.modules["book_cells"]


class KeepNumbersTogether(SphinxPostTransform):
    """After the references are resolved (priority 11, after the ReferencesResolver at 10):

    - "Theorem 3.1" with a no-break space in the tables, so a number never wraps;
    - in LaTeX, a test node id may break after each underscore and a label after each hyphen
      (they can be longer than a column),
      and a reference to an exercise becomes the kind sphinx-exercise writes for the PDF
      (``\\hyperref[exercise:label]{Exercise 3.2}``: its exercises have no LaTeX counter, so
      Sphinx's own ``\\ref`` would print "??").
    """

    default_priority = 11

    def run(self, **kwargs: Any) -> None:
        latex = self.app.builder.format == "latex"
        for table in self.document.findall(nodes.table):
            if {"rpp-results-list", "rpp-claims-table"} & set(table["classes"]):
                self.no_break_in_numbers(table)
                if latex:
                    self.breakable_codes(table)
        if latex:
            self.exercises_for_latex()

    @staticmethod
    def no_break_in_numbers(table: nodes.table) -> None:
        for ref in table.findall(nodes.reference):
            for text in list(ref.findall(nodes.Text)):
                if " " in text and len(text) <= 24:
                    text.parent.replace(text, nodes.Text(str(text).replace(" ", "\u00a0")))

    @staticmethod
    def breakable_codes(table: nodes.table) -> None:
        for literal in list(table.findall(nodes.literal)):
            text = literal.astext()
            if "::" in text and len(text) > 30:
                literal.replace_self(breakable_literal(text, "_"))
            elif len(text) > 20:  # a label: it may break after a hyphen
                literal.replace_self(breakable_literal(text, "-"))

    def exercises_for_latex(self) -> None:
        exercises = getattr(self.env, "sphinx_exercise_registry", {})
        for para in self.document.findall(nodes.paragraph):
            if not {"rpp-results-exercises", "rpp-proof-after"} & set(para["classes"]):
                continue  # the exercise lists, and "Proof: after Exercise 1.4" in the claims table
            for ref in list(para.findall(addnodes.number_reference)):
                label = ref.get("refuri", "").rpartition("#")[2]
                if label in exercises:
                    ref["refid"] = label  # sphinx-exercise's ResolveLinkTextToSolutions (22)
                    del ref["refuri"]


def breakable_literal(text: str, after: str) -> list[nodes.Node]:
    """``text`` as literal pieces with a LaTeX ``\\allowbreak`` after each ``after``."""
    sep = re.escape(after)
    pieces = re.findall(rf"[^{sep}]*{sep}|[^{sep}]+$", text)
    out: list[nodes.Node] = []
    for k, piece in enumerate(pieces):
        if k:
            out.append(nodes.raw("", r"\allowbreak{}", format="latex"))
        out.append(nodes.literal(piece, piece))
    return out


# --------------------------------------------------------------------------------------------
# sphinx-proof's raw index
# --------------------------------------------------------------------------------------------


def drop_proof_index(app: Sphinx) -> None:
    """``builder-inited``: generate every domain index except sphinx-proof's ``prf-prf``."""
    every = [f"{domain.name}-{index.name}" for domain in app.env.domains.values() for index in domain.indices]
    for name in ("html_domain_indices", "latex_domain_indices"):
        value = getattr(app.config, name, None)
        if value is True:
            setattr(app.config, name, [i for i in every if i != PROOF_INDEX])
        elif isinstance(value, (list, tuple)):
            setattr(app.config, name, [i for i in value if i != PROOF_INDEX])


def remove_stale_index(app: Sphinx, exc: Exception | None) -> None:
    """``build-finished``: an HTML build of an earlier edition may have left prf-prf.html."""
    if exc is None and app.builder.format == "html":
        stale = Path(app.outdir) / f"{PROOF_INDEX}.html"
        if stale.is_file():
            stale.unlink()


class BibtexEntryDirective(SphinxDirective):
    """``{rpp-bibtex} key``: one entry of the book's BibTeX file, verbatim (it cannot drift)."""

    has_content = False
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        key = self.arguments[0]
        for bibfile in self.config.bibtex_bibfiles:
            path = Path(self.env.app.confdir) / bibfile
            self.env.note_dependency(str(path))
            entry = bibtex_entry(path.read_text(encoding="utf-8"), key)
            if entry:
                entry = wrap_bibtex(entry)
                block = nodes.literal_block(entry, entry, language="bibtex", classes=["rpp-bibtex"])
                return [block]
        return [
            self.state.document.reporter.warning(
                f"rpp-bibtex: no entry {key!r} in {self.config.bibtex_bibfiles}", line=self.lineno
            )
        ]


def wrap_bibtex(entry: str, width: int = 64) -> str:
    """Wrap the long field lines of a BibTeX entry (BibTeX ignores the added line breaks), so
    that the block needs no sideways scrolling in the web book's column."""
    import textwrap

    out = []
    for line in entry.splitlines():
        if len(line) <= width or "=" not in line:
            out.append(line)
            continue
        head = line[: line.index("=") + 1]
        indent = " " * (len(head) + 2)
        out.extend(
            textwrap.wrap(line, width=width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
        )
    return "\n".join(out)


def bibtex_entry(text: str, key: str) -> str | None:
    """The text of the entry ``@type{key, ...}``, from its ``@`` to its closing brace."""
    m = re.search(r"@\w+\s*\{\s*" + re.escape(key) + r"\s*,", text)
    if not m:
        return None
    depth = 0
    for i in range(text.index("{", m.start()), len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[m.start() : i + 1]
    return None


def setup(app: Sphinx) -> dict:
    app.add_config_value("rpp_claims_file", "book/claims.yml", "env")
    app.add_config_value("rpp_results_doc", "book/results", "env")
    app.add_directive("rpp-bibtex", BibtexEntryDirective)
    app.add_directive("rpp-cite", CiteDirective)
    app.add_node(cite_placeholder)
    app.add_node(results_placeholder)
    app.add_node(claims_placeholder)
    app.add_node(statements_placeholder)
    app.add_directive("rpp-results", ResultsDirective)
    app.add_directive("rpp-claims", ClaimsDirective)
    app.add_directive("rpp-statements", StatementsDirective)
    app.connect("doctree-read", collect_results)
    app.connect("env-purge-doc", purge_results)
    app.connect("env-get-outdated", results_pages_outdated)
    app.connect("env-merge-info", merge_results)
    app.connect("builder-inited", drop_proof_index)
    app.connect("build-finished", remove_stale_index)
    app.add_post_transform(BuildResultTables)
    app.add_post_transform(KeepNumbersTogether)
    app.add_css_file("rpp-results.css")  # tools/static/ is served by tools/book_html.py
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
