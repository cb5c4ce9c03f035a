#!/usr/bin/env python
"""Create a new chapter notebook of The RPP Book and add it to ``_toc.yml``.

Usage (from the repository root, with the book's environment)::

    .venv/bin/python tools/new_chapter.py 3 gaussian_priors "Gaussian priors"

creates ``book/03_gaussian_priors.ipynb`` following the chapter conventions
(see README.md, "Adding a chapter") and lists it in the "Chapters" part of ``_toc.yml``:

1. cell 1: the bootstrap cell (tag ``remove-cell``, hidden on the web), which installs the
   ``rpp`` package when the distribution ``rpp-book`` is missing; the Jupyter edition
   (tools/jupyter_edition.py) replaces it with a cell that installs its own commit;
2. cell 2: the chapter label ``(ch-<topic>)=``, the title ``# Title`` and a
   learning-objectives box (no manual number in the title or in section headings: the
   numbered toc of ``_toc.yml`` numbers chapters and sections, "3." and "3.1");
3. a section with a labelled theorem, a labelled equation and a cell that checks it;
4. ``## Summary`` and ``## Exercises`` with an exercise and a dropdown solution whose code
   cells are tagged ``solution``.

Every piece of text the author must replace contains the marker ``FILL-IN``;
``tests/book/test_book.py`` fails while any marker is left in a notebook under ``book/``.
The notebook is executed in place (fresh ``python3`` kernel, working directory ``book/``)
unless ``--no-execute`` is given, so that it is stored with outputs as the book requires.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from pathlib import Path

import nbformat
import yaml

#: The distribution that ships ``rpp``. The bootstrap cell tests the *distribution*
#: (``importlib.metadata``), not the import name ``rpp``, which an unrelated package on PyPI also
#: provides.
_PROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))[
    "project"
]
DISTRIBUTION = _PROJECT["name"]
REPOSITORY = "https://github.com/rpp-book/rpp-book"
#: What the *source* chapter installs when ``rpp-book`` is missing: the newest ``rpp`` (main) with
#: every extra a chapter imports. Readers do not run the source chapters (they are MyST): the
#: launch buttons open the Jupyter edition (tools/jupyter_edition.py), whose generated first
#: cell replaces this one and installs exactly the commit the edition was made from.
SOURCE_REQUIREMENT = f"{DISTRIBUTION}[chapters] @ git+{REPOSITORY}@main"
#: ... and the book support (the module ``rpp_book``: the papers' reproductions and the data), a
#: distribution of its own in ``support/`` that the library's wheel does not carry.
SUPPORT_DISTRIBUTION = "rpp-book-support"
SUPPORT_REQUIREMENT = f"{SUPPORT_DISTRIBUTION} @ git+{REPOSITORY}@main#subdirectory=support"

#: The exact first cell of every chapter notebook (checked by tests/book/test_book.py); after
#: changing it run ``python tools/new_chapter.py --sync-bootstrap``.
BOOTSTRAP_SOURCE = (
    "# The book's package `rpp` and its support `rpp_book` for a fresh kernel. The\n"
    "# Jupyter edition of this chapter (the launch buttons of the web book open it)\n"
    "# replaces this cell with one that installs those of its own commit; this source\n"
    "# notebook installs the newest when missing.\n"
    "from importlib.metadata import PackageNotFoundError, version\n"
    "\n"
    "# IPython expands {_REPO} in the %pip line\n"
    f'_REPO = "git+{REPOSITORY}@main"\n'
    "try:\n"
    f'    version("{DISTRIBUTION}"), version("{SUPPORT_DISTRIBUTION}")\n'
    "except PackageNotFoundError:\n"
    f'    %pip install --quiet "{DISTRIBUTION}[chapters] @ {{_REPO}}" \\\n'
    f'        "{SUPPORT_DISTRIBUTION} @ {{_REPO}}#subdirectory=support"'
)
assert SOURCE_REQUIREMENT.replace(f"git+{REPOSITORY}@main", "{_REPO}") in BOOTSTRAP_SOURCE
assert SUPPORT_REQUIREMENT.replace(f"git+{REPOSITORY}@main", "{_REPO}") in BOOTSTRAP_SOURCE
BOOTSTRAP_TAGS = ["remove-cell"]

#: Marker of skeleton text that must be replaced before a chapter is committed.
PLACEHOLDER = "FILL-IN"

CHAPTERS_CAPTION = "Chapters"
APPENDICES_CAPTION = "Appendices"
SLUG_RE = re.compile(r"^[a-z][a-z0-9_]*$")
TOPIC_RE = re.compile(r"^[a-z][a-z0-9-]*$")
NOTEBOOK_RE = re.compile(r"^(\d{2})_([a-z][a-z0-9_]*)\.ipynb$")

TOC_HEADER = (
    "# Table of contents (Jupyter Book 1.x, format jb-book).\n"
    '# Add a chapter with: python tools/new_chapter.py N slug "Title"  (it edits this file).\n'
)


def topic_of(slug: str) -> str:
    """Label prefix of a chapter: its slug with hyphens (``gaussian_priors`` -> ``gaussian-priors``)."""
    return slug.replace("_", "-")


def chapter_cells(slug: str, title: str, topic: str | None = None) -> list:
    """The cells of a new chapter skeleton; labels are prefixed with ``topic`` (default: from slug)."""
    t = topic or topic_of(slug)
    md = nbformat.v4.new_markdown_cell
    code = nbformat.v4.new_code_cell
    return [
        code(BOOTSTRAP_SOURCE, metadata={"tags": list(BOOTSTRAP_TAGS)}),
        md(
            f"(ch-{t})=\n"
            f"# {title}\n"
            "\n"
            ":::{admonition} Learning objectives\n"
            ":class: tip\n"
            f"- {PLACEHOLDER}: what the reader can do after this chapter (3 to 5 items).\n"
            ":::\n"
            "\n"
            f"{PLACEHOLDER}: the question this chapter answers, and why it matters; cite sources "
            "with {cite:p}`yang2026rpp` or {cite:t}`kifer2014pufferfish`."
        ),
        code("import numpy as np\nimport sympy as sp\n\nimport rpp"),
        md(
            f"## {PLACEHOLDER}: first section\n"
            "\n"
            f":::{{prf:theorem}} {PLACEHOLDER}: name (source, theorem number)\n"
            f":label: thm-{t}-fill-in\n"
            "\n"
            f"{PLACEHOLDER}: statement, with a numbered equation:\n"
            "\n"
            "```{math}\n"
            f":label: eq-{t}-fill-in\n"
            "\\Dalpha\\bigl(\\N(\\mu, \\sigma^2) \\,\\|\\, \\N(\\mu', \\sigma^2)\\bigr) "
            "= \\frac{\\alpha (\\mu - \\mu')^2}{2 \\sigma^2}\n"
            "```\n"
            ":::\n"
            "\n"
            f"{PLACEHOLDER}: explain the result, refer to it as {{prf:ref}}`thm-{t}-fill-in` "
            f"and {{eq}}`eq-{t}-fill-in`, then check it in the next cell (a derivation is a cell "
            "that asserts what it derives)."
        ),
        code(
            f"# {PLACEHOLDER}: the computation that checks the theorem above.\n"
            'alpha = sp.symbols("alpha", positive=True)\n'
            'mu0, mu1, y = sp.symbols("mu0 mu1 y", real=True)\n'
            "# exponent of p^alpha q^(1-alpha) for two Gaussians: complete the square around m\n"
            "m = alpha * mu0 + (1 - alpha) * mu1\n"
            "lhs = alpha * (y - mu0) ** 2 + (1 - alpha) * (y - mu1) ** 2\n"
            "rhs = (y - m) ** 2 + alpha * (1 - alpha) * (mu0 - mu1) ** 2\n"
            "assert sp.expand(lhs - rhs) == 0"
        ),
        md(f"## Summary\n\n- {PLACEHOLDER}: the chapter's results in 3 to 5 bullet points, with their labels."),
        md(
            "## Exercises\n"
            "\n"
            ":::{exercise}\n"
            f":label: ex-{t}-1\n"
            "\n"
            f"{PLACEHOLDER}: the exercise (2 to 4 exercises per chapter).\n"
            ":::"
        ),
        md(f":::{{solution-start}} ex-{t}-1\n:class: dropdown\n:::"),
        code(
            f"# {PLACEHOLDER}: solution code; every solution code cell is tagged 'solution'.\n"
            "assert np.isclose(np.log(np.e), 1.0)",
            metadata={"tags": ["solution"]},
        ),
        md(":::{solution-end}\n:::"),
    ]


def new_notebook(slug: str, title: str, topic: str | None = None) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.cells = chapter_cells(slug, title, topic)
    nbformat.validate(nb)
    return nb


class _TocDumper(yaml.SafeDumper):
    """Indent list items under their key, as in the hand-written _toc.yml."""

    def increase_indent(self, flow=False, indentless=False):  # noqa: ARG002  PyYAML passes indentless by name
        return super().increase_indent(flow, False)


def dump_toc(toc: dict, header: str = TOC_HEADER) -> str:
    body = yaml.dump(toc, Dumper=_TocDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=100)
    return header + body


def toc_docnames(node) -> list[str]:
    """Docnames of a parsed ``_toc.yml`` (root first, then every ``file`` entry, in reading order)."""
    names = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                names.append(node[key])
        for value in node.values():
            if isinstance(value, (list, dict)):
                names.extend(toc_docnames(value))
    elif isinstance(node, list):
        for item in node:
            names.extend(toc_docnames(item))
    return names


def read_toc(path: Path) -> tuple[dict, str]:
    """The toc as a dict, and its leading comment block (kept when rewriting)."""
    text = path.read_text(encoding="utf-8")
    header_lines = []
    for line in text.splitlines(keepends=True):
        if line.startswith("#"):
            header_lines.append(line)
        else:
            break
    toc = yaml.safe_load(text)
    if not isinstance(toc, dict) or toc.get("format") != "jb-book":
        raise ValueError(f"{path} is not a Jupyter Book toc with 'format: jb-book'")
    return toc, "".join(header_lines) or TOC_HEADER


def add_to_toc(toc: dict, docname: str) -> dict:
    """Add ``docname`` (e.g. ``book/03_gaussian_priors``) to the "Chapters" part, kept sorted.

    The part is created, just before "Appendices", if it does not exist yet.
    """
    parts = toc.setdefault("parts", [])
    chapters_part = next((p for p in parts if p.get("caption") == CHAPTERS_CAPTION), None)
    if chapters_part is None:
        # numbered: Sphinx numbers the chapters 1, 2, ... and their figures, equations and
        # boxes per chapter (numfig_secnum_depth: 1 in _config.yml)
        chapters_part = {"caption": CHAPTERS_CAPTION, "numbered": True, "chapters": []}
        idx = next((i for i, p in enumerate(parts) if p.get("caption") == APPENDICES_CAPTION), len(parts))
        parts.insert(idx, chapters_part)
    chapters = chapters_part.setdefault("chapters", [])
    if any(c.get("file") == docname for c in chapters):
        raise ValueError(f"{docname} is already in the table of contents")
    chapters.append({"file": docname})
    chapters.sort(key=lambda c: c.get("file", ""))
    return toc


def execute_in_place(path: Path, timeout: int = 300) -> None:
    """Run the notebook top to bottom in a fresh ``python3`` kernel (cwd = its folder) and save it."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    nbformat.write(nb, path)


