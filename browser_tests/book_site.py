"""Where the built book, the browser and the table of contents are (shared by the browser check).

Environment:

- ``RPP_CHROMIUM`` / ``RPP_CHROMEDRIVER``: the browser and its driver (default: Debian's
  ``/usr/bin/chromium`` and ``/usr/bin/chromedriver``, packages ``chromium`` and
  ``chromium-driver``). Selenium uses exactly these: it never downloads a browser or a driver.
- ``RPP_BOOK_HTML``: the built book (default ``_build/html``); screenshots go to
  ``RPP_SCREENSHOTS`` (default ``_build/screenshots``).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("RPP_BOOK_HTML", ROOT / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("RPP_SCREENSHOTS", ROOT / "_build" / "screenshots"))
CHROMIUM = os.environ.get("RPP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("RPP_CHROMEDRIVER", "/usr/bin/chromedriver")

#: Flags for a headless Chromium on a machine with no network: no background connections at all.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--window-size=1280,1600",
)


def _load_new_chapter():
    """tools/new_chapter.py reads and writes _toc.yml; reuse its reader."""
    spec = importlib.util.spec_from_file_location("new_chapter", ROOT / "tools" / "new_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def toc_docnames(node) -> list[str]:
    """Docnames of a parsed ``_toc.yml`` (root first, then every ``file`` entry, in reading order)."""
    return _load_new_chapter().toc_docnames(node)


def toc_pages() -> list[str]:
    """Every page of the book, read from ``_toc.yml`` (never a hard-coded list)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = toc_docnames(toc)
    return list(dict.fromkeys(n.removesuffix(".md").removesuffix(".ipynb") for n in names))


def toc_notebooks() -> list[str]:
    return [name for name in toc_pages() if (ROOT / f"{name}.ipynb").exists()]
