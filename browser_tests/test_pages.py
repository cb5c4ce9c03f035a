"""The built book as a reader meets it: every page of ``_toc.yml`` opened in headless Chromium.

For each page (one test per page, named after it; a failure lists every problem of that page):

- it loads, and the browser console shows no error (``SEVERE`` entries: JavaScript errors and
  resources that failed to load: with no network, a CDN script would fail here);
- its mathematics is typeset by MathJax (served from the book's own ``_static/mathjax``): every
  ``.math`` element holds MathJax output (``mjx-container``), MathJax reports no TeX error and no
  undefined macro, and no raw ``$$`` or ``\\frac`` is left in the text outside code;
- every ``<img>`` has loaded (``naturalWidth > 0``) and has an alt text that describes it: not
  empty, not a file name (``.png``/``.jpg``/``.svg``...), no ``/`` and no ``_build``;
- exactly one search control is visible at 1280 px (the top header's search field, not a second
  one among the page's header buttons or in the sidebar);
- every internal link (``{ref}``, ``{prf:ref}``, ``{eq}``, ``{doc}``, the navigation, the download
  links) points to a file of the built book, and its ``#anchor`` to an ``id`` in that page; no
  cross-reference is left unresolved;
- the first dropdown solution (sphinx-exercise + sphinx-togglebutton) is closed, and opens on a
  click on its title;
- a screenshot of the whole page (up to ``MAX_SHOT_HEIGHT`` pixels, math typeset, before any
  click) goes to ``_build/screenshots/<page>.png``;
- with every dropdown opened (nested ones included), no code block (``<pre>``: code cells, their
  outputs, doctests, literal blocks) scrolls sideways or is wider than its column at 1280 px, and
  no typeset display equation (MathJax ``display`` item) is wider than its column: the nearest
  box that scrolls or clips it has ``scrollWidth <= clientWidth + 2`` (or, when nothing clips
  it, the formula is no wider than its block);
- the same page, with every dropdown open, at the phone and tablet widths of ``NARROW_WIDTHS``
  (390 and 768 px, the viewport emulated through the DevTools protocol, without a reload): the
  document does not scroll sideways (``scrollWidth <= viewport width``); the elements that stick
  out are named in the failure.

At each narrow width, on a chapter page loaded at that width (``test_narrow_navigation``,
``test_narrow_search``):

- exactly one navigation button is visible, and a real click on it (Selenium's ``ActionChains``,
  a mouse event at the button's position) opens the navigation drawer: the table of contents is
  visible inside the viewport, and a click on a chapter link in it loads that chapter
  (screenshots of the page and of the opened drawer: ``chapter-<width>px.png``,
  ``navigation-<width>px.png``);
- a search control is visible; a click on it shows a search field; a query typed into it opens
  ``search.html``, which lists results from the book's own search index (no network).

The status page is also checked to list the execution time of every chapter notebook of the toc.
"""

from __future__ import annotations

import base64
import html.parser
import posixpath
import re
import time
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from book_site import HTML, ROOT, toc_notebooks, toc_pages

PAGES = toc_pages()
MAX_SHOT_HEIGHT = 12000  # px: enough for the start of every chapter, bounded file size and time
MATHJAX_TIMEOUT_MS = 30000
WINDOW_WIDTH_PX = 1280  # the width the book is checked at (CHROMIUM_FLAGS' --window-size)
OVERFLOW_TOLERANCE_PX = 2  # sub-pixel rounding of MathJax's widths; more is a real overflow
#: Phone and tablet widths (CSS px) at which every page is also checked (viewport emulated through
#: the DevTools protocol; heights of a common phone and tablet in portrait).
NARROW_WIDTHS = {390: 844, 768: 1024}