def sync_bootstrap(book: Path) -> list[Path]:
    """Rewrite the first cell of every chapter notebook in ``book`` to :data:`BOOTSTRAP_SOURCE`.

    Only the cell's source changes (its outputs and tags stay); returns the notebooks changed.
    Run after changing :data:`BOOTSTRAP_SOURCE`.
    """
    changed = []
    for path in sorted(book.glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if nb.cells and nb.cells[0].cell_type == "code" and nb.cells[0].source != BOOTSTRAP_SOURCE:
            nb.cells[0].source = BOOTSTRAP_SOURCE
            nbformat.write(nb, path)
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--sync-bootstrap"]:
        book = Path(__file__).resolve().parents[1] / "book"
        for path in sync_bootstrap(book):
            print(f"updated the bootstrap cell of {path.name}")
        return 0
    parser = argparse.ArgumentParser(
        description="Create book/NN_slug.ipynb from the chapter skeleton and add it to _toc.yml."
    )
    parser.add_argument("number", type=int, help="chapter number, 1 to 99 (file prefix NN)")
    parser.add_argument(
        "slug", help="lower-case identifier, e.g. gaussian_priors (labels use it with hyphens: ch-gaussian-priors)"
    )
    parser.add_argument("title", help='chapter title without its number, e.g. "Gaussian priors"')
    parser.add_argument(
        "--topic",
        default=None,
        help="label prefix if not the slug with hyphens, e.g. 'gaussian' gives "
        "ch-gaussian, thm-gaussian-..., eq-gaussian-...",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="repository root (default: the one containing this script)",
    )
    parser.add_argument(
        "--no-execute", action="store_true", help="do not execute the new notebook (it must be executed before commit)"
    )
    args = parser.parse_args(argv)

    if not 1 <= args.number <= 99:
        parser.error(f"number must be in 1..99, got {args.number}")
    if not SLUG_RE.match(args.slug):
        parser.error(f"slug must match {SLUG_RE.pattern} (lower case, digits, underscores), got {args.slug!r}")
    if args.topic is not None and not TOPIC_RE.match(args.topic):
        parser.error(f"topic must match {TOPIC_RE.pattern}, got {args.topic!r}")
    if not args.title.strip():
        parser.error("title must not be empty")

    root = args.root.resolve()
    book = root / "book"
    toc_path = root / "_toc.yml"
    nn = f"{args.number:02d}"
    path = book / f"{nn}_{args.slug}.ipynb"
    docname = f"book/{path.stem}"

    clashes = [p.name for p in book.glob(f"{nn}_*.ipynb")]
    if path.exists() or clashes:
        parser.error(f"chapter {nn} already exists: {', '.join(clashes) or path.name}")
    topic = args.topic or topic_of(args.slug)
    for p in book.rglob("*.*"):
        if p.suffix in (".ipynb", ".md") and f"(ch-{topic})=" in p.read_text(encoding="utf-8"):
            parser.error(f"label ch-{topic} is already defined in {p.name}: choose another --topic")

    toc, header = read_toc(toc_path)
    add_to_toc(toc, docname)  # validate before writing anything

    nbformat.write(new_notebook(args.slug, args.title.strip(), topic), path)
    toc_path.write_text(dump_toc(toc, header), encoding="utf-8")
    print(f"created {path.relative_to(root)} and added {docname} to _toc.yml")

    if not args.no_execute:
        execute_in_place(path)
        print(f"executed {path.relative_to(root)} in place")
    print(
        f"Next: replace every '{PLACEHOLDER}' marker, re-execute "
        f"(jupyter execute --inplace {path.relative_to(root)}), then "
        f"`make page NB={path.relative_to(root)}` and `make test`."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
