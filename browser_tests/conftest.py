"""Fixtures of the browser check: the built book served on localhost, and headless Chromium.

This folder is *not* under ``tests/``: ``make test`` (``pytest tests/``; pyproject's ``testpaths``)
never collects it, because it needs a built book and a browser. Run it with ``make browser-test``
after ``make book``; ``.ci/run`` does both. Paths and environment variables: ``book_site.py``.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest
from book_site import CHROMEDRIVER, CHROMIUM, CHROMIUM_FLAGS, HTML, SCREENSHOTS


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the signature of the base class
        pass


@pytest.fixture(scope="session")
def html_dir() -> Path:
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built book in {HTML}: run `make book` first", pytrace=False)
    return HTML


@pytest.fixture(scope="session")
def base_url(html_dir):
    """``http://127.0.0.1:<port>/``: ``_build/html`` served by http.server in a thread."""
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="book-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):  # pages removed from the toc leave no stale picture
        old.unlink()
    return SCREENSHOTS


@pytest.fixture(scope="session")
def driver(tmp_path_factory):
    """Headless Chromium through chromedriver, with a fresh profile, console logging on."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            pytest.fail(
                f"{path} not found: install Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver) or set RPP_CHROMIUM / "
                "RPP_CHROMEDRIVER",
                pytrace=False,
            )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_output=os.devnull)
    browser = webdriver.Chrome(options=options, service=service)
    browser.set_page_load_timeout(60)
    browser.set_script_timeout(60)
    try:
        yield browser
    finally:
        browser.quit()