# Resolves with the state of MathJax once its startup typesetting has finished.
WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const limit = Date.now() + arguments[0];
function poll() {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(() => done('typeset'), (e) => done('error: ' + e));
  } else if (!mj) {
    done('absent');  // Sphinx adds MathJax (config, then script) only to pages with math
  } else if (Date.now() > limit) {
    done('MathJax configured but never loaded (is _static/mathjax served?)');
  } else {
    setTimeout(poll, 50);
  }
}
if (document.readyState === 'complete') { poll(); }
else { window.addEventListener('load', poll); }
"""

MATH_REPORT = """
const out = {elements: 0, containers: 0, untypeset: [], errors: [], rawText: []};
const maths = Array.from(document.querySelectorAll('.math'));
out.elements = maths.length;
out.containers = document.querySelectorAll('mjx-container').length;
for (const el of maths) {
  if (!el.querySelector('mjx-container')) { out.untypeset.push(el.textContent.trim().slice(0, 80)); }
}
const mj = window.MathJax;
if (mj && mj.startup && mj.startup.document && mj.startup.toMML) {
  for (const item of mj.startup.document.math) {
    const mml = mj.startup.toMML(item.root);
    const undefinedMacro = mml.match(/<mtext mathcolor="red">(\\\\[A-Za-z]+)<\\/mtext>/);
    if (/<merror/.test(mml)) { out.errors.push('TeX error in: ' + String(item.math).slice(0, 80)); }
    else if (undefinedMacro) {
      out.errors.push('undefined macro ' + undefinedMacro[1] + ' in: ' + String(item.math).slice(0, 80));
    }
  }
}
// Text outside code, scripts and MathJax output: raw TeX left there was never typeset.
const skip = 'pre, code, script, style, noscript, textarea, template, mjx-container, .highlight';
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.nodeValue;
  if ((text.includes('$$') || text.includes('\\\\frac')) && !node.parentElement.closest(skip)) {
    out.rawText.push(text.trim().slice(0, 80));
  }
}
return out;
"""

IMAGES_PENDING = """
const imgs = Array.from(document.images);
imgs.forEach((img) => { if (img.loading === 'lazy') { img.loading = 'eager'; } });
return imgs.filter((img) => !img.complete).length;
"""

BROKEN_IMAGES = """
return Array.from(document.images)
  .filter((img) => !(img.complete && img.naturalWidth > 0))
  .map((img) => img.getAttribute('src'));
"""

LINKS = """
return Array.from(document.querySelectorAll('a[href]')).map((a) => [
  a.getAttribute('href'), a.href, (a.textContent || '').trim().slice(0, 50)]);
"""

UNRESOLVED_XREFS = """
return Array.from(document.querySelectorAll('.xref'))
  .filter((el) => !el.closest('a'))
  .map((el) => el.textContent.trim().slice(0, 80));
"""

# Typeset display equations wider than the room they have. For each display (MathJax item
# with display=true), the box that limits it is the nearest ancestor-or-self whose overflow-x
# is not "visible" (it scrolls or clips its content); the display is too wide when that box's
# content is wider than the box (scrollWidth > clientWidth). When nothing clips, the
# typeset formula (mjx-math) is compared with the width of the block that holds the display.
# Displays inside closed dropdowns are measured too (closed dropdowns keep their layout width).
WIDE_DISPLAYS = """
const tol = arguments[0];
const out = [];
const mj = window.MathJax;
if (!(mj && mj.startup && mj.startup.document)) { return out; }
for (const item of mj.startup.document.math) {
  const box = item.typesetRoot;
  if (!item.display || !box || !box.isConnected) { continue; }
  const formula = box.querySelector('mjx-math') || box;
  let limiter = null;
  for (let el = box; el && el !== document.body; el = el.parentElement) {
    if (window.getComputedStyle(el).overflowX !== 'visible') { limiter = el; break; }
  }
  let excess;
  if (limiter) {
    excess = limiter.scrollWidth - limiter.clientWidth;
  } else {
    const block = box.parentElement;
    excess = formula.getBoundingClientRect().width - block.clientWidth;
  }
  if (excess > tol) {
    out.push([Math.round(excess), String(item.math).replace(/\\s+/g, ' ').trim().slice(0, 70)]);
  }
}
return out;
"""

# Images whose alt text does not describe them: empty, or a file name / path (myst-nb's
# default for a plot output is the image's path in _build).
BAD_ALT_IMAGES = """
return Array.from(document.images)
  .map((img) => [img.getAttribute('src') || '', (img.getAttribute('alt') || '').trim()])
  .filter(([src, alt]) => alt === '' || /\\.(png|jpe?g|svg|gif|webp)$/i.test(alt)
                          || alt.includes('/') || alt.includes('_build'));
