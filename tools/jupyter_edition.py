#!/usr/bin/env python
"""Write the Jupyter edition of The RPP Book: every chapter as a notebook that reads well in
Jupyter, JupyterLab and Colab, with the web book's numbers.

Usage (from the repository root, with the book's environment)::

    .venv/bin/python tools/jupyter_edition.py                 # every chapter -> _build/jupyter/
    .venv/bin/python tools/jupyter_edition.py --out DIR book/03_gaussian_priors.ipynb
    .venv/bin/python tools/jupyter_edition.py --student       # without solutions (student edition)

``make notebooks`` writes both editions into ``_build/html/notebooks/`` (shipped with the web
book, so every page can link its notebook) and ``make student`` the student edition into
``student/``. The chapters in ``book/`` are MyST notebooks: Jupyter shows their directives and
roles as raw text. This tool rewrites the Markdown cells:

- sphinx-proof boxes (``prf:theorem`` ...), exercises and admonitions become titled blockquotes
  ("**Theorem 3.5** (title)."), dropdowns and ``{solution}`` blocks ``<details>`` elements;
- ``{prf:ref}``, ``{ref}``, ``{numref}``, ``{eq}`` become their text and number ("Theorem 3.5",
  "(3.4)", "Figure 6.3") linked to the page and anchor of the web book; ``{cite:t}`` /
  ``{cite:p}`` the web book's author-year text linked to its bibliography entry; ``{func}``,
  ``{class}``, ``{mod}`` links into the API appendix;
- ``{math}`` blocks become ``$$ ... \\tag{3.4} $$``; ``(label)=`` lines are dropped; headings
  get their section numbers ("3.2 ..."), figures (cell metadata ``mystnb.figure``) a
  "**Figure 3.1.** caption" cell;
- the MathJax macros of ``_config.yml`` (``\\N``, ``\\Dalpha``, ...) are defined, invisibly, at
  the top of the first Markdown cell, and those a later Markdown cell uses at its own top
  (a renderer that typesets each cell on its own finds them too);
- the first (hidden) code cell installs exactly the ``rpp`` of the commit the edition is made
  from, with the extras the chapter imports (:func:`launch_cell`).

Where the numbers come from
---------------------------
Not from a re-implementation of the numbering: from **Sphinx's own environment** of the book.
The tool runs Sphinx over the book with the book's configuration, table of contents and
extensions (``tools/book_numbering.py``, sphinx-proof, sphinx-exercise, numfig), with the
builder ``dummy`` and notebook execution off (the stored outputs are read; numbers never depend
on outputs), and reads the numbers Sphinx assigned: ``env.toc_fignumbers`` (boxes, exercises,
equations, figures), ``env.toc_secnumbers`` (sections), ``env.proof_list``,
``env.sphinx_exercise_registry``, the ``std``/``math``/``py`` domains and the citations of
sphinxcontrib-bibtex, formatted by its own author-year style. These are the very data from which
``make book`` writes the HTML. The environment is cached in ``_build/jupyter/.env-<hash>``
(keyed on the book's sources, configuration, tools and ``rpp/``); it takes about 30 s to build.
``browser_tests/test_jupyter_edition.py`` checks every number and anchor of the edition against
the built HTML, and renders every notebook in Chromium.

Unknown directives or roles, unresolvable labels and MyST left in the output are errors: the
tool never writes a notebook that would show raw MyST.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import functools
import hashlib
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

from book_toc import toc_chapters  # tools/ is on the path from here
from student_edition import after_solution_end, leaks, make_student_notebook

#: Where the web book is published (links of the Jupyter edition). Override with --web-url.
WEB_URL = "https://rpp-book.github.io/rpp-book/"
#: The branch that holds the published Jupyter edition (``--publish``); the launch buttons of
#: the web book open its notebooks (``_config.yml``: ``repository.branch``).
EDITION_BRANCH = "jupyter"
DISTRIBUTION = "rpp-book"
#: The book support (the module ``rpp_book``): its own distribution in ``support/`` of the
#: repository, installed by the launch cell of a chapter that imports it.
SUPPORT_DISTRIBUTION = "rpp-book-support"
SUPPORT_MODULE = "rpp_book"
SUPPORT_SUBDIRECTORY = "support"
#: The extra of ``rpp-book`` that every chapter's launch cell installs (pyproject.toml).
CHAPTERS_EXTRA = "chapters"
LAUNCH_TAG = "launch-cell"
EDITION_NOTE_TAG = "jupyter-edition-note"
FIGURE_TAG = "figure-caption"

# Modules a kernel always has (Colab, Binder, the book's environment): never an extra.
_KERNEL_MODULES = {"IPython", "ipykernel", "matplotlib_inline", "google"}


class EditionError(ValueError):
    """The edition cannot be written faithfully (an unknown directive, role or label)."""


# ------------------------------------------------------------------------------------------
# The Sphinx environment of the book
# ------------------------------------------------------------------------------------------


def _inputs_digest(root: Path) -> str:
    """A digest of everything that can change the book's numbers, titles and anchors, and of the
    interpreter: the environment is a pickle, which another Python may not read (3.13's pathlib
    classes do not exist on 3.11)."""
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag}\0".encode())
    files = [root / "_config.yml", root / "_toc.yml"]
    for pattern in ("book/**/*", "tools/book_*.py", "rpp/**/*.py"):
        files += sorted(p for p in root.glob(pattern) if p.is_file())
    for path in files:
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _build_environment(root: Path, doctrees: Path) -> None:
    """Run Sphinx (builder ``dummy``, execution off) over the book; doctrees into ``doctrees``."""
    from jupyter_book.sphinx import build_sphinx

    out = doctrees.parent / "dummy"
    rc = build_sphinx(
        str(root),
        str(out),
        doctreedir=str(doctrees),
        builder="dummy",
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides={"nb_execution_mode": "off", "latex_individualpages": False},
        really_quiet=True,
        freshenv=True,
    )
    if rc != 0:
        raise RuntimeError(f"Sphinx could not read the book (exit status {rc!r})")


@contextlib.contextmanager
def _build_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (``fcntl.flock``; no lock where fcntl is missing)."""
    try:
        import fcntl
    except ImportError:  # Windows: builds may race, os.replace below keeps one copy
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_environment_into(root: Path, cache: Path, target: Path, tag: str) -> None:
    """Build the Sphinx environment in a subprocess into ``target`` (a fresh folder of ``cache``)."""
    tmp = Path(tempfile.mkdtemp(prefix=".env-tmp-", dir=cache))
    # A subprocess: Sphinx and the book's extensions stay out of the caller's process.
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--build-env", str(tmp / "doctrees"), "--root", str(root)],
        check=True,
        env=env,
        cwd=root,
    )
    try:
        os.replace(tmp, target)
    except OSError:  # another process won the race: use its copy
        shutil.rmtree(tmp, ignore_errors=True)
    for old in cache.glob(f".env-{tag}-*"):  # older inputs; other interpreters' are left alone
        if old != target:
            shutil.rmtree(old, ignore_errors=True)


