"""Where the built book, the browser and the table of contents are (shared by the browser check).

Environment:

- ``RPP_CHROMIUM`` / ``RPP_CHROMEDRIVER``: the browser and its driver (default: Debian's
  ``/usr/bin/chromium`` and ``/usr/bin/chromedriver``, packages ``chromium`` and
  ``chromium-driver``). Selenium uses exactly these: it never downloads a browser or a driver.
- ``RPP_BOOK_HTML``: the built book (default ``_build/html``); screenshots go to
  ``RPP_SCREENSHOTS`` (default ``_build/screenshots``).
"""

from __future__ import annotations

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


def toc_docnames(node) -> list[str]:
    """Docnames of a ``_toc.yml`` (root first, then every ``file`` entry, in reading order)."""
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


def toc_pages() -> list[str]:
    """Every page of the book, read from ``_toc.yml`` (never a hard-coded list)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    names = toc_docnames(toc)
    return list(dict.fromkeys(n.removesuffix(".md").removesuffix(".ipynb") for n in names))


def toc_notebooks() -> list[str]:
    return [name for name in toc_pages() if (ROOT / f"{name}.ipynb").exists()]