"""

# Search controls a reader can see: text inputs for a search query, and buttons that open one.
VISIBLE_SEARCH_CONTROLS = """
const visible = (el) => {
  const r = el.getBoundingClientRect();
  const st = window.getComputedStyle(el);
  return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none'
    && parseFloat(st.opacity) > 0 && r.right > 0 && r.left < window.innerWidth;
};
const controls = Array.from(document.querySelectorAll(
  'input[type="search"], input[name="q"], button.search-button, .search-button__button'));
return Array.from(new Set(controls)).filter(visible).map((el) =>
  el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(/\\s+/).join('.') : ''));
"""

# Opens every dropdown of the page, nested ones included: sphinx-togglebutton's admonitions
# (sphinx-exercise solutions, ``:class: dropdown``) through the extension's own toggleHidden(),
# outer boxes first (document order), and every <details> (sphinx-design dropdowns, togglebutton's
# non-admonition toggles). Returns how many were opened.
OPEN_ALL_DROPDOWNS = """
let opened = 0;
for (const box of document.querySelectorAll('.admonition.toggle.toggle-hidden')) {
  const button = box.querySelector(':scope > .admonition-title .toggle-button');
  if (button && typeof toggleHidden === 'function') { toggleHidden(button); opened += 1; }
}
for (const details of document.querySelectorAll('details:not([open])')) {
  details.open = true; opened += 1;
}
return opened;
"""

# Code blocks (<pre>: code cells, their outputs, doctests, literal blocks, API signatures are
# not <pre>) that scroll sideways, or stick out of the article's column. Returns
# [excess px, where, start of the longest line]; hidden blocks (no box) are skipped.
WIDE_CODE_BLOCKS = """
const tol = arguments[0];
const column = document.querySelector('#main-content') || document.querySelector('article');
const colRight = column ? column.getBoundingClientRect().right : window.innerWidth;
const out = [];
const where = (el) => {
  const section = el.closest('section[id]');
  const kind = el.closest('.cell_output') ? 'output' : el.closest('.cell_input') ? 'code cell'
    : el.closest('.doctest, .highlight-pycon') ? 'doctest' : 'code block';
  const box = el.closest('.dropdown, .toggle');
  return kind + (box ? ' in a dropdown' : '') + (section ? ' in #' + section.id : '');
};
for (const pre of document.querySelectorAll('#main-content pre, article pre')) {
  const r = pre.getBoundingClientRect();
  if (r.width === 0 || pre.getClientRects().length === 0) { continue; }
  const boxes = [pre];
  if (pre.parentElement && pre.parentElement.classList.contains('highlight')) {
    boxes.push(pre.parentElement);
  }
  let excess = r.right - colRight;
  for (const b of boxes) { excess = Math.max(excess, b.scrollWidth - b.clientWidth); }
  if (excess > tol) {
    const longest = pre.textContent.split('\\n').reduce((a, b) => (b.length > a.length ? b : a), '');
    out.push([Math.round(excess), where(pre), longest.trim().slice(0, 60)]);
  }
}
return out;
"""

# The document scrolls sideways at the current (emulated) viewport width: returns null when it
# does not, otherwise [scrollWidth, viewport width, the outermost elements that stick out].
HORIZONTAL_OVERFLOW = """
const tol = arguments[0];
const vw = document.documentElement.clientWidth;
const sw = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
if (sw <= vw + tol) { return null; }
const culprits = [];
const clipped = (el) => {
  for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
    const st = window.getComputedStyle(a);
    if (st.overflowX !== 'visible' || st.position === 'fixed') { return true; }
  }
  return false;
};
for (const el of document.body.querySelectorAll('*')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.right <= vw + tol) { continue; }
  const parent = el.parentElement;
  if (parent && parent !== document.body && parent.getBoundingClientRect().right > vw + tol) {
    continue;  // its parent sticks out too: report the outermost element only
  }
  if (clipped(el)) { continue; }
  const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.className && typeof el.className === 'string'
       ? '.' + el.className.trim().split(/\\s+/).slice(0, 2).join('.') : '');
  const section = el.closest('section[id]');
  culprits.push(name + ' (' + Math.round(r.right - vw) + ' px'
    + (section ? ', #' + section.id : '') + ')');
  if (culprits.length >= 8) { break; }
}
return [sw, vw, culprits];
"""

FIRST_DROPDOWN_SOLUTION = """
return document.querySelector('.solution.dropdown, .admonition.dropdown');
"""

# sphinx-togglebutton hides a closed dropdown's content with height 0, opacity 0 and
# visibility: hidden (display stays block), so "shown" is read from the computed style.
DROPDOWN_CONTENT_SHOWN = """
const box = arguments[0];
const parts = Array.from(box.children).filter((c) => !c.classList.contains('admonition-title'));
return parts.length > 0 && parts.every((c) => {
  const style = window.getComputedStyle(c);
  return style.display !== 'none' && style.visibility !== 'hidden'
    && parseFloat(style.opacity) > 0 && c.getBoundingClientRect().height > 0;
});
"""


class _Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (key == "name" and tag == "a"):
                self.ids.add(value or "")


@cache
def ids_of(path: Path) -> frozenset[str]:
    """Every ``id`` (and ``<a name>``) in a built HTML file."""
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


def page_slug(docname: str) -> str:
    """Screenshot name of a page: ``book/01_pufferfish`` -> ``01_pufferfish``."""
    return posixpath.basename(docname)


def check_internal_link(href: str, resolved: str, base_url: str) -> str | None:
    """Why an internal link is broken, or None (external links are not followed: no network)."""
    if not resolved.startswith(base_url):
        return None
    parts = urlsplit(resolved)
    rel = unquote(parts.path)[len(urlsplit(base_url).path) :]
    target = HTML / rel
    if rel == "" or rel.endswith("/"):
        target = target / "index.html"
    if not target.is_file():
        return f"link {href!r}: no file {target.relative_to(HTML)} in the built book"
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in ids_of(target):
        return f"link {href!r}: no id {fragment!r} in {target.relative_to(HTML)}"
    return None


def _is_favicon_request(message: str) -> bool:
    """The browser's own request for /favicon.ico (the book has no favicon): not a page error."""
    return message.split(" ", 1)[0].endswith("/favicon.ico")


