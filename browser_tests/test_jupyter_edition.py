"""The Jupyter edition (tools/jupyter_edition.py) in a real renderer, and its numbers against the
web book.

For every chapter of ``_toc.yml`` the Jupyter edition and the student edition are generated from
the current sources into a temporary folder, then:

- **numbers** (no browser): every link into the web book is followed into the built HTML
  (``_build/html``, so ``make book`` first): its page and anchor must exist, and the number the
  notebook shows ("Theorem 3.5", "(3.4)", "Figure 6.3", "Exercise 7.2") must be the number the web
  book shows at that anchor; the numbered boxes and figure captions of the notebook must carry
  the web book's number for their label, and the section numbers of the headings must be the web
  book's, in order;
- **renderer**: each notebook is converted by nbconvert (``lab`` template) to HTML, with MathJax 3
  served locally from the package the web book uses (django-static-mathjax) and configured as
  JupyterLab configures it (``$``/``$$`` delimiters, no macros but those the notebook defines);
  headless Chromium opens it: MathJax must report no TeX error (``merror``) and no undefined
  macro, and the rendered Markdown must show no raw MyST (``:::``, ``{prf:``, ``{cite``,
  ``{eq}``, ``(label)=``, ...) and no untypeset ``$$``. One screenshot per chapter:
  ``_build/screenshots/jupyter/<chapter>.png`` (and ``student-<chapter>.png``).
"""

from __future__ import annotations

import base64
import functools
import http.server
import importlib.util
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag

import nbformat
import pytest
from book_site import HTML, ROOT, SCREENSHOTS

sys.path.insert(0, str(ROOT / "tools"))
_spec = importlib.util.spec_from_file_location("jupyter_edition", ROOT / "tools" / "jupyter_edition.py")
jupyter_edition = importlib.util.module_from_spec(_spec)
sys.modules["jupyter_edition"] = jupyter_edition
_spec.loader.exec_module(jupyter_edition)
import book_toc  # tools/ is on the path from here

CHAPTERS = book_toc.toc_chapters(ROOT)
IDS = [p.stem for p in CHAPTERS]
MAX_SHOT_HEIGHT = 12000
MATHJAX_TIMEOUT_MS = 60000

# MathJax 3 as JupyterLab 4 configures it; TeX macros only from the notebook itself.
MATHJAX_CONFIG = """<script>
window.MathJax = {
  tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']],
        processEscapes: true, processEnvironments: true},
  options: {ignoreHtmlClass: 'tex2jax_ignore', processHtmlClass: 'tex2jax_process'}
};
</script>
<script src="mathjax/tex-chtml.js"></script>
"""

WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const limit = Date.now() + arguments[0];
function poll() {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(() => done('typeset'), (e) => done('error: ' + e));
  } else if (Date.now() > limit) {
    done('MathJax never loaded (is mathjax/ served?)');
  } else {
    setTimeout(poll, 50);
  }
}
if (document.readyState === 'complete') { poll(); } else { window.addEventListener('load', poll); }
"""

# TeX errors, undefined macros (MathJax's noundefined shows them as red text), and the text of
# the rendered Markdown outside code and MathJax output.
REPORT = """
const out = {containers: document.querySelectorAll('mjx-container').length, errors: [], text: ''};
out.merror = document.querySelectorAll('mjx-merror').length;
const mj = window.MathJax;
for (const item of mj.startup.document.math) {
  const mml = mj.startup.toMML(item.root);
  const undef = mml.match(/<mtext mathcolor="red">(\\\\[A-Za-z]+)<\\/mtext>/);
  if (/<merror/.test(mml)) { out.errors.push('TeX error in: ' + String(item.math).slice(0, 100)); }
  else if (undef) { out.errors.push('undefined macro ' + undef[1] + ' in: ' + String(item.math).slice(0, 80)); }
}
const parts = [];
for (const cell of document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown')) {
  const copy = cell.cloneNode(true);
  copy.querySelectorAll('mjx-container, pre, code, script').forEach((e) => e.remove());
  parts.push(copy.innerText);
}
out.text = parts.join('\\n');
out.cells = parts.length;
return out;
"""

RAW_MYST = [
    (re.compile(p, re.M), what)
    for p, what in (
        (r":::", "a ::: fence"),
        (r"\{prf:", "{prf:"),
        (r"\{cite", "{cite"),
        (r"^\s*\([\w:-]+\)=\s*$", "(label)="),
        (r"\{(eq|ref|numref|math|func|class|mod|exercise|solution[\w-]*|admonition)\}", "a MyST role or directive"),
        (r"\$\$", "untypeset $$"),
        (r"\\(frac|Dalpha|newcommand|mathcal)\b", "untypeset TeX"),
    )
]


def _mathjax_dir() -> Path:
    spec = importlib.util.spec_from_file_location("book_html", ROOT / "tools" / "book_html.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.mathjax_es5_dir()


@pytest.fixture(scope="session")
def editions(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("editions")
    edition = jupyter_edition.Edition(ROOT)
    edition.write(CHAPTERS, out / "jupyter")
    edition.write(CHAPTERS, out / "student", student=True)
    return {"jupyter": out / "jupyter", "student": out / "student", "web": edition.index.web_url}


# ------------------------------------------------------------------------------------------
# The numbers, against the built HTML
# ------------------------------------------------------------------------------------------


@functools.cache
def _page(relpath: str):
    from bs4 import BeautifulSoup

    path = HTML / relpath
    if not path.is_file():
        return None
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()


def _target_text(soup, anchor: str) -> str | None:
    el = soup.find(id=anchor)
    if el is None:
        return None
    title = el.find(class_="admonition-title")  # sphinx-proof and sphinx-exercise boxes
    if title is not None and el.name == "div":
        return _squash(title.get_text(" "))
    if el.name == "span" and not el.get_text(strip=True):  # a bare label target: what follows
        el = el.find_next_sibling() or el.parent
    return _squash(el.get_text(" "))


_NUMBERED = re.compile(r"^(?:([A-Z][a-z]+) )?\(?((?:[A-Z]|\d+)\.\d+(?:\.\d+)*)\)?$")
_MD_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]+)\)")


def _check_links(nb, web: str) -> tuple[list[str], int]:
    problems, checked = [], 0
    for i, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "markdown":
            continue
        for text, url in _MD_LINK.findall(cell.source):
            if not url.startswith(web):
                continue
            page, anchor = urldefrag(url[len(web) :])
            soup = _page(page)
            if soup is None:
                problems.append(f"cell {i}: {url}: no page {page} in {HTML}")
                continue
            checked += 1
            if not anchor:
                continue
            target = _target_text(soup, anchor)
            if target is None:
                problems.append(f"cell {i}: {url}: no anchor #{anchor} in {page}")
                continue
            m = _NUMBERED.match(text.strip("`"))
            if m:
                kind, number = m.groups()
                shown = f"{kind} {number}" if kind else f"({number})"
                if shown not in target:
                    problems.append(
                        f"cell {i}: the notebook says {text!r}; the web book at {page}#{anchor} says {target[:80]!r}"
                    )
    return problems, checked


_BOX = re.compile(r'<a id="([^"]+)"></a>\s*\n(?:>\s*)?\*\*(?:([A-Z][a-z]+) ((?:[A-Z]|\d+)\.\d+))\.?\*\*')


def _check_boxes(nb, docname: str) -> tuple[list[str], int]:
    """Numbered boxes and figure captions of the notebook against the web page's anchors."""
    soup = _page(f"{docname}.html")
    problems, checked = [], 0
    for i, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "markdown":
            continue
        for label, kind, number in _BOX.findall(cell.source):
            target = _target_text(soup, label)
            checked += 1
            if target is None or f"{kind} {number}" not in target:
                problems.append(f"cell {i}: {kind} {number} ({label}); the web book: {target and target[:80]!r}")
    return problems, checked