def sphinx_environment(root: Path = ROOT, cache: Path | None = None) -> tuple[object, Path]:
    """The book's Sphinx environment and its doctree folder, built once per input digest."""
    cache = cache or root / "_build" / "jupyter"
    tag = sys.implementation.cache_tag  # one environment per interpreter (a pickle)
    target = cache / f".env-{tag}-{_inputs_digest(root)}"
    if not (target / "doctrees" / "environment.pickle").is_file():
        cache.mkdir(parents=True, exist_ok=True)
        # One build at a time per cache folder: test workers and CI's lanes ask for the same
        # environment at once, and each used to build it (about 40 CPU seconds); a process that
        # waited here finds the winner's copy and only reads it.
        with _build_lock(cache / f".env-{tag}.lock"):
            if not (target / "doctrees" / "environment.pickle").is_file():
                _build_environment_into(root, cache, target, tag)
    doctrees = target / "doctrees"
    with open(doctrees / "environment.pickle", "rb") as f:
        return pickle.load(f), doctrees


def _text(node) -> str:
    return node.astext() if hasattr(node, "astext") else str(node)


class _Builder:
    """The little of a Sphinx builder that sphinxcontrib-bibtex's reference text needs."""

    name = "html"

    def __init__(self, index: BookIndex):
        self.index = index

    def get_relative_uri(self, fromdocname: str, todocname: str) -> str:  # noqa: ARG002  Sphinx's Builder signature
        return self.index.page_url(todocname)


@dataclass
class BookIndex:
    """Numbers, titles and web addresses of everything a chapter can refer to."""

    env: object
    doctrees: Path
    web_url: str = WEB_URL
    numfig_format: dict = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path = ROOT, web_url: str = WEB_URL, cache: Path | None = None) -> BookIndex:
        env, doctrees = sphinx_environment(root, cache)
        fmt = {
            "figure": "Figure %s",
            "table": "Table %s",
            "code-block": "Listing %s",
            "section": "Section %s",
            "exercise": "Exercise %s",
        }
        fmt.update(env.config.numfig_format or {})
        return cls(env, doctrees, web_url.rstrip("/") + "/", fmt)

    # -- addresses --------------------------------------------------------------------------
    def page_url(self, docname: str, anchor: str = "") -> str:
        url = f"{self.web_url}{docname}.html"
        return f"{url}#{anchor}" if anchor else url

    def number(self, docname: str, figtype: str, node_id: str) -> str:
        try:
            return ".".join(map(str, self.env.toc_fignumbers[docname][figtype][node_id]))
        except KeyError as exc:
            raise EditionError(f"{docname}: no {figtype} number for {node_id!r}") from exc

    def figtype_of(self, docname: str, node_id: str) -> str | None:
        for figtype, numbers in self.env.toc_fignumbers.get(docname, {}).items():
            if node_id in numbers:
                return figtype
        return None

    def secnumber(self, docname: str, anchor: str) -> str:
        numbers = self.env.toc_secnumbers.get(docname, {})
        value = numbers.get(anchor)
        return ".".join(map(str, value)) if value else ""

    # -- the things referred to ------------------------------------------------------------
    def proof(self, label: str) -> tuple[str, str, str]:
        """(type title, number, url) of a sphinx-proof box."""
        try:
            item = self.env.proof_list[label]
        except KeyError as exc:
            raise EditionError(f"unknown sphinx-proof label {label!r}") from exc
        number = "" if item["nonumber"] else self.number(item["docname"], item["countertype"], label)
        return item["realtype"].title(), number, self.page_url(item["docname"], label)

    def exercise(self, label: str) -> tuple[str, str]:
        """(number, url) of an exercise."""
        item = self.env.sphinx_exercise_registry.get(label)
        if not item or item["type"] != "exercise":
            raise EditionError(f"unknown exercise label {label!r}")
        return self.number(item["docname"], "exercise", label), self.page_url(item["docname"], label)

    def equation(self, label: str) -> tuple[str, str]:
        """(number, url) of a labelled equation."""
        try:
            docname, _ = self.env.domaindata["math"]["objects"][label]
        except KeyError as exc:
            raise EditionError(f"unknown equation label {label!r}") from exc
        anchor = f"equation-{label}"
        return self.number(docname, "displaymath", anchor), self.page_url(docname, anchor)

    def label(self, label: str) -> tuple[str, str, str]:
        """(docname, anchor, title) of a std label (sections, figures, chapters)."""
        std = self.env.domaindata["std"]
        if label in std["labels"]:
            return std["labels"][label]
        if label in std["anonlabels"]:
            docname, anchor = std["anonlabels"][label]
            return docname, anchor, ""
        raise EditionError(f"unknown label {label!r}")

    def py_object(self, name: str) -> tuple[str, str]:
        """(url, objtype) of a documented Python object of the API appendix."""
        from api_xref import candidates  # beside this file: the rule the web book resolves by

        objects = self.env.domaindata["py"]["objects"]
        # the name, or a curated alias at its home (rpp.calibrate -> rpp.calibration.calibrate)
        for candidate in (name, f"rpp.{name}", *candidates(name, None), *candidates(f"rpp.{name}", None)):
            if candidate in objects:
                entry = objects[candidate]
                return self.page_url(entry.docname, entry.node_id), entry.objtype
        raise EditionError(f"unknown Python object {name!r} (not in the API appendix)")

    def cite(self, keys: list[str], role: str) -> str:
        """The web book's text of a citation (sphinxcontrib-bibtex's own style) as Markdown."""
        import pybtex_docutils
        from docutils import nodes
        from sphinxcontrib.bibtex.style.referencing import format_references
        from sphinxcontrib.bibtex.style.template import SphinxReferenceInfo

        citations = {c.key: c for c in self.env.domaindata["cite"]["citations"]}
        missing = [k for k in keys if k not in citations]
        if missing:
            raise EditionError(f"unknown citation key(s) {missing}")
        style = self._reference_style()
        builder = _Builder(self)
        refs = [
            (
                citations[k].entry,
                citations[k].formatted_entry,
                SphinxReferenceInfo(
                    builder=builder,
                    fromdocname="",
                    todocname=citations[k].bibliography_key.docname,
                    citation_id=citations[k].citation_id,
                    title=None,
                    pre_text="",
                    post_text="",
                ),
            )
            for k in keys
        ]
        rendered = format_references(style, role, refs).render(pybtex_docutils.Backend())
        out = []

        def walk(node):
            if isinstance(node, nodes.reference):
                out.append(f"[{_md_escape(node.astext())}]({node['refuri']})")
            elif isinstance(node, nodes.Text):
                out.append(_md_escape(str(node)))
            else:
                for child in node.children:
                    walk(child)

        for node in rendered:
            walk(node)
        return "".join(out)

    def _reference_style(self):
        return _reference_style_class(self.env.config.bibtex_reference_style)()

    # -- sections ----------------------------------------------------------------------------
    def sections(self, docname: str) -> list[tuple[str, str, str]]:
        """(title, anchor, number) of every section of a page, in document order."""
        from docutils import nodes

        with open(self.doctrees / f"{docname}.doctree", "rb") as f:
            doctree = pickle.load(f)
        found = []
        first = True
        for section in doctree.findall(nodes.section):
            parent = section.parent  # sections inside boxes (proof-content ...) are not headings
            while isinstance(parent, (nodes.section, nodes.document)):
                parent = parent.parent
            if parent is not None:
                continue
            anchor = "" if first else "#" + section["ids"][0]
            found.append((_text(section[0]), section["ids"][0], self.secnumber(docname, anchor)))
            first = False
        return found

    def macros(self) -> dict[str, str]:
        return dict(self.env.config.mathjax3_config.get("tex", {}).get("macros", {}))