def wait_until(predicate, timeout: float, interval: float = 0.1) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def save_full_page_screenshot(driver, path: Path) -> None:
    """The whole page (capped at MAX_SHOT_HEIGHT px) through the DevTools protocol."""
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


def inspect_page(driver, base_url: str, docname: str, screenshot_dir: Path) -> list[str]:  # noqa: C901  one independent check of the page after another
    """Load one page and return its problems (an empty list when it is fine)."""
    from selenium.common.exceptions import WebDriverException

    problems: list[str] = []
    source = HTML / f"{docname}.html"
    if not source.is_file():
        return [f"not built: {source.relative_to(HTML)} does not exist"]
    driver.get_log("browser")  # drop what earlier pages logged
    url = urljoin(base_url, f"{docname}.html")
    try:
        driver.get(url)
    except WebDriverException as exc:
        return [f"did not load: {exc.msg}"]

    width = driver.execute_script("return window.innerWidth;")
    if width != WINDOW_WIDTH_PX:
        problems.append(f"window is {width} px wide, the checks assume {WINDOW_WIDTH_PX} px")

    # Mathematics
    state = driver.execute_async_script(WAIT_FOR_MATHJAX, MATHJAX_TIMEOUT_MS)
    math = driver.execute_script(MATH_REPORT)
    if math["elements"] and state != "typeset":
        problems.append(f"{math['elements']} math elements, but MathJax: {state}")
    if math["untypeset"]:
        problems.append(
            f"{len(math['untypeset'])} of {math['elements']} math elements not typeset, e.g. {math['untypeset'][:3]}"
        )
    if math["errors"]:
        problems.append(f"MathJax errors: {math['errors'][:5]}")
    if math["rawText"]:
        problems.append(f"raw TeX ($$ or \\frac) in the text: {math['rawText'][:3]}")

    # Images
    wait_until(lambda: driver.execute_script(IMAGES_PENDING) == 0, timeout=10)
    broken = driver.execute_script(BROKEN_IMAGES)
    if broken:
        problems.append(f"{len(broken)} image(s) did not load: {broken[:5]}")
    bad_alt = driver.execute_script(BAD_ALT_IMAGES)
    if bad_alt:
        problems.append(f"{len(bad_alt)} image(s) with an empty or file-name alt text ([src, alt]): {bad_alt[:5]}")

    # One search box
    search = driver.execute_script(VISIBLE_SEARCH_CONTROLS)
    if len(search) != 1:
        problems.append(f"{len(search)} visible search controls, expected exactly one: {search}")

    # Links and cross-references
    for href, resolved, text in driver.execute_script(LINKS):
        if href.startswith(("javascript:", "mailto:")) or href == "#":
            continue
        why = check_internal_link(href, resolved, base_url)
        if why:
            problems.append(f"{why} (link text {text!r})")
    unresolved = driver.execute_script(UNRESOLVED_XREFS)
    if unresolved:
        problems.append(f"unresolved cross-references: {unresolved}")

    # Screenshot as a reader first sees the page (before any scrolling: Chromium's beyond-viewport
    # capture draws a scrolled page with its sidebars shifted out of the picture)
    try:
        save_full_page_screenshot(driver, screenshot_dir / f"{page_slug(docname)}.png")
    except WebDriverException as exc:
        problems.append(f"screenshot failed: {exc.msg}")

    # A dropdown solution opens on click
    box = driver.execute_script(FIRST_DROPDOWN_SOLUTION)
    if box is not None:
        if driver.execute_script(DROPDOWN_CONTENT_SHOWN, box):
            problems.append("the first dropdown solution is open before any click")
        title = box.find_element("css selector", ".admonition-title")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", title)
        title.click()
        if not wait_until(lambda: driver.execute_script(DROPDOWN_CONTENT_SHOWN, box), timeout=5):
            problems.append("the first dropdown solution does not open when its title is clicked")

    # Every dropdown open (nested ones too): no code block or display wider than its column
    driver.execute_script(OPEN_ALL_DROPDOWNS)
    time.sleep(0.4)  # sphinx-togglebutton's 0.3 s opacity/height transition
    wide_code = driver.execute_script(WIDE_CODE_BLOCKS, OVERFLOW_TOLERANCE_PX)
    if wide_code:
        problems.append(
            f"{len(wide_code)} code block(s) wider than their column at "
            f"{WINDOW_WIDTH_PX} px, all dropdowns open ([excess px, where, longest "
            f"line]): {wide_code[:12]}"
        )
    wide = driver.execute_script(WIDE_DISPLAYS, OVERFLOW_TOLERANCE_PX) if state == "typeset" else []
    if wide:
        problems.append(
            f"{len(wide)} display equation(s) wider than their column with every "
            f"dropdown open ([excess px, TeX]): {wide}"
        )

    # Phone and tablet: nothing scrolls sideways (same page, dropdowns open, no reload; one
    # width after the other, the window's own width restored once: each relayout of a long
    # page costs seconds)
    try:
        for narrow, height in sorted(NARROW_WIDTHS.items(), reverse=True):
            set_viewport(driver, narrow, height)
            overflow = driver.execute_script(HORIZONTAL_OVERFLOW, OVERFLOW_TOLERANCE_PX)
            if overflow:
                problems.append(
                    f"at {narrow} px the page scrolls sideways (scrollWidth "
                    f"{overflow[0]} > {overflow[1]}); sticking out: {overflow[2]}"
                )
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # Console: JavaScript errors and failed resource loads (read last: covers the click too)
    for entry in driver.get_log("browser"):
        message = entry.get("message", "")
        if entry.get("level") == "SEVERE" and not _is_favicon_request(message):
            problems.append(f"console error: {message[:300]}")

    return problems