def _check_sections(nb, docname: str) -> list[str]:
    soup = _page(f"{docname}.html")
    web = [
        _squash(s.get_text()).rstrip(".")
        for s in soup.select(
            "main h1 .section-number, main h2 .section-number, main h3 .section-number, main h4 .section-number"
        )
    ]
    ours = []
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "jupyter-edition-note" not in cell.metadata.get("tags", []):
            ours += re.findall(r"^#{1,6} ((?:\d+|[A-Z])(?:\.\d+)*)\. ", cell.source, re.M)
    return [] if web == ours else [f"section numbers: notebook {ours}, web book {web}"]


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_numbers_and_links_are_the_web_books(editions, path):
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built book in {HTML}: run `make book` first", pytrace=False)
    docname = jupyter_edition._docname(path, ROOT)
    problems, n_links, n_boxes = [], 0, 0
    for kind in ("jupyter", "student"):
        nb = nbformat.read(editions[kind] / path.name, as_version=4)
        found, n = _check_links(nb, editions["web"])
        problems += [f"{kind}: {p}" for p in found]
        n_links += n
        found, n = _check_boxes(nb, docname)
        problems += [f"{kind}: {p}" for p in found]
        n_boxes += n
        problems += [f"{kind}: {p}" for p in _check_sections(nb, docname)]
    assert not problems, f"{path.name}:\n" + "\n".join(problems[:40])
    assert n_links > 10 and n_boxes > 0, f"{path.name}: only {n_links} links and {n_boxes} boxes checked"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_launch_buttons_open_the_published_jupyter_edition(path):
    """Colab and Binder open the chapter on the branch ``--publish`` writes, at its own path."""
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built book in {HTML}: run `make book` first", pytrace=False)
    soup = _page(f"{jupyter_edition._docname(path, ROOT)}.html")
    links = {
        a.get_text(" ", strip=True): a["href"]
        for a in soup.select("a[href]")
        if "colab.research" in a["href"] or "mybinder" in a["href"]
    }
    repo = jupyter_edition.repository_url(ROOT).removeprefix("https://github.com/")
    branch, notebook = jupyter_edition.EDITION_BRANCH, f"book/{path.name}"
    assert set(links.values()) == {
        f"https://colab.research.google.com/github/{repo}/blob/{branch}/{notebook}",
        f"https://mybinder.org/v2/gh/{repo}/{branch}?urlpath=tree/{notebook}",
    }, links


def test_the_check_catches_a_wrong_number(editions):
    """The number check must fail on a notebook whose number differs from the web book's."""
    path = CHAPTERS[2] if len(CHAPTERS) > 2 else CHAPTERS[0]
    nb = nbformat.read(editions["jupyter"] / path.name, as_version=4)
    docname = jupyter_edition._docname(path, ROOT)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and _BOX.search(c.source))
    _label, kind, number = _BOX.search(cell.source).groups()
    wrong = number.rsplit(".", 1)[0] + "." + str(int(number.rsplit(".", 1)[1]) + 7)
    cell.source = cell.source.replace(f"**{kind} {number}", f"**{kind} {wrong}", 1)
    problems, _ = _check_boxes(nb, docname)
    assert any(wrong in p for p in problems), problems


# ------------------------------------------------------------------------------------------
# The renderer
# ------------------------------------------------------------------------------------------


@dataclass
class Site:
    url: str
    folder: Path