def _md_escape(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")


# ------------------------------------------------------------------------------------------
# Markdown: MyST -> Jupyter Markdown
# ------------------------------------------------------------------------------------------

_LABEL_LINE = re.compile(r"^\s*\(([^()\s]+)\)=\s*$")
_DIRECTIVE = re.compile(r"^(\s*)(:{3,}|`{3,})\{([\w:-]+)\}\s*(.*?)\s*$")
_CODE_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(?!\{)")
_OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")

_ADMONITIONS = {
    "note": "Note",
    "tip": "Tip",
    "hint": "Hint",
    "important": "Important",
    "warning": "Warning",
    "caution": "Caution",
    "attention": "Attention",
    "danger": "Danger",
    "error": "Error",
    "seealso": "See also",
}
_MYST_LEFT = [
    re.compile(p)
    for p in (
        r"^\s*:{3,}",
        r"\{prf:",
        r"\{cite",
        r"\{(ref|numref|eq|math|func|class|mod)\}`",
        r"^\s*\([^()\s]+\)=\s*$",
        r"\{solution",
        r"\{exercise\}",
        r"^\s*`{3,}\{",
    )
]


@dataclass
class _Context:
    index: BookIndex
    docname: str
    counters: dict = field(default_factory=dict)  # (figtype) -> position in the page
    student: bool = False


def _split_explicit(content: str) -> tuple[str | None, str]:
    m = _EXPLICIT.match(content.strip())
    if m and m.group(1):
        return m.group(1).strip(), m.group(2).strip()
    return None, content.strip()


def convert_inline(text: str, ctx: _Context) -> str:
    """Replace every MyST role of a line of Markdown."""
    idx = ctx.index

    def role(m: re.Match) -> str:
        name, content = m.group(1), m.group(2)
        explicit, target = _split_explicit(content)
        if name == "prf:ref":
            kind, number, url = idx.proof(target)
            return f"[{explicit or f'{kind} {number}'.strip()}]({url})"
        if name == "eq":
            number, url = idx.equation(target)
            return f"[{explicit or f'({number})'}]({url})"
        if name == "numref":
            return _numref(idx, explicit, target)
        if name == "ref":
            return _ref(idx, explicit, target)
        if name in ("cite:t", "cite:p", "cite:ts", "cite:ps"):
            return idx.cite([k.strip() for k in content.split(",") if k.strip()], name.split(":")[1])
        if name in ("func", "class", "mod", "meth", "attr", "data", "obj", "exc"):
            return _py_role(idx, name, content)
        if name == "math":
            return f"${content}$"
        if name in ("sub", "sup"):
            return f"<{name}>{content}</{name}>"
        raise EditionError(f"{ctx.docname}: the role {{{name}}} has no Jupyter form")

    return _ROLE.sub(role, text)


def _ref(idx: BookIndex, explicit: str | None, target: str) -> str:
    if target in idx.env.sphinx_exercise_registry:  # sphinx-exercise: a ref is a numref
        number, url = idx.exercise(target)
        return f"[{explicit or idx.numfig_format['exercise'] % number}]({url})"
    docname, anchor, title = idx.label(target)
    if not (explicit or title):
        raise EditionError(f"{{ref}} to {target!r} needs an explicit text")
    return f"[{explicit or title}]({idx.page_url(docname, anchor)})"


def _py_role(idx: BookIndex, name: str, content: str) -> str:
    """A Python object's role ({func}, {class}...): its name in code, linked to the API appendix."""
    shown = content.strip()
    short = shown.startswith("~")
    explicit, target = _split_explicit(shown.lstrip("~"))
    url, _ = idx.py_object(target)
    label = explicit or (target.rsplit(".", 1)[-1] if short else target)
    if name in ("func", "meth") and not explicit:
        label += "()"
    return f"[`{label}`]({url})"


def _numref(idx: BookIndex, explicit: str | None, target: str) -> str:
    if target in idx.env.sphinx_exercise_registry:
        number, url = idx.exercise(target)
        figtype, title = "exercise", ""
    elif target in idx.env.proof_list:
        kind, number, url = idx.proof(target)
        figtype, title = idx.env.proof_list[target]["countertype"], kind
    else:
        docname, anchor, title = idx.label(target)
        figtype = idx.figtype_of(docname, anchor)
        if figtype is None:
            raise EditionError(f"{{numref}} to {target!r}: not a numbered item")
        number, url = idx.number(docname, figtype, anchor), idx.page_url(docname, anchor)
    if explicit:
        text = explicit.replace("%s", number).replace("{number}", number).replace("{name}", title)
    else:
        text = idx.numfig_format.get(figtype, f"{figtype.title()} %s") % number
    return f"[{text}]({url})"


def _math_block(content: str, number: str | None) -> str:
    """A display equation as one ``$$ ... $$`` line (Sphinx's wrapping: split for ``\\\\``)."""
    parts = [p.strip() for p in re.split(r"\n\s*\n", content.strip()) if p.strip()]
    wrapped = []
    for part in parts:
        if "\\\\" in part and "\\begin" not in part:
            part = f"\\begin{{split}}{part}\\end{{split}}"
        wrapped.append(part)
    body = wrapped[0] if len(wrapped) == 1 else "\\begin{gathered}" + " \\\\ ".join(wrapped) + "\\end{gathered}"
    body = " ".join(line.strip() for line in body.splitlines() if line.strip())
    tag = f" \\tag{{{number}}}" if number else ""
    return f"$$ {body}{tag} $$"


def _quote(lines: list[str]) -> list[str]:
    """Prefix lines with ``> ``. Jupyter and Colab find the math before they parse Markdown, so
    a ``>`` inside ``$...$`` or ``$$...$$`` would be typeset: a display equation spread over
    lines becomes one line, and so do the lines an inline formula continues over."""
    merged: list[str] = []
    buf: str | None = None
    display = False
    for line in lines:
        buf = line if buf is None else buf.rstrip() + " " + line.strip()
        if line.count("$$") % 2:
            display = not display
        if display:
            continue
        if len(re.findall(r"(?<!\\)\$", buf.replace("$$", ""))) % 2 == 0:
            merged.append(buf)
            buf = None
    if buf is not None:
        merged.append(buf)
    out: list[str] = []
    for line in merged:
        if not line.strip() and out and out[-1] == ">":
            continue
        out.append(f"> {line}" if line.strip() else ">")
    return out


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary><strong>{summary}</strong></summary>", "", *body, "", "</details>"]


def _title(kind: str, number: str, title: str) -> str:
    head = f"**{kind} {number}**" if number else f"**{kind}**"
    return f"{head} ({title})." if title else f"{head}."


def _consume_number(ctx: _Context, figtype: str, label: str | None) -> str:
    """The number of the next box of ``figtype`` on the page (document order), checked against
    the label's number when it has one."""
    numbers = sorted(ctx.index.env.toc_fignumbers.get(ctx.docname, {}).get(figtype, {}).values())
    position = ctx.counters.get(figtype, 0)
    ctx.counters[figtype] = position + 1
    if position >= len(numbers):
        raise EditionError(f"{ctx.docname}: more {figtype} boxes than Sphinx numbered")
    number = ".".join(map(str, numbers[position]))
    if label:
        expected = ctx.index.number(ctx.docname, figtype, label)
        if expected != number:
            raise EditionError(f"{ctx.docname}: {label} is {figtype} {expected}, not {number} by position")
    return number


def convert_markdown(text: str, ctx: _Context) -> str:
    """A Markdown cell of the book as Jupyter Markdown (raises EditionError on unknown MyST)."""
    out = _convert_lines(text.splitlines(), ctx)
    result = "\n".join(out).strip("\n")
    result = re.sub(r"\n{3,}", "\n\n", result)
    for line in result.splitlines():
        if any(p.search(line) for p in _MYST_LEFT) and not line.lstrip("> ").startswith("    "):
            raise EditionError(f"{ctx.docname}: MyST left after conversion: {line.strip()[:80]!r}")
    return result


def _convert_lines(lines: list[str], ctx: _Context) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _CODE_FENCE.match(line)
        if fence:  # a plain code block: copied verbatim
            close = re.compile(rf"^\s*{re.escape(fence.group(2)[0])}{{{len(fence.group(2))},}}\s*$")
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            out.extend(lines[i : j + 1])
            i = j + 1
            continue
        if _LABEL_LINE.match(line):
            i += 1
            continue
        m = _DIRECTIVE.match(line)
        if m:
            marker, name, argument = m.group(2), m.group(3), m.group(4)
            close = re.compile(rf"^\s*{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            j = i + 1
            options: dict[str, str] = {}
            while j < len(lines) and _OPTION.match(lines[j]) and not close.match(lines[j]):
                key, value = _OPTION.match(lines[j]).groups()
                options[key] = value
                j += 1
            body_start = j
            depth = 0
            while j < len(lines):
                inner = _DIRECTIVE.match(lines[j])
                if inner and inner.group(2)[0] == marker[0] and len(inner.group(2)) >= len(marker):
                    depth += 1
                elif close.match(lines[j]):
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            body = lines[body_start:j]
            out.extend(_directive(name, argument, options, body, ctx))
            i = j + 1
            continue
        out.append(convert_inline(line, ctx))
        i += 1
    return out


def _directive(name: str, argument: str, options: dict, body: list[str], ctx: _Context) -> list[str]:
    idx = ctx.index
    title = convert_inline(argument, ctx) if argument else ""
    inner = _convert_lines(body, ctx)
    classes = options.get("class", "").split()
    if name.startswith("prf:"):
        kind = name.split(":", 1)[1]
        label = options.get("label")
        if kind == "proof":
            return [*_quote([f"**Proof.** {title}".rstrip() if not title else f"**Proof** ({title}).", "", *inner]), ""]
        countertype = idx.env.proof_list[label]["countertype"] if label in idx.env.proof_list else kind
        number = "" if "nonumber" in options else _consume_number(ctx, countertype, label)
        anchor = [f'<a id="{label}"></a>'] if label else []
        return [*_quote([*anchor, _title(kind.title(), number, title), "", *inner]), ""]
    if name == "exercise":
        label = options.get("label")
        number = "" if "nonumber" in options else _consume_number(ctx, "exercise", label)
        anchor = [f'<a id="{label}"></a>'] if label else []
        return [*_quote([*anchor, _title("Exercise", number, title), "", *inner]), ""]
    if name == "solution":
        label = argument.strip()
        number, _ = idx.exercise(label)
        return [*_details(f"Solution to Exercise {number}", inner), ""]
    if name in ("solution-start", "solution-end"):
        raise EditionError(f"{ctx.docname}: {name} inside a cell (handled per cell)")
    if name == "math":
        label = options.get("label")
        number = idx.equation(label)[0] if label else None
        return [_math_block("\n".join(body), number), ""]
    if name == "dropdown" or (name == "admonition" and "dropdown" in classes):
        return [*_details(title or "Details", inner), ""]
    if name == "admonition":
        return [*_quote([f"**{title}**" if title else "", "", *inner]), ""]
    if name in _ADMONITIONS:
        head = f"**{_ADMONITIONS[name]}.**" + (f" **{title}**" if title else "")
        if "dropdown" in classes:
            return [*_details(title or _ADMONITIONS[name], inner), ""]
        return [*_quote([head, "", *inner]), ""]
    raise EditionError(f"{ctx.docname}: the directive {{{name}}} has no Jupyter form")


def _plain(text: str) -> str:
    """Letters and digits of a heading, without Markdown links, math delimiters or markup."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _number_headings(nb: nbformat.NotebookNode, ctx: _Context) -> None:
    """Give the Markdown headings the section numbers of the web book ("3.2 Title")."""
    sections = ctx.index.sections(ctx.docname)
    headings = []
    for ci, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        in_code = False
        for li, line in enumerate(cell.source.splitlines()):
            if _CODE_FENCE.match(line):
                in_code = not in_code
            elif not in_code and not line.startswith(">") and _HEADING.match(line):
                headings.append((ci, li))
    if len(headings) != len(sections):
        raise EditionError(f"{ctx.docname}: {len(headings)} headings, but Sphinx has {len(sections)} sections")
    for (ci, li), (title, _anchor, number) in zip(headings, sections, strict=True):
        lines = nb.cells[ci].source.splitlines()
        hashes, text = _HEADING.match(lines[li]).groups()
        if _plain(text) != _plain(title):  # the pairing of headings and sections went wrong
            raise EditionError(f"{ctx.docname}: heading {text!r} is not Sphinx's section {title!r}")
        if number:  # Sphinx's html_secnumber_suffix: "3.2. Title"
            lines[li] = f"{hashes} {number}. {text}"
        nb.cells[ci].source = "\n".join(lines)


# ------------------------------------------------------------------------------------------
# The launch cell
# ------------------------------------------------------------------------------------------


def _requirement_names(requirements: list[str]) -> set[str]:
    from packaging.requirements import Requirement

    return {Requirement(r).name.lower().replace("_", "-") for r in requirements}


@functools.cache
def _providers() -> dict[str, list[str]]:
    """``importlib.metadata.packages_distributions()``, read once per process (it scans every
    installed distribution's files: half a second, nine times per edition before)."""
    return metadata.packages_distributions()


@functools.cache
def _reference_style_class(name: str) -> type:
    """sphinxcontrib-bibtex's referencing style class ``name``, looked up once per process (the
    lookup scans every entry point: 36 ms, 132 times per edition before)."""
    from sphinxcontrib.bibtex.plugin import find_plugin

    return find_plugin("sphinxcontrib.bibtex.style.referencing", name)


def _closure(names: set[str]) -> set[str]:
    """The distributions ``names`` need, transitively (as installed in this environment)."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for req in requires:
            r = Requirement(req)
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                todo.append(r.name.lower().replace("_", "-"))
    return seen


def chapter_imports(nb: nbformat.NotebookNode) -> set[str]:
    """Top-level modules imported by the code cells of a notebook (IPython syntax allowed)."""
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell
    modules = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tree = ast.parse(transform(cell.source))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
    return modules


def required_extras(nb: nbformat.NotebookNode, root: Path = ROOT) -> list[str]:
    """The extras of ``rpp-book`` a chapter needs: ``["chapters"]``, and more only if it must.

    Always ``chapters`` (what every chapter may use: the book support's pandas, scikit-learn,
    tqdm, ..., POT, matplotlib, sympy, mpmath), plus, for a module the chapter imports that
    neither the runtime dependencies nor ``[chapters]`` (with the extras it includes) provide,
    the smallest extra that does.  Every imported module must come from the standard library,
    the kernel, ``rpp``, a runtime dependency of ``rpp-book`` (or what those depend on), or an
    extra; otherwise EditionError.
    """
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = _closure(_requirement_names(project["dependencies"]))
    optional = project.get("optional-dependencies", {})
    extras = {
        name: _requirement_names([r for r in reqs if not r.startswith(DISTRIBUTION)]) for name, reqs in optional.items()
    }
    included, todo = set(), [CHAPTERS_EXTRA]  # [chapters] and the extras it includes (rpp-book[fit,ot,...])
    while todo:
        name = todo.pop()
        included.add(name)
        for req in optional[name]:
            if req.startswith(f"{DISTRIBUTION}["):
                todo += [e.strip() for e in req[req.index("[") + 1 : req.index("]")].split(",") if e not in included]
    covered = set().union(*(extras[e] for e in included))
    providers = _providers()
    needed, unknown = {CHAPTERS_EXTRA}, []
    by_size = sorted(extras, key=lambda e: (len(extras[e]), e))  # the smallest extra that provides it
    for module in sorted(chapter_imports(nb)):
        if module in sys.stdlib_module_names or module in _KERNEL_MODULES or module in ("rpp", SUPPORT_MODULE):
            continue
        dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
        if dists & base or dists & covered:
            continue
        owner = next((e for e in by_size if dists & extras[e]), None)
        if owner is None:
            unknown.append(module)
        else:
            needed.add(owner)
    if unknown:
        raise EditionError(f"imports {unknown} come from no dependency or extra of {DISTRIBUTION}")
    return sorted(needed)


def git_commit(root: Path = ROOT) -> tuple[str, bool]:
    """(SHA of HEAD, whether the work tree differs from it)."""
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()
    dirty = bool(
        subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    return sha, dirty


def repository_url(root: Path = ROOT) -> str:
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return config["repository"]["url"].rstrip("/")


def pip_url(repo_url: str) -> str:
    """``repo_url`` as pip of every supported age parses it.

    A local ``file:///path`` (the tests publish a clone) has an empty host, which the
    ``packaging`` inside pip < 24 rejects ("Invalid requirement ... It looks like a path"); git
    and pip both read ``file://localhost/path`` as the same repository.
    """
    return "file://localhost/" + repo_url.removeprefix("file:///") if repo_url.startswith("file:///") else repo_url


def launch_requirement(commit: str, extras: list[str], repo_url: str) -> str:
    """``rpp-book[extras] @ git+<repo_url>@<commit>``: what a launch cell (and Binder's postBuild) installs."""
    extra = f"[{','.join(extras)}]" if extras else ""
    return f"{DISTRIBUTION}{extra} @ git+{pip_url(repo_url)}@{commit}"


def support_requirement(commit: str, repo_url: str) -> str:
    """``rpp-book-support @ git+<repo_url>@<commit>#subdirectory=support``: the book support of ``commit``."""
    return f"{SUPPORT_DISTRIBUTION} @ git+{pip_url(repo_url)}@{commit}#subdirectory={SUPPORT_SUBDIRECTORY}"


def launch_cell(
    commit: str, extras: list[str], repo_url: str, chapter: str, *, support: bool = False
) -> nbformat.NotebookNode:
    """The first cell of a Jupyter-edition notebook: installs the ``rpp`` of ``commit``.

    ``repo_url`` is the repository (``https://github.com/...``, or ``file:///...`` in the tests);
    the requirement is :func:`launch_requirement`, and with ``support`` (a chapter that imports
    ``rpp_book``) also :func:`support_requirement`, installed in the same pip run. The cell fails
    loudly: a failed ``pip`` (network down, repository moved, an old pip) raises with pip's own
    message and what to do, and so does an ``import rpp`` that does not come from the
    distribution ``rpp-book`` (``pip install rpp`` installs an unrelated project with a
    top-level ``rpp``). IPython's ``%pip`` does not raise when pip fails, so the cell runs pip as
    a subprocess of the kernel's Python.
    """
    requirement = launch_requirement(commit, extras, repo_url)
    dists = [DISTRIBUTION, *([SUPPORT_DISTRIBUTION] if support else [])]
    support_line = (
        f'RPP_SUPPORT_REQUIREMENT = "{support_requirement(commit, repo_url)}"  # the book support, rpp_book\n'
        if support
        else ""
    )
    wanted = "[RPP_REQUIREMENT, RPP_SUPPORT_REQUIREMENT]" if support else "[RPP_REQUIREMENT]"
    source = f"""#@title Install `rpp` (the package this notebook was made with)
# The Jupyter edition of The RPP Book, {chapter}, generated from commit {commit[:12]}.
# On Colab, Binder or a fresh kernel this installs `rpp` from exactly that commit, with the
# extras the chapter imports{" and the book support (`rpp_book`)" if support else ""}; where the distribution `{DISTRIBUTION}`
# is installed already (the book's own environment) it only checks where it came from. The
# distribution is `{DISTRIBUTION}`: `pip install rpp` installs an unrelated project that also has a module `rpp`.
import base64, hashlib, importlib, json, subprocess, sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlparse

RPP_COMMIT = "{commit}"
RPP_REQUIREMENT = "{requirement}"
{support_line}_needed = []
for _name, _requirement in zip({dists!r}, {wanted}):
    try:
        distribution(_name)
    except PackageNotFoundError:
        _needed.append(_requirement)
_fresh = RPP_REQUIREMENT in _needed
if _needed:
    _pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *_needed],
                          capture_output=True, text=True)
    if _pip.returncode != 0:
        raise RuntimeError(
            f"Installing rpp failed: pip exited with code {{_pip.returncode}}.\\n"
            f"{{(_pip.stderr or _pip.stdout).strip()[-3000:]}}\\n"
            f"What to do: check that this runtime reaches the internet and GitHub, upgrade pip "
            f"('%pip install --upgrade pip') and run this cell again, or install by hand with "
            f"pip install {{' '.join(repr(r) for r in _needed)}} and restart the kernel.") from None
    importlib.invalidate_caches()
_origin = json.loads(distribution("{DISTRIBUTION}").read_text("direct_url.json") or "{{}}")
_installed = _origin.get("vcs_info", {{}}).get("commit_id")
if not _fresh and _installed and _installed != RPP_COMMIT:
    print(f"Note: rpp-book from commit {{_installed[:12]}} is installed; this notebook was made "
          f"with {{RPP_COMMIT[:12]}}. Restart on a fresh runtime to install it.")
import rpp

_dist, _here = distribution("{DISTRIBUTION}"), Path(rpp.__file__).resolve()
if _origin.get("dir_info", {{}}).get("editable"):  # an editable install (the book's own environment)
    _ours = _here.is_relative_to(Path(unquote(urlparse(_origin["url"]).path)).resolve())
else:
    _sha = base64.urlsafe_b64encode(hashlib.sha256(_here.read_bytes()).digest()).rstrip(b"=").decode()
    _ours = any(str(f) == "rpp/__init__.py" and Path(_dist.locate_file(f)).resolve() == _here
                and (f.hash is None or f.hash.value == _sha) for f in _dist.files or [])  # not overwritten
if not _ours:
    raise ImportError(
        f"`import rpp` loaded {{_here}}, which is not the rpp of the distribution {DISTRIBUTION}: "
        f"another package named rpp (`pip install rpp` installs an unrelated project) shadows it. "
        f"Run `pip uninstall --yes rpp`, then `pip install --force-reinstall \\"{{RPP_REQUIREMENT}}\\"` "
        f"and restart the kernel.")"""
    return nbformat.v4.new_code_cell(
        source, metadata={"tags": ["remove-cell", LAUNCH_TAG], "jupyter": {"source_hidden": True}, "cellView": "form"}
    )


# ------------------------------------------------------------------------------------------
# A chapter
# ------------------------------------------------------------------------------------------


def _macro_line(macros: dict[str, str]) -> str:
    r"""``$\newcommand{\N}{\mathcal{N}}...$``: MathJax (Jupyter, nbconvert) keeps the
    definitions for the whole page. ``\N`` is predefined by KaTeX (Colab): ``\renewcommand``."""
    defs = []
    for name, body in macros.items():
        if isinstance(body, list):
            body, nargs = body[0], body[1]
            defs.append(f"\\newcommand{{\\{name}}}[{nargs}]{{{body}}}")
        else:
            command = "renewcommand" if name in {"N", "R", "Z"} else "newcommand"
            defs.append(f"\\{command}{{\\{name}}}{{{body}}}")
    return "$" + "".join(defs) + "$"


def _macros_used(source: str, macros: dict[str, str]) -> dict[str, str]:
    r"""The macros of ``macros`` that ``source`` uses (``\N`` but not ``\Nu``), in their order."""
    used = set(re.findall(r"\\([A-Za-z]+)", source))
    return {name: body for name, body in macros.items() if name in used}


def _define_macros(nb: nbformat.NotebookNode, macros: dict[str, str]) -> int:
    """Every macro at the top of the first Markdown cell, and the macros each later Markdown
    cell uses at its own top: a renderer that typesets each cell on its own (KaTeX, a cell
    opened alone, one re-rendered after an edit) finds them too. Returns the first cell's index."""
    first_md = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown")
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        used = macros if i == first_md else _macros_used(cell.source, macros)
        if used:
            cell.source = _macro_line(used) + "\n\n" + cell.source
    return first_md


def _docname(path: Path, root: Path) -> str:
    return path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()


def jupyter_notebook(
    nb: nbformat.NotebookNode,
    docname: str,
    index: BookIndex,
    *,
    commit: str,
    repo_url: str,
    extras: list[str],
    student: bool = False,
    dirty: bool = False,
) -> nbformat.NotebookNode:
    """The Jupyter edition of one chapter notebook (the input is not modified)."""
    nb = copy.deepcopy(nb)
    support = SUPPORT_MODULE in chapter_imports(nb)
    ctx = _Context(index, docname, student=student)
    chapter_no = index.secnumber(docname, "")
    chapter = f"chapter {chapter_no}" if chapter_no else docname
    cells = []
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), None)
    for i, cell in enumerate(nb.cells):
        if i == first_code and "remove-cell" in cell.metadata.get("tags", []):
            cells.append(launch_cell(commit, extras, repo_url, chapter, support=support))
            continue
        if cell.cell_type == "markdown":
            src = cell.source
            if re.search(r"\{solution-end\}", src):
                src = after_solution_end(src)  # text after the directive (the next exercise) stays
                if not src.strip():
                    continue
            m = re.search(r"^\s*(?::{3,}|`{3,})\{solution-start\}\s*(\S+)", src, re.M)
            if m:
                number, _ = index.exercise(m.group(1))
                cell.source = f"**Solution to Exercise {number}**"
                cells.append(cell)
                continue
            cell.source = convert_markdown(src, ctx)
            cells.append(cell)
            continue
        if cell.cell_type == "code":
            tags = cell.metadata.get("tags", [])
            if "exercise-prompt" in tags:

                def number_of(m):
                    return f"# Exercise {index.exercise(m.group(1))[0]}:"

                cell.source = re.sub(r"^# Exercise (\S+):", number_of, cell.source)
            if {"hide-input", "remove-input", "remove-cell"} & set(tags):
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            cells.append(cell)
            figure = cell.metadata.get("mystnb", {}).get("figure")
            if figure and figure.get("name"):
                number = index.number(docname, "figure", figure["name"])
                caption = convert_markdown(figure.get("caption", ""), ctx)
                cells.append(
                    nbformat.v4.new_markdown_cell(
                        f'<a id="{figure["name"]}"></a>\n\n**Figure {number}.** {caption}',
                        metadata={"tags": [FIGURE_TAG]},
                    )
                )
            continue
        cells.append(cell)
    nb.cells = cells
    _number_headings(nb, ctx)
    first_md = _define_macros(nb, index.macros())
    # A note after the title.
    page = index.page_url(docname)
    note = (
        f"> **The Jupyter edition** of {chapter} of *The RPP Book* (commit `{commit[:12]}`). "
        f"Numbers and links refer to [the web book]({page}); run the cells from the top."
    )
    nb.cells.insert(first_md + 1, nbformat.v4.new_markdown_cell(note, metadata={"tags": [EDITION_NOTE_TAG]}))
    nb.metadata["rpp_book"] = {
        "edition": "student" if student else "jupyter",
        "source": f"{docname}.ipynb",
        "commit": commit,
        "dirty": dirty,
        "web": page,
        "extras": extras,
        "support": support,
    }
    nbformat.validate(nb)
    return nb


@dataclass
class Edition:
    root: Path = ROOT
    web_url: str = WEB_URL
    repo_url: str | None = None
    commit: str | None = None
    cache: Path | None = None
    index: BookIndex | None = None

    def __post_init__(self):
        """``commit`` (default: HEAD of ``root``) is what the launch cells install; ``index``
        (default: the Sphinx environment of ``root``) may come from another copy of the book."""
        self.index = self.index or BookIndex.load(self.root, self.web_url, self.cache)
        if self.commit is None:
            self.commit, self.dirty = git_commit(self.root)
        else:
            self.dirty = False
        self.repo_url = self.repo_url or repository_url(self.root)

    def notebook(self, path: Path, *, student: bool = False) -> nbformat.NotebookNode:
        original = nbformat.read(path, as_version=4)
        source = original
        if student:
            source = make_student_notebook(original).notebook
            found = leaks(original, source)
            if found:
                raise ValueError(f"{path.name}: the student edition would leak solutions: {found}")
        return jupyter_notebook(
            source,
            _docname(path, self.root),
            self.index,
            commit=self.commit,
            repo_url=self.repo_url,
            extras=required_extras(original, self.root),
            student=student,
            dirty=self.dirty,
        )

    def write(self, notebooks: list[Path], out: Path, *, student: bool = False) -> list[Path]:
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for path in notebooks:
            nb = self.notebook(path, student=student)
            if student:
                from student_edition import leaks

                found = leaks(nbformat.read(path, as_version=4), nb)
                if found:
                    raise ValueError(f"{path.name}: the student edition would leak solutions: {found}")
            target = out / path.name
            nbformat.write(nb, target)
            written.append(target)
        return written


PUBLISHED_README = """# The RPP Book: the Jupyter edition

Generated from commit {commit} of the book's repository by `tools/jupyter_edition.py --publish`;
do not edit: every file here is rewritten at the next release.

- `book/NN_slug.ipynb`: every chapter as Jupyter, JupyterLab and Colab render it (the web book's
  launch buttons open these); its first cell installs `rpp` from commit {commit} with the extras
  the chapter imports.
- `student/NN_slug.ipynb`: the same without the solutions of the exercises.
- `requirements.txt`: the book's pinned environment; `runtime.txt`, the Python Binder builds it
  for; `postBuild`, which then installs `rpp` and the book support from commit {commit} (Binder runs it).
"""


def binder_post_build(commit: str, repo_url: str) -> str:
    """The ``postBuild`` of the published branch: Binder (repo2docker) installs ``requirements.txt``
    under ``runtime.txt``'s Python, then runs this, which installs ``rpp`` and ``rpp_book`` of ``commit`` without
    dependencies (the lock has them); the launch cells then find it and install nothing."""
    requirement = launch_requirement(commit, [], repo_url)
    return (
        "#!/bin/sh\n"
        "# Binder (repo2docker) installs requirements.txt with runtime.txt's Python, then runs this:\n"
        f"# rpp and the book support (rpp_book) from commit {commit}, the commit of every notebook\n"
        "# here, without dependencies.\n"
        "set -e\n"
        f'python -m pip install --no-deps "{requirement}" "{support_requirement(commit, repo_url)}"\n'
    )


def _git_out(root: Path, *args: str, env: dict | None = None, data: bytes | None = None) -> str:
    return (
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, input=data, env=env)
        .stdout.decode()
        .strip()
    )


def publish(
    root: Path = ROOT,
    branch: str = EDITION_BRANCH,
    web_url: str = WEB_URL,
    message: str | None = None,
    *,
    repo_url: str | None = None,
    index: BookIndex | None = None,
) -> str:
    """Commit the Jupyter and student editions of HEAD onto ``branch`` (created if missing).

    The branch holds ``book/*.ipynb`` (the Jupyter edition, at the paths of the source chapters,
    so the launch buttons' ``<branch>/book/NN_slug.ipynb`` opens it), ``student/*.ipynb``,
    ``requirements.txt`` and a README. Its parent is the branch's previous tip; nothing else of
    the repository is touched (a temporary index, no checkout). Returns the new commit. Refuses
    a work tree that differs from HEAD: the launch cells must install what was published.
    ``repo_url`` and ``index`` as for :class:`Edition` (the tests publish a local clone).
    """
    edition = Edition(root, web_url, repo_url=repo_url, index=index)
    if edition.dirty:
        raise EditionError("the work tree differs from HEAD: commit first, then publish")
    chapters = toc_chapters(root)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        files = {}
        for kind, folder in ((False, "book"), (True, "student")):
            for path in edition.write(chapters, out / folder, student=kind):
                files[f"{folder}/{path.name}"] = path.read_bytes()
        files["requirements.txt"] = (root / "requirements.txt").read_bytes()
        files["runtime.txt"] = (root / "runtime.txt").read_bytes()
        files["postBuild"] = binder_post_build(edition.commit, edition.repo_url).encode()
        files["README.md"] = PUBLISHED_README.format(commit=edition.commit).encode()
        env = {**os.environ, "GIT_INDEX_FILE": str(out / "index")}
        for name, data in sorted(files.items()):
            blob = _git_out(root, "hash-object", "-w", "--stdin", data=data)
            mode = "100755" if name == "postBuild" else "100644"  # repo2docker runs it: executable
            _git_out(root, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{name}", env=env)
        tree = _git_out(root, "write-tree", env=env)
    parent = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    message = message or f"Jupyter edition of {edition.commit}"
    commit = _git_out(root, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", message)
    _git_out(root, "update-ref", f"refs/heads/{branch}", commit, *([parent] if parent else []))
    return commit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="chapter notebooks (default: those of _toc.yml)")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: _build/jupyter)")
    parser.add_argument("--student", action="store_true", help="the student edition (no solutions)")
    parser.add_argument("--web-url", default=WEB_URL, help=f"the published web book (default {WEB_URL})")
    parser.add_argument(
        "--repo-url",
        default=None,
        help="the repository the launch cell installs from (default: repository.url of _config.yml)",
    )
    parser.add_argument("--commit", default=None, help="the commit the launch cell installs (default: HEAD)")
    parser.add_argument(
        "--publish",
        action="store_true",
        help=f"commit both editions of HEAD onto the branch --branch (default {EDITION_BRANCH}); see README, Releasing",
    )
    parser.add_argument("--branch", default=EDITION_BRANCH, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--build-env", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_env:
        _build_environment(args.root, args.build_env)
        return 0
    if args.publish:
        commit = publish(args.root, args.branch, args.web_url)
        print(f"branch {args.branch} -> {commit}; publish it with: git push origin {args.branch}")
        return 0
    edition = Edition(args.root, args.web_url, args.repo_url, args.commit)
    if edition.dirty:
        print(
            f"warning: the work tree differs from HEAD ({edition.commit[:12]}): the launch cells "
            "install HEAD, not the files as they are",
            file=sys.stderr,
        )
    notebooks = args.notebooks or toc_chapters(args.root)
    out = args.out or args.root / "_build" / "jupyter"
    for path in edition.write(notebooks, out, student=args.student):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