def set_viewport(driver, width: int, height: int) -> None:
    """Lay the page out at that viewport size: Chromium's DevTools
    ``Emulation.setDeviceMetricsOverride`` (CSS media queries, ``innerWidth`` and layout follow
    at once; no reload). ``Emulation.clearDeviceMetricsOverride`` restores the window's size."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    wait_until(lambda: driver.execute_script("return document.documentElement.clientWidth;") <= width, timeout=5)


class emulated_viewport:
    """``with emulated_viewport(driver, 390, 844):`` the page(s) laid out at that viewport size
    (``set_viewport``); the window's own 1280 px come back on exit."""

    def __init__(self, driver, width: int, height: int):
        self.driver, self.width, self.height = driver, width, height

    def __enter__(self):
        set_viewport(self.driver, self.width, self.height)
        return self

    def __exit__(self, *exc):
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return False


def test_toc_has_pages():
    assert PAGES, "_toc.yml lists no page"
    slugs = [page_slug(p) for p in PAGES]
    assert len(set(slugs)) == len(slugs), f"two pages would share a screenshot name: {slugs}"


@pytest.mark.parametrize("docname", PAGES)
def test_page(driver, base_url, screenshot_dir, docname):
    problems = inspect_page(driver, base_url, docname, screenshot_dir)
    assert not problems, f"page {docname}.html:\n  - " + "\n  - ".join(problems)
    assert (screenshot_dir / f"{page_slug(docname)}.png").stat().st_size > 0