@pytest.fixture(scope="session")
def rendered(editions, tmp_path_factory):
    """Every notebook as nbconvert HTML, served on 127.0.0.1 with the local MathJax."""
    from nbconvert import HTMLExporter

    site = tmp_path_factory.mktemp("nbconvert-html")
    (site / "mathjax").symlink_to(_mathjax_dir(), target_is_directory=True)
    exporter = HTMLExporter(template_name="lab")
    for kind in ("jupyter", "student"):
        for path in CHAPTERS:
            nb = nbformat.read(editions[kind] / path.name, as_version=4)
            body, _ = exporter.from_notebook_node(nb)
            # The template's MathJax 2 block (CDN) becomes the local MathJax 3; no other remote
            # script (require.js, widgets) is needed to render a notebook.
            body, n = re.subn(
                r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->",
                lambda _: MATHJAX_CONFIG,
                body,
                flags=re.S,
            )
            assert n == 1, "nbconvert's MathJax block not found"
            body = re.sub(r'<script[^>]+src="https?://[^"]*"[^>]*>\s*</script>', "", body)
            assert not re.search(
                r'(src|href)="https?://(?!rpp-book\.github\.io|github\.com)', body.split("<body")[0]
            ), "the head still loads a remote resource"
            (site / f"{kind}-{path.stem}.html").write_text(body, encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}/", site)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def jupyter_shots() -> Path:
    shots = SCREENSHOTS / "jupyter"
    shots.mkdir(parents=True, exist_ok=True)
    for old in shots.glob("*.png"):
        old.unlink()
    return shots


def _screenshot(driver, path: Path) -> None:
    width, height = driver.execute_script(
        "return [document.documentElement.clientWidth,"
        " Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)];"
    )
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "fromSurface": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": min(height, MAX_SHOT_HEIGHT), "scale": 1},
        },
    )
    path.write_bytes(base64.b64decode(shot["data"]))


def _render_problems(driver, url: str) -> list[str]:
    driver.get(url)
    state = driver.execute_async_script(WAIT_FOR_MATHJAX, MATHJAX_TIMEOUT_MS)
    if state != "typeset":
        return [f"MathJax: {state}"]
    report = driver.execute_script(REPORT)
    problems = list(dict.fromkeys(report["errors"]))[:10]
    if report["merror"]:
        problems.append(f"{report['merror']} mjx-merror elements")
    if report["containers"] < 10 or report["cells"] < 10:
        problems.append(f"only {report['containers']} typeset formulas in {report['cells']} Markdown cells")
    for pattern, what in RAW_MYST:
        for m in list(pattern.finditer(report["text"]))[:3]:
            start = max(0, m.start() - 40)
            problems.append(f"{what} in the rendered text: {report['text'][start : m.end() + 40]!r}")
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_jupyter_edition_renders(driver, rendered, jupyter_shots, path):
    problems = _render_problems(driver, f"{rendered.url}jupyter-{path.stem}.html")
    _screenshot(driver, jupyter_shots / f"{path.stem}.png")
    assert not problems, f"{path.name} (Jupyter edition):\n" + "\n".join(problems)
    assert (jupyter_shots / f"{path.stem}.png").stat().st_size > 0


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_student_edition_renders(driver, rendered, jupyter_shots, path):
    problems = _render_problems(driver, f"{rendered.url}student-{path.stem}.html")
    _screenshot(driver, jupyter_shots / f"student-{path.stem}.png")
    assert not problems, f"{path.name} (student edition):\n" + "\n".join(problems)


def test_the_renderer_check_sees_raw_myst_and_undefined_macros(driver, rendered, editions):
    """A notebook with raw MyST and an undefined macro must fail the renderer check."""
    from nbconvert import HTMLExporter

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"Cell {i}: $x_{i}$ and {{prf:ref}}`thm-x` and $\\Dalpha$") for i in range(12)
    ]
    nb.cells.append(nbformat.v4.new_markdown_cell(":::{note}\nraw\n:::\n\n$$a \\over b \\over c$$"))
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    body = re.sub(
        r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->", lambda _: MATHJAX_CONFIG, body, flags=re.S
    )
    body = re.sub(r'<script[^>]+src="https?://[^"]*"[^>]*>\s*</script>', "", body)
    (rendered.folder / "bad.html").write_text(body, encoding="utf-8")  # beside mathjax/
    problems = "\n".join(_render_problems(driver, f"{rendered.url}bad.html"))
    assert "undefined macro \\Dalpha" in problems, problems
    assert "{prf:" in problems and "::: fence" in problems, problems
    assert "TeX error" in problems or "merror" in problems, problems