def test_status_page_lists_every_chapter(driver, base_url):
    """The status page's {nb-exec-table} has one row, with a run time, per chapter notebook."""
    status = [p for p in PAGES if "{nb-exec-table}" in _page_source(p)]
    assert status, "no page of the toc has an {nb-exec-table} directive (book/status.md)"
    driver.get(urljoin(base_url, f"{status[0]}.html"))
    rows = driver.execute_script("""
      const tables = Array.from(document.querySelectorAll('table'))
        .filter((t) => /Run Time/.test(t.querySelector('thead') ? t.querySelector('thead').textContent : ''));
      if (!tables.length) { return null; }
      return Array.from(tables[0].querySelectorAll('tbody tr')).map((tr) =>
        Array.from(tr.querySelectorAll('td')).map((td) => td.textContent.trim()));
    """)
    assert rows is not None, f"{status[0]}.html: no execution table (column 'Run Time (s)')"
    by_doc = {row[0]: row for row in rows}
    missing = [nb for nb in toc_notebooks() if nb not in by_doc]
    assert not missing, f"{status[0]}.html: no execution-time row for {missing}"
    for nb in toc_notebooks():
        run_time = by_doc[nb][3]
        assert re.fullmatch(r"\d+(\.\d+)?", run_time), f"{status[0]}.html: {nb} run time {run_time!r}"


def _page_source(docname: str) -> str:
    path = ROOT / f"{docname}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


# --------------------------------------------------------------------------------------------
# Phones and tablets: the navigation drawer and the search, used as a reader uses them
# --------------------------------------------------------------------------------------------

# Elements a reader can see: a box inside the viewport, not hidden, not transparent, and on top
# at its centre (not covered by another element, e.g. a drawer's backdrop).
VISIBLE_ON_TOP = """
const el = arguments[0];
const r = el.getBoundingClientRect();
const st = window.getComputedStyle(el);
if (!(r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && parseFloat(st.opacity) > 0
      && r.right > 0 && r.bottom > 0 && r.left < window.innerWidth && r.top < window.innerHeight)) {
  return false;
}
const x = Math.min(Math.max(r.left + r.width / 2, 0), window.innerWidth - 1);
const y = Math.min(Math.max(r.top + r.height / 2, 0), window.innerHeight - 1);
const hit = document.elementFromPoint(x, y);
return !!hit && (hit === el || el.contains(hit) || hit.contains(el));
"""


def _narrow_page() -> str:
    """A chapter page (the second chapter notebook of the toc, else the first page)."""
    notebooks = toc_notebooks()
    return notebooks[min(1, len(notebooks) - 1)] if notebooks else PAGES[0]


def _load_narrow(driver, base_url: str, docname: str) -> None:
    driver.get(urljoin(base_url, f"{docname}.html"))
    driver.execute_async_script(WAIT_FOR_MATHJAX, MATHJAX_TIMEOUT_MS)
    time.sleep(0.3)  # the theme's and togglebutton's DOMContentLoaded handlers, layout


def _visible(driver, elements) -> list:
    return [el for el in elements if driver.execute_script(VISIBLE_ON_TOP, el)]


def _real_click(driver, element) -> None:
    """A mouse click at the element's position, as a reader's tap (not a scripted .click())."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element(element).pause(0.1).click().perform()


@pytest.mark.parametrize("width", list(NARROW_WIDTHS))
def test_narrow_navigation(driver, base_url, screenshot_dir, width):
    """At phone/tablet width the visible menu button opens the navigation, whose links work."""
    docname = _narrow_page()
    target = next((p for p in PAGES if p != docname and p in toc_notebooks()), None)
    assert target, "the toc needs a second chapter to navigate to"
    with emulated_viewport(driver, width, NARROW_WIDTHS[width]):
        _load_narrow(driver, base_url, docname)
        toggles = _visible(driver, driver.find_elements("css selector", ".primary-toggle"))
        assert len(toggles) == 1, (
            f"at {width} px: {len(toggles)} visible navigation buttons (.primary-toggle), expected one"
        )
        href = f"{page_slug(target)}.html"
        links = driver.find_elements("css selector", f'nav.bd-docs-nav a[href$="{href}"]')
        assert links, f"the navigation has no link to {href}"
        assert not _visible(driver, links), f"at {width} px the navigation is open before any click"
        driver.save_screenshot(str(screenshot_dir / f"chapter-{width}px.png"))

        _real_click(driver, toggles[0])
        opened = wait_until(lambda: bool(_visible(driver, links)), timeout=5)
        driver.save_screenshot(str(screenshot_dir / f"navigation-{width}px.png"))
        assert opened, (
            f"at {width} px a click on the visible navigation button does not open "
            "the navigation: its links stay hidden"
        )
        _real_click(driver, _visible(driver, links)[0])
        assert wait_until(lambda: driver.current_url.split("#")[0].endswith(href), timeout=10), (
            f"a click on {href} in the opened navigation did not load it ({driver.current_url})"
        )


SEARCH_RESULTS = """
const list = document.querySelector('#search-results ul.search, #search-results ul');
const status = document.querySelector('#search-results .search-summary, #search-results p');
return [list ? list.querySelectorAll('li').length : 0, status ? status.textContent.trim() : ''];
"""


@pytest.mark.parametrize("width", list(NARROW_WIDTHS))
def test_narrow_search(driver, base_url, screenshot_dir, width):
    """At phone/tablet width a search control is visible and a query finds pages, offline."""
    from selenium.webdriver.common.keys import Keys

    docname = _narrow_page()
    with emulated_viewport(driver, width, NARROW_WIDTHS[width]):
        _load_narrow(driver, base_url, docname)
        driver.get_log("browser")
        selector = (
            'input[type="search"], input[name="q"], button.search-button, .search-button__button, .search-button-field'
        )
        controls = _visible(driver, driver.find_elements("css selector", selector))
        assert controls, f"at {width} px no search control is visible"
        control = controls[0]
        if control.tag_name != "input":
            _real_click(driver, control)
            assert wait_until(
                lambda: bool(_visible(driver, driver.find_elements("css selector", 'input[name="q"]'))), timeout=5
            ), f"at {width} px a click on the search control shows no search field"
            control = _visible(driver, driver.find_elements("css selector", 'input[name="q"]'))[0]
        control.send_keys("divergence", Keys.ENTER)
        assert wait_until(lambda: "search.html" in driver.current_url, timeout=10), (
            f"the query did not open the search page ({driver.current_url})"
        )
        assert wait_until(lambda: driver.execute_script(SEARCH_RESULTS)[0] > 0, timeout=30), (
            f"at {width} px the search page lists no result for 'divergence': {driver.execute_script(SEARCH_RESULTS)}"
        )
        overflow = driver.execute_script(HORIZONTAL_OVERFLOW, OVERFLOW_TOLERANCE_PX)
        driver.save_screenshot(str(screenshot_dir / f"search-{width}px.png"))
        assert not overflow, f"at {width} px the search page scrolls sideways: {overflow}"
        errors = [
            e.get("message", "")[:300]
            for e in driver.get_log("browser")
            if e.get("level") == "SEVERE" and not _is_favicon_request(e.get("message", ""))
        ]
        assert not errors, f"console errors while searching: {errors}"
